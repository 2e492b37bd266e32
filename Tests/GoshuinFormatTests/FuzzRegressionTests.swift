import Foundation
import GoshuinFuzzTargets
import Testing

/// Replays `Fuzz/Regressions/<harness>/` (every input a fuzzer ever found, and hand-made edge inputs) through
/// the same harness bodies the fuzzers run: a broken invariant traps, failing the test run.
@Suite struct FuzzRegressionTests {
    static let regressionsDirectory = Fixtures.packageRoot + "/Fuzz/Regressions"

    static func inputNames(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test(arguments: FuzzHarness.all)
    func replaysEveryRegressionInput(of harness: FuzzHarness) throws {
        let directory = Self.regressionsDirectory + "/" + harness.name
        let names = try Self.inputNames(in: directory)
        #expect(!names.isEmpty, "Fuzz/Regressions/\(harness.name)/ starts with at least the empty input")
        for name in names {
            harness.run(Fixtures.readBytes(directory + "/" + name))
        }
    }

    @Test func everyRegressionFolderHasItsHarness() throws {
        let harnessNames = Set(FuzzHarness.all.map(\.name))
        for folder in try Self.inputNames(in: Self.regressionsDirectory) {
            #expect(harnessNames.contains(folder), "Fuzz/Regressions/\(folder)/ has no harness in FuzzHarness.all")
        }
    }
}
