import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// Salvage on real damage (`Spec/backup-v1.md` §4.2): which photos come back, byte-identical, and which are
/// named lost, for each kind of damage; verify names the same entries; a wrong passphrase restores nothing.
@Suite struct SalvageTests {
    let directory = TemporaryDirectory()
    static let passphrase = "salvage what is whole"

    /// A backup of records.csv and `count` photos of `size` bytes each, in `chunkSize` chunks; returns the
    /// folder's files and the backup's bytes.
    func makeBackup(photos count: Int = 12, size: Int = 3_000, sizes: [Int]? = nil, chunkSize: UInt32 = 1_024) throws
        -> (files: [String: [UInt8]], backup: [UInt8])
    {
        let folder = directory.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files = ["records.csv": Array("date,photo\n2026-01-01,IMG_0001.jpg\n".utf8)]
        for (index, photoSize) in (sizes ?? Array(repeating: size, count: count)).enumerated() {
            files[String(format: "IMG_%04d.jpg", index + 1)] = Fixtures.payload(photoSize, seed: UInt8(index + 1))
        }
        for (name, bytes) in files { directory.write("folder/" + name, bytes) }
        let output = directory.file("backup.goshuin")
        try? FileManager.default.removeItem(atPath: output)
        try BackupFile.seal(
            folder: folder, outputPath: output, passphrase: Passphrase(Self.passphrase),
            parameters: SealParameters(iterations: 1_000, chunkSize: chunkSize))
        return (files, Fixtures.readBytes(output))
    }

    /// Salvages `bytes` into a fresh folder; checks that every restored file is byte-identical to the
    /// folder's; returns the report.
    func salvage(_ bytes: [UInt8], _ files: [String: [UInt8]], passphrase: String = Self.passphrase) throws
        -> SalvageReport
    {
        let input = directory.write("damaged.goshuin", bytes)
        let out = directory.file("out-\(UUID().uuidString)")
        let report = try BackupFile.salvage(inputPath: input, into: out, passphrase: Passphrase(passphrase))
        for name in report.restored where name != "manifest.json" {
            #expect(Fixtures.readBytes(out + "/" + name) == files[name], "\(name) is not byte-identical")
        }
        let written = Set((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])
        #expect(written == Set(report.restored), "exactly the restored entries are in the folder")
        return report
    }

    /// The chunk holding payload offset `offset`'s record starts at: where to damage it in the file.
    static func fileOffset(ofChunk index: Int, chunkSize: Int = 1_024) -> Int { 45 + index * (chunkSize + 20) + 10 }

    @Test func aFlippedBitInAPhotosChunkLosesThePhotosItHolds() throws {
        let (files, backup) = try makeBackup()
        let report = try salvage(backup.flippingBit(at: Self.fileOffset(ofChunk: 20)), files)
        #expect(report.mode == .directory && !report.manifestLost)
        #expect(report.damagedChunks == [20])
        #expect(!report.lost.isEmpty && report.lost.count <= 2, "\(report.lost)")
        #expect(report.lost.allSatisfy { $0.reason == "damaged" })
        #expect(report.restored.count + report.lost.count == 13, "every entry but the manifest is restored or lost")
        #expect(!report.restored.contains("manifest.json") && report.restored.contains("records.csv"))
        // verify names the same entries, and points at salvage.
        let verified = try verifyDetails(backup.flippingBit(at: Self.fileOffset(ofChunk: 20)))
        for lost in report.lost { #expect(verified.contains(lost.name), "\(verified)") }
        #expect(verified.contains("chunk 20 holds"), "\(verified)")
    }

    @Test func damageInTheFirstChunkLosesWhatItHoldsAndKeepsTheRest() throws {
        let (files, backup) = try makeBackup()
        let report = try salvage(backup.flippingBit(at: Self.fileOffset(ofChunk: 0)), files)
        #expect(report.mode == .directory)
        #expect(report.lost.map(\.name).contains("records.csv"), "\(report.lost)")
        #expect(report.restored.count == 13 - report.lost.count)
    }

    @Test func damageInTheLastChunkWalksTheLocalHeaders() throws {
        let (files, backup) = try makeBackup()
        let chunks = (backup.count - 45 + 1_043) / 1_044
        let report = try salvage(backup.flippingBit(at: Self.fileOffset(ofChunk: chunks - 1)), files)
        #expect(report.mode == .walk && report.manifestLost)
        #expect(report.restored.count == 13, "records.csv and every photo: \(report.restored)")
        #expect(!report.isComplete)
    }

    /// A bad sector: 4 KiB of zeros over several chunks, their length prefixes included. The strict
    /// reader refuses it before asking for the passphrase (chunk_length_invalid); salvage loses only the
    /// entries the zeros cover.
    @Test func fourKiBOfZerosLoseTheEntriesTheyCover() throws {
        let (files, backup) = try makeBackup()
        var damaged = backup
        for offset in 10_000..<10_000 + 4_096 { damaged[offset] = 0 }
        let report = try salvage(damaged, files)
        #expect(report.damagedChunks.count >= 4 && report.damagedChunks.count <= 5, "\(report.damagedChunks)")
        #expect(report.mode == .directory && report.lost.count >= 2)
        #expect(report.restored.count + report.lost.count == 13)
        #expect(throws: GoshuinError(.chunkLengthInvalid, "", chunkIndex: UInt64(report.damagedChunks[1]))) {
            try BackupFile.verify(
                inputPath: directory.write("zeros.goshuin", damaged), passphrase: Passphrase(Self.passphrase))
        }
    }

    @Test(arguments: [0.3, 0.6, 0.99])
    func aCutFileRestoresEveryEntryBeforeTheCut(fraction: Double) throws {
        let (files, backup) = try makeBackup()
        let cut = Array(backup.prefix(Int(Double(backup.count) * fraction)))
        let report = try salvage(cut, files)
        #expect(report.mode == .walk && report.firstMissingChunk != nil)
        // Every entry whose data ends before the first missing chunk comes back.
        let expected = Int(Double(13) * fraction) - 1
        #expect(report.restored.count >= max(0, expected), "\(fraction): \(report.restored)")
        #expect(report.lost.allSatisfy { $0.reason == "missing" }, "\(report.lost)")
        #expect(report.lost.count <= 1)
    }

    @Test func twoDamagedChunksFarApartLoseTwoGroups() throws {
        let (files, backup) = try makeBackup()
        let damaged = backup.flippingBit(at: Self.fileOffset(ofChunk: 3)).flippingBit(at: Self.fileOffset(ofChunk: 30))
        let report = try salvage(damaged, files)
        #expect(report.damagedChunks == [3, 30])
        #expect(report.lost.count >= 2 && report.lost.count <= 4, "\(report.lost)")
        #expect(report.restored.count + report.lost.count == 13)
    }

    @Test func aWrongPassphraseRestoresNothing() throws {
        let (files, backup) = try makeBackup()
        #expect(throws: GoshuinError(.authFailed, "")) {
            _ = try salvage(backup.flippingBit(at: Self.fileOffset(ofChunk: 5)), files, passphrase: "not it")
        }
        #expect(!directory.entries.contains { $0.hasPrefix("out") }, "\(directory.entries)")
    }

    /// 64 MiB chunks: chunk 0 damaged, chunk 1 authenticates, so the passphrase is right and the photo
    /// wholly in chunk 1 comes back; the one that starts in chunk 0 is lost.
    @Test(.slowTier) func aBackupIn64MiBChunks() throws {
        let (files, backup) = try makeBackup(sizes: [65 << 20, 1 << 20], chunkSize: 64 << 20)
        let report = try salvage(backup.flippingBit(at: 45 + 100), files)
        #expect(report.damagedChunks == [0])
        #expect(report.restored == ["IMG_0002.jpg"], "\(report.restored)")
        #expect(report.lost.map(\.name) == ["records.csv", "IMG_0001.jpg"], "\(report.lost)")
    }

    /// A hostile ZIP sealed by a writer of its own, every chunk authenticating: an unsafe name is never
    /// written (the central directory breaks §3.1, so the walk meets it and passes it by); two entries that
    /// claim one local header (the overlapping-entry bomb) are both lost; the rest come back.
    @Test func aHostileZipInsideChunksThatAuthenticate() throws {
        let photo = Fixtures.payload(2_000, seed: 5)
        var unsafe = ZipFixture.backup(photos: [("IMG_0001.jpg", photo)])
        unsafe.entries.insert(ZipFixture.Entry("../IMG_9999.jpg", Array("outside".utf8)), at: 1)
        let unsafeReport = try salvageZip(unsafe.build())
        #expect(unsafeReport.mode == .walk)
        #expect(unsafeReport.restored == ["records.csv", "IMG_0001.jpg"], "\(unsafeReport.restored)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/IMG_9999.jpg"), "nothing outside")
        let second = Fixtures.payload(500, seed: 6)
        var overlapping = ZipFixture.backup(photos: [
            ("IMG_0001.jpg", photo), ("IMG_0002.jpg", second), ("IMG_0003.jpg", second),
        ])
        // IMG_0003's record claims IMG_0002's local header and data: the bytes are never read twice.
        overlapping.omitLocal = [3]
        let localOffsets = ZipFixture.localOffsets(of: overlapping)
        overlapping.offsetOverrides = [3: localOffsets[2]]
        let overlapReport = try salvageZip(overlapping.build())
        #expect(overlapReport.mode == .directory, "\(overlapReport)")
        #expect(overlapReport.restored.contains("IMG_0001.jpg") && overlapReport.restored.contains("records.csv"))
        #expect(!overlapReport.restored.contains("IMG_0003.jpg"), "\(overlapReport.restored)")
        #expect(overlapReport.lost.map(\.name).contains("IMG_0003.jpg"), "\(overlapReport.lost)")
    }

    /// `open -o --salvage` of any payload: every authenticated chunk at its offset, zeros for the rest.
    @Test func aPayloadSalvagedToAFileHasZerosWhereItIsLost() throws {
        let payload = Fixtures.payload(10_000)
        let sealed = try Fixtures.seal(payload, in: directory)
        let damaged = sealed.flippingBit(at: Self.fileOffset(ofChunk: 3))
        let input = directory.write("d.goshuin", damaged)
        let descriptor = try FileDescriptor.openForReading(input)
        let output = try FileSystem.anonymousFile()
        let salvage = try descriptor.closeAfter {
            let salvage = try ContainerSalvage(descriptor, passphrase: Passphrase(Fixtures.passphrase))
            try salvage.write(into: output)
            return salvage
        }
        #expect(salvage.lostRanges.map(\.bytes) == [3_072..<4_096])
        let written = try #require(try FileSource(output).readExactly(at: 0, count: payload.count))
        try? output.close()
        #expect(Array(written[0..<3_072]) == Array(payload[0..<3_072]))
        #expect(written[3_072..<4_096].allSatisfy { $0 == 0 })
        #expect(Array(written[4_096...]) == Array(payload[4_096...]))
    }

    /// Seals `zip` as a payload and salvages it; no file of the folder is compared (a hand-made ZIP).
    func salvageZip(_ zip: [UInt8]) throws -> SalvageReport {
        let sealed = try Fixtures.seal(zip, in: directory, name: "hostile-\(UUID().uuidString).goshuin")
        let input = directory.write("hostile.goshuin", sealed)
        return try BackupFile.salvage(
            inputPath: input, into: directory.file("out-\(UUID().uuidString)"),
            passphrase: Passphrase(Fixtures.passphrase))
    }

    /// The detail lines verify gives for a damaged backup.
    func verifyDetails(_ bytes: [UInt8]) throws -> String {
        let input = directory.write("verify.goshuin", bytes)
        do {
            _ = try BackupFile.verify(inputPath: input, passphrase: Passphrase(Self.passphrase), requiringBackup: true)
        } catch let error as GoshuinError {
            #expect(error.code == .chunkDamaged)
            return error.details.joined(separator: "\n")
        }
        Issue.record("a damaged backup verified")
        return ""
    }
}
