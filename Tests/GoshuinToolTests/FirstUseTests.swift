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
        let folder = try run(["open", "notes.goshuin", "-o", "restored"])
        #expect(folder.status == 73, "\(folder.stderr)")
        #expect(folder.stderr.contains("\"restored\" is a folder") && folder.stderr.contains("--extract restored"))
        #expect(!folder.stderr.contains("--force"), "\(folder.stderr)")
        let device = try run(["open", "notes.goshuin", "-o", "/dev/full"])
        #expect(
            device.status == 73 && device.stderr.contains("\"/dev/full\" is a character device"), "\(device.stderr)")
        #expect(!device.stderr.contains("--force"))
        let sealInto = try run(["seal", "notes.txt", "-o", "restored", "--iterations", "1000"])
        #expect(sealInto.status == 73 && sealInto.stderr.contains("give a file name for the .goshuin file"))
        let extractOntoFile = try run(["open", "notes.goshuin", "--extract", "notes.txt"])
        #expect(extractOntoFile.status == 73, "\(extractOntoFile.stderr)")
        #expect(
            extractOntoFile.stderr.contains("\"notes.txt\" is a regular file, not a folder"),
            "\(extractOntoFile.stderr)")
        #expect(!extractOntoFile.stderr.contains("empty the folder"))
    }

    /// 9. A lone `-` is standard input for open, verify and inspect, as the man page says.
    @Test func standardInputIsAnInput() throws {
        try sealNotes()
        let sealed = directory.bytes("notes.goshuin")
        let opened = try run(["open", "-", "-o", "out.txt"], stdin: sealed)
        #expect(opened.status == 0 && directory.bytes("out.txt") == Array("a few notes\n".utf8), "\(opened.stderr)")
        let verified = try run(["verify", "-"], stdin: sealed)
        #expect(verified.status == 0 && verified.stdout.contains("every chunk authenticates"), "\(verified.stderr)")
        let inspected = try run(["inspect", "-"], stdin: sealed)
        #expect(inspected.status == 0 && inspected.stdout.contains("verdict            consistent"))
        let cut = try run(["verify", "-"], stdin: Array(sealed.dropLast()))
        #expect(cut.status == 65 && cut.stderr.contains("error: truncated:"), "\(cut.stderr)")
        let both = try run(["open", "-", "-o", "x", "--passphrase-fd", "0"], stdin: sealed)
        #expect(both.status == 64 && both.stderr.contains("cannot carry both"), "\(both.stderr)")
    }

    /// A version 1 file's header fixes its size: from standard input, the tool reads that and one byte more,
    /// so endless bytes after a backup are `trailing_data` at once, not a spool that fills the disk; a header
    /// that fails its own checks is judged on its 45 bytes.
    @Test func standardInputIsReadOnlyAsFarAsTheHeaderSaysItMatters() throws {
        try sealNotes()
        var bad = directory.bytes("notes.goshuin")
        bad[5...8] = [0, 0, 0, 1]  // 1 iteration
        directory.write("bad.goshuin", bad)
        for (file, command, expected) in [
            ("notes.goshuin", "verify", "error: trailing_data: standard input holds more than the"),
            ("notes.goshuin", "open", "error: trailing_data: standard input holds more than the"),
            ("bad.goshuin", "verify", "error: iterations_out_of_range:"),
        ] {
            let endless = [
                "/usr/bin/timeout", "20", "/bin/sh", "-c", "cat \(file) /dev/zero | exec \"$0\" \"$@\"",
            ]
            let result = try ToolRunner.run(
                [command, "-"] + (command == "open" ? ["-o", "out.bin"] : []), in: directory.path,
                environment: ["GOSHUIN_PASSPHRASE": "unused", "TMPDIR": directory.path], wrapper: endless)
            #expect(result.status == 65 && result.stderr.contains(expected), "\(file) \(command): \(result.stderr)")
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
        var v2 = Array(directory.bytes("notes2.goshuin").prefix(77))
        v2[60] ^= 1  // the MAC no longer verifies
        directory.write("forged2.goshuin", v2)
        for (file, command) in [
            ("forged1.goshuin", "verify"), ("forged1.goshuin", "open"), ("forged2.goshuin", "verify"),
            ("forged2.goshuin", "open"),
        ] {
            let spool = directory.path + "/spool"
            try? FileManager.default.removeItem(atPath: spool)
            try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: false)
            let endless = ["/usr/bin/timeout", "20", "/bin/sh", "-c", "cat \(file) /dev/zero | exec \"$0\" \"$@\""]
            let started = Date()
            let result = try ToolRunner.run(
                [command, "-"] + (command == "open" ? ["-o", "out.bin"] : []), in: directory.path,
                environment: ["GOSHUIN_PASSPHRASE": "a passphrase", "TMPDIR": spool], wrapper: endless)
            // Version 1's forged chunk 0 (zeros) fails its length prefix before its tag; version 2's header MAC.
            let code = file == "forged1.goshuin" ? "error: chunk_length_invalid" : "error: auth_failed"
            #expect(result.status == 65 && result.stderr.contains(code), "\(file) \(command): \(result.stderr)")
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
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("GOSHUIN_PASSPHRASE is set but empty"), "\(result.stderr)")
            #expect(!result.stderr.contains("auth_failed"))
        }
        #expect(!directory.exists("x") && !directory.exists("y.goshuin"))
    }

    /// 11. With no terminal and no source, the input's own problems come first; the missing passphrase
    /// only once it is needed.
    @Test func theInputIsCheckedBeforeThePassphraseIsRequired() throws {
        let missing = try run(["verify", "missing.goshuin"], environment: [:])
        #expect(missing.status == 66 && missing.stderr.contains("input_not_found"), "\(missing.stderr)")
        try sealNotes()
        var cut = directory.bytes("notes.goshuin")
        cut.removeLast()
        directory.write("cut.goshuin", cut)
        let truncated = try run(["open", "cut.goshuin", "-o", "x"], environment: [:])
        #expect(truncated.status == 65 && truncated.stderr.contains("truncated"), "\(truncated.stderr)")
        let exists = try run(["open", "notes.goshuin", "-o", "notes.txt"], environment: [:])
        #expect(exists.status == 73, "\(exists.stderr)")
        let needed = try run(["open", "notes.goshuin", "-o", "x"], environment: [:])
        #expect(needed.status == 64 && needed.stderr.contains("no passphrase"), "\(needed.stderr)")
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
        let overview = try run(["help"]).stdout
        #expect(overview.contains("goshuin-tool verify backup.goshuin --backup"))
        let readme = try String(contentsOfFile: ToolRunner.packageRoot + "/README.md", encoding: .utf8)
        #expect(readme.contains("goshuin-tool verify backup.goshuin --backup"))
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
        let into = try run(["seal", "backup", "-o", "backup/backup.goshuin", "--iterations", "1000"])
        #expect(into.status == 0, "\(into.stderr)")
        #expect(into.stderr.contains("warning: the backup is written into the folder it backs up"), "\(into.stderr)")
        let again = try run(["seal", "backup", "-o", "other.goshuin", "--iterations", "1000"])
        #expect(again.status == 65, "\(again.stderr)")
        #expect(again.stderr.contains("\"backup.goshuin\": it is a backup inside the folder being sealed; move it out"))
    }

    /// 17. What people type for what a command does gets the command line that does it.
    @Test func commandsPeopleTypeArePointedTheRightWay() throws {
        for word in ["restore", "extract"] {
            let result = try run([word, "backup.goshuin", "restored/"])
            #expect(result.status == 64 && result.stderr.contains("goshuin-tool open BACKUP.goshuin --extract FOLDER"))
        }
        try sealNotes()
        try FileManager.default.createDirectory(atPath: directory.path + "/dir", withIntermediateDirectories: false)
        let positional = try run(["open", "notes.goshuin", "dir"])
        #expect(positional.status == 64 && positional.stderr.contains("--extract dir"), "\(positional.stderr)")
        let passphrase = try run(["open", "notes.goshuin", "-o", "x", "--passphrase", "hunter2"])
        #expect(passphrase.status == 64, "\(passphrase.stderr)")
        #expect(passphrase.stderr.contains("the passphrase is never an argument"))
        #expect(passphrase.stderr.contains("--passphrase-file") && passphrase.stderr.contains("GOSHUIN_PASSPHRASE"))
        #expect(!passphrase.stderr.contains("hunter2"), "the value is not repeated")
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
        let text = try run(["seal", "backup", "-o", "c.goshuin", "--iterations", "1000"])
        #expect(text.stderr.contains("sealed records.csv and 2 photos into c.goshuin, "), "\(text.stderr)")
        let restored = try run(["open", "c.goshuin", "--extract", "restored"])
        #expect(restored.stderr.hasPrefix("restored records.csv and 2 photos into restored, "), "\(restored.stderr)")
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
        let refused = try run(["seal", "DCIM-export", "-o", "d.goshuin", "--iterations", "1000"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("\"IMG_0041.MOV\": it is a video (an iPhone keeps a Live Photo's motion"))
        #expect(refused.stderr.contains("\"IMG_0002.AAE\": it is an edit sidecar the Photos app writes"))
        #expect(refused.stderr.contains("\"100APPLE\": it is a folder; a backup holds the files of one folder only"))
        #expect(refused.stderr.contains("--leave-out-unsupported"), "\(refused.stderr)")
        let left = try run(
            ["seal", "DCIM-export", "-o", "d.goshuin", "--iterations", "1000", "--leave-out-unsupported", "--json"])
        #expect(left.status == 0, "\(left.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(left.stdoutBytes)) as? [String: Any])
        let leftOut = try #require(summary["leftOut"] as? [[String: Any]])
        #expect(leftOut.compactMap { $0["name"] as? String } == ["100APPLE", "IMG_0002.AAE", "IMG_0041.MOV"])
        // The photos left out with the folder are named, every one, at any depth.
        #expect(leftOut.first?["photos"] as? [String] == ["100APPLE/200APPLE/IMG_0201.JPG", "100APPLE/IMG_0101.HEIC"])
        let listed = try run([
            "seal", "DCIM-export", "-o", "e.goshuin", "--iterations", "1000", "--leave-out-unsupported",
        ])
        #expect(listed.stderr.contains("left out 1 folder and 2 files a backup cannot hold"), "\(listed.stderr)")
        #expect(
            listed.stderr.contains(
                "and with it 2 photos, not in this backup: 100APPLE/200APPLE/IMG_0201.JPG, 100APPLE/IMG_0101.HEIC; to"
                    + " back them up, move them out of 100APPLE/ beside records.csv"), "\(listed.stderr)")
        #expect(listed.stderr.contains("\n  IMG_0041.MOV: a video"), "\(listed.stderr)")
        directory.write("DCIM-export/IMG_0006 2.HEIC", [1])
        let rename = try run([
            "seal", "DCIM-export", "-o", "f.goshuin", "--iterations", "1000", "--leave-out-unsupported",
        ])
        #expect(rename.status == 65 && rename.stderr.contains("rename it to \"IMG_0006_2.HEIC\""), "\(rename.stderr)")
    }
}
