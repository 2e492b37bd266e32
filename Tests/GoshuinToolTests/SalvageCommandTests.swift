import Foundation
import Testing

/// `open --salvage` as people and scripts meet it: what it says, what it writes, its exit codes and its JSON
/// (`Spec/backup-v1.md` §4.2, `Spec/container-v1.md` §7.4).
@Suite struct SalvageCommandTests {
    let directory = Scratch()
    static let photoCount = 6

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        directory.write("in/records.csv", Array("id,text\n1,a shrine\n".utf8))
        for index in 1...Self.photoCount {
            directory.write("in/IMG_000\(index).jpg", (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* index &+ 11) })
        }
        // 1 KiB chunks: each photo spans three or four chunks.
        let sealed = try run(["seal", "in", "-o", "backup.goshuin", "--iterations", "1000", "--chunk-size", "1KiB"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    func run(_ arguments: [String], passphrase: String = "rescue what is whole") throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, in: directory.path, environment: ["GOSHUIN_PASSPHRASE": passphrase])
    }

    /// `backup.goshuin` with one bit of chunk `chunk`'s ciphertext flipped.
    func damaged(chunk: Int) -> String {
        var bytes = directory.bytes("backup.goshuin")
        bytes[45 + chunk * 1_044 + 14] ^= 0x40
        directory.write("damaged.goshuin", bytes)
        return "damaged.goshuin"
    }

    func json(_ result: ToolRunner.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    }

    func photo(_ index: Int) -> [UInt8] { directory.bytes("in/IMG_000\(index).jpg") }

    @Test func aDamagedChunkRestoresEveryOtherPhotoAndNamesTheLostOne() throws {
        let name = damaged(chunk: 8)
        let plain = try run(["open", name, "--extract", "refused"])
        // The refusal points at --salvage: salvage.txt.
        #expect(plain.status == 65 && plain.errorCode == "chunk_damaged")
        #expect(!directory.exists("refused"), "without --salvage nothing is written")

        // What it says of each lost photo, and of what it restored: salvage.txt.
        let result = try run(["open", name, "--extract", "rescued", "--salvage", "--json"])
        #expect(result.status == 65, "anything lost is a data error: \(result.stderr)")
        let lost = try #require(result.json?["lost"] as? [[String: Any]], "\(result.stdout)")
        #expect(lost.count == 1 && lost.first?["reason"] as? String == "damaged", "\(lost)")
        #expect(result.json?["damagedChunks"] as? [Int] == [8])
        let lostName = try #require(lost.first?["name"] as? String)
        var restored = 0
        for index in 1...Self.photoCount where "IMG_000\(index).jpg" != lostName {
            #expect(directory.bytes("rescued/IMG_000\(index).jpg") == photo(index), "photo \(index) is whole")
            restored += 1
        }
        #expect(restored == Self.photoCount - 1 && !directory.exists("rescued/\(lostName)"))
        #expect(directory.bytes("rescued/records.csv") == directory.bytes("in/records.csv"))
    }

    @Test func theJSONSummaryNamesWhatIsRestoredAndWhatIsLost() throws {
        let result = try run(["open", damaged(chunk: 8), "--extract", "rescued", "--salvage", "--json"])
        #expect(result.status == 65)
        let summary = try json(result)
        #expect(summary["ok"] as? Bool == false && summary["command"] as? String == "open")
        #expect(summary["mode"] as? String == "directory" && summary["manifestLost"] as? Bool == false)
        #expect(summary["extractedTo"] as? String == "rescued")
        #expect(summary["damagedChunks"] as? [Int] == [8] && summary["firstMissingChunk"] is NSNull)
        let restored = try #require(summary["restored"] as? [String])
        let lost = try #require(summary["lost"] as? [[String: String]])
        // manifest.json lists what the backup held, not what was restored: a salvage never writes it.
        #expect(restored.contains("records.csv") && !restored.contains("manifest.json"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/rescued/manifest.json"))
        #expect(lost.count == 1 && lost.first?["reason"] == "damaged", "\(lost)")
        #expect(restored.count + lost.count == Self.photoCount + 1, "every entry but the manifest is restored or lost")
    }

    @Test func anIntactBackupSalvagesWholeAndExitsZero() throws {
        let result = try run(["open", "backup.goshuin", "--extract", "rescued", "--salvage", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try json(result)
        #expect(summary["ok"] as? Bool == true && (summary["lost"] as? [Any])?.isEmpty == true)
        for index in 1...Self.photoCount { #expect(directory.bytes("rescued/IMG_000\(index).jpg") == photo(index)) }
    }

    @Test func aCutFileRestoresWhatCameBeforeTheCutWithoutItsManifest() throws {
        let bytes = directory.bytes("backup.goshuin")
        directory.write("cut.goshuin", Array(bytes[..<(bytes.count / 2)]))
        let result = try run(["open", "cut.goshuin", "--extract", "rescued", "--salvage", "--json"])
        #expect(result.status == 65, "\(result.stderr)")
        let summary = try json(result)
        #expect(summary["mode"] as? String == "walk" && summary["manifestLost"] as? Bool == true)
        let chunkCount = try #require(summary["chunkCount"] as? Int)
        let firstMissing = try #require(summary["firstMissingChunk"] as? Int)
        #expect(firstMissing > 0 && firstMissing < chunkCount)
        let restored = try #require(summary["restored"] as? [String])
        #expect(restored.first == "records.csv" && restored.contains("IMG_0001.jpg"), "\(restored)")
        for name in restored where name.hasPrefix("IMG_") {
            #expect(directory.bytes("rescued/" + name) == directory.bytes("in/" + name), "\(name) is whole")
        }
        // What it says: salvage.txt.
    }

    @Test func salvageToAFileWritesZerosWhereChunksAreLost() throws {
        directory.write("notes.txt", (0..<5_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        #expect(
            try run(["seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000", "--chunk-size", "1KiB"])
                .status == 0)
        var bytes = directory.bytes("notes.goshuin")
        bytes[45 + 2 * 1_044 + 14] ^= 0x01
        directory.write("notes-damaged.goshuin", bytes)
        let result = try run(["open", "notes-damaged.goshuin", "-o", "notes-rescued.txt", "--salvage", "--json"])
        #expect(result.status == 65, "\(result.stderr)")
        let summary = try json(result)
        let ranges = try #require(summary["lostRanges"] as? [[String: Any]])
        #expect(ranges.count == 1 && ranges.first?["start"] as? Int == 2_048 && ranges.first?["end"] as? Int == 3_072)
        #expect(ranges.first?["state"] as? String == "damaged")
        var expected = directory.bytes("notes.txt")
        for offset in 2_048..<3_072 { expected[offset] = 0 }
        #expect(directory.bytes("notes-rescued.txt") == expected, "every other byte in place, zeros in the gap")
        let again = try run(["open", "notes-damaged.goshuin", "-o", "notes-rescued.txt", "--salvage"])
        #expect(again.status == 73 && again.errorCode == "output_exists", "an existing file is not replaced")
    }

    @Test func aVersion2FileWhoseOnlyRecordIsLostSaysItsEndIsLost() throws {
        let regressions = ToolRunner.packageRoot + "/Fuzz/Regressions/container-v2-open/"
        // An empty payload's one record with a tag bit flipped, then the same file cut to its header.
        for (name, state) in [("v2-auth-empty-payload-tag-bit", "damaged"), ("v2-structure-cut-0-records", "missing")] {
            directory.write("\(name).goshuin", try [UInt8](Data(contentsOf: URL(fileURLWithPath: regressions + name))))
            let passphrase = "correct horse battery staple"
            // What it says: salvage-corpus.txt.
            let output = try run(
                ["open", "\(name).goshuin", "-o", "\(name).out", "--salvage", "--json"], passphrase: passphrase)
            #expect(output.status == 65, "\(output.stderr)")
            let ranges = try #require(output.json?["lostRanges"] as? [[String: Any]], "\(output.stdout)")
            #expect(ranges.map { $0["firstChunk"] as? Int } == [0] && ranges.first?["state"] as? String == state)
            #expect(output.json?["endKnown"] as? Bool == false && output.json?["plaintextLength"] as? Int == 0)
            #expect(directory.bytes("\(name).out").isEmpty)
            let folder = try run(
                ["open", "\(name).goshuin", "--extract", "\(name)-rescued", "--salvage", "--json"],
                passphrase: passphrase)
            #expect(folder.status == 65, "\(folder.stderr)")
            let summary = try json(folder)
            #expect(summary["manifestLost"] as? Bool == true && (summary["restored"] as? [Any])?.isEmpty == true)
            #expect(!directory.exists("\(name)-rescued"), "nothing restored, no folder")
        }
    }

    @Test func aWrongPassphraseSalvagesNothingAndWritesNothing() throws {
        let result = try run(["open", damaged(chunk: 8), "--extract", "rescued", "--salvage"], passphrase: "not it")
        #expect(result.status == 65 && result.errorCode == "auth_failed", "\(result.stderr)")
        #expect(!directory.exists("rescued"), "nothing is created")
        #expect(directory.entries.allSatisfy { !$0.hasPrefix(".") }, "no temporary is left: \(directory.entries)")
    }

    @Test func salvageIsAnOptionOfOpenAlone() throws {
        for command in ["verify", "inspect"] {
            let result = try run([command, "backup.goshuin", "--salvage"])
            #expect(result.status == 64 && result.errorCode == "usage", "\(command)")
        }
    }

    /// A corpus case of `Tests/SalvageCorpus`, salvaged by the tool with the corpus's passphrase.
    func salvageCorpusCase(_ name: String, _ more: [String] = ["--json"]) throws -> ToolRunner.Result {
        let corpus = ToolRunner.packageRoot + "/Tests/SalvageCorpus/"
        directory.write(
            name + ".goshuin", [UInt8](FileManager.default.contents(atPath: corpus + name + ".goshuin") ?? Data()))
        return try run(
            ["open", name + ".goshuin", "--extract", name, "--salvage"] + more,
            passphrase: "correct horse battery staple")
    }

    /// A records.csv forged inside a photo someone else made is never restored as the backup's own: the
    /// backup's own is lost (its data damaged) and named once; the forged row reaches no file.
    @Test func aRecordsFileForgedInsideAPhotoIsNeverTheBackups() throws {
        // What it says, naming the backup's own once lost: salvage-corpus.txt.
        let result = try salvageCorpusCase("walk-forged-records-after-the-real-one-is-lost")
        #expect(result.status == 65, "\(result.stderr)")
        let lost = try #require(result.json?["lost"] as? [[String: Any]], "\(result.stdout)")
        #expect(lost.filter { $0["name"] as? String == "records.csv" }.map { $0["reason"] as? String } == ["damaged"])
        let restored = try #require(result.json?["restored"] as? [String])
        #expect(!restored.contains("records.csv") && restored.count == 6, "\(restored)")
        #expect(!directory.exists("walk-forged-records-after-the-real-one-is-lost/records.csv"))
        let kept = try salvageCorpusCase("walk-forged-records-in-a-photo")
        let own = directory.bytes("walk-forged-records-in-a-photo/records.csv")
        #expect(!own.isEmpty && !String(decoding: own, as: UTF8.self).contains("calc"), "the backup's own")
        #expect((kept.json?["restored"] as? [String])?.first == "records.csv", "\(kept.stdout)")
    }

    /// A cut backup's salvage names every photo its restored records.csv mentions that it did not find, and a
    /// backup whose records.csv was never met names that too.
    @Test func whatRecordsNamesButTheWalkDidNotFindIsNamedLost() throws {
        // What it says of each: salvage-corpus.txt.
        let cut = try salvageCorpusCase("cut-60")
        #expect(cut.status == 65)
        let lost = try #require(cut.json?["lost"] as? [[String: Any]], "\(cut.stdout)")
        #expect(
            lost.map { "\($0["name"] as? String ?? "") \($0["reason"] as? String ?? "")" } == [
                "IMG_0005.jpg missing", "IMG_0006.jpg not_found", "IMG_0007.jpg not_found", "IMG_0008.jpg not_found",
            ])
        let header = try salvageCorpusCase("walk-records-header-damaged")
        let headerLost = try #require(header.json?["lost"] as? [[String: Any]], "\(header.stdout)")
        #expect(headerLost.map { $0["name"] as? String } == ["records.csv"])
        #expect(headerLost.first?["reason"] as? String == "not_found")
    }
}
