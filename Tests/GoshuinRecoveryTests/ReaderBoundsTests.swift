import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// The set reader's work is bounded by the file it protects (`Spec/decisions/0049`): small hostile files
/// beside a backup cost seconds and bounded memory, and a genuine set with small slices and heavy damage is
/// repaired fast.
@Suite struct ReaderBoundsTests {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        try body()
        let elapsed = clock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test func aSliceSizeFarBeyondTheFileIsRefusedAtOnce() throws {
        let folder = ScratchFolder()
        let path = folder.write("backup.goshuin", Recovery.noise(3_000))
        for sliceSize: UInt64 in [1 << 40, 1 << 31, (64 << 20) + 4] {
            let set = try HostileSetTests.handMadeSet(name: "backup.goshuin", length: 3_000, sliceSize: sliceSize)
            #expect(set.count < 400, "a set of a few hundred bytes")
            folder.write("backup.goshuin.par2", set)
            let elapsed = Self.seconds {
                HostileSetTests.expectError(.recoverySetInvalid) { _ = try RecoverySet.verify(inputPath: path) }
                HostileSetTests.expectError(.recoverySetInvalid) {
                    _ = try RecoverySet.repair(inputPath: path, to: .inPlace)
                }
            }
            #expect(elapsed < 10 * Sanitizer.timeScale, "refused before any padding is hashed: \(elapsed) s")
        }
    }

    @Test func aSliceLargerThanTheFileAsPar2MakesItIsAcceptedUpTo64MiB() throws {
        let folder = ScratchFolder()
        let data = Recovery.noise(3_000, seed: 2)
        let path = folder.write("data.bin", data)
        // par2 create -s1048576 makes one slice of 1 MiB for this file.
        let set = try ReferenceSet.make(files: [("data.bin", data)], sliceSize: 1 << 20, exponents: [0])
        folder.write("data.bin.par2", set)
        var damaged = data
        damaged[1_000] ^= 1
        folder.write("data.bin", damaged)
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == data)
    }

    @Test(.slowTier) func fourThousandDamagedFourByteSlicesAreRepairedInSeconds() throws {
        // The hostile shape of issue 34 (slices of 4 bytes, 4,096 of them damaged, 4,096 recovery slices), made
        // as a genuine set: par2cmdline's smallest slices and the heaviest damage its set can repair.
        let folder = ScratchFolder()
        let data = Recovery.noise(32_768, seed: 3)
        let path = folder.write("data.bin", data)
        let set = try FileProtection.protect(
            path: path, redundancy: try RecoveryRedundancy(percent: 50), replaceExisting: false, workers: 2,
            sliceSize: 4, progress: nil)
        #expect(set.inputSlices == 8_192 && set.recoverySlices == 4_096)
        var damaged = data
        for slice in stride(from: 0, to: 8_192, by: 2) { damaged[4 * slice + 1] ^= 0x5A }
        folder.write("data.bin", damaged)
        let elapsed = try Self.seconds {
            let verification = try RecoverySet.verify(inputPath: path)
            #expect(verification.damagedSliceCount == 4_096 && verification.isRepairable)
            try RecoverySet.repair(inputPath: path, to: .inPlace)
        }
        #expect(Recovery.read(path) == data)
        // A bound that tells a hang (the reader before issue 34 took 147 s in a release build), not a timing:
        // Benchmarks/ measures the speed.
        #expect(elapsed < 120 * Sanitizer.timeScale, "verify and repair: \(elapsed) s")
        print("4,096 damaged 4-byte slices: verify and repair in \(elapsed) s")
    }

    @Test func repeatedMagicAndASparseHugeVolumeAreScannedInBoundedTime() throws {
        let folder = ScratchFolder()
        let (path, original) = (
            folder.file("backup.goshuin"),
            try Recovery.seal(Recovery.noise(200_000, seed: 4), to: folder.file("backup.goshuin"))
        )
        let set = try RecoverySet.protect(inputPath: path)
        // 2 MiB of the magic, over and over.
        var magic: [UInt8] = []
        while magic.count < 2 << 20 { magic += PacketHeader.magic }
        folder.write("backup.goshuin.vol50+1.par2", magic)
        // A sparse volume file of 20 GB, which uses no disk.
        let sparse = folder.file("backup.goshuin.vol60+1.par2")
        _ = FileManager.default.createFile(atPath: sparse, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: sparse))
        try handle.truncate(atOffset: 20_000_000_000)
        try handle.close()
        Recovery.overwrite(path, at: 100_000, count: 100)
        let elapsed = try Self.seconds {
            let verification = try RecoverySet.verify(inputPath: path)
            #expect(verification.recoverySlicesAvailable == set.recoverySlices)
            #expect(verification.recoveryFilesNotReadToTheEnd.contains(sparse), "the sparse file is read in part")
            try RecoverySet.repair(inputPath: path, to: .inPlace)
        }
        #expect(Recovery.read(path) == original)
        #expect(
            elapsed < 60 * Sanitizer.timeScale,
            "scanned in \(elapsed) s (a hang detector: the scan before issue 34 took 45 s on the sparse file alone)")
    }

    @Test func strayNamesOfASetFilesShapeAreLeftAside() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(200_000, seed: 5), to: path)
        try RecoverySet.protect(inputPath: path)
        try FileManager.default.createDirectory(
            atPath: folder.file("backup.goshuin.vol1+1.par2"), withIntermediateDirectories: false)
        #expect(mkfifo(folder.file("backup.goshuin.vol2+1.par2"), 0o600) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("backup.goshuin.vol3+1.par2"), withDestinationPath: folder.file("nowhere"))
        Recovery.overwrite(path, at: 100_000, count: 100)
        let verification = try RecoverySet.verify(inputPath: path)
        #expect(
            verification.isRepairable && verification.recoveryFilesLeftAside.count == 3,
            "\(verification.recoveryFilesLeftAside)")
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == original)
    }
}
