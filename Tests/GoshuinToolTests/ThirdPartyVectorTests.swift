import Foundation
import GoshuinFormat
import Testing

/// `goshuin-tool check` on vectors another implementation made with its own sealer: a mistaken sealer's
/// mismatch is said once, with the readers and sealers that agree, and named by its likely cause; a valid
/// vector whose passphrase the toolkit does not seal with passes, saying what was not checked.
@Suite struct ThirdPartyVectorTests {
    let directory = Scratch()
    /// Three chunks, the last short.
    static let plaintext = (0..<2_500).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    /// Two whole chunks.
    static let wholeChunks = Array(plaintext.prefix(2_048))

    func check(_ arguments: [String] = ["."]) throws -> ToolRunner.Result {
        try ToolRunner.run(["check"] + arguments, in: directory.path)
    }

    func vectors(_ result: ToolRunner.Result) throws -> [[String: Any]] {
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        return try #require(summary["vectors"] as? [[String: Any]])
    }

    @Test(arguments: [FormatVersion.v1, .v2])
    func aCorrectSealerWrittenHereFromTheSpecPasses(version: FormatVersion) throws {
        let sealer = ThirdPartySealer(version: version)
        try sealer.writeSuccessVector("theirs-three-chunks", plaintext: Self.plaintext, to: directory.path)
        try sealer.writeSuccessVector("theirs-whole-chunks", plaintext: Self.wholeChunks, to: directory.path)
        let result = try check([".", "--json"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.json?["passed"] as? Int == 2 && result.json?["failed"] as? Int == 0, "\(result.stdout)")
    }

    @Test(arguments: [
        (FormatVersion.v1, ThirdPartySealer.Mistake.nonceIndexLittleEndian, "nonce_byte_order"),
        (.v2, .nonceIndexLittleEndian, "nonce_byte_order"),
        (.v2, .finalFlagMissing, "final_flag_missing"),
        (.v2, .finalFlagOnEveryRecord, "final_flag_too_early"),
        (.v2, .emptyFinalRecordLeftOut, "empty_final_record_missing"),
        (.v1, .additionalDataMissing, "aad_missing"),
        (.v2, .additionalDataMissing, "aad_missing"),
        (.v2, .additionalDataWithoutHeaderMac, "aad_without_header_mac"),
    ])
    func aMistakenSealerIsNamedOnceWithItsLikelyCause(
        version: FormatVersion, mistake: ThirdPartySealer.Mistake, cause: String
    ) throws {
        let plaintext = mistake == .emptyFinalRecordLeftOut ? Self.wholeChunks : Self.plaintext
        try ThirdPartySealer(version: version, mistake: mistake).writeSuccessVector(
            "theirs", plaintext: plaintext, to: directory.path)
        // Each mismatch once, after the likely cause, in words: check-their-vectors.txt (one of these, made with
        // fixed salts); here, every mistake, by the report's JSON, and its text one line per problem.
        let result = try check()
        #expect(result.status == 1)
        let problemLines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
        let vector = try #require(try vectors(try check([".", "--json"])).first)
        let likely = try #require(vector["likelyCauses"] as? [[String: Any]])
        #expect(likely.map { $0["cause"] as? String } == [cause])
        let problems = try #require(vector["problems"] as? [[String: Any]])
        // Its text: a line per problem, the likely cause and what was computed here.
        #expect(problems.count == problemLines.count - 2, "\(result.stdout)")
        let checks = problems.compactMap { $0["check"] as? String }
        #expect(Set(checks).count == checks.count, "\(checks)")
        // Those that agree share their problem: one verdict by every reader, at most one plaintext by the
        // in-order readers, one re-seal by every sealer.
        let by = problems.map { $0["by"] as? [String] ?? [] }
        #expect(by.filter { $0.count == 4 && $0.first == "streaming reader" }.count == 1, "\(by)")
        #expect(by.filter { $0.count == 3 && $0.first == "streaming reader" }.count <= 1, "\(by)")
        #expect(by.filter { $0 == ["streaming sealer", "parallel sealer", "piecewise sealer"] }.count == 1, "\(by)")
        #expect(by.allSatisfy { !$0.isEmpty } && by.count == problems.count, "every problem names who computed it")
    }

    /// A third party's valid vector sealed with an empty passphrase: a writer must refuse one, a reader must
    /// open the file, so the vector passes on its readers and says that it was not sealed again and why.
    @Test(arguments: [FormatVersion.v1, .v2])
    func aValidVectorWithAnEmptyPassphrasePassesUnsealed(version: FormatVersion) throws {
        var sealer = ThirdPartySealer(version: version)
        sealer.passphrase = []
        try sealer.writeSuccessVector("theirs-empty-passphrase", plaintext: Self.plaintext, to: directory.path)
        // What was not checked, and why, in words: check-their-vectors.txt.
        let result = try check([".", "--json"])
        #expect(result.status == 0, "\(result.stdout)")
        let vector = try #require(try vectors(result).first)
        #expect(vector["outcome"] as? String == "passed" && (vector["notes"] as? [String])?.count == 1)
        let reseals = (vector["computed"] as? [String: Any])?["reseals"] as? [Any]
        #expect(reseals?.isEmpty ?? true, "not sealed again: \(vector)")
        // The same file under another passphrase still fails: the readers did run.
        var wrong = try String(
            contentsOfFile: directory.path + "/theirs-empty-passphrase.json", encoding: .utf8)
        wrong = wrong.replacingOccurrences(of: "\"passphrase\" : \"\"", with: "\"passphrase\" : \"x\"")
        try wrong.write(toFile: directory.path + "/theirs-empty-passphrase.json", atomically: false, encoding: .utf8)
        #expect(try check().status == 1)
    }

    /// A passphrase longer than the toolkit's bound is valid in the format: its vector passes on its
    /// readers, not sealed again, and says why.
    @Test func aValidVectorWithAPassphraseLongerThanTheToolkitSealsPassesUnsealed() throws {
        var sealer = ThirdPartySealer(version: .v2)
        sealer.passphrase = Array(String(repeating: "long passphrase ", count: 320).utf8)
        try sealer.writeSuccessVector("theirs-long-passphrase", plaintext: Self.plaintext, to: directory.path)
        // What was not checked, and why, in words: check-their-vectors.txt.
        let result = try check([".", "--json"])
        #expect(result.status == 0, "\(result.stdout)")
        let vector = try #require(try vectors(result).first)
        #expect(vector["outcome"] as? String == "passed" && (vector["notes"] as? [String])?.count == 1)
    }
}
