import Foundation
import Testing

/// What an independent attack review of the tool found, each kept fixed: names that are not UTF-8,
/// vector folders holding devices and pipes, a sweep that emptied a folder in part, `verify` passing what
/// extracting refuses, a records file that compresses very well, exit codes that did not say what happened;
/// and, from a second review, a signal at the prompt that left the output's temporary (and Ctrl-\ the echo
/// off), a closed standard descriptor taken for an empty passphrase, `--json` lost after a refused argument.
@Suite struct ReviewFindingTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "an attack review"]

    init() throws {
        directory.write("plain.bin", Array("a plain payload\n".utf8))
        let sealed = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "plain.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    func run(_ arguments: [String], shell: String? = nil) throws -> ToolRunner.Result {
        try ToolRunner.run(
            arguments, in: directory.path, environment: environment,
            wrapper: shell.map { ["/bin/sh", "-c", $0, "sh"] } ?? [])
    }

    /// A name that is not UTF-8 is refused as given, never repaired into another name (U+FFFD) that the
    /// tool would then read or write.
    @Test func argumentsThatAreNotUTF8AreRefusedNotRepaired() throws {
        let output = try run(["open", "plain.goshuin", "-o"], shell: "exec \"$@\" \"$(printf 'out\\351.bin')\"")
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains("\\xe9") && output.stderr.contains("not valid UTF-8"), "\(output.stderr)")
        let input = try run(["verify"], shell: "exec \"$@\" \"$(printf 'in\\351.goshuin')\"")
        #expect(input.status == 64)
        #expect(directory.entries == ["plain.bin", "plain.goshuin"], "nothing written under another name")
    }

    /// `check` on someone else's folder: a named file that is a device or a pipe makes the vector
    /// malformed at once; it is never read forever or waited on.
    @Test func checkRefusesDevicesAndPipes() throws {
        let vectors = directory.path + "/vectors"
        try FileManager.default.createDirectory(atPath: vectors, withIntermediateDirectories: false)
        let knownAnswer = ToolRunner.packageRoot + "/KnownAnswer/"
        for suffix in [".json", ".goshuin"] {
            try FileManager.default.copyItem(
                atPath: knownAnswer + "success-257-chunks" + suffix, toPath: vectors + "/success-257-chunks" + suffix)
        }
        try FileManager.default.createSymbolicLink(
            atPath: vectors + "/success-257-chunks.plaintext", withDestinationPath: "/dev/zero")
        #expect(mkfifo(vectors + "/pipe.json", 0o600) == 0)
        let checked = try run(["check", "vectors"], shell: "exec timeout 60 \"$@\"")
        #expect(checked.status == 1, "\(checked.stdout) \(checked.stderr)")
        #expect(
            checked.stdout.contains("MALFORMED pipe: ") && checked.stdout.contains("a named pipe"), "\(checked.stdout)")
        // The link to the device is never followed: the vector is malformed for holding a link.
        #expect(
            checked.stdout.contains("MALFORMED success-257-chunks: ") && checked.stdout.contains("a symbolic link"))
    }

    /// A signal stops `check` with 130; no vector is judged on a run that was cut short.
    @Test func aSignalStopsCheckWithoutFailingAnyVector() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = ["check", ToolRunner.packageRoot + "/KnownAnswer"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(1_500_000)
        kill(process.processIdentifier, SIGTERM)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(printed)")
        #expect(!printed.contains("FAIL") && !printed.contains("MALFORMED"), "\(printed)")
    }

    /// The sweep removes only a flat folder of regular files, whole; a leftover holding a subfolder is
    /// left as it is, not emptied in part.
    @Test func theSweepNeverEmptiesAFolderInPart() throws {
        let leftover = directory.path + "/.album.goshuin-tmp-1a2b"
        try FileManager.default.createDirectory(atPath: leftover + "/sub", withIntermediateDirectories: true)
        for name in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            directory.write(".album.goshuin-tmp-1a2b/IMG_\(name).jpg", [1, 2, 3])
        }
        let old = Date(timeIntervalSinceNow: -600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: leftover)
        #expect(try run(["open", "plain.goshuin", "-o", "out.bin"]).status == 0)
        let remaining = try FileManager.default.contentsOfDirectory(atPath: leftover).sorted()
        #expect(
            remaining == [
                "IMG_a.jpg", "IMG_b.jpg", "IMG_c.jpg", "IMG_d.jpg", "IMG_e.jpg", "IMG_f.jpg", "IMG_g.jpg", "IMG_h.jpg",
                "sub",
            ])
    }

    /// `verify --backup` passes only a backup that `open --extract` restores, failing with its error.
    @Test func verifyBackupRequiresWhatExtractingRequires() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        directory.write("in/records.csv", Array("id\n1\n".utf8))
        #expect(try run(["seal", "in", "-o", "backup.goshuin", "--iterations", "1000"]).status == 0)
        #expect(try run(["verify", "backup.goshuin", "--backup"]).status == 0)
        // The backup's ZIP with one byte after it, sealed again: not a ZIP to the spotting rule.
        #expect(try run(["open", "backup.goshuin", "-o", "backup.zip"]).status == 0)
        directory.write("trailer.zip", directory.bytes("backup.zip") + [0])
        #expect(try run(["seal", "trailer.zip", "-o", "trailer.goshuin", "--iterations", "1000"]).status == 0)
        #expect(try run(["verify", "trailer.goshuin"]).status == 0, "without --backup, only the chunks")
        let trailer = try run(["verify", "trailer.goshuin", "--backup", "--json"])
        let extracted = try run(["open", "trailer.goshuin", "--extract", "restored"])
        #expect(trailer.status == 65 && extracted.status == 65)
        #expect(trailer.stdout.contains("\"code\":\"zip_malformed\"") && extracted.stderr.contains("zip_malformed"))
        let plain = try run(["verify", "plain.goshuin", "--backup"])
        #expect(plain.status == 65 && plain.stderr.contains("zip_malformed"), "\(plain.stderr)")
    }

    /// A records file that deflates more than the reader's ratio limit is stored, so the backup seals and
    /// extracts instead of being refused by the tool's own reader as a ZIP bomb.
    @Test func recordsThatCompressVeryWellStillSeal() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        let records = Array(("date,shrine,note,photo\n" + String(repeating: "2026-01-01,,,\n", count: 500_000)).utf8)
        directory.write("in/records.csv", records)
        let sealed = try run(["seal", "in", "-o", "backup.goshuin", "--iterations", "1000"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(try run(["open", "backup.goshuin", "--extract", "restored"]).status == 0)
        #expect(directory.bytes("restored/records.csv") == records)
    }

    /// Exit codes that say what happened: a missing folder is 73 for every output, a name too long is a
    /// usage error for every output, a full standard output is `no_space`, and help or the version printed
    /// nowhere is a failure.
    @Test func outputFailuresHaveTheirOwnCodes() throws {
        #expect(try run(["open", "plain.goshuin", "-o", "nowhere/x.bin"]).status == 73)
        let missingFolder = try run(["open", "plain.goshuin", "--extract", "nowhere/x"])
        #expect(missingFolder.status == 73 && missingFolder.stderr.contains("cannot_create_output"))
        let longName = String(repeating: "n", count: 256)
        #expect(try run(["open", "plain.goshuin", "-o", longName]).status == 64)
        #expect(try run(["seal", "plain.bin", "-o", longName, "--iterations", "1000"]).status == 64)
        #expect(try run(["open", "plain.goshuin", "--extract", longName]).status == 64)
        let full = try run(["verify", "plain.goshuin", "--json"], shell: "exec \"$@\" > /dev/full")
        #expect(full.status == 74 && full.stderr.contains("no_space"), "\(full.stderr)")
        #expect(try run(["--help"], shell: "exec \"$@\" > /dev/full").status == 74)
        #expect(try run(["--version"], shell: "exec \"$@\" >&-").status == 74)
        #expect(directory.entries == ["plain.bin", "plain.goshuin"])
    }

    /// `--force` does not replace what is not a regular file, and the message does not suggest it would.
    @Test func forceIsNotSuggestedWhenItCannotHelp() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/folder", withIntermediateDirectories: false)
        let refused = try run(["open", "plain.goshuin", "-o", "folder", "--force"])
        #expect(refused.status == 73)
        #expect(!refused.stderr.contains("use --force"), "\(refused.stderr)")
    }

    /// A passphrase file of the longest passphrase with a CRLF line end is the passphrase, as with LF.
    @Test func theLongestPassphraseMayEndWithCRLF() throws {
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

    /// A signal at the prompt comes after the output's temporary was made (the passphrase is asked after
    /// every check): it is removed, and the terminal gets its echo back, for Ctrl-C and for Ctrl-\ alike.
    @Test(arguments: [UInt8(0x03), 0x1C])
    func aSignalAtThePromptLeavesNothingAndTheTerminalAsItWas(key: UInt8) throws {
        let echo = "stty -a | grep -qw -- -echo && echo ECHO-OFF || echo ECHO-ON"
        let opening = try ToolRunner.runOnTerminal(
            ["open", "plain.goshuin", "-o", "out.bin"], in: directory.path, answers: [],
            interruptWhenShown: "Passphrase: ", key: key, thenShow: echo)
        #expect(opening.status == 130, "\(opening.screen)")
        #expect(opening.screen.contains("error: interrupted: stopped at the passphrase prompt"), "\(opening.screen)")
        #expect(opening.screen.contains("ECHO-ON"), "\(opening.screen)")
        let sealing = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "again.goshuin", "--iterations", "1000"], in: directory.path,
            answers: ["a passphrase long enough"], interruptWhenShown: "Passphrase again: ", key: key, thenShow: echo)
        #expect(sealing.status == 130, "\(sealing.screen)")
        #expect(sealing.screen.contains("ECHO-ON"), "\(sealing.screen)")
        #expect(directory.entries == ["plain.bin", "plain.goshuin"], "no output and no temporary left")
    }

    /// Standard input, output or error closed at start points at /dev/null, so that no file the tool opens
    /// takes its number; named by `--passphrase-fd`, it is still a closed descriptor, never an empty
    /// passphrase read from /dev/null.
    @Test func aStandardDescriptorClosedAtStartIsNoPassphrase() throws {
        for (number, redirection) in [("0", "<&-"), ("1", ">&-")] {
            let output = try run(
                ["open", "plain.goshuin", "-o", "q.bin", "--passphrase-fd", number],
                shell: "exec \"$@\" \(redirection)")
            #expect(output.status == 64, "\(output.stderr)")
            #expect(output.stderr.contains("no file descriptor \(number) is open"), "\(output.stderr)")
        }
        #expect(directory.entries == ["plain.bin", "plain.goshuin"])
    }

    /// `--json` asks for a JSON error wherever it stands, also after an argument that is refused.
    @Test func jsonAfterAnArgumentThatIsNotUTF8StillGetsJSON() throws {
        let output = try run(["seal", "plain.bin", "-o"], shell: "exec \"$@\" \"$(printf 'z\\377')\" --json")
        #expect(output.status == 64)
        #expect(output.stdout.contains("\"ok\"") && output.stdout.contains("not valid UTF-8"), "\(output.stdout)")
    }
}
