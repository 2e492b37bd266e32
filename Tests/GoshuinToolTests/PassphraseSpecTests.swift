import Foundation
import GoshuinFormat
import Testing

/// What `Spec/container-v1.md` §4, §4.1 and §6 (and `container-v2.md` §6) say about passphrases and a
/// writer's refusals is what goshuin-tool does (issue 25, item 13).
@Suite struct PassphraseSpecTests {
    let directory = Scratch()
    static let notes = Array("notes that are sealed with a passphrase\n".utf8)

    func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:]) throws
        -> ToolRunner.Result
    {
        try ToolRunner.run(arguments, in: directory.path, stdin: stdin, environment: environment)
    }

    static func spec(_ name: String, section: String) throws -> String {
        let text = try String(contentsOfFile: ToolRunner.packageRoot + "/Spec/" + name, encoding: .utf8)
        return try #require(text.components(separatedBy: section).dropFirst().first).components(separatedBy: "\n## ")[0]
    }

    /// §4.1: a passphrase file gives the bytes before its first LF, less one CR; everything else is kept.
    @Test func aPassphraseFileIsItsFirstLineLessOneCR() throws {
        directory.write("notes.txt", Self.notes)
        directory.write("key", Array("  two words\r\r\nthe second line is not read".utf8))
        let sealed = try run([
            "seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000", "--passphrase-file", "key",
        ])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let kept = try run(["verify", "notes.goshuin"], environment: ["GOSHUIN_PASSPHRASE": "  two words\r"])
        #expect(kept.status == 0, "\(kept.stderr)")
        for other in ["  two words", "two words\r", "  two words\r\r"] {
            let wrong = try run(["verify", "notes.goshuin"], environment: ["GOSHUIN_PASSPHRASE": other])
            #expect(wrong.status == 65 && wrong.errorCode == "auth_failed", "\(other.debugDescription)")
        }
        let section = try Self.spec("container-v1.md", section: "### 4.1")
        #expect(section.contains("the bytes before the first LF (`0A`)") && section.contains("less one CR (`0D`)"))
    }

    /// §4.1: GOSHUIN_PASSPHRASE set but empty is refused for every command, naming the variable, before any
    /// work, with the code the spec's table lists (`empty_passphrase`, §8) and exit 64, not as a wrong
    /// passphrase (the first-use test of the same case keeps its message and status).
    @Test func anEmptyPassphraseVariableIsRefusedWithTheTablesCode() throws {
        directory.write("notes.txt", Self.notes)
        let sealed = try run(
            ["seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000"],
            environment: ["GOSHUIN_PASSPHRASE": "a passphrase of words"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        for arguments in [
            ["open", "notes.goshuin", "-o", "x"], ["verify", "notes.goshuin"],
            ["seal", "notes.txt", "-o", "y.goshuin"],
        ] {
            let result = try run(arguments, environment: ["GOSHUIN_PASSPHRASE": ""])
            // Its words, naming the variable and the way to an empty passphrase: passphrase-sources.txt.
            #expect(result.status == 64 && result.errorCode == "empty_passphrase", "\(arguments): \(result.stderr)")
        }
        #expect(!directory.exists("x") && !directory.exists("y.goshuin"))
        let table = try Self.spec("container-v1.md", section: "## 8. Error codes")
        #expect(table.contains("| `empty_passphrase` | sealing with an empty passphrase (§4), or GOSHUIN_PASSPHRASE"))
    }

    /// §4: a reader opens a file another writer sealed with an empty passphrase; goshuin-tool is given one by
    /// an empty file (§4.1), while `seal` refuses one from every source.
    @Test(arguments: [FormatVersion.v1, .v2])
    func aFileSealedWithAnEmptyPassphraseOpensFromAnEmptyFile(version: FormatVersion) throws {
        var theirs = ThirdPartySealer(version: version)
        theirs.passphrase = []
        directory.write("theirs.goshuin", try theirs.seal(Self.notes))
        directory.write("empty-key", [])
        for (number, source) in ["/dev/null", "empty-key"].enumerated() {
            let opened = try run(["open", "theirs.goshuin", "-o", "out\(number)", "--passphrase-file", source])
            #expect(opened.status == 0 && directory.bytes("out\(number)") == Self.notes, "\(source): \(opened.stderr)")
        }
        directory.write("notes.txt", Self.notes)
        let refused = try run(["seal", "notes.txt", "-o", "mine.goshuin", "--passphrase-file", "empty-key"])
        #expect(refused.status == 64 && refused.errorCode == "empty_passphrase", "\(refused.stderr)")
        #expect(!directory.exists("mine.goshuin"))
    }

    /// §4.1: bytes that are not UTF-8 seal and open, with a warning when sealing: the app could not type them.
    @Test func aPassphraseThatIsNotUTF8IsSealedWithAWarning() throws {
        directory.write("notes.txt", Self.notes)
        directory.write("binary-key", [0x6B, 0x65, 0x79, 0xFF, 0xFE, 0x20, 0x66, 0x69, 0x6C, 0x65, 0xC3, 0x28])
        let sealed = try run([
            "seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000", "--passphrase-file", "binary-key",
        ])
        // The warning, in words: passphrase-sources.txt.
        #expect(sealed.status == 0 && ToolRunner.notices(in: sealed.stderr).count == 1, "\(sealed.stderr)")
        let opened = try run(["verify", "notes.goshuin", "--passphrase-file", "binary-key"])
        #expect(opened.status == 0 && opened.stderr.isEmpty, "no warning when opening: \(opened.stderr)")
        directory.write("text-key", Array("ヂ and チ\u{3099} are two passphrases\n".utf8))
        let text = try run([
            "seal", "notes.txt", "-o", "text.goshuin", "--iterations", "1000", "--passphrase-file", "text-key",
        ])
        #expect(text.status == 0 && ToolRunner.notices(in: text.stderr).isEmpty, "no warning: \(text.stderr)")
    }

    /// container-v1 §6 and container-v2 §6: a writer's refusals in one order (the parameters, the payload of
    /// known length, the passphrase), and a stream's payload only once it is read, after the passphrase.
    @Test func aWritersRefusalsComeInTheSpecsOrder() throws {
        directory.write("notes.txt", Self.notes)
        directory.write("empty.txt", [])
        directory.write("empty-key", [])
        directory.write("key", Array("a passphrase of several words".utf8))
        let cases: [(arguments: [String], code: String)] = [
            (["seal", "empty.txt", "--iterations", "999", "--chunk-size", "1000"], "iterations_out_of_range"),
            (["seal", "empty.txt", "--chunk-size", "1000"], "chunk_size_out_of_range"),
            (["seal", "empty.txt"], "empty_payload"),
            (["seal", "empty.txt", "--format", "2"], "empty_payload"),
            (["seal", "notes.txt"], "empty_passphrase"),
            (["seal", "-", "--format", "2"], "empty_passphrase"),
        ]
        for (arguments, code) in cases {
            let result = try run(arguments + ["-o", "out.goshuin", "--passphrase-file", "empty-key"])
            #expect(result.errorCode == code, "\(arguments): \(result.stderr)")
            #expect(!directory.exists("out.goshuin"))
        }
        let stream = try run(["seal", "-", "--format", "2", "-o", "out.goshuin", "--passphrase-file", "key"])
        #expect(stream.errorCode == "empty_payload", "\(stream.stderr)")
        // The specs say the same, and version 2's writer may refuse an empty payload: a policy, not the format.
        let v1 = try Self.spec("container-v1.md", section: "## 6. Writing")
        let order = [
            "`iterations_out_of_range`", "`chunk_size_out_of_range`", "`invalid_argument`", "`empty_payload`",
            "`too_many_chunks`", "`empty_passphrase`",
        ].map { v1.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(v1)")
        let v2 = try Self.spec("container-v2.md", section: "## 6. Writing")
        #expect(v2.contains("`empty_payload`") && v2.contains("`empty_passphrase`"), "\(v2)")
    }

    /// A passphrase file of the longest passphrase with a CRLF line end is the passphrase, as with LF.
    @Test func theLongestPassphraseMayEndWithCRLF() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        let longest = String(repeating: "p", count: 4_096)
        directory.write("lf.txt", Array((longest + "\n").utf8))
        directory.write("crlf.txt", Array((longest + "\r\n").utf8))
        let sealed = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "long.goshuin", "--iterations", "1000", "--passphrase-file", "lf.txt"],
            in: directory.path)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let opened = try ToolRunner.run(
            ["open", "long.goshuin", "-o", "-", "--passphrase-file", "crlf.txt"], in: directory.path)
        #expect(opened.status == 0, "\(opened.stderr)")
    }

    /// Standard input, output or error closed at start points at /dev/null, so that no file the tool opens
    /// takes its number; named by `--passphrase-fd`, it is still a closed descriptor, never an empty
    /// passphrase read from /dev/null.
    @Test func aStandardDescriptorClosedAtStartIsNoPassphrase() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        for (number, redirection) in [("0", "<&-"), ("1", ">&-")] {
            let output = try plain.run(
                ["open", "plain.goshuin", "-o", "q.bin", "--passphrase-fd", number],
                shell: "exec \"$@\" \(redirection)")
            // Its words: usage-errors.txt.
            #expect(output.status == 64 && output.errorCode == "usage", "\(output.stderr)")
        }
        #expect(directory.entries == ["plain.bin", "plain.goshuin"])
    }
}
