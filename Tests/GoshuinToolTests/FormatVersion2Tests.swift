import Foundation
import GoshuinTestSupport
import Testing

/// `seal --format 2` and every command reading what it writes (`Spec/container-v2.md`,
/// `Spec/decisions/0034`): files, folders and pipes; the MAC's verdicts; a pipe sealed with no temporary copy;
/// a seal killed part-way leaving nothing that opens.
@Suite struct FormatVersion2Tests {
    let directory = Scratch()
    static let passphrase = "version two passphrase"
    var environment: [String: String] { ["GOSHUIN_PASSPHRASE": Self.passphrase, "TMPDIR": directory.path + "/tmp"] }

    init() throws {
        for folder in ["in", "tmp"] {
            try FileManager.default.createDirectory(
                atPath: directory.path + "/" + folder, withIntermediateDirectories: false)
        }
        directory.write("in/records.csv", Array("id,text\n1,a shrine\n".utf8))
        for index in 1...4 {
            directory.write("in/IMG_000\(index).jpg", (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* index &+ 3) })
        }
        directory.write("notes.txt", (0..<5_000).map { UInt8(truncatingIfNeeded: $0 % 253) })
    }

    func run(_ arguments: [String], stdin: [UInt8] = [], passphrase: String = Self.passphrase) throws
        -> ToolRunner.Result
    {
        var environment = self.environment
        environment["GOSHUIN_PASSPHRASE"] = passphrase
        return try ToolRunner.run(arguments, in: directory.path, stdin: stdin, environment: environment)
    }

    func json(_ result: ToolRunner.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    }

    let small = ["--iterations", "1000", "--chunk-size", "1KiB"]

    @Test func aFolderSealedInVersion2OpensVerifiesListsAndSalvagesAsVersion1Does() throws {
        let sealed = try run(["seal", "in", "-o", "backup.goshuin", "--format", "2", "--json"] + small)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(try json(sealed)["formatVersion"] as? Int == 2)
        #expect(directory.bytes("backup.goshuin")[4] == 2)
        let inspected = try run(["inspect", "backup.goshuin", "--json"])
        let summary = try json(inspected)
        #expect(summary["formatVersion"] as? Int == 2 && summary["verdict"] as? String == "consistent")
        let header = try #require(summary["header"] as? [String: Any])
        #expect(header["headerMac"] is String && header["payloadSalt"] is String && header["nonceBase"] == nil)
        // What inspect and verify say of version 2: format-2.txt.
        let verified = try run(["verify", "backup.goshuin", "--backup", "--json"])
        #expect(verified.status == 0 && verified.json?["formatVersion"] as? Int == 2, "\(verified.stdout)")
        #expect(verified.json?["authenticated"] as? Bool == true)
        let listed = try run(["inspect", "backup.goshuin", "--list", "--json"])
        let names = try #require(listed.json?["entries"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names.contains("IMG_0004.jpg") && names.count == 6, "\(names)")
        let extracted = try run(["open", "backup.goshuin", "--extract", "restored"])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        for index in 1...4 {
            #expect(directory.bytes("restored/IMG_000\(index).jpg") == directory.bytes("in/IMG_000\(index).jpg"))
        }
        var damaged = directory.bytes("backup.goshuin")
        damaged[77 + 5 * 1_040 + 9] ^= 0x10
        directory.write("damaged.goshuin", damaged)
        let refused = try run(["open", "damaged.goshuin", "--extract", "refused"])
        #expect(refused.status == 65 && refused.errorCode == "chunk_damaged", "\(refused.stderr)")
        let salvaged = try run(["open", "damaged.goshuin", "--extract", "rescued", "--salvage", "--json"])
        #expect(salvaged.status == 65)
        let report = try json(salvaged)
        #expect(report["damagedChunks"] as? [Int] == [5] && report["mode"] as? String == "directory")
        #expect((report["lost"] as? [Any])?.count == 1)
    }

    @Test func aPipeIsSealedAsItArrivesWithNoTemporaryCopy() throws {
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let sealed = try run(["seal", "-", "-o", "piped.goshuin", "--format", "2"] + small, stdin: payload)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        // Its result line: standard-input.txt.
        #expect(directory.entries.filter { $0.hasPrefix(".") }.isEmpty, "no temporary left beside the output")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/tmp"))?.isEmpty == true)
        #expect(directory.bytes("piped.goshuin").count == 77 + 200_000 + 16 * (200_000 / 1_024 + 1))
        let opened = try run(["open", "piped.goshuin", "-o", "-"])
        #expect(opened.status == 0 && opened.stdoutBytes == payload, "\(opened.stderr)")
        // Version 1 from a pipe still spools, because its header holds the length.
        #expect(try run(["seal", "-", "-o", "v1.goshuin"] + small, stdin: payload).status == 0)
        #expect(directory.bytes("v1.goshuin")[4] == 1)
    }

    @Test func anEmptyInputIsRefusedInEitherFormatAndNothingIsWritten() throws {
        directory.write("empty.bin", [])
        for format in ["1", "2"] {
            let piped = try run(["seal", "-", "-o", "out.goshuin", "--format", format] + small)
            #expect(piped.status == 65 && piped.errorCode == "empty_payload", "\(format): \(piped.stderr)")
            let file = try run(["seal", "empty.bin", "-o", "out.goshuin", "--format", format] + small)
            #expect(file.status == 65 && file.errorCode == "empty_payload", "\(format): \(file.stderr)")
            #expect(!directory.exists("out.goshuin") && directory.entries.allSatisfy { !$0.hasPrefix(".") })
        }
    }

    @Test func onlyFormats1And2AreWritten() throws {
        for format in ["0", "3", "v2", ""] {
            let result = try run(["seal", "notes.txt", "-o", "x.goshuin", "--format", format])
            // What it takes: usage-errors.txt; its help: help-commands.txt.
            #expect(result.status == 64 && result.errorCode == "usage", "\(format)")
        }
        #expect(try run(["open", "x.goshuin", "-o", "y", "--format", "2"]).status == 64)
    }

    @Test func aWrongPassphraseAndADamagedRecordAreToldApartInAOneChunkFile() throws {
        #expect(
            try run(["seal", "notes.txt", "-o", "one.goshuin", "--format", "2", "--iterations", "1000"]).status == 0)
        let wrong = try run(["open", "one.goshuin", "-o", "out.txt"], passphrase: "version two Passphrase")
        // That the header MAC tells: format-2.txt, wrong-passphrase.txt.
        #expect(wrong.status == 65 && wrong.errorCode == "auth_failed", "\(wrong.stderr)")
        var damaged = directory.bytes("one.goshuin")
        damaged[77 + 100] ^= 1
        directory.write("one-damaged.goshuin", damaged)
        let broken = try run(["verify", "one-damaged.goshuin"])
        #expect(broken.status == 65 && broken.errorCode == "chunk_damaged", "\(broken.stderr)")
        #expect(!directory.exists("out.txt"))
    }

    @Test func salvagingACutFileSaysItsEndIsUnknown() throws {
        #expect(try run(["seal", "notes.txt", "-o", "notes.goshuin", "--format", "2"] + small).status == 0)
        let bytes = directory.bytes("notes.goshuin")
        // 5,000 bytes: four full records and a final one; cut after the fourth.
        directory.write("cut.goshuin", Array(bytes[..<(77 + 4 * 1_040)]))
        let strict = try run(["open", "cut.goshuin", "-o", "strict.txt"])
        #expect(strict.status == 65 && strict.errorCode == "truncated")
        let salvaged = try run(["open", "cut.goshuin", "-o", "rescued.txt", "--salvage", "--json"])
        #expect(salvaged.status == 65, "\(salvaged.stderr)")
        let summary = try json(salvaged)
        #expect(summary["endKnown"] as? Bool == false && summary["plaintextLength"] as? Int == 4_096)
        #expect(directory.bytes("rescued.txt") == Array(directory.bytes("notes.txt")[..<4_096]))
        // The end unknown, and chunk 4 missing, in words: format-2.txt.
        let ranges = try #require(summary["lostRanges"] as? [[String: Any]], "\(salvaged.stdout)")
        #expect(ranges.map { $0["firstChunk"] as? Int } == [4] && ranges.first?["state"] as? String == "missing")
        let whole = try run(["open", "notes.goshuin", "-o", "whole.txt", "--salvage", "--json"])
        let wholeSummary = try json(whole)
        #expect(whole.status == 0 && wholeSummary["endKnown"] as? Bool == true)
    }

    /// The payload offset of the data of `name`'s entry in the ZIP `zip` (its local header, found by name).
    func dataOffset(of name: String, in zip: [UInt8]) throws -> Int {
        let pattern = [UInt8](name.utf8)
        let signature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        func isHeader(_ at: Int) -> Bool {
            Array(zip[at..<at + 4]) == signature && Array(zip[(at + 30)..<(at + 30 + pattern.count)]) == pattern
        }
        let header = try #require((0..<(zip.count - 30 - pattern.count)).first(where: isHeader))
        let field = { (at: Int) in Int(zip[at]) | Int(zip[at + 1]) << 8 }
        return header + 30 + field(header + 26) + field(header + 28)
    }

    /// Seals `folder` in version 2 after padding IMG_0001.jpg so that the payload's length, or the offset
    /// where `photo`'s data starts, is a multiple of 1,024: the folder's backup, as bytes.
    func sealAligned(_ folder: String, startOf photo: String?) throws -> [UInt8] {
        for _ in 0..<2 {
            #expect(try run(["seal", folder, "-o", "aligned.goshuin", "--format", "2", "--force"] + small).status == 0)
            #expect(try run(["open", "aligned.goshuin", "-o", "aligned.zip", "--force"]).status == 0)
            let zip = directory.bytes("aligned.zip")
            let position = try photo.map { try dataOffset(of: $0, in: zip) } ?? zip.count
            let first = directory.bytes(folder + "/IMG_0001.jpg")
            let padding = (1_024 - position % 1_024) % 1_024
            if padding == 0 { return directory.bytes("aligned.goshuin") }
            directory.write(folder + "/IMG_0001.jpg", first + [UInt8](repeating: 0x61, count: padding))
        }
        Issue.record("the padding did not align \(photo ?? "the payload's end")")
        return []
    }

    @Test func aCutWhereAPhotosDataStartsOrRunsLosesItAsMissing() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/two", withIntermediateDirectories: false)
        directory.write("two/records.csv", Array("id,photo\n1,IMG_0001.jpg\n".utf8))
        directory.write("two/IMG_0001.jpg", (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        directory.write("two/IMG_0002.jpg", (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
        let sealed = try sealAligned("two", startOf: "IMG_0002.jpg")
        // Cut where IMG_0002.jpg's data starts (the end of its local header), then inside its data.
        for (records, name) in [(2, "at-its-start"), (4, "inside-it")] {
            directory.write("\(name).goshuin", Array(sealed[..<(77 + records * 1_040)]))
            let result = try run(["open", "\(name).goshuin", "--extract", name, "--salvage", "--json"])
            #expect(result.status == 65, "\(name): \(result.stderr)")
            let summary = try json(result)
            #expect(summary["restored"] as? [String] == ["records.csv", "IMG_0001.jpg"], "\(name)")
            let lost = try #require(summary["lost"] as? [[String: Any]])
            #expect(lost.count == 1 && lost.first?["name"] as? String == "IMG_0002.jpg", "\(name)")
            #expect(lost.first?["reason"] as? String == "missing", "\(name): cut, not malformed")
            #expect(directory.bytes("\(name)/IMG_0001.jpg") == directory.bytes("two/IMG_0001.jpg"))
        }
    }

    @Test func aLostEmptyFinalRecordLeavesTheEndUnknownAndTheManifestUnused() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/even", withIntermediateDirectories: false)
        directory.write("even/records.csv", Array("id\n".utf8))
        directory.write("even/IMG_0001.jpg", (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* 5) })
        let sealed = try sealAligned("even", startOf: nil)
        var damaged = sealed
        damaged[damaged.count - 3] ^= 1
        for (name, bytes) in [("cut", Array(sealed.dropLast(16))), ("damaged", damaged)] {
            directory.write("\(name).goshuin", bytes)
            let result = try run(["open", "\(name).goshuin", "--extract", name, "--salvage", "--json"])
            #expect(result.status == 65, "\(name): the end is lost, \(result.stderr)")
            let summary = try json(result)
            #expect(summary["mode"] as? String == "walk" && summary["manifestLost"] as? Bool == true, "\(name)")
            #expect(summary["restored"] as? [String] == ["records.csv", "IMG_0001.jpg"], "\(name)")
        }
        // The final record, which holds no byte, not the central directory before it.
        let verify = try run(["verify", "damaged.goshuin", "--backup", "--json"])
        #expect(verify.status == 65 && verify.errorCode == "chunk_damaged")
        #expect(verify.jsonError?["chunkIndex"] as? Int == (damaged.count - 77 - 16) / 1_040, "\(verify.stdout)")
        #expect((verify.jsonError?["details"] as? [String])?.count == 1, "\(verify.stdout)")
    }

    @Test func aStreamKilledPartWayLeavesNothingThatOpens() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = ["seal", "-", "-o", "killed.goshuin", "--format", "2"] + small
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ten full records' worth, and the pipe kept open: the seal cannot know where the payload ends.
        ChildInput.write((0..<10_240).map { UInt8(truncatingIfNeeded: $0) }, to: input.fileHandleForWriting)
        let deadline = Date().addingTimeInterval(30)
        var temporary: String?
        while Date() < deadline {
            temporary = directory.entries.first { $0.hasPrefix(".killed.goshuin.goshuin-tmp-") }
            if let name = temporary, directory.bytes(name).count >= 77 + 9 * 1_040 { break }
            usleep(5_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let name = try #require(temporary, "the seal made its temporary")
        #expect(!directory.exists("killed.goshuin"), "nothing at the destination")
        directory.write("copy.goshuin", directory.bytes(name))
        let opened = try run(["open", "copy.goshuin", "-o", "out.bin"])
        #expect(opened.status == 65, "a partial version 2 file never opens: \(opened.stderr)")
        #expect(["truncated", "chunk_damaged"].contains(opened.errorCode ?? ""), "\(opened.stderr)")
    }
}
