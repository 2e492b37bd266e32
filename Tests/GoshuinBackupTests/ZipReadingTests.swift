import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The ZIP is read at the offsets the structure scan verified, by one parser: ZIP64 from other writers,
/// a ZIP64 locator hidden in a photo, and deflate data that does not end where its entry does.
@Suite struct ZipReadingTests {
    /// Writes a backup folder's files as a ZIP with `make` (given the folder and the ZIP's path), seals the
    /// ZIP as a single file, extracts it with the strict reader and compares every file.
    static func roundTrip(zipWith make: (String, String) throws -> Void) throws {
        let directory = TemporaryDirectory()
        let folder = BackupRoundTripTests.makeFolder(directory)
        let manifest = try BackupRoundTripTests.sealBackup(folder, in: directory)
        try FileManager.default.removeItem(atPath: directory.file("backup.goshuin"))
        directory.write("folder/manifest.json", manifest.encode())
        let zipPath = directory.file("other.zip")
        try make(folder, zipPath)
        try GoshuinFile.seal(
            inputPath: zipPath, outputPath: directory.file("other.goshuin"), passphrase: Passphrase("pw"),
            parameters: SealParameters(iterations: 1_000, chunkSize: 4_096))
        try BackupFile.extract(
            inputPath: directory.file("other.goshuin"), into: directory.file("out"), passphrase: Passphrase("pw"))
        for name in ["records.csv", "IMG_0001.jpg", "b-2.png", "c_3.heic", "Z9.webp", "manifest.json"] {
            #expect(
                Fixtures.readBytes(folder + "/" + name) == Fixtures.readBytes(directory.file("out/" + name)), "\(name)")
        }
    }

    @Test func pythonZipfileWithForcedZip64Reads() throws {
        try Self.roundTrip { folder, zipPath in
            let script = """
                import os, sys, zipfile
                folder, target = sys.argv[1], sys.argv[2]
                with zipfile.ZipFile(target, "w") as z:
                    for name in sorted(os.listdir(folder)):
                        info = zipfile.ZipInfo(name)
                        deflate = name.endswith((".csv", ".json"))
                        info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
                        with open(os.path.join(folder, name), "rb") as f, z.open(info, "w", force_zip64=True) as out:
                            out.write(f.read())
                """
            let result = try BackupRoundTripTests.run("/usr/bin/env", ["python3", "-c", script, folder, zipPath])
            #expect(result.status == 0, "\(result.output)")
            // The local headers defer their sizes to a ZIP64 field.
            let bytes = Fixtures.readBytes(zipPath)
            #expect(bytes[18..<26].allSatisfy { $0 == 0xFF })
        }
    }

    @Test func infoZipWithForcedZip64Reads() throws {
        try Self.roundTrip { folder, zipPath in
            let names = ["records.csv", "IMG_0001.jpg", "Z9.webp", "b-2.png", "c_3.heic", "manifest.json"]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["zip", "-q", "-X", "-fz", zipPath] + names
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            // Info-ZIP's -fz writes ZIP64 end records and an offset of 0xFFFFFFFF in the classic one.
            let bytes = Fixtures.readBytes(zipPath)
            #expect(bytes.suffix(6).prefix(4).allSatisfy { $0 == 0xFF })
        }
    }

    /// minizip looks for a ZIP64 locator in the last 64 KiB, and would take one hidden in a stored photo
    /// for the real end records; the scan does not, and nothing else parses the end of the ZIP.
    @Test func aZip64LocatorInsideAPhotoIsData() throws {
        var fakeEnd: [UInt8] = []
        fakeEnd.le32(0x0606_4B50)
        fakeEnd.le64(44)
        fakeEnd += [UInt8](repeating: 0, count: 12)
        fakeEnd.le64(1)
        fakeEnd.le64(1)
        fakeEnd.le64(46)
        fakeEnd.le64(0)
        fakeEnd.le32(0x0706_4B50)
        fakeEnd.le32(0)
        fakeEnd.le64(0)
        fakeEnd.le32(1)
        let photo: [UInt8] = [0xFF, 0xD8] + fakeEnd
        let zip = ZipFixture.backup(photos: [("IMG_0001.jpg", photo)]).build()
        let directory = TemporaryDirectory()
        directory.write("payload.zip", zip)
        var extracted: [String: [UInt8]] = [:]
        let input = try FileDescriptor.openForReading(directory.file("payload.zip"))
        try input.closeAfter {
            let archive = try BackupArchive(try FileSource(input))
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            try archive.readEveryEntry(checkedAgainst: manifest) { entry, read in
                var bytes: [UInt8] = []
                try read { bytes += $0 }
                extracted[entry.name] = bytes
            }
        }
        #expect(extracted["IMG_0001.jpg"] == photo)
        #expect(extracted.keys.sorted() == ["IMG_0001.jpg", "manifest.json", "records.csv"])
    }

    @Test func deflateDataFollowedByGarbageIsCorrupt() throws {
        let records = Array(String(repeating: "1,a record of text\n", count: 50).utf8)
        let deflated = try BackupArchiveTests.deflatedRecords(records)
        func code(_ data: [UInt8], declaring size: Int = records.count) -> String? {
            var fixture = ZipFixture.backup(records: records)
            fixture.entries[0] = ZipFixture.Entry("records.csv", data)
            fixture.entries[0].method = 8
            fixture.entries[0].crc = ZipFixture.crc32(records)
            fixture.entries[0].uncompressedSize = UInt32(size)
            return BackupArchiveTests.entryCode(fixture.build(), "records.csv")
        }
        #expect(code(deflated) == nil)
        #expect(code(deflated + [0]) == "entry_corrupt", "a byte after the final block")
        #expect(code(deflated + deflated) == "entry_corrupt", "a second deflate stream")
        #expect(code(Array(deflated.dropLast())) == "entry_corrupt", "cut before the final block")
        #expect(code(deflated, declaring: records.count - 10) == "entry_corrupt", "inflates past its size")
    }
}
