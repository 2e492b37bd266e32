import Foundation
import Testing

/// `seal FOLDER`, `open --extract` and `inspect --list`, end to end.
@Suite struct BackupCommandTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "backup pass"]

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/photos", withIntermediateDirectories: false)
        directory.write("photos/records.csv", Array("id,text\n1,hello\n".utf8))
        directory.write("photos/IMG_0001.jpg", [0xFF, 0xD8, 0xFF] + (0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        directory.write("photos/b-2.png", Array(repeating: 7, count: 3_000))
    }

    func run(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, in: directory.path, environment: environment)
    }

    @Test func folderPacksSealsListsAndExtracts() throws {
        let sealed = try run(["seal", "photos", "-o", "backup.goshuin", "--iterations", "1000", "--chunk-size", "4KiB"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let listed = try run(["inspect", "backup.goshuin", "--list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let entries = try #require(listed.json?["entries"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(entries == ["records.csv", "IMG_0001.jpg", "b-2.png", "manifest.json"], "in the ZIP's order")
        #expect(listed.json?["photoCount"] as? Int == 2)
        let extracted = try run(["open", "backup.goshuin", "--extract", "restored"])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        for name in ["records.csv", "IMG_0001.jpg", "b-2.png"] {
            #expect(directory.bytes("restored/" + name) == directory.bytes("photos/" + name))
        }
        #expect(directory.exists("restored/manifest.json"))
        let again = try run(["open", "backup.goshuin", "--extract", "restored"])
        #expect(again.status == 73 && again.errorCode == "destination_not_empty")
        let wrong = try ToolRunner.run(
            ["open", "backup.goshuin", "--extract", "other"], in: directory.path,
            environment: ["GOSHUIN_PASSPHRASE": "nope"])
        #expect(wrong.status == 65)
        #expect(!directory.exists("other"))
        #expect(!directory.entries.contains { $0.contains("goshuin-tmp") }, "no temporary folder is left")
    }

    @Test func aFolderNamedWithATrailingSlashIsTheFolder() throws {
        #expect(try run(["seal", "photos/", "-o", "backup.goshuin", "--iterations", "1000"]).status == 0)
        for folder in ["restored/", "nested/restored//"] {
            if folder.hasPrefix("nested") {
                try FileManager.default.createDirectory(
                    atPath: directory.path + "/nested", withIntermediateDirectories: false)
            }
            let extracted = try run(["open", "backup.goshuin", "--extract", folder])
            #expect(extracted.status == 0, "\(folder): \(extracted.stderr)")
            #expect(directory.bytes(folder + "records.csv") == directory.bytes("photos/records.csv"))
        }
    }

    @Test func unexpectedFilesAreRefusedByName() throws {
        directory.write("photos/notes.txt", [1])
        let result = try run(["seal", "photos", "-o", "backup.goshuin", "--iterations", "1000", "--json"])
        // Each problem on a line of its own: seal-a-phone-folder.txt.
        #expect(result.status == 65 && result.errorCode == "unexpected_file")
        #expect((result.jsonError?["details"] as? [String])?.count == 1, "one problem, notes.txt: \(result.stdout)")
        #expect(!directory.exists("backup.goshuin"))
    }

    @Test func extractOrOutputNotBoth() throws {
        let result = try run(["open", "x.goshuin", "-o", "a", "--extract", "b"])
        #expect(result.status == 64)
    }

    @Test func listingAPlainFileIsAZipError() throws {
        directory.write("plain.bin", Array(repeating: 1, count: 5_000))
        #expect(try run(["seal", "plain.bin", "-o", "plain.goshuin", "--iterations", "1000"]).status == 0)
        let result = try run(["inspect", "plain.goshuin", "--list"])
        #expect(result.status == 65 && result.errorCode == "zip_malformed")
    }

    /// A records file that deflates more than the reader's ratio limit is stored, so the backup seals and
    /// extracts instead of being refused by the tool's own reader as a ZIP bomb.
    @Test func recordsThatCompressVeryWellStillSeal() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        let records = Array(("date,shrine,note,photo\n" + String(repeating: "2026-01-01,,,\n", count: 500_000)).utf8)
        directory.write("in/records.csv", records)
        let sealed = try plain.run(["seal", "in", "-o", "backup.goshuin", "--iterations", "1000"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(try plain.run(["open", "backup.goshuin", "--extract", "restored"]).status == 0)
        #expect(directory.bytes("restored/records.csv") == records)
    }
}

/// Free space is checked against the header before anything is written: a sparse file whose header
/// claims 4 TiB, with every length prefix in place so that it passes the structure checks.
@Suite struct NoSpaceTests {
    @Test func extractingMoreThanTheDiskHoldsStopsBeforeTheKey() throws {
        let directory = Scratch()
        let chunkSize: UInt64 = 64 << 20
        let plaintextLength: UInt64 = 1 << 42
        let chunkCount = plaintextLength / chunkSize
        var header = Array("GSHN".utf8) + [1]
        header += withUnsafeBytes(of: UInt32(2_000_000).bigEndian, Array.init)
        header += [UInt8](repeating: 1, count: 24)
        header += withUnsafeBytes(of: UInt32(chunkSize).bigEndian, Array.init)
        header += withUnsafeBytes(of: plaintextLength.bigEndian, Array.init)
        let path = directory.write("huge.goshuin", header)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let prefix = withUnsafeBytes(of: UInt32(chunkSize + 16).bigEndian) { Data($0) }
        for index in 0..<chunkCount {
            try handle.seek(toOffset: 45 + index * (chunkSize + 20))
            handle.write(prefix)
        }
        try handle.truncate(atOffset: 45 + 20 * chunkCount + plaintextLength)
        try handle.close()
        let result = try ToolRunner.run(
            ["open", "huge.goshuin", "--extract", "restored"], in: directory.path,
            environment: ["GOSHUIN_PASSPHRASE": "whatever"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.errorCode == "no_space")
        #expect(!directory.exists("restored"))
    }
}
