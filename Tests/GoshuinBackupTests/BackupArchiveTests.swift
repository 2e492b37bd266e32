import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// Every archive attack of issue 5, each from a ZIP built here, refused with its code; and the round trips.
@Suite struct BackupArchiveTests {
    /// Opens `zip` with the strict reader and reads everything: manifest, binding, every entry with the tiling.
    static func readAll(_ zip: [UInt8]) throws {
        let directory = TemporaryDirectory()
        let path = directory.write("payload.zip", zip)
        let input = try FileDescriptor.openForReading(path)
        try input.closeAfter {
            let archive = try BackupArchive(try FileSource(input))
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            try archive.readEveryEntry(checkedAgainst: manifest) { _, read in try read { _ in } }
        }
    }

    /// The structure scan's verdict alone (end records, central directory, tiling), before any manifest.
    static func scanCode(_ zip: [UInt8]) -> String? {
        do {
            _ = try ZipStructureScanner.scan(ByteArraySource(zip))
            return nil
        } catch let error as GoshuinError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    static func code(_ zip: [UInt8]) -> String? {
        do {
            try readAll(zip)
            return nil
        } catch let error as GoshuinError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    /// Reads one entry only (no manifest binding), so a lie reaches the data check.
    static func entryCode(_ zip: [UInt8], _ name: String) -> String? {
        let directory = TemporaryDirectory()
        let path = directory.write("payload.zip", zip)
        do {
            let input = try FileDescriptor.openForReading(path)
            try input.closeAfter {
                let archive = try BackupArchive(try FileSource(input))
                if let entry = archive.directory.entry(named: name) { try archive.read(entry) { _ in } }
            }
            return nil
        } catch let error as GoshuinError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    @Test func validBackupReads() throws {
        try Self.readAll(ZipFixture.backup().build())
    }

    @Test(arguments: [
        ".", "..", "photo.jpg\n", "a/b.jpg", "a\\b.jpg", "/etc/passwd", "with space.jpg", "é.jpg",
        String(repeating: "a", count: 256),
    ])
    func unsafeNamesAreRefused(name: String) {
        var fixture = ZipFixture.backup()
        fixture.entries.insert(ZipFixture.Entry(name, [1]), at: 1)
        #expect(Self.code(fixture.build()) == "unsafe_entry_name")
    }

    @Test func nulInsideANameIsRefused() {
        var fixture = ZipFixture.backup()
        fixture.entries.insert(ZipFixture.Entry(nameBytes: Array("a.jpg".utf8) + [0] + Array("x".utf8), [1]), at: 1)
        #expect(Self.code(fixture.build()) == "unsafe_entry_name")
    }

    @Test func namesThatAreSafeForZipButNotForPhotos() {
        // `-rf`, `CON.jpg` and a 300-byte name pass or fail the ZIP rules; the manifest's photo rules refuse them.
        for name in ["-rf.jpg", "CON.jpg", "con.JPG", "a.b.jpg", "photo.gif"] {
            let fixture = ZipFixture.backup(photos: [(name, [1, 2])])
            let code = Self.code(fixture.build())
            #expect(code == "manifest_invalid", "\(name): \(code ?? "accepted")")
        }
        let long = String(repeating: "a", count: 300) + ".jpg"
        #expect(Self.code(ZipFixture.backup(photos: [(long, [1])]).build()) == "unsafe_entry_name")
    }

    @Test func duplicatesExactAndCaseFolded() {
        var exact = ZipFixture.backup()
        exact.entries.insert(ZipFixture.Entry("IMG_0001.jpg", [9]), at: 1)
        #expect(Self.code(exact.build()) == "duplicate_entry")
        var folded = ZipFixture.backup()
        folded.entries.insert(ZipFixture.Entry("img_0001.JPG", [9]), at: 1)
        #expect(Self.code(folded.build()) == "duplicate_entry")
    }

    @Test func directoriesLinksEncryptionAndOtherMethodsAreRefused() {
        func variant(_ change: (inout ZipFixture.Entry) -> Void) -> String? {
            var fixture = ZipFixture.backup()
            change(&fixture.entries[1])
            return Self.code(fixture.build())
        }
        #expect(variant { $0.externalAttributes = 0o040755 << 16 | 0x10 } == "unsupported_entry")
        #expect(variant { $0.externalAttributes = 0o120777 << 16 } == "unsupported_entry")
        #expect(variant { $0.externalAttributes = 0o010644 << 16 } == "unsupported_entry")
        #expect(variant { $0.flags = 1 } == "unsupported_entry")
        #expect(variant { $0.flags = 8 } == "unsupported_entry")
        #expect(variant { $0.method = 12 } == "unsupported_entry")
    }

    @Test func sizeAndCRCLiesAreRefused() {
        func variant(_ change: (inout ZipFixture.Entry) -> Void) -> String? {
            var fixture = ZipFixture.backup()
            change(&fixture.entries[1])
            let zip = fixture.build()
            // Reading the backup refuses it too, at the binding: the manifest has the true sizes.
            #expect(Self.code(zip) != nil)
            return Self.scanCode(zip)
        }
        // Stored sizes larger or smaller than the data: the entries no longer tile the file.
        #expect(
            variant {
                $0.compressedSize += 4; $0.uncompressedSize += 4
            } == "zip_malformed")
        #expect(
            variant {
                $0.compressedSize -= 2; $0.uncompressedSize -= 2
            } == "zip_malformed")
        #expect(variant { $0.uncompressedSize += 1 } == "zip_malformed")
        var crcLie = ZipFixture.backup()
        crcLie.entries[1].crc ^= 1
        #expect(Self.code(crcLie.build()) == "entry_corrupt")
    }

    @Test func deflateSizeLiesAndBombsAreRefused() throws {
        let records = Array(String(repeating: "1,a record of text\n", count: 50).utf8)
        let deflated = try Self.deflatedRecords(records)
        func variant(_ change: (inout ZipFixture.Entry) -> Void) -> String? {
            var fixture = ZipFixture.backup(records: records)
            fixture.entries[0] = ZipFixture.Entry("records.csv", deflated)
            fixture.entries[0].method = 8
            fixture.entries[0].crc = ZipFixture.crc32(records)
            fixture.entries[0].uncompressedSize = UInt32(records.count)
            change(&fixture.entries[0])
            return Self.entryCode(fixture.build(), "records.csv")
        }
        #expect(variant { _ in } == nil)
        #expect(variant { $0.uncompressedSize -= 1 } == "entry_corrupt")
        #expect(variant { $0.uncompressedSize += 1 } == "entry_corrupt")
        #expect(variant { $0.uncompressedSize = $0.compressedSize * 200 + 1 } == "zip_limit_exceeded")
    }

    @Test func localAndCentralNamesMustAgree() {
        var fixture = ZipFixture.backup()
        fixture.entries[1].localName = Array("IMG_0002.jpg".utf8)
        #expect(Self.code(fixture.build()) == "zip_malformed")
    }

    @Test func overlappingEntriesAreRefused() {
        // The second photo's local header and data sit inside the first photo's data.
        var fixture = ZipFixture.backup(photos: [("a.jpg", [1, 2, 3]), ("b.jpg", [4, 5])])
        let inner = ZipFixture.localHeader(fixture.entries[2]) + fixture.entries[2].data
        fixture.entries[1] = ZipFixture.Entry("a.jpg", inner)
        fixture.omitLocal = [2]
        fixture.offsetOverrides = [2: UInt32(ZipFixture.localHeader(fixture.entries[0]).count + 16 + 30 + 5)]
        #expect(Self.scanCode(fixture.build()) == "zip_malformed")
        #expect(Self.code(fixture.build()) != nil)
    }

    @Test func prependedAndTrailingDataAreRefused() {
        var prepended = ZipFixture.backup()
        prepended.prepended = Array("MZ".utf8)
        #expect(Self.code(prepended.build()) == "zip_malformed")
        var trailing = ZipFixture.backup()
        trailing.appended = [0]
        #expect(Self.code(trailing.build()) == "zip_malformed")
    }

    @Test func moreThan65535EntriesAreRefusedByTheDeclaredCount() {
        let entries = (0..<65_536).map { ZipFixture.Entry("f\($0).jpg", []) }
        #expect(Self.code(ZipFixture(entries: entries).build()) == "zip_limit_exceeded")
    }

    @Test func manifestFailures() {
        let records = Array("r\n".utf8)
        let photo = ("IMG_0001.jpg", [UInt8]([0xFF, 0xD8]))
        func withManifest(_ text: String) -> String? {
            Self.code(ZipFixture.backup(records: records, photos: [photo], manifestText: text).build())
        }
        let valid = ZipFixture.manifestJSON(records: records, photos: [photo])
        #expect(withManifest(valid) == nil)
        #expect(
            withManifest(ZipFixture.manifestJSON(records: records, photos: [photo], extra: "\"purchases\":[],"))
                == "manifest_invalid")
        #expect(
            withManifest(ZipFixture.manifestJSON(records: records, photos: [photo], extra: "\"version\":1,"))
                == "manifest_invalid")
        #expect(withManifest(valid.replacingOccurrences(of: "\"size\":2,", with: "\"size\":3,")) == "manifest_mismatch")
        #expect(
            withManifest(ZipFixture.manifestJSON(records: records, photos: [(photo.0, [0xFF, 0xD9])]))
                == "manifest_mismatch")
        #expect(withManifest(ZipFixture.manifestJSON(records: records, photos: [])) == "manifest_mismatch")
        #expect(
            withManifest(ZipFixture.manifestJSON(records: records, photos: [photo, ("IMG_0002.jpg", [1])]))
                == "manifest_mismatch")
        #expect(
            withManifest(valid.replacingOccurrences(of: "2026-11-29T12:00:00Z", with: "2026-13-29T12:00:00Z"))
                == "manifest_invalid")
        #expect(
            withManifest(valid.replacingOccurrences(of: "\"version\":1", with: "\"version\":1.0")) == "manifest_invalid"
        )
        var missing = ZipFixture.backup(records: records, photos: [photo])
        missing.entries.removeLast()
        #expect(Self.code(missing.build()) == "manifest_mismatch")
    }

    @Test func unsortedOrCaseDuplicatePhotosInTheManifestAreRefused() {
        let records = Array("r\n".utf8)
        #expect(
            Self.code(ZipFixture.backup(records: records, photos: [("b.jpg", [1]), ("a.jpg", [2])]).build())
                == "manifest_invalid")
    }

    /// The deflated bytes of `records` as the packer writes them (zlib's raw deflate, default level).
    static func deflatedRecords(_ records: [UInt8]) throws -> [UInt8] {
        let directory = TemporaryDirectory()
        directory.write("records.csv", records)
        let packed = try FileSystem.anonymousFile()
        return try packed.closeAfter {
            try BackupFolder(checking: directory.path).pack(into: packed)
            let source = try FileSource(packed)
            let archive = try BackupArchive(source)
            let entry = try #require(archive.directory.entry(named: "records.csv"))
            let start = try ZipStructureScanner.checkLocalHeader(
                source, entry, directoryOffset: archive.directory.centralDirectoryOffset)
            return try #require(try source.readExactly(at: start, count: Int(entry.compressedSize)))
        }
    }
}

/// Inputs from the code review: ZIP64 records near the start of the file, a ZIP comment.
@Suite struct ZipEndRecordTests {
    @Test func zip64LocatorNearTheStartIsRefusedNotATrap() {
        let bytes = Fixtures.readBytes(
            Fixtures.packageRoot + "/Fuzz/Regressions/zip-structure/zip64-locator-near-start.zip")
        #expect(bytes.count == 42)
        #expect(BackupArchiveTests.code(bytes) == "zip_malformed")
    }

    @Test func aCommentIsRefused() {
        var zip = ZipFixture.backup().build()
        zip[zip.count - 2] = 3
        zip += Array("abc".utf8)
        #expect(BackupArchiveTests.code(zip) == "zip_malformed")
    }
}
