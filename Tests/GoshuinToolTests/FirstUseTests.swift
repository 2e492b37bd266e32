import Foundation
import Testing

/// The rough edges a new user meets first (issue 18, B): each message says what the problem is and what to
/// do, once, and the tool does what its help says.
@Suite struct FirstUseTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "first use of the tool"]

    func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil) throws
        -> ToolRunner.Result
    {
        try ToolRunner.run(arguments, in: directory.path, stdin: stdin, environment: environment ?? self.environment)
    }

    func sealNotes() throws {
        directory.write("notes.txt", Array("a few notes\n".utf8))
        let sealed = try run(["seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    func makeBackupFolder(_ name: String, photos: [String] = ["IMG_0001.HEIC"]) throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/" + name, withIntermediateDirectories: true)
        directory.write(name + "/records.csv", Array("date,photo\n2026-01-01,IMG_0001.HEIC\n".utf8))
        for photo in photos { directory.write(name + "/" + photo, Array(photo.utf8)) }
    }

    /// 8. An output that is a folder or a device is named for what it is at once, with what to do; --force
    /// is never suggested for what it cannot replace. `--extract` onto a file says it is a file.
    @Test func anOutputThatIsNotAFileIsNamedForWhatItIs() throws {
        try sealNotes()
        try FileManager.default.createDirectory(
            atPath: directory.path + "/restored", withIntermediateDirectories: false)
        // What each is named, and the advice without --force: output-exists.txt.
        let folder = try run(["open", "notes.goshuin", "-o", "restored"])
        #expect(folder.status == 73 && folder.errorCode == "output_exists", "\(folder.stderr)")
        let device = try run(["open", "notes.goshuin", "-o", "/dev/full"])
        #expect(device.status == 73 && device.errorCode == "output_exists", "\(device.stderr)")
        let sealInto = try run(["seal", "notes.txt", "-o", "restored", "--iterations", "1000"])
        #expect(sealInto.status == 73 && sealInto.errorCode == "output_exists")
        let extractOntoFile = try run(["open", "notes.goshuin", "--extract", "notes.txt"])
        #expect(extractOntoFile.status == 73 && extractOntoFile.errorCode == "destination_not_empty")
        #expect(directory.bytes("notes.txt") == Array("a few notes\n".utf8), "nothing is replaced")
    }

    /// 9. A lone `-` is standard input for open, verify and inspect, as the man page says.
    @Test func standardInputIsAnInput() throws {
        try sealNotes()
        let sealed = directory.bytes("notes.goshuin")
        let opened = try run(["open", "-", "-o", "out.txt"], stdin: sealed)
        #expect(opened.status == 0 && directory.bytes("out.txt") == Array("a few notes\n".utf8), "\(opened.stderr)")
        // Their text: standard-input.txt.
        let verified = try run(["verify", "-", "--json"], stdin: sealed)
        #expect(verified.status == 0 && verified.json?["authenticated"] as? Bool == true, "\(verified.stderr)")
        let inspected = try run(["inspect", "-", "--json"], stdin: sealed)
        #expect(inspected.status == 0 && inspected.json?["verdict"] as? String == "consistent")
        let cut = try run(["verify", "-"], stdin: Array(sealed.dropLast()))
        #expect(cut.status == 65 && cut.errorCode == "truncated", "\(cut.stderr)")
        let both = try run(["open", "-", "-o", "x", "--passphrase-fd", "0"], stdin: sealed)
        #expect(both.status == 64 && both.errorCode == "usage", "\(both.stderr)")
        #expect(!directory.exists("x"))
    }

    /// A version 1 file's header fixes its size: from standard input, the tool reads that and one byte more,
    /// so endless bytes after a backup are `trailing_data` at once, not a spool that fills the disk; a header
    /// that fails its own checks is judged on its 45 bytes.
    @Test func standardInputIsReadOnlyAsFarAsTheHeaderSaysItMatters() throws {
        try sealNotes()
        var bad = directory.bytes("notes.goshuin")
        bad[5...8] = [0, 0, 0, 1]  // 1 iteration
        directory.write("bad.goshuin", bad)
        // What it says of a finite input: standard-input.txt.
        for (file, command, expected) in [
            ("notes.goshuin", "verify", "trailing_data"), ("notes.goshuin", "open", "trailing_data"),
            ("bad.goshuin", "verify", "iterations_out_of_range"),
        ] {
            let endless = [
                "/usr/bin/timeout", "20", "/bin/sh", "-c", "cat \(file) /dev/zero | exec \"$0\" \"$@\"",
            ]
            let result = try ToolRunner.run(
                [command, "-"] + (command == "open" ? ["-o", "out.bin"] : []), in: directory.path,
                environment: ["GOSHUIN_PASSPHRASE": "unused", "TMPDIR": directory.path], wrapper: endless)
            #expect(result.status == 65 && result.errorCode == expected, "\(file) \(command): \(result.stderr)")
        }
        #expect(!directory.exists("out.bin"))
    }

    /// A header is not authenticated by itself: one forged to declare 2^40 bytes, followed by endless input,
    /// must not fill the temporary folder. Standard input is authenticated as it arrives (version 1: chunk 0,
    /// with its probe window; version 2: the header MAC), and the spool stops at the first failure (issue 34).
    @Test func aForgedHeaderOnStandardInputStopsAtItsFirstChunk() throws {
        try sealNotes()
        let sealed = try run(["seal", "notes.txt", "-o", "notes2.goshuin", "--iterations", "1000", "--format", "2"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        var v1 = Array(directory.bytes("notes.goshuin").prefix(45))
        v1.replaceSubrange(37..<45, with: [0, 0, 1, 0, 0, 0, 0, 0])  // plaintextLength 2^40
        directory.write("forged1.goshuin", v1)
        // The same forged header followed by well-formed records (every length prefix the header implies, for
        // the probe window and past it): the spool stops at chunk 0's tag, not at a length prefix.
        let chunkSize = v1[33..<37].reduce(0) { $0 << 8 | Int($1) }
        let prefix = (0..<4).map { UInt8(truncatingIfNeeded: (chunkSize + 16) >> (24 - 8 * $0)) }
        let record = prefix + [UInt8](repeating: 0, count: chunkSize + 16)
        directory.write("forged1-records.goshuin", v1 + (0..<8).flatMap { _ in record })
        var v2 = Array(directory.bytes("notes2.goshuin").prefix(77))
        v2[60] ^= 1  // the MAC no longer verifies
        directory.write("forged2.goshuin", v2)
        for (file, command) in [
            ("forged1.goshuin", "verify"), ("forged1.goshuin", "open"), ("forged1-records.goshuin", "verify"),
            ("forged1-records.goshuin", "open"), ("forged2.goshuin", "verify"), ("forged2.goshuin", "open"),
        ] {
            let spool = directory.path + "/spool"
            try? FileManager.default.removeItem(atPath: spool)
            try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: false)
            let endless = ["/usr/bin/timeout", "20", "/bin/sh", "-c", "cat \(file) /dev/zero | exec \"$0\" \"$@\""]
            let started = Date()
            let result = try ToolRunner.run(
                [command, "-"] + (command == "open" ? ["-o", "out.bin"] : []), in: directory.path,
                environment: ["GOSHUIN_PASSPHRASE": "a passphrase", "TMPDIR": spool], wrapper: endless)
            // Version 1's forged chunk 0 (zeros) fails its length prefix before its tag; with well-formed records,
            // its tag; version 2's, the header MAC.
            let code = file == "forged1.goshuin" ? "chunk_length_invalid" : "auth_failed"
            #expect(result.status == 65 && result.errorCode == code, "\(file) \(command): \(result.stderr)")
            let spooled = try FileManager.default.contentsOfDirectory(atPath: spool)
            #expect(spooled.isEmpty, "nothing is left in the temporary folder: \(spooled)")
            #expect(Date().timeIntervalSince(started) < 15, "\(file) \(command): stopped at once")
        }
        #expect(!directory.exists("out.bin"))
        // A genuine file on standard input opens as before, the key derived once.
        let genuine = try ToolRunner.run(
            ["open", "-", "-o", "-"], in: directory.path, stdin: directory.bytes("notes.goshuin"),
            environment: environment)
        #expect(genuine.status == 0 && genuine.stdout == "a few notes\n", "\(genuine.stderr)")
    }

    /// 10. A set but empty GOSHUIN_PASSPHRASE is a usage error naming the variable, not a wrong passphrase.
    @Test func anEmptyPassphraseVariableIsAUsageError() throws {
        try sealNotes()
        for arguments in [["open", "notes.goshuin", "-o", "x"], ["seal", "notes.txt", "-o", "y.goshuin"]] {
            let result = try run(arguments, environment: ["GOSHUIN_PASSPHRASE": ""])
            // Its words, naming the variable: passphrase-sources.txt.
            #expect(result.status == 64 && result.errorCode == "empty_passphrase", "\(arguments): \(result.stderr)")
        }
        #expect(!directory.exists("x") && !directory.exists("y.goshuin"))
    }

    /// 11. With no terminal and no source, the input's own problems come first; the missing passphrase
    /// only once it is needed.
    @Test func theInputIsCheckedBeforeThePassphraseIsRequired() throws {
        let missing = try run(["verify", "missing.goshuin"], environment: [:])
        #expect(missing.status == 66 && missing.errorCode == "input_not_found", "\(missing.stderr)")
        try sealNotes()
        var cut = directory.bytes("notes.goshuin")
        cut.removeLast()
        directory.write("cut.goshuin", cut)
        let truncated = try run(["open", "cut.goshuin", "-o", "x"], environment: [:])
        #expect(truncated.status == 65 && truncated.errorCode == "truncated", "\(truncated.stderr)")
        let exists = try run(["open", "notes.goshuin", "-o", "notes.txt"], environment: [:])
        #expect(exists.status == 73, "\(exists.stderr)")
        let needed = try run(["open", "notes.goshuin", "-o", "x"], environment: [:])
        #expect(needed.status == 64 && needed.errorCode == "usage", "no passphrase to be had: \(needed.stderr)")
    }

    /// 13. Help lays its blocks out with hanging indents that line up, and the overview's examples are the
    /// README's.
    @Test func helpBlocksLineUp() throws {
        for arguments in [["help"], ["help", "seal"], ["help", "open"]] {
            let help = try run(arguments).stdout
            let passphrase = try #require(help.components(separatedBy: "PASSPHRASE\n").dropFirst().first)
                .components(separatedBy: "\n\n")[0].split(separator: "\n")
            let sources = passphrase.filter { $0.hasPrefix("    ") && !$0.hasPrefix("     ") }
            #expect(sources.count == 4, "\(passphrase)")
            let columns = Set(sources.map(Self.descriptionColumn))
            #expect(columns.count == 1, "the sources' descriptions start in one column: \(sources)")
            // Continuation lines start in that column, not ragged.
            let continuations = passphrase.filter { $0.hasPrefix("     ") }
            #expect(
                continuations.allSatisfy { $0.prefix { $0 == " " }.count == columns.first ?? nil }, "\(passphrase)")
        }
        // The exit statuses are listed once, by `help exit-codes`, in order and lined up; every other help points
        // there instead of repeating them (issue 35).
        let exitCodes = try run(["help", "exit-codes"])
        #expect(exitCodes.status == 0)
        let table = try #require(exitCodes.stdout.components(separatedBy: "EXIT STATUS\n").last)
            .components(separatedBy: "\n\n")[0].split(separator: "\n")
        let codes = table.compactMap { Int($0.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber }) }
        #expect(codes == [0, 1, 64, 65, 66, 71, 73, 74, 130, 141], "in order: \(codes)")
        #expect(Set(table.map(Self.descriptionColumn)).subtracting([nil]).count == 1, "\(table)")
        for arguments in [["help"]] + HelpTests.commands.map({ ["help", $0] }) {
            let section = try #require(try run(arguments).stdout.components(separatedBy: "EXIT STATUS\n").last)
            let listed = section.split(separator: "\n").filter {
                $0.hasPrefix("  ") && $0.dropFirst(2).first?.isNumber == true
            }
            #expect(listed.count <= 1, "\(arguments) repeats the table: \(section)")
            #expect(section.contains("'goshuin-tool help exit-codes'"), "\(arguments): \(section)")
        }
        // The overview's examples are the README's: the documents agree (the overview's text: help.txt).
        let overview = try run(["help"]).stdout
        let readme = try String(contentsOfFile: ToolRunner.packageRoot + "/README.md", encoding: .utf8)
        let example = "goshuin-tool verify backup.goshuin --backup"
        #expect(overview.contains(example) && readme.contains(example))
    }

    /// Where the text after a term starts: past the first gap of two or more spaces after the indent.
    static func descriptionColumn(_ line: Substring) -> Int? {
        let characters = Array(line)
        var index = 4
        while index + 1 < characters.count {
            if characters[index] == " ", characters[index + 1] == " " {
                while index < characters.count, characters[index] == " " { index += 1 }
                return index
            }
            index += 1
        }
        return nil
    }

    /// 16. A backup inside the folder being sealed is named as such; sealing into the folder warns.
    @Test func aBackupInsideTheFolderIsNamedAndSealingIntoItWarns() throws {
        try makeBackupFolder("backup")
        // The warning and the refusal: seal-warnings.txt.
        let into = try run(["seal", "backup", "-o", "backup/backup.goshuin", "--iterations", "1000"])
        #expect(into.status == 0 && directory.exists("backup/backup.goshuin"), "\(into.stderr)")
        #expect(ToolRunner.notices(in: into.stderr).count == 2, "what it holds, and the warning: \(into.stderr)")
        let again = try run(["seal", "backup", "-o", "other.goshuin", "--iterations", "1000", "--json"])
        #expect(again.status == 65 && again.errorCode == "unexpected_file", "\(again.stderr)")
        #expect((again.jsonError?["details"] as? [String])?.count == 1, "the backup inside: \(again.stdout)")
        #expect(!directory.exists("other.goshuin"))
    }

    /// 17. What people type for what a command does gets the command line that does it.
    @Test func commandsPeopleTypeArePointedTheRightWay() throws {
        // The command line each gets: usage-errors.txt.
        for word in ["restore", "extract"] {
            let result = try run([word, "backup.goshuin", "restored/"])
            #expect(result.status == 64 && result.errorCode == "usage")
        }
        try sealNotes()
        try FileManager.default.createDirectory(atPath: directory.path + "/dir", withIntermediateDirectories: false)
        let positional = try run(["open", "notes.goshuin", "dir"])
        #expect(positional.status == 64 && positional.errorCode == "usage", "\(positional.stderr)")
        let passphrase = try run(["open", "notes.goshuin", "-o", "x", "--passphrase", "hunter2", "--json"])
        #expect(passphrase.status == 64 && passphrase.errorCode == "usage", "\(passphrase.stderr)")
        // A secret given on the command line is never repeated, in any output.
        #expect(!passphrase.stderr.contains("hunter2") && !passphrase.stdout.contains("hunter2"))
    }

    /// 18. Seal and restore count the same things; JSON errors say which command and file; `seal --json`
    /// gives the photo count and the files left out.
    @Test func outputsAreConsistent() throws {
        try makeBackupFolder("backup", photos: ["IMG_0001.HEIC", "IMG_0002.jpg"])
        directory.write("backup/.DS_Store", [0])
        let sealed = try run(["seal", "backup", "-o", "b.goshuin", "--iterations", "1000", "--json"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(sealed.stdoutBytes)) as? [String: Any])
        #expect(summary["photoCount"] as? Int == 2)
        let leftOut = try #require(summary["leftOut"] as? [[String: String]])
        #expect(leftOut.map { $0["name"] } == [".DS_Store"], "\(leftOut)")
        // The lines of each count the same things: seal-a-folder.txt.
        let restored = try run(["open", "b.goshuin", "--extract", "restored", "--json"])
        #expect(restored.json?["photoCount"] as? Int == summary["photoCount"] as? Int, "\(restored.stdout)")
        let failed = try run(["open", "missing.goshuin", "-o", "x", "--json"])
        let error = try #require(try JSONSerialization.jsonObject(with: Data(failed.stdoutBytes)) as? [String: Any])
        #expect(error["ok"] as? Bool == false && error["command"] as? String == "open")
        #expect(error["file"] as? String == "missing.goshuin", "\(failed.stdout)")
    }

    /// 19. A folder as a phone exports it: videos, edit sidecars and subfolders are said to be what they are;
    /// `--leave-out-unsupported` leaves them out and lists them; a name that needs a rename is still refused.
    @Test func aPhoneExportIsExplainedAndCanLeaveOutWhatABackupCannotHold() throws {
        try makeBackupFolder("DCIM-export", photos: ["IMG_0001.HEIC", "IMG_0041.MOV", "IMG_0002.AAE"])
        try FileManager.default.createDirectory(
            atPath: directory.path + "/DCIM-export/100APPLE/200APPLE", withIntermediateDirectories: true)
        directory.write("DCIM-export/100APPLE/IMG_0101.HEIC", [1, 2])
        directory.write("DCIM-export/100APPLE/200APPLE/IMG_0201.JPG", [3])
        directory.write("DCIM-export/100APPLE/IMG_0101.MOV", [4])
        let refused = try run(["seal", "DCIM-export", "-o", "d.goshuin", "--iterations", "1000", "--json"])
        // What each is, and the option that leaves them out: seal-a-phone-folder.txt.
        #expect(refused.status == 65 && refused.errorCode == "unexpected_file", "\(refused.stderr)")
        let left = try run(
            ["seal", "DCIM-export", "-o", "d.goshuin", "--iterations", "1000", "--leave-out-unsupported", "--json"])
        #expect(left.status == 0, "\(left.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(left.stdoutBytes)) as? [String: Any])
        let leftOut = try #require(summary["leftOut"] as? [[String: Any]])
        #expect(leftOut.compactMap { $0["name"] as? String } == ["100APPLE", "IMG_0002.AAE", "IMG_0041.MOV"])
        // The photos left out with the folder are named, every one, at any depth.
        #expect(leftOut.first?["photos"] as? [String] == ["100APPLE/200APPLE/IMG_0201.JPG", "100APPLE/IMG_0101.HEIC"])
        // The list on standard error, each with what it is and the photos left out with the folder:
        // seal-a-phone-folder.txt.
        directory.write("DCIM-export/IMG_0006 2.HEIC", [1])
        let rename = try run([
            "seal", "DCIM-export", "-o", "f.goshuin", "--iterations", "1000", "--leave-out-unsupported", "--json",
        ])
        #expect(rename.status == 65 && rename.errorCode == "unexpected_file", "\(rename.stderr)")
        #expect((rename.jsonError?["details"] as? [String])?.count == 1, "only the rename: \(rename.stdout)")
    }
}
