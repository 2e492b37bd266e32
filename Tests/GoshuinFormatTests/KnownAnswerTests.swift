import Foundation
import GoshuinFormat
import Testing

/// The committed known-answer vectors pass, and a checker never passes a vector it should not.
@Suite struct KnownAnswerTests {
    static let directory = Fixtures.packageRoot + "/KnownAnswer"

    @Test func committedVectorsAllPass() throws {
        let results = try VectorChecker.check(directory: Self.directory)
        #expect(results.count >= 50)
        for result in results where result.outcome != .passed {
            Issue.record("\(result.name): \(result.outcome.rawValue): \(result.detail)")
        }
        let expectations = Set(results.map(\.detail))
        for code in GoshuinError.Code.allCases where code.isContainerReadingCode {
            #expect(expectations.contains { $0.hasPrefix(code.rawValue) }, "no vector expects \(code.rawValue)")
        }
    }

    /// Copies one committed vector into a scratch directory, lets `edit` change its JSON, and checks it.
    static func checkEdited(_ name: String, _ edit: (inout String) -> Void) throws -> VectorCheckResult {
        let scratch = TemporaryDirectory()
        let source = try String(contentsOfFile: Self.directory + "/\(name).json", encoding: .utf8)
        var text = source
        edit(&text)
        try text.write(toFile: scratch.file("\(name).json"), atomically: false, encoding: .utf8)
        for suffix in [".goshuin", ".plaintext"]
        where FileManager.default.fileExists(atPath: Self.directory + "/" + name + suffix) {
            try FileManager.default.copyItem(
                atPath: Self.directory + "/" + name + suffix, toPath: scratch.file(name + suffix))
        }
        return VectorChecker.check(vectorAt: scratch.file("\(name).json"))
    }

    @Test func unchangedCopyPasses() throws {
        #expect(try Self.checkEdited("success-1-byte") { _ in }.outcome == .passed)
    }

    @Test func wrongExpectationFails() throws {
        let result = try Self.checkEdited("structure-trailing-one-byte") {
            $0 = $0.replacingOccurrences(of: "\"trailing_data\"", with: "\"truncated\"")
        }
        #expect(result.outcome == .failed)
    }

    @Test func wrongKeyFails() throws {
        let original = try String(contentsOfFile: Self.directory + "/success-1-byte.json", encoding: .utf8)
        let keyRange = try #require(original.range(of: #""key": ""#))
        let result = try Self.checkEdited("success-1-byte") { text in
            let start = text.index(keyRange.upperBound, offsetBy: 0)
            text.replaceSubrange(start..<text.index(after: start), with: text[start] == "0" ? "1" : "0")
        }
        #expect(result.outcome == .failed)
    }

    @Test(arguments: [
        ("\"comment\"", "\"comment\": \"x\", \"comment\""),  // duplicate key
        ("\"comment\"", "\"purchases\": 1, \"comment\""),  // unknown key
        ("\"version\": 1", "\"version\": 2"),
        ("\"version\": 1", "\"version\": 1.0"),
        ("\"success\"", "\"io\""),  // not a reading code
    ])
    func malformedVectorsNeverPass(find: String, replace: String) throws {
        let result = try Self.checkEdited("success-1-byte") { text in
            if let range = text.range(of: find) { text.replaceSubrange(range, with: replace) }
        }
        #expect(result.outcome == .malformed)
    }

    @Test func fileNameMayNotLeaveTheDirectory() throws {
        let result = try Self.checkEdited("success-1-byte") {
            $0 = $0.replacingOccurrences(of: "\"success-1-byte.goshuin\"", with: "\"../success-1-byte.goshuin\"")
        }
        #expect(result.outcome == .malformed)
    }

    @Test func generatedRandomSetPasses() throws {
        let scratch = TemporaryDirectory()
        var generator = VectorGenerator(seed: 20_261_129)
        try generator.writeRandomSet(count: 24, to: scratch.path)
        let results = try VectorChecker.check(directory: scratch.path)
        #expect(results.count == 24)
        for result in results where result.outcome != .passed {
            Issue.record("\(result.name): \(result.detail)")
        }
    }
}
