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
        let result = try check()
        #expect(result.status == 1)
        // The report's layout is what is checked here (each mismatch on one line, naming who agrees; the cause
        // first): a mistaken sealer's vectors, made here with random salts, cannot be a transcript.
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let causes = lines.filter { $0.hasPrefix("  likely cause") }
        #expect(causes.count == 1 && causes.first?.hasPrefix("  likely cause (\(cause)): ") == true, "\(result.stdout)")
        // Each mismatch once: one verdict line for the readers that agree, one line for the sealers.
        let verdicts = lines.filter { $0.hasPrefix("  every reader (") || $0.hasPrefix("  streaming reader") }
        #expect(verdicts.count == 1 && verdicts[0].hasPrefix("  every reader ("), "\(result.stdout)")
        let reseals = lines.filter { $0.hasPrefix("  re-seal") }
        #expect(reseals.count == 1 && reseals[0].hasPrefix("  re-seal by every sealer ("), "\(result.stdout)")
        #expect(lines.filter { $0.hasPrefix("  plaintext opened by") }.count <= 1, "\(result.stdout)")
        // --json says the same: the same problems, each once, naming who computed it, and the cause.
        let vector = try #require(try vectors(try check([".", "--json"])).first)
        let likely = try #require(vector["likelyCauses"] as? [[String: Any]])
        #expect(likely.map { $0["cause"] as? String } == [cause])
        let problems = try #require(vector["problems"] as? [[String: Any]])
        #expect(problems.count == lines.filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.count - 2)
        let checks = problems.compactMap { $0["check"] as? String }
        #expect(Set(checks).count == checks.count, "\(checks)")
        let resealProblem = try #require(problems.first { ($0["check"] as? String)?.hasPrefix("re-seal") == true })
        #expect(resealProblem["by"] as? [String] == ["streaming sealer", "parallel sealer", "piecewise sealer"])
    }

    /// A third party's valid vector sealed with an empty passphrase: a writer must refuse one, a reader must
    /// open the file, so the vector passes on its readers and says that it was not sealed again and why.
    @Test(arguments: [FormatVersion.v1, .v2])
    func aValidVectorWithAnEmptyPassphrasePassesUnsealed(version: FormatVersion) throws {
        var sealer = ThirdPartySealer(version: version)
        sealer.passphrase = []
        try sealer.writeSuccessVector("theirs-empty-passphrase", plaintext: Self.plaintext, to: directory.path)
        let result = try check()
        #expect(result.status == 0, "\(result.stdout)")
        // What was not checked, and why, is the subject: a vector made here, which cannot be a transcript.
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("ok theirs-empty") })
        #expect(line.contains("success from all 4 readers;") && !line.contains("re-sealed by"), "\(line)")
        #expect(line.contains("not re-sealed: its passphrase is empty, which every writer must refuse"), "\(line)")
        let vector = try #require(try vectors(try check([".", "--json"])).first)
        #expect(vector["outcome"] as? String == "passed")
        #expect((vector["notes"] as? [String])?.first?.hasPrefix("not re-sealed: its passphrase is empty") == true)
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
        let result = try check()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(
            result.stdout.contains("not re-sealed: its passphrase has 5120 bytes, more than the 4096"),
            "\(result.stdout)")
    }
}
