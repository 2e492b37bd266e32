import Foundation
import GoshuinTestSupport
import Testing

/// Backups at the sizes a photo library reaches: past 4 GiB (ZIP64 sizes, offsets and end records), and
/// the 50,000 entries a backup may hold. On `/dev/shm` where it has room, so the gigabytes stay in memory.
@Suite(.serialized, .slowTier) struct LargeBackupTests {
    let environment = ["GOSHUIN_PASSPHRASE": "a large library"]

    func run(_ arguments: [String], in directory: String) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, in: directory, environment: environment)
    }

    @Test func aBackupPast4GiBSealsListsAndExtracts() throws {
        let scratch = Scratch(needing: 10 << 30)
        let directory = scratch.path
        try FileManager.default.createDirectory(atPath: directory + "/in", withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: directory + "/in/records.csv", contents: Data("id\n1\n".utf8))
        // A sparse photo of 4 GiB + 100 bytes: its sizes, the next entries' offsets and the central directory's
        // offset all need ZIP64.
        let bigSize: UInt64 = (4 << 30) + 100
        let big = open(directory + "/in/IMG_0001.jpg", O_WRONLY | O_CREAT, 0o644)
        #expect(ftruncate(big, off_t(bigSize)) == 0)
        close(big)
        let small = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        _ = FileManager.default.createFile(atPath: directory + "/in/IMG_0002.png", contents: Data(small))

        let sealed = try run(["seal", "in", "-o", "big.goshuin", "--iterations", "1000"], in: directory)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let listed = try run(["inspect", "big.goshuin", "--list", "--json"], in: directory)
        #expect(listed.status == 0, "\(listed.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [String: Any]
        let entries = (summary?["entries"] as? [[String: Any]]) ?? []
        #expect(
            entries.map { $0["name"] as? String } == ["records.csv", "IMG_0001.jpg", "IMG_0002.png", "manifest.json"])
        #expect(entries.first { $0["name"] as? String == "IMG_0001.jpg" }?["size"] as? UInt64 == bigSize)

        let extracted = try run(["open", "big.goshuin", "--extract", "out"], in: directory)
        #expect(extracted.status == 0, "\(extracted.stderr)")
        for name in ["records.csv", "IMG_0001.jpg", "IMG_0002.png"] {
            let same = try ToolRunner.runCommand(
                "/usr/bin/cmp", [directory + "/in/" + name, directory + "/out/" + name])
            #expect(same.status == 0, "\(name): \(same.output)")
        }
        try FileManager.default.removeItem(atPath: directory + "/out")

        // minizip writes the ZIP64 records; two other readers check them.
        let opened = try run(["open", "big.goshuin", "-o", "payload.zip"], in: directory)
        #expect(opened.status == 0, "\(opened.stderr)")
        let python = try ToolRunner.runCommand(
            "/usr/bin/env", ["python3", "-m", "zipfile", "-t", directory + "/payload.zip"])
        #expect(python.status == 0 && python.output.contains("Done testing"), "\(python.output)")
        let unzip = try ToolRunner.runCommand("/usr/bin/env", ["unzip", "-t", directory + "/payload.zip"])
        #expect(unzip.status == 0 && unzip.output.contains("No errors detected"), "\(unzip.output)")
    }

    @Test func fiftyThousandEntries() throws {
        let scratch = Scratch(needing: 1 << 30)
        let directory = scratch.path
        try FileManager.default.createDirectory(atPath: directory + "/in", withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: directory + "/in/records.csv", contents: Data("id\n".utf8))
        for index in 0..<49_998 {
            let name = String(format: "IMG_%05d.jpg", index)
            _ = FileManager.default.createFile(atPath: directory + "/in/" + name, contents: Data(name.utf8))
        }
        let sealed = try run(["seal", "in", "-o", "b.goshuin", "--iterations", "1000"], in: directory)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let listed = try run(["inspect", "b.goshuin", "--list", "--json"], in: directory)
        #expect(listed.status == 0 && listed.json?["photoCount"] as? Int == 49_998, "\(listed.stderr)")
        let extracted = try run(["open", "b.goshuin", "--extract", "out"], in: directory)
        #expect(extracted.status == 0, "\(extracted.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory + "/out")
        #expect(names.count == 50_000)
        #expect(
            FileManager.default.contents(atPath: directory + "/out/IMG_49997.jpg") == Data("IMG_49997.jpg".utf8))
        // One more photo is one entry too many.
        _ = FileManager.default.createFile(atPath: directory + "/in/IMG_99999.jpg", contents: Data([1]))
        let tooMany = try run(["seal", "in", "-o", "c.goshuin", "--iterations", "1000"], in: directory)
        #expect(tooMany.status == 65 && tooMany.errorCode == "zip_limit_exceeded", "\(tooMany.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/c.goshuin"))
    }
}
