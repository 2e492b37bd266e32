import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// A file with a fault in its container and one in its payload gets the container's error from every
/// reader (`Spec/backup-v1.md` §4.1, step 0), whatever part of the payload a reader looks at first.
@Suite struct ContainerFirstTests {
    let directory = TemporaryDirectory()
    let passphrase = Passphrase(Fixtures.passphrase)

    /// A backup of several 1 KiB chunks whose manifest is `manifestText` (the valid one when `nil`), sealed
    /// as `name`, with chunk `damagedChunk`'s ciphertext changed when given.
    func sealBackup(_ name: String, manifestText: String? = nil, damagedChunk: UInt64? = nil) throws -> String {
        let photo = Fixtures.payload(6_000)
        let zip = ZipFixture.backup(photos: [("IMG_0001.jpg", photo)], manifestText: manifestText).build()
        var sealed = try Fixtures.seal(zip, in: directory, name: name)
        if let damagedChunk {
            let offset = Header.byteCount + Int(damagedChunk) * (1_024 + 20) + 4 + 10
            sealed = sealed.flippingBit(at: offset)
        }
        return directory.write(name, sealed)
    }

    /// The code and chunk index each reader gives for the file at `path`.
    func verdicts(_ path: String) -> [String: String] {
        func verdict(_ body: () throws -> Void) -> String {
            do {
                try body()
                return "success"
            } catch let error as GoshuinError {
                return error.code.rawValue + (error.chunkIndex.map { "@\($0)" } ?? "")
            } catch {
                return "\(error)"
            }
        }
        return [
            "open": verdict {
                try GoshuinFile.open(
                    inputPath: path, outputPath: directory.file("out-\(path.hashValue)"), passphrase: passphrase)
            },
            "extract": verdict {
                try BackupFile.extract(
                    inputPath: path, into: directory.file("folder-\(path.hashValue)"), passphrase: passphrase)
            },
            "verify": verdict { _ = try BackupFile.verify(inputPath: path, passphrase: passphrase) },
            "list": verdict { _ = try BackupFile.list(inputPath: path, passphrase: passphrase) },
        ]
    }

    @Test func aDamagedChunkWinsOverAnInvalidManifest() throws {
        let invalid = #"{"format":"goshuin-backup","version":2}"#
        let payloadFault = try sealBackup("manifest.goshuin", manifestText: invalid)
        #expect(verdicts(payloadFault).filter { $0.key != "open" }.values.allSatisfy { $0 == "manifest_invalid" })
        let both = try sealBackup("both.goshuin", manifestText: invalid, damagedChunk: 1)
        #expect(
            verdicts(both) == [
                "open": "chunk_damaged@1", "extract": "chunk_damaged@1", "verify": "chunk_damaged@1",
                "list": "chunk_damaged@1",
            ])
        #expect(directory.entries.allSatisfy { !$0.hasPrefix("folder-") && !$0.contains("goshuin-tmp") })
    }

    @Test func aDamagedChunkWinsOverAnEntryFault() throws {
        // The manifest lists another SHA-256 for records.csv, the first entry: found when its data is read,
        // in chunk 0, before the photo's chunks.
        let records = Array("id,text\n1,hello\n".utf8)
        let manifest = ZipFixture.manifestJSON(records: records, photos: [("IMG_0001.jpg", Fixtures.payload(6_000))])
            .replacingOccurrences(
                of: try Hex.encode(SHA256Hasher.hash(records)), with: String(repeating: "ab", count: 32))
        let entryFault = try sealBackup("entry.goshuin", manifestText: manifest)
        #expect(verdicts(entryFault)["extract"] == "manifest_mismatch")
        #expect(verdicts(entryFault)["verify"] == "manifest_mismatch")
        let both = try sealBackup("both.goshuin", manifestText: manifest, damagedChunk: 3)
        #expect(verdicts(both)["extract"] == "chunk_damaged@3")
        #expect(verdicts(both)["verify"] == "chunk_damaged@3")
    }

    /// Declared sizes are judged against the manifest before they are judged against the free space: a
    /// backup declaring terabytes is `manifest_mismatch`, as listing and verifying say, not `no_space`.
    @Test func declaredSizesMeetTheManifestBeforeTheFreeSpace() throws {
        let photos = (1...300).map { (String(format: "IMG_%04d.jpg", $0), [UInt8]([0xFF, 0xD8, UInt8($0 % 256)])) }
        var fixture = ZipFixture.backup(photos: photos)
        for index in 1...photos.count {
            fixture.entries[index].compressedSize = 0xFFFF_FF00
            fixture.entries[index].uncompressedSize = 0xFFFF_FF00
        }
        _ = try Fixtures.seal(fixture.build(), in: directory, name: "huge.goshuin")
        let path = directory.file("huge.goshuin")
        let results = verdicts(path)
        #expect(results["extract"] == "manifest_mismatch", "\(results)")
        #expect(results["list"] == "manifest_mismatch")
        #expect(results["verify"] == "manifest_mismatch")
    }
}
