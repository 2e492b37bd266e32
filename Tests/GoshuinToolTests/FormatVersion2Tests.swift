import Foundation
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
        #expect(try run(["inspect", "backup.goshuin"]).stdout.contains("format version     2"))
        let verified = try run(["verify", "backup.goshuin", "--backup"])
        #expect(verified.status == 0 && verified.stdout.contains("format       version 2"), "\(verified.stdout)")
        #expect(verified.stdout.contains("the header MAC and every chunk authenticate"))
        #expect(try run(["inspect", "backup.goshuin", "--list"]).stdout.contains("IMG_0004.jpg"))
        let extracted = try run(["open", "backup.goshuin", "--extract", "restored"])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        for index in 1...4 {
            #expect(directory.bytes("restored/IMG_000\(index).jpg") == directory.bytes("in/IMG_000\(index).jpg"))
        }
        var damaged = directory.bytes("backup.goshuin")
        damaged[77 + 5 * 1_040 + 9] ^= 0x10
        directory.write("damaged.goshuin", damaged)
        let refused = try run(["open", "damaged.goshuin", "--extract", "refused"])
        #expect(refused.status == 65 && refused.stderr.contains("error: chunk_damaged:"), "\(refused.stderr)")
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
        #expect(sealed.stderr.contains("sealed standard input into piped.goshuin"))
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
            #expect(piped.status == 65 && piped.stderr.contains("error: empty_payload:"), "\(format): \(piped.stderr)")
            let file = try run(["seal", "empty.bin", "-o", "out.goshuin", "--format", format] + small)
            #expect(file.status == 65 && file.stderr.contains("error: empty_payload:"), "\(format): \(file.stderr)")
            #expect(!directory.exists("out.goshuin") && directory.entries.allSatisfy { !$0.hasPrefix(".") })
        }
    }

    @Test func onlyFormats1And2AreWritten() throws {
        for format in ["0", "3", "v2", ""] {
            let result = try run(["seal", "notes.txt", "-o", "x.goshuin", "--format", format])
            #expect(result.status == 64 && result.stderr.contains("--format takes 1 or 2"), "\(format)")
        }
        let help = try run(["help", "seal"])
        #expect(help.stdout.contains("--format") && help.stdout.contains("default"))
        #expect(try run(["open", "x.goshuin", "-o", "y", "--format", "2"]).status == 64)
    }

    @Test func aWrongPassphraseAndADamagedRecordAreToldApartInAOneChunkFile() throws {
        #expect(
            try run(["seal", "notes.txt", "-o", "one.goshuin", "--format", "2", "--iterations", "1000"]).status == 0)
        let wrong = try run(["open", "one.goshuin", "-o", "out.txt"], passphrase: "version two Passphrase")
        #expect(wrong.status == 65 && wrong.stderr.contains("error: auth_failed:"), "\(wrong.stderr)")
        #expect(wrong.stderr.contains("MAC"))
        var damaged = directory.bytes("one.goshuin")
        damaged[77 + 100] ^= 1
        directory.write("one-damaged.goshuin", damaged)
        let broken = try run(["verify", "one-damaged.goshuin"])
        #expect(broken.status == 65 && broken.stderr.contains("error: chunk_damaged:"), "\(broken.stderr)")
        #expect(!directory.exists("out.txt"))
    }

    @Test func salvagingACutFileSaysItsEndIsUnknown() throws {
        #expect(try run(["seal", "notes.txt", "-o", "notes.goshuin", "--format", "2"] + small).status == 0)
        let bytes = directory.bytes("notes.goshuin")
        // 5,000 bytes: four full records and a final one; cut after the fourth.
        directory.write("cut.goshuin", Array(bytes[..<(77 + 4 * 1_040)]))
        let strict = try run(["open", "cut.goshuin", "-o", "strict.txt"])
        #expect(strict.status == 65 && strict.stderr.contains("error: truncated:"))
        let salvaged = try run(["open", "cut.goshuin", "-o", "rescued.txt", "--salvage", "--json"])
        #expect(salvaged.status == 65, "\(salvaged.stderr)")
        let summary = try json(salvaged)
        #expect(summary["endKnown"] as? Bool == false && summary["plaintextLength"] as? Int == 4_096)
        #expect(directory.bytes("rescued.txt") == Array(directory.bytes("notes.txt")[..<4_096]))
        let text = try run(["open", "cut.goshuin", "-o", "again.txt", "--salvage"])
        #expect(text.stderr.contains("the payload's end is unknown"), "\(text.stderr)")
        #expect(text.stderr.contains("chunk 4 missing"), "\(text.stderr)")
        let whole = try run(["open", "notes.goshuin", "-o", "whole.txt", "--salvage", "--json"])
        let wholeSummary = try json(whole)
        #expect(whole.status == 0 && wholeSummary["endKnown"] as? Bool == true)
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
        input.fileHandleForWriting.write(Data((0..<10_240).map { UInt8(truncatingIfNeeded: $0) }))
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
        #expect(
            opened.stderr.contains("error: truncated:") || opened.stderr.contains("error: chunk_damaged:"),
            "\(opened.stderr)")
    }
}
