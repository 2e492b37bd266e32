import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// An adversarial review of issue 34's changes: each test states a claim of `Spec/decisions/0048`, `0049` or
/// `Spec/recovery-par2.md` §6-7, builds the hostile set that broke it, and fails where the claim does not hold.
@Suite struct Issue34AttackTests {
    static func expectError(_ code: GoshuinError.Code, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected \(code), got success")
        } catch let error as GoshuinError {
            #expect(error.code == code, "\(error)")
        } catch {
            Issue.record("expected \(code), got \(error)")
        }
    }

    /// `payload` sealed again and again (version 1, `chunkSize`) until the new file's last byte is `last`:
    /// a new backup that equals the old one in its last byte only (about 256 seals).
    static func resealed(_ payload: [UInt8], endingWith last: UInt8, chunkSize: UInt32, in folder: ScratchFolder)
        throws -> [UInt8]
    {
        let scratch = folder.file("scratch.goshuin")
        for _ in 0..<4_096 {
            try? FileManager.default.removeItem(atPath: scratch)
            let bytes = try Recovery.seal(payload, to: scratch, chunkSize: chunkSize, version: .v1)
            if bytes.last == last {
                try FileManager.default.removeItem(atPath: scratch)
                return bytes
            }
        }
        Issue.record("4,096 seals and none ends with \(last)")
        return []
    }

    /// ADR 0048: "a re-sealed backup with the old set beside it ... `repair` refuses (`recovery_set_mismatch`),
    /// at every size". Not when the old file's last slice (rule 2: MD5 and CRC-32 of one byte and zeros) or last
    /// 512-byte block (rule 3: one byte) holds one byte: a new backup matches it with probability 1/256, is
    /// called a damaged copy, and `repair` in place writes the OLD backup over it.
    @Test(arguments: [
        4_032,  // L = 4,097: two slices of 4 KiB, the second one byte (rule 2); r = 2, so "repairable"
        448,  // L = 513: one slice, blocks [0, 512) and [512, 513) (rule 3)
    ])
    func aNewBackupEqualToTheOldInItsLastByteIsStillAnotherFile(payload: Int) throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let plain = Recovery.noise(payload, seed: 7)
        let old = try Recovery.seal(plain, to: path, chunkSize: 4_194_304, version: .v1)
        #expect(old.count == payload + 65)
        try RecoverySet.protect(inputPath: path)
        let newer = try Self.resealed(plain, endingWith: old.last ?? 0, chunkSize: 4_194_304, in: folder)
        folder.write("backup.goshuin", newer)
        Self.expectError(.recoverySetMismatch) { _ = try RecoverySet.verify(inputPath: path) }
        Self.expectError(.recoverySetMismatch) { _ = try RecoverySet.repair(inputPath: path, to: .inPlace) }
        #expect(Recovery.read(path) == newer, "the new backup is as it was (not the old one)")
    }

    /// `Spec/recovery-par2.md` §5.1: a file that starts with GSHN but fails the structure checks is refused by
    /// `protect`, "a repair would never write it". A version 2 backup cut inside a record (its last record
    /// keeping >= 16 bytes) passes checks 1-8; its set then calls the complete backup "damaged: N KiB follow
    /// its end", and a repair in place cuts the complete backup down to the copy's length.
    @Test func aCompleteVersion2BackupIsNeverCutToTheCopyItsSetWasMadeOf() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let full = try Recovery.seal(Recovery.noise(10_240, seed: 9), to: path, chunkSize: 1_024, version: .v2)
        #expect(full.count == 10_493)
        folder.write("backup.goshuin", Array(full.prefix(77 + 5 * 1_040 + 16)))
        do {
            try RecoverySet.protect(inputPath: path)
        } catch {
            return  // refused: the claim holds
        }
        folder.write("backup.goshuin", full)
        _ = try? RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == full, "the complete backup was cut to \(Recovery.read(path).count) bytes")
    }

    /// ADR 0048: "the winner then needs evidence; without it, the file is another file for every candidate,
    /// since the winner had the most of it". Rule 3 is tried on the winner only: with two sets of one slice
    /// beside a damaged one-slice backup (its own, and another backup's volume), about half the orders pick
    /// the other backup's set, and the backup's own set, which rebuilds it, is never tried.
    @Test func theSetThatRebuildsTheFileIsFoundWhicheverSetIsReadFirst() throws {
        for seed in UInt64(1)...8 {
            let folder = ScratchFolder()
            let path = folder.file("backup.goshuin")
            let other = folder.file("other.goshuin")
            let plain = Recovery.noise(2_000, seed: seed)
            try Recovery.seal(plain, to: other, version: .v1)
            let original = try Recovery.seal(plain, to: path, version: .v1)
            try RecoverySet.protect(inputPath: other)
            try RecoverySet.protect(inputPath: path)
            try FileManager.default.moveItem(
                atPath: folder.file("other.goshuin.vol0+1.par2"), toPath: folder.file("backup.goshuin.vol1+1.par2"))
            try FileManager.default.removeItem(atPath: folder.file("other.goshuin.par2"))
            var damaged = original
            damaged[100] ^= 0xFF
            folder.write("backup.goshuin", damaged)
            do {
                _ = try RecoverySet.repair(inputPath: path, to: .newFile(folder.file("fixed.goshuin")))
                #expect(Recovery.read(folder.file("fixed.goshuin")) == original, "seed \(seed)")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    /// ADR 0049: "The slice size is bounded by the file": S <= max(roundUp4(longest recoverable file), 64 MiB).
    /// The longest file is what a description *says*: a second recoverable file described as 1 GiB (it need
    /// not exist) lifts the bound, and the real file's one slice is hashed with 1 GiB of padding (2^40 bytes
    /// and about 45 minutes with a 568-byte index).
    @Test func aDescribedFileThatIsNotThereDoesNotLiftTheSliceBound() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let bytes = try Recovery.seal(Recovery.noise(3_000, seed: 3), to: path, version: .v1)
        let sliceSize: UInt64 = 1 << 30
        let real = try FileDescriptionPacket(
            fileHash: try MD5Hasher.hash(bytes[...]), hash16k: try MD5Hasher.hash(bytes.prefix(16_384)),
            length: UInt64(bytes.count), name: Array("backup.goshuin".utf8))
        let phantom = try FileDescriptionPacket(
            fileHash: [UInt8](repeating: 1, count: 16), hash16k: [UInt8](repeating: 2, count: 16), length: sliceSize,
            name: Array("phantom.bin".utf8))
        let main = MainPacket(
            sliceSize: sliceSize, recoverableFiles: [real.fileID, phantom.fileID].sorted())
        let setID = try main.setID()
        let wrong = SliceChecksumPacket.Checksum(md5: [UInt8](repeating: 3, count: 16), crc32: 0)
        var set = try main.encode()
        for description in [real, phantom] {
            set += try PacketEncoding.packet(.fileDescription, setID: setID, body: description.body)
            set += try PacketEncoding.packet(
                .sliceChecksums, setID: setID,
                body: SliceChecksumPacket(fileID: description.fileID, checksums: [wrong]).body)
        }
        folder.write("backup.goshuin.par2", set)
        let start = Date()
        Self.expectError(.recoverySetInvalid) { _ = try RecoverySet.verify(inputPath: path) }
        #expect(
            Date().timeIntervalSince(start) < 1 * Sanitizer.timeScale,
            "\(Date().timeIntervalSince(start)) s for a 568-byte index")
    }

    /// ADR 0049: "The scan is linear and bounded by the file" and §6.4's candidates: a set of F recoverable files
    /// each described with the file's length (a reader may leave out only those with neither its name, length
    /// nor 16 KiB MD5) makes F candidates, each with an index of F files and a survey opening the F - 1 others:
    /// O(F^2) time and memory from an index of 250 bytes a file (F = 4,096, 1 MB: 80 s and 1.3 GB in a release
    /// build, SIGABRT under `ulimit -v 1000000`).
    @Test func aSetOfThousandsOfFilesOfTheSameLengthCostsLinearTime() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let bytes = try Recovery.seal(Recovery.noise(3_000, seed: 4), to: path, version: .v1)
        let length = UInt64(bytes.count)
        var descriptions: [FileDescriptionPacket] = []
        for index in 0..<1_024 {
            descriptions.append(
                try FileDescriptionPacket(
                    fileHash: [UInt8](repeating: 1, count: 16),
                    hash16k: try MD5Hasher.hash(Array("x\(index)".utf8)[...]),
                    length: length, name: Array(String(format: "f%06d", index).utf8)))
        }
        let main = MainPacket(sliceSize: (length + 3) / 4 * 4, recoverableFiles: descriptions.map(\.fileID).sorted())
        let setID = try main.setID()
        var set = try main.encode()
        for description in descriptions {
            set += try PacketEncoding.packet(.fileDescription, setID: setID, body: description.body)
            set += try PacketEncoding.packet(
                .sliceChecksums, setID: setID,
                body: SliceChecksumPacket(
                    fileID: description.fileID,
                    checksums: [.init(md5: [UInt8](repeating: 3, count: 16), crc32: 1)]
                ).body)
        }
        folder.write("backup.goshuin.par2", set)
        let start = Date()
        Self.expectError(.recoverySetMismatch) { _ = try RecoverySet.verify(inputPath: path) }
        #expect(
            // A bound on a hang, not a timing: the quadratic scan took tens of seconds for 1,024 files in a debug
            // build, the linear one well under a second on an idle machine.
            Date().timeIntervalSince(start) < 10 * Sanitizer.timeScale,
            "\(Date().timeIntervalSince(start)) s for 1,024 files")
    }

    /// §6.1: "every byte searched or hashed, over all the set files of one reading, [is charged] to a budget of
    /// 64 MiB + 4 · L" and the set files are read in name order: a file of a volume's name that sorts before
    /// the real volume (junk packets; a sparse placeholder larger than 1 MiB of budget) spends it all, the
    /// real volume is never read, and a repairable backup is "not repairable" with nothing said of the files
    /// not read (`recoveryFilesNotReadToTheEnd` is never shown by the tool).
    @Test func aStrayVolumeReadFirstDoesNotStarveTheSetsOwnVolume() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(300_000, seed: 5), to: path, version: .v1)
        try RecoverySet.protect(inputPath: path)
        let creator = try PacketEncoding.packet(
            .creator, setID: RecoverySetID([UInt8](repeating: 9, count: 16)), body: Array("junk".utf8))
        let junk = [[UInt8]](repeating: creator, count: (70 << 20) / creator.count).flatMap { $0 }
        folder.write("backup.goshuin.vol0+1.par2", junk)
        var damaged = original
        damaged[150_000] ^= 0xFF
        folder.write("backup.goshuin", damaged)
        let result = try RecoverySet.repair(inputPath: path, to: .newFile(folder.file("fixed.goshuin")))
        #expect(!result.wasIntact && Recovery.read(folder.file("fixed.goshuin")) == original)
    }
}
