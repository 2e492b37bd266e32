import Foundation
import Testing

/// `goshuin-tool rekey` (`Spec/decisions/0055`): the same payload under a new passphrase, never in the clear,
/// written only once every chunk of the input authenticated.
@Suite struct RekeyCommandTests {
    let directory = Scratch()

    init() throws {
        directory.write("plain.bin", (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        directory.write("old.txt", Array("old secret 7kq\n".utf8))
        directory.write("new.txt", Array("new secret 9xz\n".utf8))
        for (version, name) in [("1", "v1.goshuin"), ("2", "v2.goshuin")] {
            let sealed = try run(
                ["seal", "plain.bin", "-o", name, "--chunk-size", "1KiB", "--format", version],
                passphraseFile: "old.txt")
            #expect(sealed.status == 0, "\(sealed.stderr)")
        }
    }

    /// Runs the tool with `passphraseFile` (`--iterations 1000` for what writes a new file).
    func run(_ arguments: [String], passphraseFile: String? = "old.txt", stdin: [UInt8] = []) throws
        -> ToolRunner.Result
    {
        let writes = ["seal", "rekey"].contains(arguments.first ?? "")
        return try ToolRunner.run(
            arguments + (passphraseFile.map { ["--passphrase-file", $0] } ?? [])
                + (writes ? ["--iterations", "1000"] : []), in: directory.path, stdin: stdin)
    }

    /// The payload of `name` opened with `passphraseFile`, or `nil` when it does not open.
    func opened(_ name: String, with passphraseFile: String) throws -> [UInt8]? {
        let result = try run(["open", name, "-o", name + ".out", "--force"], passphraseFile: passphraseFile)
        return result.status == 0 ? directory.bytes(name + ".out") : nil
    }

    var temporaryLeft: Bool { directory.entries.contains { $0.contains("goshuin-tmp") } }

    @Test(arguments: ["v1.goshuin", "v2.goshuin"])
    func theNewPassphraseOpensTheSameContentsAndTheOldOneDoesNot(_ input: String) throws {
        let result = try run(["rekey", input, "-o", "family.goshuin", "--new-passphrase-file", "new.txt", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        #expect(summary["formatVersion"] as? Int == 1, "version 1, what the app imports, whatever the input's")
        #expect(directory.bytes("family.goshuin")[4] == 1)
        #expect(try opened("family.goshuin", with: "new.txt") == directory.bytes("plain.bin"), "byte for byte")
        #expect(try opened("family.goshuin", with: "old.txt") == nil, "old secret 7kq does not open it")
        #expect(try opened(input, with: "old.txt") == directory.bytes("plain.bin"), "the input is left as it is")
        for secret in ["old secret 7kq", "new secret 9xz"] {
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "no secret is shown")
        }
        #expect(!temporaryLeft)
    }

    @Test func format2IsKeptWhenAskedFor() throws {
        let result = try run([
            "rekey", "v2.goshuin", "-o", "still-v2.goshuin", "--new-passphrase-file", "new.txt",
            "--format", "2",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(directory.bytes("still-v2.goshuin")[4] == 2)
        #expect(try opened("still-v2.goshuin", with: "new.txt") == directory.bytes("plain.bin"))
        let changed = try run(["rekey", "v2.goshuin", "-o", "now-v1.goshuin", "--new-passphrase-file", "new.txt"])
        #expect(changed.stderr.contains("is format version 2; the new file is version 1"), "\(changed.stderr)")
    }

    @Test(arguments: ["v1.goshuin", "v2.goshuin"])
    func aWrongOldPassphraseIsRefusedWithNothingWritten(_ input: String) throws {
        directory.write("wrong.txt", Array("not it\n".utf8))
        let result = try run(
            ["rekey", input, "-o", "family.goshuin", "--new-passphrase-file", "new.txt"], passphraseFile: "wrong.txt")
        #expect(result.status == 65 && result.stderr.contains("error: auth_failed:"), "\(result.stderr)")
        #expect(!directory.exists("family.goshuin") && !temporaryLeft)
    }

    @Test func aDamagedOrCutInputIsRefusedAndPointsAtRescue() throws {
        var bytes = directory.bytes("v1.goshuin")
        bytes[45 + 12 * 1_044 + 30] ^= 0x08
        directory.write("damaged.goshuin", bytes)
        let damaged = try run(["rekey", "damaged.goshuin", "-o", "family.goshuin", "--new-passphrase-file", "new.txt"])
        #expect(damaged.status == 65 && damaged.stderr.contains("error: chunk_damaged:"), "\(damaged.stderr)")
        #expect(damaged.stderr.contains("goshuin-tool rescue damaged.goshuin"), "\(damaged.stderr)")
        let whole = directory.bytes("v2.goshuin")
        directory.write("cut.goshuin", Array(whole[..<(whole.count - 500)]))
        let cut = try run(["rekey", "cut.goshuin", "-o", "family.goshuin", "--new-passphrase-file", "new.txt"])
        #expect(cut.status == 65, "\(cut.stderr)")
        #expect(!directory.exists("family.goshuin") && !temporaryLeft)
    }

    @Test func theTwoPassphrasesNeverComeFromOnePlace() throws {
        let sameFile = try run(["rekey", "v1.goshuin", "-o", "x.goshuin", "--new-passphrase-file", "old.txt"])
        #expect(sameFile.status == 64 && sameFile.stderr.contains("both be read from"), "\(sameFile.stderr)")
        // Refused before standard input is read, so it is given nothing: a pipe the tool leaves unread could end
        // the test process by SIGPIPE.
        let sameDescriptor = try ToolRunner.run(
            ["rekey", "v1.goshuin", "-o", "x.goshuin", "--passphrase-fd", "0", "--new-passphrase-fd", "0"],
            in: directory.path)
        #expect(sameDescriptor.status == 64 && sameDescriptor.stderr.contains("file descriptor 0"))
        let standardInput = try run(["rekey", "-", "-o", "x.goshuin", "--new-passphrase-fd", "0"])
        #expect(standardInput.status == 64, "\(standardInput.stderr)")
        let noSource = try run(["rekey", "v1.goshuin", "-o", "x.goshuin"])
        #expect(noSource.status == 64 && noSource.stderr.contains("--new-passphrase-file"), "\(noSource.stderr)")
        let both = try run(
            ["rekey", "v1.goshuin", "-o", "x.goshuin", "--new-passphrase-file", "new.txt", "--new-passphrase-fd", "0"])
        #expect(both.status == 64)
        #expect(try run(["rekey", "v1.goshuin", "--new-passphrase-file", "new.txt"]).status == 64, "-o is needed")
        #expect(!directory.exists("x.goshuin"))
    }

    @Test func theNewPassphraseFollowsSealsRules() throws {
        directory.write("empty.txt", [])
        let empty = try run(["rekey", "v1.goshuin", "-o", "x.goshuin", "--new-passphrase-file", "empty.txt"])
        #expect(empty.status == 64 && empty.stderr.contains("error: empty_passphrase:"), "\(empty.stderr)")
        directory.write("short.txt", Array("short\n".utf8))
        let short = try run(["rekey", "v1.goshuin", "-o", "x.goshuin", "--new-passphrase-file", "short.txt"])
        #expect(short.status == 0 && short.stderr.contains("warning: this passphrase has only 5"), "\(short.stderr)")
    }

    @Test func anExistingOutputIsReplacedOnlyWithForceAndStandardInputIsRead() throws {
        directory.write("family.goshuin", Array("keep me".utf8))
        let refused = try run(["rekey", "v1.goshuin", "-o", "family.goshuin", "--new-passphrase-file", "new.txt"])
        #expect(refused.status == 73 && directory.bytes("family.goshuin") == Array("keep me".utf8))
        let forced = try run(
            ["rekey", "-", "-o", "family.goshuin", "--new-passphrase-file", "new.txt", "--force"],
            stdin: directory.bytes("v2.goshuin"))
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try opened("family.goshuin", with: "new.txt") == directory.bytes("plain.bin"))
        let same = try run(["rekey", "v1.goshuin", "-o", "v1.goshuin", "--new-passphrase-file", "new.txt", "--force"])
        #expect(same.status == 64 && same.stderr.contains("same_file"), "\(same.stderr)")
    }

    @Test func onTheTerminalTheNewPassphraseIsAskedTwice() throws {
        let arguments = ["rekey", "v1.goshuin", "-o", "typed.goshuin", "--iterations", "1000"]
        let differ = try ToolRunner.runOnTerminal(
            arguments, in: directory.path, answers: ["old secret 7kq", "typed anew", "typed anwe"])
        #expect(differ.status == 64 && differ.screen.contains("passphrase_mismatch"), "\(differ.screen)")
        #expect(!directory.exists("typed.goshuin") && !temporaryLeft)
        let typed = try ToolRunner.runOnTerminal(
            arguments, in: directory.path, answers: ["old secret 7kq", "typed anew", "typed anew"])
        #expect(typed.status == 0, "\(typed.screen)")
        #expect(!typed.screen.contains("typed anew") && !typed.screen.contains("old secret 7kq"), "echo is off")
        directory.write("typed.txt", Array("typed anew\n".utf8))
        #expect(try opened("typed.goshuin", with: "typed.txt") == directory.bytes("plain.bin"))
        // A wrong old passphrase is said before the new one is asked for.
        let wrong = try ToolRunner.runOnTerminal(
            ["rekey", "v1.goshuin", "-o", "never.goshuin"], in: directory.path, answers: ["not it", "x", "x"])
        #expect(wrong.status == 65 && !wrong.screen.contains("new file"), "\(wrong.screen)")
    }

    @Test func aSignalLeavesNothing() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = [
            "rekey", "v1.goshuin", "-o", "family.goshuin", "--passphrase-file", "old.txt", "--new-passphrase-file",
            "new.txt", "--iterations", "2000000",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, !temporaryLeft, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(temporaryLeft, "the temporary file appears before the new key is derived")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
        #expect(!directory.exists("family.goshuin") && !temporaryLeft, "\(directory.entries)")
    }
}
