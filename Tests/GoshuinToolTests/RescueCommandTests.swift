import Foundation
import Testing

/// `goshuin-tool rescue` as people and scripts meet it (`Spec/decisions/0055`): a damaged backup's intact
/// entries sealed into a new backup, version 1, that `verify --backup` passes, holding exactly what
/// `open --extract --salvage` restores, laid out as `seal` writes the same folder.
@Suite struct RescueCommandTests {
    let directory = Scratch()
    static let photoCount = 6

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        directory.write("in/records.csv", Array("id,photo\n1,IMG_0001.jpg\n2,IMG_0002.jpg\n3,IMG_0003.jpg\n".utf8))
        for index in 1...Self.photoCount {
            directory.write("in/IMG_000\(index).jpg", (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* index &+ 7) })
        }
        directory.write("pw.txt", Array("rescue what is whole\n".utf8))
        directory.write("new.txt", Array("a passphrase for the family\n".utf8))
        // 1 KiB chunks: each photo spans three or four chunks.
        let sealed = try run(["seal", "in", "-o", "backup.goshuin", "--chunk-size", "1KiB"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    /// Runs the tool with the passphrase from `pw.txt` (`--iterations 1000` for what writes a new file).
    func run(_ arguments: [String], passphraseFile: String? = "pw.txt") throws -> ToolRunner.Result {
        let writes = ["seal", "rescue", "rekey"].contains(arguments.first ?? "")
        return try ToolRunner.run(
            arguments + (passphraseFile.map { ["--passphrase-file", $0] } ?? [])
                + (writes ? ["--iterations", "1000"] : []), in: directory.path)
    }

    /// `backup.goshuin` with one bit of chunk `chunk`'s ciphertext flipped, as `name`.
    @discardableResult
    func damaged(chunk: Int, name: String = "damaged.goshuin") -> String {
        var bytes = directory.bytes("backup.goshuin")
        bytes[45 + chunk * 1_044 + 14] ^= 0x40
        directory.write(name, bytes)
        return name
    }

    /// The payload of the `.goshuin` file `name`, opened with `passphraseFile`.
    func payload(_ name: String, passphraseFile: String = "pw.txt") throws -> [UInt8] {
        let opened = try run(["open", name, "-o", name + ".zip", "--force"], passphraseFile: passphraseFile)
        #expect(opened.status == 0, "\(opened.stderr)")
        return directory.bytes(name + ".zip")
    }

    /// The files of the folder `name`, by name.
    func files(in name: String) throws -> [String: [UInt8]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/" + name)
        return Dictionary(uniqueKeysWithValues: names.map { ($0, directory.bytes(name + "/" + $0)) })
    }

    func json(_ result: ToolRunner.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    }

    /// Whether a temporary file or folder of the tool is left in the scratch directory.
    var temporaryLeft: Bool { directory.entries.contains { $0.contains("goshuin-tmp") } }

    @Test func oneDamagedChunkGivesAVersion1BackupOfExactlyTheIntactEntries() throws {
        damaged(chunk: 8)
        let result = try run(["rescue", "damaged.goshuin"])
        #expect(result.status == 65, "something was lost: \(result.stderr)")
        #expect(directory.exists("damaged.rescued.goshuin"), "the default name, beside the damaged backup")
        #expect(directory.bytes("damaged.rescued.goshuin")[4] == 1, "format version 1")
        #expect(
            result.stderr.contains(
                "saved records.csv and 5 photos into damaged.rescued.goshuin, a new backup (format"
                    + " version 1)"), "\(result.stderr)")
        #expect(result.stderr.contains("the photo that was lost is not in it: IMG_0003.jpg"), "\(result.stderr)")
        #expect(result.stderr.contains("goshuin-tool: lost IMG_0003.jpg: it lies in a damaged chunk"))
        #expect(result.stderr.contains("its rows for the lost photos are kept"))
        #expect(
            result.stderr.contains("as goshuin-tool verify damaged.rescued.goshuin --backup checks"), "\(result.stderr)"
        )

        let verified = try run(["verify", "damaged.rescued.goshuin", "--backup"])
        #expect(verified.status == 0 && verified.stdout.contains("photos       5"), "\(verified.stdout)")

        let salvaged = try run(["open", "damaged.goshuin", "--extract", "salvaged", "--salvage"])
        #expect(salvaged.status == 65)
        #expect(salvaged.stderr.contains("save it as a new backup: goshuin-tool rescue damaged.goshuin"))
        let restored = try run(["open", "damaged.rescued.goshuin", "--extract", "restored"])
        #expect(restored.status == 0, "\(restored.stderr)")
        var held = try files(in: "restored")
        #expect(held.removeValue(forKey: "manifest.json") != nil)
        #expect(held == (try files(in: "salvaged")), "exactly the entries the salvage restores, byte for byte")
        #expect(held["records.csv"] == directory.bytes("in/records.csv"), "records.csv as it was")
        #expect(!temporaryLeft)
    }

    /// The new backup's ZIP is the one `seal` writes for the folder the salvage restores (with the damaged
    /// backup's manifest.json in it, whose `createdAt` seal keeps): byte for byte, the same layout, entries and
    /// manifest. In walk mode (a cut file, its list of contents lost), the salvaged folder alone.
    @Test func theNewBackupIsWhatSealWritesForTheSalvagedFolder() throws {
        damaged(chunk: 8)
        #expect(try run(["rescue", "damaged.goshuin"]).status == 65)
        #expect(try run(["open", "damaged.goshuin", "--extract", "salvaged", "--salvage"]).status == 65)
        #expect(try run(["open", "backup.goshuin", "--extract", "whole"]).status == 0)
        directory.write("salvaged/manifest.json", directory.bytes("whole/manifest.json"))
        #expect(try run(["seal", "salvaged", "-o", "sealed.goshuin"]).status == 0)
        #expect(try payload("damaged.rescued.goshuin") == (try payload("sealed.goshuin")))

        let bytes = directory.bytes("backup.goshuin")
        directory.write("cut.goshuin", Array(bytes[..<(bytes.count / 2)]))
        let cut = try run(["rescue", "cut.goshuin", "--json"])
        #expect(cut.status == 65, "\(cut.stderr)")
        let summary = try json(cut)
        #expect(summary["mode"] as? String == "walk" && summary["manifestLost"] as? Bool == true)
        #expect(summary["photos"] as? [String] == ["IMG_0001.jpg", "IMG_0002.jpg"], "\(summary)")
        #expect(try run(["open", "cut.goshuin", "--extract", "cut-salvaged", "--salvage"]).status == 65)
        #expect(try run(["seal", "cut-salvaged", "-o", "cut-sealed.goshuin"]).status == 0)
        #expect(try payload("cut.rescued.goshuin") == (try payload("cut-sealed.goshuin")))
        #expect(try run(["verify", "cut.rescued.goshuin", "--backup"]).status == 0)
    }

    @Test func anIntactBackupIsSavedWholeAndExitsZero() throws {
        let result = try run(["rescue", "backup.goshuin", "-o", "copy.goshuin", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try json(result)
        #expect(summary["ok"] as? Bool == true && summary["photoCount"] as? Int == Self.photoCount)
        #expect(summary["verified"] as? Bool == true && summary["formatVersion"] as? Int == 1)
        #expect(try payload("copy.goshuin") == (try payload("backup.goshuin")), "the same backup, laid out again")
    }

    @Test func anExistingOutputIsReplacedOnlyWithForce() throws {
        damaged(chunk: 8)
        directory.write("damaged.rescued.goshuin", Array("someone's file".utf8))
        let refused = try run(["rescue", "damaged.goshuin"])
        #expect(refused.status == 73 && refused.stderr.contains("error: output_exists:"), "\(refused.stderr)")
        #expect(directory.bytes("damaged.rescued.goshuin") == Array("someone's file".utf8))
        let forced = try run(["rescue", "damaged.goshuin", "--force"])
        #expect(forced.status == 65, "\(forced.stderr)")
        #expect(try run(["verify", "damaged.rescued.goshuin", "--backup"]).status == 0)
        #expect(!temporaryLeft)
    }

    @Test func theOutputIsNeverTheInputALinkOrAFolder() throws {
        damaged(chunk: 8)
        let same = try run(["rescue", "damaged.goshuin", "-o", "damaged.goshuin", "--force"])
        #expect(same.status == 64 && same.stderr.contains("error: same_file:"), "\(same.stderr)")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link.goshuin", withDestinationPath: "x")
        let link = try run(["rescue", "damaged.goshuin", "-o", "link.goshuin", "--force"])
        #expect(link.status == 73 && link.stderr.contains("error: output_exists:"), "\(link.stderr)")
        let folder = try run(["rescue", "damaged.goshuin", "-o", "in", "--force"])
        #expect(folder.status == 73, "\(folder.stderr)")
        #expect(!temporaryLeft && !directory.exists("x"))
        // Refused before standard input is read, so it is given nothing: a pipe the tool leaves unread could end
        // the test process by SIGPIPE.
        let standardInput = try ToolRunner.run(["rescue", "-", "--passphrase-file", "pw.txt"], in: directory.path)
        #expect(standardInput.status == 64 && standardInput.stderr.contains("needs -o"), "\(standardInput.stderr)")
    }

    @Test func aWrongPassphraseOrALostRecordsFileWritesNothing() throws {
        damaged(chunk: 8)
        directory.write("wrong.txt", Array("not it\n".utf8))
        let wrong = try run(["rescue", "damaged.goshuin"], passphraseFile: "wrong.txt")
        #expect(wrong.status == 65 && wrong.stderr.contains("error: auth_failed:"), "\(wrong.stderr)")
        // records.csv lies in chunk 0: without it there is no backup to import.
        damaged(chunk: 0, name: "records-lost.goshuin")
        let records = try run(["rescue", "records-lost.goshuin", "--json"])
        #expect(records.status == 65, "\(records.stderr)")
        #expect(records.stderr.contains("error: chunk_damaged: records.csv is lost"), "\(records.stderr)")
        #expect(
            records.stderr.contains("goshuin-tool open records-lost.goshuin --extract DIR --salvage"),
            "the photos can still be restored: \(records.stderr)")
        #expect((try json(records))["ok"] as? Bool == false)
        #expect(!directory.exists("damaged.rescued.goshuin") && !directory.exists("records-lost.rescued.goshuin"))
        #expect(!temporaryLeft)
    }

    @Test func aNewPassphraseFromAFileOpensTheNewBackupAlone() throws {
        damaged(chunk: 8)
        let result = try run(["rescue", "damaged.goshuin", "-o", "family.goshuin", "--new-passphrase-file", "new.txt"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(try run(["verify", "family.goshuin", "--backup"], passphraseFile: "new.txt").status == 0)
        let old = try run(["verify", "family.goshuin", "--backup"])
        #expect(old.status == 65 && old.stderr.contains("auth_failed"), "\(old.stderr)")
        for secret in ["rescue what is whole", "a passphrase for the family"] {
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "no secret is shown")
        }
        let both = try run(
            [
                "rescue", "damaged.goshuin", "-o", "x.goshuin", "--new-passphrase-file", "new.txt",
                "--ask-new-passphrase",
            ])
        #expect(both.status == 64, "\(both.stderr)")
        let same = try run(["rescue", "damaged.goshuin", "-o", "x.goshuin", "--new-passphrase-file", "pw.txt"])
        #expect(same.status == 64 && same.stderr.contains("both be read from"), "\(same.stderr)")
        let noTerminal = try run(["rescue", "damaged.goshuin", "-o", "x.goshuin", "--ask-new-passphrase"])
        #expect(noTerminal.status == 64 && noTerminal.stderr.contains("no terminal"), "\(noTerminal.stderr)")
        #expect(!directory.exists("x.goshuin"))
    }

    @Test func aNewPassphraseTypedTwiceMustMatch() throws {
        damaged(chunk: 8)
        let arguments = [
            "rescue", "damaged.goshuin", "-o", "typed.goshuin", "--ask-new-passphrase", "--iterations", "1000",
        ]
        let differ = try ToolRunner.runOnTerminal(
            arguments, in: directory.path, answers: ["rescue what is whole", "typed for the family", "typo"])
        #expect(differ.status == 64 && differ.screen.contains("passphrase_mismatch"), "\(differ.screen)")
        #expect(!directory.exists("typed.goshuin") && !temporaryLeft)
        let typed = try ToolRunner.runOnTerminal(
            arguments, in: directory.path,
            answers: ["rescue what is whole", "typed for the family", "typed for the family"])
        #expect(typed.status == 65, "\(typed.screen)")
        #expect(typed.screen.contains("Passphrase for the new file again:") && !typed.screen.contains("typed for"))
        directory.write("typed.txt", Array("typed for the family\n".utf8))
        #expect(try run(["verify", "typed.goshuin", "--backup"], passphraseFile: "typed.txt").status == 0)
    }

    /// A stop while the new backup is being written (its key derived with the default iterations, in its
    /// temporary file) leaves nothing: no output, no temporary.
    @Test func aSignalLeavesNothing() throws {
        damaged(chunk: 8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = ["rescue", "damaged.goshuin", "--passphrase-file", "pw.txt", "--iterations", "2000000"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, !temporaryLeft, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(temporaryLeft, "the temporary file appears before the key is derived")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
        #expect(!directory.exists("damaged.rescued.goshuin") && !temporaryLeft, "\(directory.entries)")
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small file system needs root"))
    func aFullFileSystemLeavesNothing() throws {
        damaged(chunk: 8)
        let mountPoint = directory.path + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mounted = try ToolRunner.runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=12k", "tmpfs", mountPoint])
        #expect(mounted.status == 0, "\(mounted.output)")
        defer { _ = try? ToolRunner.runCommand("/bin/umount", [mountPoint]) }
        let result = try run(["rescue", "damaged.goshuin", "-o", "small/new.goshuin"])
        #expect(result.status == 74 && result.stderr.contains("error: no_space:"), "\(result.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: mountPoint)) == [])
    }
}
