import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// A set is matched by what it protects, never by a name (`Spec/decisions/0048`): the set of an earlier backup
/// under the same name never turns a new backup into the old one, at any size, the one-slice backup included;
/// a damaged copy, a renamed one, an erased one are still repaired.
@Suite struct StaleSetTests {
    /// Backup sizes in payload bytes (1 KiB chunks, version 1): one slice (the file under 4 KiB), two slices
    /// (4-8 KiB), and many.
    static let sizes = [1_500, 5_000, 200_000]

    /// `backup.goshuin` sealed from `payload` bytes of noise in `folder`, replacing one sealed before.
    static func sealed(_ payload: Int, seed: UInt64, in folder: ScratchFolder) throws -> (path: String, bytes: [UInt8])
    {
        let path = folder.file("backup.goshuin")
        try? FileManager.default.removeItem(atPath: path)
        let bytes = try Recovery.seal(Recovery.noise(payload, seed: seed), to: path, version: .v1)
        return (path, bytes)
    }

    static func expectMismatch(_ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected recovery_set_mismatch, got success")
        } catch let error as GoshuinError {
            #expect(error.code == .recoverySetMismatch, "\(error)")
        } catch {
            Issue.record("expected recovery_set_mismatch, got \(error)")
        }
    }

    @Test(arguments: sizes) func aBackupSealedAgainIsAnotherFileForTheOldSet(payload: Int) throws {
        let folder = ScratchFolder()
        let (path, _) = try Self.sealed(payload, seed: 1, in: folder)
        let set = try RecoverySet.protect(inputPath: path)
        #expect(set.inputSlices >= 1)
        // Sealed again under the same name, the old set left beside it.
        let (_, newer) = try Self.sealed(payload, seed: 2, in: folder)
        Self.expectMismatch { _ = try RecoverySet.verify(inputPath: path) }
        Self.expectMismatch { _ = try RecoverySet.repair(inputPath: path, to: .inPlace) }
        Self.expectMismatch { _ = try RecoverySet.repair(inputPath: path, to: .newFile(folder.file("fixed.goshuin"))) }
        #expect(Recovery.read(path) == newer, "the new backup is as it was")
        #expect(!FileManager.default.fileExists(atPath: folder.file("fixed.goshuin")))
        #expect(folder.entries.count == 3, "nothing else was written: \(folder.entries)")
    }

    @Test func aBackupSealedAgainIsAnotherFileEvenWhenTheSetCanRebuildItWhole() throws {
        // 100%: as many recovery slices as slices, so rule 3 rebuilds the old file and compares its blocks.
        let folder = ScratchFolder()
        let (path, _) = try Self.sealed(60_000, seed: 3, in: folder)
        let set = try RecoverySet.protect(inputPath: path, redundancy: try RecoveryRedundancy(percent: 100))
        #expect(set.recoverySlices == set.inputSlices)
        let (_, newer) = try Self.sealed(60_000, seed: 4, in: folder)
        Self.expectMismatch { _ = try RecoverySet.repair(inputPath: path, to: .inPlace) }
        #expect(Recovery.read(path) == newer)
    }

    @Test(arguments: [1_500, 5_000]) func aDamagedSmallBackupIsStillItsSetsFile(payload: Int) throws {
        let folder = ScratchFolder()
        let (path, original) = try Self.sealed(payload, seed: 5, in: folder)
        try RecoverySet.protect(inputPath: path)
        // Damage that leaves no slice intact in a one-slice file: a flipped bit, a zeroed sector, both ends.
        let damages: [(String, ([UInt8]) -> [UInt8])] = [
            (
                "a bit",
                {
                    var bytes = $0; bytes[700] ^= 0x10; return bytes
                }
            ),
            (
                "512 zeros",
                {
                    var bytes = $0; bytes.replaceSubrange(512..<1_024, with: [UInt8](repeating: 0, count: 512));
                    return bytes
                }
            ),
            (
                "the header and the end",
                {
                    var bytes = $0; bytes[3] ^= 1; bytes[bytes.count - 2] ^= 1; return bytes
                }
            ),
            ("erased whole", { [UInt8](repeating: 0, count: $0.count) }),
        ]
        for (what, damage) in damages {
            folder.write("backup.goshuin", damage(original))
            let verification = try RecoverySet.verify(inputPath: path)
            #expect(!verification.isIntact && verification.isRepairable, "\(what)")
            let result = try RecoverySet.repair(inputPath: path, to: .inPlace)
            #expect(!result.wasIntact && Recovery.read(path) == original, "\(what): repaired")
        }
        // A file cut to nothing holds nothing of another backup either.
        Recovery.truncate(path, to: 0)
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == original)
    }

    @Test func aRenamedBackupIsRepairedByItsRenamedSetAndByTheSetUnderItsOldName() throws {
        let folder = ScratchFolder()
        let (path, original) = try Self.sealed(200_000, seed: 6, in: folder)
        let set = try RecoverySet.protect(inputPath: path)
        let volumeName = FileSystem.lastComponent(of: set.volumePath)
        // Renamed with its set.
        let renamed = folder.file("renamed.goshuin")
        try FileManager.default.moveItem(atPath: path, toPath: renamed)
        try FileManager.default.moveItem(atPath: set.indexPath, toPath: folder.file("renamed.goshuin.par2"))
        try FileManager.default.moveItem(
            atPath: set.volumePath,
            toPath: folder.file(volumeName.replacingOccurrences(of: "backup.goshuin", with: "renamed.goshuin")))
        Recovery.overwrite(renamed, at: 100_000, count: 3_000)
        try RecoverySet.repair(inputPath: renamed, to: .inPlace)
        #expect(Recovery.read(renamed) == original)
        // The set named by its path under the old name, beside a backup renamed alone.
        let other = ScratchFolder()
        let alone = other.write("copy.goshuin", original)
        Recovery.overwrite(alone, at: 100_000, count: 3_000)
        try FileManager.default.moveItem(
            atPath: folder.file("renamed.goshuin.par2"), toPath: other.file("old.goshuin.par2"))
        let volumes = folder.entries.filter { $0.contains(".vol") }
        for volume in volumes {
            try FileManager.default.moveItem(
                atPath: folder.file(volume),
                toPath: other.file(volume.replacingOccurrences(of: "renamed.goshuin", with: "old.goshuin")))
        }
        try RecoverySet.repair(inputPath: alone, recoveryPath: other.file("old.goshuin.par2"), to: .inPlace)
        #expect(Recovery.read(alone) == original)
    }

    @Test func withItsStartDamagedTheSetThatMatchesMostOfTheFileWins() throws {
        let folder = ScratchFolder()
        // The old backup's set, at 100%, kept under a volume name of its own; the new backup's set at 5%.
        let (path, _) = try Self.sealed(200_000, seed: 7, in: folder)
        let old = try RecoverySet.protect(inputPath: path, redundancy: try RecoveryRedundancy(percent: 100))
        let oldIndex = Recovery.read(old.indexPath)
        let oldVolume = Recovery.read(old.volumePath)
        let (_, newer) = try Self.sealed(200_000, seed: 8, in: folder)
        let current = try RecoverySet.protect(inputPath: path, replaceExisting: true)
        #expect(current.recoverySlices < old.recoverySlices)
        folder.write("backup.goshuin.vol9000+1.par2", oldIndex + oldVolume)
        // The first 16 KiB damaged: no set describes the file by its start any more.
        Recovery.overwrite(path, at: 1_000, count: 5_000)
        let verification = try RecoverySet.verify(inputPath: path)
        #expect(verification.recoverySlicesAvailable == current.recoverySlices, "the new backup's own set")
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == newer, "repaired into the new backup, never the old one")
    }

    @Test func aRepairInPlaceReplacesOnlyTheFileItRead() throws {
        let folder = ScratchFolder()
        let (path, original) = try Self.sealed(200_000, seed: 9, in: folder)
        try RecoverySet.protect(inputPath: path)
        Recovery.overwrite(path, at: 100_000, count: 100)
        // Another program writes a newer file at the name while the repair works: the progress callback is
        // that moment, once the repair has started writing.
        let newer = Recovery.noise(original.count, seed: 10)
        var replaced = false
        do {
            try RecoverySet.repair(inputPath: path, to: .inPlace) { event in
                guard case .writing = event, !replaced else { return }
                replaced = true
                let temporary = folder.write("incoming", newer)
                _ = rename(temporary, path)
            }
            Issue.record("the repair replaced a file it had not read")
        } catch let error as GoshuinError {
            #expect(error.code == .io && error.message.contains("changed while"), "\(error)")
        }
        #expect(replaced && Recovery.read(path) == newer, "the newer file is as it was written")
        #expect(folder.entries.filter { $0.contains("goshuin-tmp") }.isEmpty, "no temporary left: \(folder.entries)")
    }
}
