import Foundation
import GoshuinTestSupport
import Testing

/// A backup sealed by the tool, for the recovery commands: its folder, its bytes and where its records lie.
struct ProtectedBackupFixture {
    static let passphrase = "recovery commands"
    /// Version 1's header length.
    static let headerLength = 45
    /// The record length of 4 KiB chunks in version 1: length prefix, chunk, tag.
    static let recordLength = 4 + 4_096 + 16

    let directory = Scratch()
    /// The sealed backup's bytes, as sealed.
    let original: [UInt8]

    /// `backup.goshuin`: a 1 MB payload sealed in 4 KiB chunks (format 1), so 245 records and as many slices
    /// of one record, 13 recovery slices at 5%; protected unless `protected` is false.
    init(protected: Bool = true) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let payload = (0..<1_000_000).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
        directory.write("payload.bin", payload)
        let sealed = try ToolRunner.run(
            ["seal", "payload.bin", "-o", "backup.goshuin", "--iterations", "1000", "--chunk-size", "4KiB"],
            in: directory.path, environment: ["GOSHUIN_PASSPHRASE": Self.passphrase])
        try #require(sealed.status == 0, "\(sealed.stderr)")
        try FileManager.default.removeItem(atPath: directory.path + "/payload.bin")
        original = directory.bytes("backup.goshuin")
        if protected {
            let protect = try run(["protect", "backup.goshuin"])
            try #require(protect.status == 0, "\(protect.stderr)")
        }
    }

    /// Runs the tool in the fixture's folder, with no passphrase unless `passphrase`.
    func run(_ arguments: [String], passphrase: Bool = false) throws -> ToolRunner.Result {
        try ToolRunner.run(
            arguments, in: directory.path, environment: passphrase ? ["GOSHUIN_PASSPHRASE": Self.passphrase] : [:])
    }

    /// Overwrites `count` bytes of `name` at `offset` with `byte`.
    func overwrite(_ name: String = "backup.goshuin", at offset: Int, count: Int, with byte: UInt8 = 0) {
        var bytes = directory.bytes(name)
        bytes.replaceSubrange(offset..<(offset + count), with: [UInt8](repeating: byte, count: count))
        directory.write(name, bytes)
    }

    /// Zeroes 4 KiB inside record `record`, clear of its ends.
    func zeroSector(inRecord record: Int) {
        overwrite(at: Self.headerLength + record * Self.recordLength + 10, count: 4_096)
    }

    /// The JSON object a run printed.
    static func json(_ result: ToolRunner.Result) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "\(result.stdout)")
    }
}

/// `protect`, `repair` and the recovery half of `verify`, on real files, as a person runs them: no
/// passphrase, nothing written but what is asked, nothing left behind.
@Suite struct RecoveryCommandTests {
    static let setFiles = ["backup.goshuin.par2", "backup.goshuin.vol00+13.par2"]

    @Test func protectWritesTheSetAsPar2NamesItAndKeepsAnExistingOne() throws {
        let fixture = try ProtectedBackupFixture(protected: false)
        let protect = try fixture.run(["protect", "backup.goshuin", "--json"])
        #expect(protect.status == 0, "\(protect.stderr)")
        let summary = try ProtectedBackupFixture.json(protect)
        #expect(summary["ok"] as? Bool == true && summary["command"] as? String == "protect")
        #expect(summary["sliceCount"] as? Int == 245 && summary["recoverySliceCount"] as? Int == 13)
        #expect(summary["sliceSize"] as? Int == ProtectedBackupFixture.recordLength, "slices of whole records")
        #expect(summary["indexFile"] as? String == "backup.goshuin.par2")
        #expect(summary["volumeFile"] as? String == "backup.goshuin.vol00+13.par2")
        #expect(summary["redundancy"] as? String == "5%")
        #expect(fixture.directory.entries == ["backup.goshuin"] + Self.setFiles, "nothing else is left")
        for name in Self.setFiles {
            let attributes = try FileManager.default.attributesOfItem(atPath: fixture.directory.path + "/" + name)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name) is private")
        }
        #expect(fixture.directory.bytes("backup.goshuin") == fixture.original, "the file is only read")
        let index = fixture.directory.bytes(Self.setFiles[0])
        let volume = fixture.directory.bytes(Self.setFiles[1])
        // A second protect keeps the set: 73, until --force.
        let again = try fixture.run(["protect", "backup.goshuin", "--redundancy", "10%"])
        #expect(again.status == 73 && again.stderr.contains("output_exists"), "\(again.stderr)")
        #expect(
            fixture.directory.bytes(Self.setFiles[0]) == index && fixture.directory.bytes(Self.setFiles[1]) == volume)
        let forced = try fixture.run(["protect", "backup.goshuin", "--redundancy", "10%", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(
            fixture.directory.entries == ["backup.goshuin", "backup.goshuin.par2", "backup.goshuin.vol00+25.par2"],
            "the old volume is gone with the old set: \(fixture.directory.entries)")
        #expect(
            forced.stderr.contains("they can rebuild up to 25 parts of the file's 245")
                && forced.stderr.contains("keep them next to the file"), "\(forced.stderr)")
    }

    @Test func protectRefusesWhatItCannotProtect() throws {
        let fixture = try ProtectedBackupFixture(protected: false)
        let missing = try fixture.run(["protect", "nowhere.goshuin"])
        #expect(missing.status == 66 && missing.stderr.contains("input_not_found"), "\(missing.stderr)")
        let standardInput = try fixture.run(["protect", "-"])
        #expect(standardInput.status == 64, "\(standardInput.stderr)")
        for redundancy in ["abc", "0%", "101%", "-5%", ""] {
            let refused = try fixture.run(["protect", "backup.goshuin", "--redundancy", redundancy])
            #expect(refused.status == 64, "--redundancy \(redundancy): \(refused.stderr)")
        }
        fixture.directory.write("empty.goshuin", [])
        let empty = try fixture.run(["protect", "empty.goshuin"])
        #expect(empty.status == 64 && empty.stderr.contains("invalid_argument"), "\(empty.stderr)")
        #expect(fixture.directory.entries == ["backup.goshuin", "empty.goshuin"], "nothing was written")
    }

    @Test func verifySaysWhereTheDamageIsAndThatTheSetRepairsIt() throws {
        let fixture = try ProtectedBackupFixture()
        fixture.zeroSector(inRecord: 48)
        // No passphrase: the slices' checksums alone.
        let verify = try fixture.run(["verify", "backup.goshuin"])
        #expect(verify.status == 65, "\(verify.stderr)")
        #expect(
            verify.stdout.contains(
                "damaged: 2 parts of the file (in chunks 47-49); the recovery files backup.goshuin.par2 can rebuild"
                    + " up to 13 parts: goshuin-tool repair backup.goshuin"), "\(verify.stdout)")
        #expect(verify.stderr.contains("error: chunk_damaged"), "\(verify.stderr)")
        // With the passphrase: the same, and it is not even asked.
        let withPassphrase = try fixture.run(["verify", "backup.goshuin"], passphrase: true)
        #expect(withPassphrase.status == 65 && withPassphrase.stdout == verify.stdout)
        let json = try fixture.run(["verify", "backup.goshuin", "--json"])
        #expect(json.status == 65)
        let object = try ProtectedBackupFixture.json(json)
        #expect(object["ok"] as? Bool == false)
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == "chunk_damaged" && error["chunkIndex"] as? Int == 47)
        let recovery = try #require(object["recovery"] as? [String: Any])
        #expect(recovery["repairable"] as? Bool == true && recovery["intact"] as? Bool == false)
        #expect(recovery["damagedSlices"] as? Int == 2 && recovery["recoverySlicesNeeded"] as? Int == 2)
        #expect(recovery["recoverySlicesAvailable"] as? Int == 13)
        #expect(recovery["damagedChunks"] as? [Int] == [47, 48, 49])
        #expect(recovery["set"] as? String == "backup.goshuin.par2")
        #expect(recovery["next"] as? String == "goshuin-tool repair backup.goshuin")
        // A set named elsewhere, by --recovery.
        try FileManager.default.createDirectory(
            atPath: fixture.directory.path + "/sets", withIntermediateDirectories: false)
        for name in Self.setFiles {
            try FileManager.default.moveItem(
                atPath: fixture.directory.path + "/" + name, toPath: fixture.directory.path + "/sets/" + name)
        }
        let named = try fixture.run(["verify", "backup.goshuin", "--recovery", "sets/backup.goshuin.par2"])
        #expect(named.status == 65, "\(named.stderr)")
        #expect(
            named.stdout.contains(
                "can rebuild up to 13 parts: goshuin-tool repair backup.goshuin --recovery"
                    + " sets/backup.goshuin.par2"), "\(named.stdout)")
        // Without any set, verify is what it was: it needs the passphrase (and finds the damage with it).
        let noSet = try fixture.run(["verify", "backup.goshuin"])
        #expect(noSet.status == 64, "\(noSet.stderr)")
        let authenticated = try fixture.run(["verify", "backup.goshuin"], passphrase: true)
        #expect(authenticated.status == 65 && authenticated.stderr.contains("chunk_damaged"))
    }

    @Test func verifyOfAnIntactProtectedFile() throws {
        let fixture = try ProtectedBackupFixture()
        let unauthenticated = try fixture.run(["verify", "backup.goshuin", "--json"])
        #expect(unauthenticated.status == 0, "\(unauthenticated.stderr)")
        let object = try ProtectedBackupFixture.json(unauthenticated)
        #expect(object["authenticated"] as? Bool == false && object["chunkCount"] as? Int == 245)
        let recovery = try #require(object["recovery"] as? [String: Any])
        #expect(recovery["intact"] as? Bool == true && recovery["next"] is NSNull)
        let text = try fixture.run(["verify", "backup.goshuin"])
        #expect(text.stdout.contains("no passphrase: the chunks were not authenticated"), "\(text.stdout)")
        // --backup needs the passphrase, set or not.
        #expect(try fixture.run(["verify", "backup.goshuin", "--backup"]).status == 64)
        let authenticated = try fixture.run(["verify", "backup.goshuin", "--json"], passphrase: true)
        #expect(authenticated.status == 0, "\(authenticated.stderr)")
        let full = try ProtectedBackupFixture.json(authenticated)
        #expect(full["authenticated"] as? Bool == true && full["fileSize"] as? Int == fixture.original.count)
        #expect((full["recovery"] as? [String: Any])?["intact"] as? Bool == true)
        let line = try fixture.run(["verify", "backup.goshuin"], passphrase: true)
        #expect(line.stdout.contains("verified     backup.goshuin: every chunk authenticates"))
        #expect(
            line.stdout.contains(
                "recovery     intact: every part of the file matches its recovery files backup.goshuin.par2"),
            "\(line.stdout)")
    }

    @Test func repairWritesAByteIdenticalFileAndLeavesTheOriginal() throws {
        let fixture = try ProtectedBackupFixture()
        fixture.zeroSector(inRecord: 100)
        let damaged = fixture.directory.bytes("backup.goshuin")
        let repair = try fixture.run(["repair", "backup.goshuin", "-o", "fixed.goshuin", "--json"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(fixture.directory.bytes("fixed.goshuin") == fixture.original, "byte for byte")
        #expect(fixture.directory.bytes("backup.goshuin") == damaged, "the damaged original is left as it was")
        #expect(fixture.directory.entries == (["backup.goshuin", "fixed.goshuin"] + Self.setFiles).sorted())
        let summary = try ProtectedBackupFixture.json(repair)
        #expect(summary["output"] as? String == "fixed.goshuin" && summary["repaired"] as? Bool == true)
        #expect(summary["recoverySlicesUsed"] as? Int == 2)
        // The repaired backup opens with the passphrase.
        #expect(try fixture.run(["verify", "fixed.goshuin"], passphrase: true).status == 0)
        // Without -o: FILE with .repaired before its extension, never replaced.
        let byDefault = try fixture.run(["repair", "backup.goshuin"])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(
            byDefault.stderr.contains(
                "repaired backup.goshuin into backup.repaired.goshuin: 2 parts of the file (in chunks 99-101) rebuilt"),
            "\(byDefault.stderr)")
        #expect(
            byDefault.stderr.contains(
                "next: check it with its passphrase: goshuin-tool verify backup.repaired.goshuin"),
            "a next step: \(byDefault.stderr)")
        #expect(fixture.directory.bytes("backup.repaired.goshuin") == fixture.original)
        let again = try fixture.run(["repair", "backup.goshuin"])
        #expect(again.status == 73 && again.stderr.contains("output_exists"), "\(again.stderr)")
        #expect(try fixture.run(["repair", "backup.goshuin", "--force"]).status == 0)
        #expect(try fixture.run(["repair", "backup.goshuin", "-o", "-"]).status == 64)
        #expect(try fixture.run(["repair", "backup.goshuin", "-o", "x.goshuin", "--in-place"]).status == 64)
        #expect(try fixture.run(["repair", "backup.goshuin", "-o", "backup.goshuin"]).status == 64, "the same file")
        #expect(fixture.directory.bytes("backup.goshuin") == damaged)
    }

    @Test func repairInPlaceReplacesTheFileOnlyOnceItIsChecked() throws {
        let fixture = try ProtectedBackupFixture()
        let path = fixture.directory.path + "/backup.goshuin"
        // A cut of 1% and a damaged sector.
        fixture.zeroSector(inRecord: 3)
        let cut = Array(fixture.directory.bytes("backup.goshuin").dropLast(fixture.original.count / 100))
        fixture.directory.write("backup.goshuin", cut)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let verify = try fixture.run(["verify", "backup.goshuin"])
        #expect(verify.status == 65 && verify.stdout.contains("cut short: "), "\(verify.stdout)")
        #expect(verify.stderr.contains("error: truncated:"), "a cut is truncated whoever says it: \(verify.stderr)")
        let repair = try fixture.run(["repair", "backup.goshuin", "--in-place"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(fixture.directory.bytes("backup.goshuin") == fixture.original)
        #expect(fixture.directory.entries == ["backup.goshuin"] + Self.setFiles, "no temporary file is left")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o640, "its permissions are kept")
    }

    @Test func anIntactFileIsSaidToBeSoAndNothingIsWritten() throws {
        let fixture = try ProtectedBackupFixture()
        for arguments in [["repair", "backup.goshuin"], ["repair", "backup.goshuin", "--in-place"]] {
            let repair = try fixture.run(arguments + ["--json"])
            #expect(repair.status == 0, "\(repair.stderr)")
            let summary = try ProtectedBackupFixture.json(repair)
            #expect(summary["intact"] as? Bool == true && summary["output"] is NSNull)
            #expect(fixture.directory.entries == ["backup.goshuin"] + Self.setFiles)
        }
        let text = try fixture.run(["repair", "backup.goshuin"])
        #expect(text.stderr.contains("backup.goshuin is intact") && text.stderr.contains("nothing was written"))
        #expect(fixture.directory.bytes("backup.goshuin") == fixture.original)
    }

    @Test func damageBeyondTheSetIsSaidInNumbersWithTheSalvageToRun() throws {
        let fixture = try ProtectedBackupFixture()
        // 14 records zeroed, far apart: 28 slices, 13 recovery slices.
        for record in stride(from: 5, to: 240, by: 17) { fixture.zeroSector(inRecord: record) }
        let damaged = fixture.directory.bytes("backup.goshuin")
        let repair = try fixture.run(["repair", "backup.goshuin", "--json"])
        #expect(repair.status == 65, "\(repair.stderr)")
        #expect(
            repair.stderr.contains(
                "28 parts to rebuild; the recovery files backup.goshuin.par2 can rebuild up to 13 parts (15 more"
                    + " needed)"),
            "\(repair.stderr)")
        #expect(
            repair.stderr.contains("goshuin-tool open backup.goshuin --extract DIR --salvage"), "\(repair.stderr)")
        let error = try #require(try ProtectedBackupFixture.json(repair)["error"] as? [String: Any])
        #expect(error["code"] as? String == "not_repairable")
        #expect(fixture.directory.bytes("backup.goshuin") == damaged)
        #expect(fixture.directory.entries == ["backup.goshuin"] + Self.setFiles, "nothing was written")
        let inPlace = try fixture.run(["repair", "backup.goshuin", "--in-place"])
        #expect(inPlace.status == 65 && fixture.directory.bytes("backup.goshuin") == damaged)
        let verify = try fixture.run(["verify", "backup.goshuin", "--json"])
        #expect(verify.status == 65)
        let recovery = try #require(try ProtectedBackupFixture.json(verify)["recovery"] as? [String: Any])
        #expect(recovery["repairable"] as? Bool == false && recovery["damagedSlices"] as? Int == 28)
        #expect(recovery["next"] as? String == "goshuin-tool open backup.goshuin --extract DIR --salvage")
        let text = try fixture.run(["verify", "backup.goshuin"])
        #expect(
            text.stdout.contains(
                "not repairable: 28 parts to rebuild; the recovery files backup.goshuin.par2 can rebuild up to 13"
                    + " parts"),
            "\(text.stdout)")
    }

    @Test func aSetThatIsNotThisFilesIsRefusedAndNothingIsWritten() throws {
        let fixture = try ProtectedBackupFixture()
        fixture.zeroSector(inRecord: 10)
        let damaged = fixture.directory.bytes("backup.goshuin")
        // No set at all.
        let none = try fixture.run(["repair", "backup.goshuin", "--recovery", "nowhere.par2"])
        #expect(none.status == 65 && none.stderr.contains("recovery_set_not_found"), "\(none.stderr)")
        // Another file's set, under this file's name.
        fixture.directory.write("other.goshuin", Array(fixture.original.reversed()))
        #expect(try fixture.run(["protect", "other.goshuin"]).status == 0)
        let mismatch = try fixture.run(["repair", "backup.goshuin", "--recovery", "other.goshuin.par2"])
        #expect(mismatch.status == 65 && mismatch.stderr.contains("recovery_set_mismatch"), "\(mismatch.stderr)")
        // Bytes that are no set, beside the file.
        let garbage = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        for name in Self.setFiles { fixture.directory.write(name, garbage) }
        let invalid = try fixture.run(["repair", "backup.goshuin"])
        #expect(invalid.status == 65 && invalid.stderr.contains("recovery_set_invalid"), "\(invalid.stderr)")
        // verify reports a set beside it it cannot use, and goes on without it.
        let notice = try fixture.run(["verify", "backup.goshuin"], passphrase: true)
        #expect(notice.status == 65 && notice.stderr.contains("cannot be used"), "\(notice.stderr)")
        #expect(notice.stderr.contains("chunk_damaged"), "the chunks are authenticated: \(notice.stderr)")
        let verify = try fixture.run(["verify", "backup.goshuin", "--json"], passphrase: true)
        #expect(verify.status == 65)
        let recovery = try #require(try ProtectedBackupFixture.json(verify)["recovery"] as? [String: Any])
        #expect(recovery["usable"] as? Bool == false && recovery["code"] as? String == "recovery_set_invalid")
        #expect(fixture.directory.bytes("backup.goshuin") == damaged)
        #expect(
            fixture.directory.entries.filter { !$0.hasPrefix("other.goshuin") } == ["backup.goshuin"] + Self.setFiles,
            "nothing was written")
    }
}

/// Both ways with the real par2 tools: our `protect` repaired by par2cmdline 0.8.1 and par2cmdline-turbo, and
/// their `par2 create` repaired by `goshuin-tool repair`.
@Suite(.slowTier, .serialized) struct RecoveryCommandInteropTests {
    /// Debian's par2cmdline 0.8.1, and par2cmdline-turbo, the `par2` first on PATH.
    static let tools = ["/usr/bin/par2", "par2"]

    /// Runs `arguments` through /usr/bin/env (so `par2` is found on this process's PATH) in `directory`.
    static func par2(_ arguments: [String], in directory: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let result = try ToolRunner.execute(process, stdin: [])
        return (result.status, result.stdout + result.stderr)
    }

    @Test func theToolsAreTheOnesMeant() throws {
        let debian = try Self.par2(["/usr/bin/par2", "--version"], in: "/")
        #expect(debian.output.contains("par2cmdline version 0.8.1"), "\(debian.output)")
        let turbo = try Self.par2(["par2", "--version"], in: "/")
        #expect(turbo.output.contains("par2cmdline-turbo"), "the par2 first on PATH: \(turbo.output)")
    }

    @Test(arguments: tools)
    func ourSetIsRepairedByTheTool(tool: String) throws {
        let fixture = try ProtectedBackupFixture()
        fixture.zeroSector(inRecord: 48)
        fixture.zeroSector(inRecord: 200)
        let repaired = try Self.par2([tool, "repair", "backup.goshuin.par2"], in: fixture.directory.path)
        #expect(repaired.status == 0, "\(tool) repair:\n\(repaired.output.suffix(600))")
        #expect(fixture.directory.bytes("backup.goshuin") == fixture.original, "\(tool) restores it byte for byte")
        #expect(try fixture.run(["verify", "backup.goshuin"], passphrase: true).status == 0)
    }

    @Test(arguments: tools, [["-s4116", "-r5", "-n1"], ["-s8232", "-r10"], ["-s1024", "-r3"]])
    func theirSetIsRepairedByUs(tool: String, options: [String]) throws {
        let fixture = try ProtectedBackupFixture(protected: false)
        let created = try Self.par2([tool, "create", "-q"] + options + ["backup.goshuin"], in: fixture.directory.path)
        try #require(created.status == 0, "\(tool) create:\n\(created.output.suffix(600))")
        fixture.zeroSector(inRecord: 60)
        let setFiles = fixture.directory.entries.filter { $0.hasSuffix(".par2") }
        let verify = try fixture.run(["verify", "backup.goshuin", "--json"])
        #expect(verify.status == 65)
        let recovery = try #require(try ProtectedBackupFixture.json(verify)["recovery"] as? [String: Any])
        #expect(recovery["repairable"] as? Bool == true, "\(verify.stdout)")
        let repair = try fixture.run(["repair", "backup.goshuin", "-o", "fixed.goshuin"])
        #expect(repair.status == 0, "\(tool) \(options): \(repair.stderr)")
        #expect(fixture.directory.bytes("fixed.goshuin") == fixture.original, "byte for byte from \(tool)'s set")
        let inPlace = try fixture.run(["repair", "backup.goshuin", "--in-place"])
        #expect(inPlace.status == 0 && fixture.directory.bytes("backup.goshuin") == fixture.original)
        #expect(
            fixture.directory.entries == (["backup.goshuin", "fixed.goshuin"] + setFiles).sorted(),
            "nothing else is written")
    }
}

/// `seal --recovery`: the set written while sealing is the very set `protect` makes of the sealed file, for a
/// file and a folder, in both formats; nothing of it is left when sealing fails or is refused.
@Suite struct SealWithRecoveryTests {
    static let environment = ["GOSHUIN_PASSPHRASE": ProtectedBackupFixture.passphrase]

    /// Seals `input` into `output` with `options` and a set of `redundancy`, then checks the set beside it
    /// against `protect`'s.
    func sealAndCompare(
        _ input: String, _ output: String, _ options: [String], redundancy: String = "5%", in directory: Scratch
    ) throws {
        let sealed = try ToolRunner.run(
            ["seal", input, "-o", output, "--iterations", "1000", "--recovery", redundancy, "--json"] + options,
            in: directory.path, environment: Self.environment)
        try #require(sealed.status == 0, "\(options): \(sealed.stderr)")
        let summary = try ProtectedBackupFixture.json(sealed)
        let recovery = try #require(summary["recovery"] as? [String: Any], "\(sealed.stdout)")
        let index = try #require(recovery["indexFile"] as? String)
        let volume = try #require(recovery["volumeFile"] as? String)
        #expect(index == output + ".par2" && volume.hasPrefix(output + ".vol0"))
        let streamed = (directory.bytes(index), directory.bytes(volume))
        for name in [index, volume] { try FileManager.default.removeItem(atPath: directory.path + "/" + name) }
        let protect = try ToolRunner.run(["protect", output, "--redundancy", redundancy], in: directory.path)
        #expect(protect.status == 0, "\(protect.stderr)")
        #expect(directory.bytes(index) == streamed.0, "\(options): the index is protect's, byte for byte")
        #expect(directory.bytes(volume) == streamed.1, "\(options): the volume is protect's, byte for byte")
        let verify = try ToolRunner.run(["verify", output], in: directory.path, environment: Self.environment)
        #expect(verify.status == 0 && verify.stdout.contains("recovery     intact"), "\(verify.stdout)")
    }

    @Test(arguments: [["--format", "1"], ["--format", "2"], ["--format", "2", "--chunk-size", "1KiB"]])
    func aFileAndAFolderSealedWithTheirSets(options: [String]) throws {
        let directory = Scratch()
        directory.write("payload.bin", (0..<700_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        let chunkSize = options.contains("--chunk-size") ? [] : ["--chunk-size", "4KiB"]
        try sealAndCompare("payload.bin", "file.goshuin", options + chunkSize, in: directory)
        try FileManager.default.createDirectory(atPath: directory.path + "/folder", withIntermediateDirectories: true)
        directory.write("folder/records.csv", Array("date,shrine\n2026-01-01,Meiji Jingu\n".utf8))
        for index in 1...4 {
            directory.write(
                "folder/IMG_000\(index).jpg", (0..<90_000).map { UInt8(truncatingIfNeeded: $0 &* (index * 37 + 11)) })
        }
        try sealAndCompare("folder", "folder.goshuin", options, in: directory)
    }

    /// Past the writer's 24 MiB, the set is finished from the sealed file read back (`Spec/recovery-par2.md`
    /// §5.4): still protect's, byte for byte, and par2cmdline's to verify.
    @Test(.slowTier) func aSetPastTheWritersMemoryIsTheSame() throws {
        let directory = Scratch()
        var state: UInt64 = 47
        directory.write(
            "payload.bin",
            (0..<26_000_000).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
        try sealAndCompare("payload.bin", "large.goshuin", ["--format", "2"], redundancy: "100%", in: directory)
        let par2 = try RecoveryCommandInteropTests.par2(
            ["/usr/bin/par2", "verify", "-q", "large.goshuin.par2"], in: directory.path)
        #expect(par2.status == 0, "\(par2.output)")
    }

    @Test func whatCannotBeProtectedWhileSealingIsRefusedAndNothingIsLeft() throws {
        let directory = Scratch()
        directory.write("payload.bin", Array(repeating: 7, count: 50_000))
        let run = { (arguments: [String], environment: [String: String]) in
            try ToolRunner.run(
                ["seal"] + arguments + ["--iterations", "1000"], in: directory.path, environment: environment)
        }
        let toStandardOutput = try run(["payload.bin", "-o", "-", "--recovery", "5%"], Self.environment)
        #expect(toStandardOutput.status == 64, "\(toStandardOutput.stderr)")
        let stream = try ToolRunner.run(
            ["seal", "-", "--format", "2", "-o", "s.goshuin", "--recovery", "5%"], in: directory.path,
            stdin: [1, 2, 3],
            environment: Self.environment)
        #expect(stream.status == 64 && stream.stderr.contains("goshuin-tool protect s.goshuin"), "\(stream.stderr)")
        let badShare = try run(["payload.bin", "-o", "b.goshuin", "--recovery", "200%"], Self.environment)
        #expect(badShare.status == 64, "\(badShare.stderr)")
        // Refused at the passphrase: neither the file nor any of its set is left.
        let empty = try run(["payload.bin", "-o", "e.goshuin", "--recovery", "5%"], ["GOSHUIN_PASSPHRASE": ""])
        #expect(empty.status == 64 && empty.stderr.contains("empty_passphrase"), "\(empty.stderr)")
        #expect(directory.entries == ["payload.bin"], "nothing is left: \(directory.entries)")
        // A set already beside the output is refused before anything is written, unless --force.
        directory.write("x.goshuin.par2", [1, 2, 3, 4])
        let existing = try run(["payload.bin", "-o", "x.goshuin", "--recovery", "5%"], Self.environment)
        #expect(existing.status == 73 && existing.stderr.contains("output_exists"), "\(existing.stderr)")
        #expect(directory.entries == ["payload.bin", "x.goshuin.par2"])
        let forced = try run(["payload.bin", "-o", "x.goshuin", "--recovery", "5%", "--force"], Self.environment)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(directory.entries == ["payload.bin", "x.goshuin", "x.goshuin.par2", "x.goshuin.vol0+2.par2"])
        #expect(forced.stderr.contains("protected x.goshuin: x.goshuin.par2 and x.goshuin.vol0+2.par2"))
    }
}

/// Progress on a terminal, for files large enough to need it: each stage on one line, redrawn, then cleared
/// for the result line.
@Suite(.slowTier) struct RecoveryProgressTests {
    @Test func protectAndRepairShowTheirStagesOnATerminal() throws {
        let directory = Scratch(needing: 400 << 20)
        var bytes = [UInt8](repeating: 0, count: 80 << 20)
        var state: UInt64 = 88_172_645_463_325_252
        for index in stride(from: 0, to: bytes.count, by: 8) {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            withUnsafeBytes(of: state) { word in
                for offset in 0..<8 { bytes[index + offset] = word[offset] }
            }
        }
        directory.write("large.bin", bytes)
        let protect = try ToolRunner.runOnTerminal(["protect", "large.bin"], in: directory.path, answers: [])
        #expect(protect.status == 0, "\(protect.screen)")
        #expect(protect.screen.contains("goshuin-tool: making the recovery files: "), "\(protect.screen.suffix(600))")
        #expect(protect.screen.contains("protected large.bin: large.bin.par2"))
        bytes.replaceSubrange(40_000_000..<40_004_096, with: [UInt8](repeating: 0, count: 4_096))
        directory.write("large.bin", bytes)
        let repair = try ToolRunner.runOnTerminal(["repair", "large.bin"], in: directory.path, answers: [])
        #expect(repair.status == 0, "\(repair.screen)")
        #expect(
            repair.screen.contains("goshuin-tool: checking against the recovery files: "),
            "\(repair.screen.suffix(600))")
        #expect(repair.screen.contains("repaired large.bin into large.repaired.bin"))
        // The damaged file's set can repair it, so a new set is refused (ADR 0048): the repaired copy has none.
        let quiet = try ToolRunner.runOnTerminal(
            ["protect", "large.repaired.bin", "-q"], in: directory.path, answers: [])
        #expect(quiet.status == 0 && !quiet.screen.contains("making the recovery files"), "\(quiet.screen)")
    }
}
