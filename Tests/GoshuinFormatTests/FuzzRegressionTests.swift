import Foundation
@_spi(Fuzzing) import GoshuinFuzzTargets
import GoshuinTestSupport
import Testing

/// Replays `Fuzz/Regressions/<harness>/` (every input a fuzzer ever found, and hand-made edge inputs) through
/// the same harness bodies the fuzzers run. A broken invariant traps, as the fuzzers need; so each harness
/// replays in a child process of its own (an exit test), and a trap there is this harness's failing test,
/// with the harness's message, while every other test runs on.
@Suite(.slowTier) struct FuzzRegressionTests {
    static let regressionsDirectory = Fixtures.packageRoot + "/Fuzz/Regressions"

    static func inputNames(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test(arguments: FuzzHarness.all)
    func replaysEveryRegressionInput(of harness: FuzzHarness) async throws {
        let directory = Self.regressionsDirectory + "/" + harness.name
        #expect(
            !(try Self.inputNames(in: directory)).isEmpty,
            "Fuzz/Regressions/\(harness.name)/ starts with the empty input")
        let replayed = await #expect(processExitsWith: .success) { [name = harness.name as String] in
            Self.replay(name)
        }
        guard replayed == nil else { return }
        // It failed: once more, to show what the harness said before it trapped.
        let failure = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [name = harness.name as String] in
            Self.replay(name)
        }
        if let failure {
            Issue.record(Comment(rawValue: String(decoding: failure.standardErrorContent, as: UTF8.self)))
        }
    }

    /// Runs every regression input of the harness `name` (in an exit test's child process).
    static func replay(_ name: String) {
        guard let harness = FuzzHarness.all.first(where: { $0.name == name }),
            let inputs = try? inputNames(in: regressionsDirectory + "/" + name)
        else { exit(2) }
        for input in inputs { harness.run(Fixtures.readBytes(regressionsDirectory + "/" + name + "/" + input)) }
    }

    @Test func everyRegressionFolderHasItsHarness() throws {
        let harnessNames = Set(FuzzHarness.all.map(\.name))
        for folder in try Self.inputNames(in: Self.regressionsDirectory) {
            #expect(harnessNames.contains(folder), "Fuzz/Regressions/\(folder)/ has no harness in FuzzHarness.all")
        }
    }
}
