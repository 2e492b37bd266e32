import Foundation
import Testing

/// `verify`, and one verdict per file whatever command reads it.
@Suite struct VerifyAndVerdictTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "one verdict"]

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        directory.write("in/records.csv", Array("id,text\n1,a shrine\n".utf8))
        directory.write("in/IMG_0001.jpg", (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        // 1 KiB chunks: the backup is 6 chunks or more.
        let sealed = try run(["seal", "in", "-o", "backup.goshuin", "--iterations", "1000", "--chunk-size", "1KiB"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    func run(_ arguments: [String], passphrase: String? = nil) throws -> ToolRunner.Result {
        try ToolRunner.run(
            arguments, in: directory.path,
            environment: passphrase.map { ["GOSHUIN_PASSPHRASE": $0] } ?? environment)
    }

    var chunkCount: Int { (directory.bytes("backup.goshuin").count - 45 + 1_043) / 1_044 }

    /// `backup.goshuin` with the ciphertext of `chunks` damaged.
    func damaged(_ chunks: [Int]) -> String {
        var bytes = directory.bytes("backup.goshuin")
        for chunk in chunks { bytes[45 + chunk * 1_044 + 4 + 10] ^= 0x40 }
        let name = "damaged-" + chunks.map(String.init).joined(separator: "-") + ".goshuin"
        directory.write(name, bytes)
        return name
    }

    @Test func verifyChecksABackupAndWritesNothing() throws {
        let before = directory.entries
        // Its text: verify.txt.
        let result = try run(["verify", "backup.goshuin"])
        #expect(result.status == 0 && !result.stdout.isEmpty, "\(result.stderr)")
        let json = try run(["verify", "backup.goshuin", "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutBytes)) as? [String: Any])
        let backup = try #require(summary["backup"] as? [String: Any])
        #expect(summary["ok"] as? Bool == true && backup["photoCount"] as? Int == 1)
        #expect(backup["recordsSize"] as? Int == 19 && summary["chunkCount"] as? Int == chunkCount)
        #expect(directory.entries == before, "verify writes nothing")
    }

    @Test func verifyOnPlainSealedFiles() throws {
        directory.write("notes.txt", Array(repeating: 65, count: 3_000))
        #expect(try run(["seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000"]).status == 0)
        let plain = try run(["verify", "notes.goshuin", "--json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(plain.stdoutBytes)) as? [String: Any]
        #expect(summary?["backup"] is NSNull)
        let wrong = try run(["verify", "notes.goshuin"], passphrase: "not it")
        #expect(wrong.status == 65 && wrong.errorCode == "auth_failed")
    }

    @Test func verifyRefusesALyingManifest() throws {
        // The same backup with a photo swapped for other bytes of the same size: the manifest lies about it.
        let script = """
            import hashlib, io, sys, zipfile
            records = open(sys.argv[1] + "/in/records.csv", "rb").read()
            photo = bytes(5000)
            manifest = open(sys.argv[2], "rb").read()
            with zipfile.ZipFile(sys.argv[1] + "/lying.zip", "w") as z:
                z.writestr("records.csv", records)
                z.writestr("IMG_0001.jpg", photo)
                z.writestr("manifest.json", manifest)
            """
        #expect(try run(["open", "backup.goshuin", "--extract", "out"]).status == 0)
        let made = try ToolRunner.runCommand(
            "/usr/bin/env", ["python3", "-c", script, directory.path, directory.path + "/out/manifest.json"])
        #expect(made.status == 0, "\(made.output)")
        #expect(try run(["seal", "lying.zip", "-o", "lying.goshuin", "--iterations", "1000"]).status == 0)
        let result = try run(["verify", "lying.goshuin"])
        #expect(result.status == 65 && result.errorCode == "manifest_mismatch", "\(result.stderr)")
    }

    /// The table: every reader gives the verdict of the lowest failing chunk.
    @Test(arguments: [([0, 1, 2, 3], "auth_failed"), ([1, 5], "chunk_damaged at 1"), ([0, 5], "chunk_damaged at 0")])
    func everyCommandGivesTheSameVerdict(damage: [Int], verdict: String) throws {
        #expect(chunkCount >= 6)
        let file = damaged(damage)
        let commands: [[String]] = [
            ["open", file, "-o", "payload.zip", "--json"], ["open", file, "--extract", "restored", "--json"],
            ["verify", file, "--json"], ["inspect", file, "--list", "--json"],
        ]
        for command in commands {
            let result = try run(command)
            // Listing reads only the chunks of the ZIP's end: it may succeed on a file damaged elsewhere, and
            // when it fails, it fails like the others.
            if command[0] == "inspect", result.status == 0 { continue }
            #expect(result.status == 65, "\(command): \(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
            let error = object?["error"] as? [String: Any]
            let index = error?["chunkIndex"] as? Int
            let seen = (error?["code"] as? String ?? "none") + (index.map { " at \($0)" } ?? "")
            #expect(seen == verdict, "\(command)")
        }
        #expect(!directory.exists("payload.zip") && !directory.exists("restored"))
    }

    /// `verify --backup` passes only a backup that `open --extract` restores, failing with its error.
    @Test func verifyBackupRequiresWhatExtractingRequires() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        directory.write("in/records.csv", Array("id\n1\n".utf8))
        #expect(try plain.run(["seal", "in", "-o", "backup.goshuin", "--iterations", "1000"]).status == 0)
        #expect(try plain.run(["verify", "backup.goshuin", "--backup"]).status == 0)
        // The backup's ZIP with one byte after it, sealed again: not a ZIP to the spotting rule.
        #expect(try plain.run(["open", "backup.goshuin", "-o", "backup.zip"]).status == 0)
        directory.write("trailer.zip", directory.bytes("backup.zip") + [0])
        #expect(try plain.run(["seal", "trailer.zip", "-o", "trailer.goshuin", "--iterations", "1000"]).status == 0)
        #expect(try plain.run(["verify", "trailer.goshuin"]).status == 0, "without --backup, only the chunks")
        let trailer = try plain.run(["verify", "trailer.goshuin", "--backup", "--json"])
        let extracted = try plain.run(["open", "trailer.goshuin", "--extract", "restored"])
        #expect(trailer.status == 65 && extracted.status == 65)
        #expect(trailer.jsonError?["code"] as? String == "zip_malformed" && extracted.errorCode == "zip_malformed")
        let notAZip = try plain.run(["verify", "plain.goshuin", "--backup"])
        #expect(notAZip.status == 65 && notAZip.errorCode == "zip_malformed", "\(notAZip.stderr)")
    }
}
