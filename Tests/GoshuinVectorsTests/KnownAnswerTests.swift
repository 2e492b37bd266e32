import Foundation
import GoshuinFormat
import GoshuinTestSupport
import GoshuinVectors
import Testing

/// The committed known-answer vectors pass, and a checker never passes a vector it should not.
@Suite struct KnownAnswerTests {
    static let directory = Fixtures.packageRoot + "/KnownAnswer"

    @Test(.slowTier) func committedVectorsAllPass() throws {
        let results = try VectorChecker.check(directory: Self.directory)
        #expect(results.count >= 50)
        for result in results where result.outcome != .passed {
            Issue.record("\(result.name): \(result.outcome.rawValue): \(result.detail)")
        }
        let expectations = Set(results.map(\.detail))
        for code in GoshuinError.Code.containerReadingCodes {
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
        return try VectorChecker.check(vectorAt: scratch.file("\(name).json"))
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

    @Test func aWrongKeyIsReportedWithTheComputedKey() throws {
        let vector = try String(contentsOfFile: Self.directory + "/auth-tag-bit.json", encoding: .utf8)
        let key = try #require(vector.firstMatch(of: /"key": "([0-9a-f]{64})"/)?.output.1)
        let result = try Self.checkEdited("auth-tag-bit") {
            $0 = $0.replacingOccurrences(of: String(key), with: String(repeating: "0", count: 64))
                .replacingOccurrences(of: "\"chunkIndex\": 1", with: "\"chunkIndex\": 2")
        }
        #expect(result.outcome == .failed)
        let keyProblem = try #require(result.problems.first { $0.check.hasPrefix("key") })
        #expect(keyProblem.expected == String(repeating: "0", count: 64) && keyProblem.computed == key)
        #expect(result.computed.map { Hex.encode($0.key) } == String(key))
        // Every problem, not just the first: the key, and the readers' chunk index, said once for all four.
        let readers = result.problems.filter { $0.check.contains("reader") && !$0.check.contains("plaintext") }
        #expect(readers.count == 1, "\(result.problems.map(\.description))")
        #expect(
            readers.allSatisfy {
                $0.expected == "chunk_damaged at chunk 2" && $0.computed == "chunk_damaged at chunk 1"
                    && $0.by == VectorChecker.readerNames && $0.check.hasPrefix("every reader (")
            })
    }

    @Test func aReleasedHashThatDiffersShowsBothHashes() throws {
        let result = try Self.checkEdited("auth-middle-chunk-ciphertext-bit") {
            $0.replace(
                #/"releasedSha256": "[0-9a-f]{64}"/#,
                with: "\"releasedSha256\": \"\(String(repeating: "1", count: 64))\"")
        }
        let problem = try #require(
            result.problems.first { $0.check.hasPrefix("plaintext released before failing by every in-order reader") })
        #expect(problem.by == ["streaming reader", "parallel reader", "random-access reader (in order)"])
        #expect(problem.expected == "2048 bytes with SHA-256 " + String(repeating: "1", count: 64))
        #expect(problem.computed.hasPrefix("2048 bytes with SHA-256 ") && !problem.computed.hasSuffix("1111"))
    }

    @Test func aResealThatDiffersSaysWhere() throws {
        let result = try Self.checkEdited("success-four-chunks") {
            $0.replace(#/"nonceBase": "[0-9a-f]{16}"/#, with: "\"nonceBase\": \"0011223344556677\"")
        }
        let reseals = result.problems.filter { $0.check.hasPrefix("re-seal") }
        #expect(reseals.count == 1, "the streaming, the parallel and the piecewise sealer agree: said once")
        #expect(reseals.first?.by == VectorChecker.sealerNames)
        #expect(reseals.allSatisfy { $0.computed.contains("at offset 25, in the header field nonceBase") })
        #expect(
            VectorRunLocation.describe(45 + 1_044 + 4 + 10, chunkSize: 1_024, length: 3 * 1_024 + 700)
                == "at offset 1103, in chunk 1: byte 14 of its record, its ciphertext, byte 10")
    }

    @Test func chunkIndexIsRequiredWithAChunkCode() throws {
        let result = try Self.checkEdited("auth-tag-bit") {
            $0 = $0.replacingOccurrences(of: "\"chunkIndex\": 1,\n", with: "")
        }
        #expect(result.outcome == .malformed && result.detail.contains("needs chunkIndex"), "\(result.detail)")
    }

    @Test func namesAndStrayFilesAreReportedPrecisely() throws {
        let scratch = TemporaryDirectory()
        scratch.write("package.json", Array(#"{"name": "x", "version": "1.0.0"}"#.utf8))
        #expect(try VectorChecker.check(vectorAt: scratch.file("package.json")).outcome == .skipped)
        let renamed = try Self.checkEdited("success-1-byte") {
            $0 = $0.replacingOccurrences(of: "\"name\": \"success-1-byte\"", with: "\"name\": \"success-2-bytes\"")
        }
        #expect(
            renamed.outcome == .malformed && renamed.detail.contains("\"success-2-bytes\"")
                && renamed.detail.contains("\"success-1-byte\""))
        let invalid = try Self.checkEdited("success-1-byte") {
            $0 = $0.replacingOccurrences(of: "\"name\": \"success-1-byte\"", with: "\"name\": \"Success-1-byte\"")
        }
        #expect(invalid.outcome == .malformed && invalid.detail.contains("[a-z0-9]"), "\(invalid.detail)")
    }

    /// Copies committed vector `name` into `scratch` as vector `newName`, its files renamed by `files` (old
    /// name to new), its JSON edited by `edit` after the renaming.
    static func copy(
        _ name: String, as newName: String, files: [String: String], into scratch: TemporaryDirectory,
        _ edit: (inout String) -> Void = { _ in }
    ) throws {
        var text = try String(contentsOfFile: directory + "/\(name).json", encoding: .utf8)
        text = text.replacingOccurrences(of: "\"name\": \"\(name)\"", with: "\"name\": \"\(newName)\"")
        for (old, new) in files {
            text = text.replacingOccurrences(of: "\"\(old)\"", with: "\"\(new)\"")
            try FileManager.default.copyItem(atPath: directory + "/" + old, toPath: scratch.file(new))
        }
        edit(&text)
        try text.write(toFile: scratch.file("\(newName).json"), atomically: false, encoding: .utf8)
    }

    /// vectors-v1 §1: every valid NAME's NAME.goshuin and NAME.plaintext are valid file names (the longest
    /// NAME too), a checker takes any plain file name, and a NAME holds no "..", as a file name does not.
    @Test func theFilesOfEveryValidNameAreValidFileNames() throws {
        let scratch = TemporaryDirectory()
        let longest = "success-256-chunks-" + String(repeating: "x", count: 81)
        #expect(longest.utf8.count == 100)
        try Self.copy(
            "success-256-chunks", as: longest,
            files: [
                "success-256-chunks.goshuin": longest + ".goshuin",
                "success-256-chunks.plaintext": longest + ".plaintext",
            ],
            into: scratch)
        let result = try VectorChecker.check(vectorAt: scratch.file(longest + ".json"))
        #expect(result.outcome == .passed, "\(result.detail)")
        try Self.copy(
            "success-1-byte", as: "their-name", files: ["success-1-byte.goshuin": "sealed.bin"], into: scratch)
        let renamed = try VectorChecker.check(vectorAt: scratch.file("their-name.json"))
        #expect(renamed.outcome == .passed, "\(renamed.detail)")
        try Self.copy(
            "success-1-byte", as: "two..dots", files: ["success-1-byte.goshuin": "two-dots.goshuin"], into: scratch)
        let dots = try VectorChecker.check(vectorAt: scratch.file("two..dots.json"))
        #expect(dots.outcome == .malformed && dots.detail.contains("without \"..\""), "\(dots.detail)")
        try Self.copy(
            "success-1-byte", as: "one-more", files: ["success-1-byte.goshuin": longest + ".plaintext.x"], into: scratch
        )
        let tooLong = try VectorChecker.check(vectorAt: scratch.file("one-more.json"))
        #expect(tooLong.outcome == .malformed && tooLong.detail.contains("{0,109}"), "\(tooLong.detail)")
    }

    /// vectors-v1 §3: what is wrong with the vector itself (its files, their hashes, its fileSize) makes it
    /// malformed; what this implementation computes otherwise makes it fail.
    @Test func theVectorsOwnFaultsAreMalformedAndDisagreementsFail() throws {
        let sha = try Self.checkEdited("success-1-byte") {
            $0.replace(
                #/"fileSha256": "[0-9a-f]{64}"/#, with: "\"fileSha256\": \"\(String(repeating: "0", count: 64))\"")
        }
        #expect(sha.outcome == .malformed, "\(sha.detail)")
        let size = try Self.checkEdited("v2-structure-records-2-32-plus-1") {
            $0.replace(#/"fileSize": [0-9]+/#, with: "\"fileSize\": 10")
        }
        #expect(size.outcome == .malformed && size.detail.contains("fileSize"), "\(size.detail)")
        let notJSON = TemporaryDirectory()
        notJSON.write("broken.json", Array("{\"format\": \"goshuin-known-answer\",".utf8))
        #expect(try VectorChecker.check(vectorAt: notJSON.file("broken.json")).outcome == .malformed)
        let key = try Self.checkEdited("success-1-byte") {
            $0.replace(#/"key": "[0-9a-f]{64}"/#, with: "\"key\": \"\(String(repeating: "0", count: 64))\"")
        }
        #expect(key.outcome == .failed, "\(key.detail)")
    }

    /// vectors-v1 §2: `plaintextHex` holds at most 4,096 bytes of payload, 8,192 hex digits.
    @Test func theInlinePlaintextIsCountedInBytes() throws {
        let tooLong = try Self.checkEdited("success-1-byte") {
            $0.replace(
                #/"plaintextHex": "[0-9a-f]*"/#, with: "\"plaintextHex\": \"\(String(repeating: "ab", count: 4_097))\"")
        }
        #expect(tooLong.outcome == .malformed)
        let problem = try #require(tooLong.problems.first { $0.check == "key \"plaintextHex\"" })
        #expect(problem.expected.contains("4096 plaintext bytes (8192 hex digits)") && problem.computed == "4097 bytes")
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
