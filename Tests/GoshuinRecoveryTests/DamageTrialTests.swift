import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// Random damage, trial after trial, on sealed backups of several sizes and chunk sizes: bits flipped, a 4 KiB
/// sector zeroed, 1 MiB zeroed, 1% cut off the end, the recovery set itself damaged. The oracle is computed
/// here from the bytes, not by the library: a trial is within the budget when no more slices differ from the
/// original than recovery slices survive intact (and one copy of each critical packet does). Every trial
/// within the budget must repair byte for byte; every other must fail with `not_repairable` (or, with the
/// critical packets gone, `recovery_set_invalid`) and say how many slices are damaged and how many recovery
/// slices are available, leaving the damaged file as it was.
///
/// A campaign of the slow tier. `GOSHUIN_RECOVERY_TRIALS` sets the trials of each kind per backup (2 by
/// default; `.ci/run` sets how many fit in its time, and the full 1,000 is
/// `GOSHUIN_SLOW_TESTS=1 GOSHUIN_RECOVERY_TRIALS=1000 swift test --filter DamageTrialTests`).
/// `GOSHUIN_RECOVERY_BACKUPS=3,4` runs the campaign on those of ``backups`` only (counted from 1). Every
/// refused trial is salvaged too: what salvage keeps is as sealed, and it names the loss.
@Suite(.slowTier, .serialized) struct DamageTrialTests {
    static var trialsPerKind: Int {
        ProcessInfo.processInfo.environment["GOSHUIN_RECOVERY_TRIALS"].flatMap(Int.init) ?? 2
    }

    /// Whether `GOSHUIN_RECOVERY_BACKUPS` (all when unset) picks the backup at `index` of ``backups``.
    static func isPicked(_ index: Int) -> Bool {
        guard let picked = ProcessInfo.processInfo.environment["GOSHUIN_RECOVERY_BACKUPS"] else { return true }
        return picked.split(separator: ",").compactMap { Int($0) }.contains(index + 1)
    }

    enum Damage: String, CaseIterable, Sendable {
        case flipBits = "flip 1-64 bits"
        case zeroSector = "zero 4 KiB"
        case zeroMebibyte = "zero 1 MiB"
        case cutOnePercent = "cut 1% off the end"
        case damageTheSet = "damage the recovery set"
    }

    struct Backup: CustomTestStringConvertible, Sendable {
        let payload: Int
        let chunkSize: UInt32
        let version: FormatVersion
        /// The set's redundancy, in percent.
        var percent = 5.0
        var testDescription: String {
            "\(payload) bytes in \(chunkSize)-byte chunks, version \(version.rawValue), at \(percent)%"
        }
    }

    /// At 5%, 1 MiB zeroed is beyond the budget of a backup of a few MB; the larger two have more
    /// redundancy, so that such damage is repaired too (and more of the bit flips).
    static let backups = [
        Backup(payload: 300_000, chunkSize: 1_024, version: .v1),
        Backup(payload: 2_000_000, chunkSize: 4_096, version: .v2),
        Backup(payload: 6_000_000, chunkSize: 65_536, version: .v2, percent: 25),
        Backup(payload: 16_000_000, chunkSize: 1 << 20, version: .v1, percent: 10),
    ]

    /// The layout of the sealed file at `path`.
    static func layout(of path: String) throws -> ContainerLayout {
        let input = try FileDescriptor.openForReading(path)
        return try input.closeAfter { try ContainerSalvage.header(of: input).layout }
    }

    /// Where a repair is refused, salvage is what is left: every chunk it keeps is the sealed payload's, and
    /// it names a loss exactly when the file is not as sealed. It refuses, with its code, only a file whose
    /// header is damaged or, in version 1, whose first four chunks all are (nothing then tells the damage
    /// from a wrong passphrase: `Spec/container-v1.md` §7.1). Returns whether it surveyed the file.
    static func expectSalvageNamesTheLoss(
        _ path: String, payload: [UInt8], sealed original: [UInt8], damaged file: [UInt8],
        layout sealed: ContainerLayout, _ context: String
    ) -> Bool {
        do {
            let input = try FileDescriptor.openForReading(path)
            try input.closeAfter {
                let salvage = try ContainerSalvage(input, passphrase: Passphrase("recovery tests"))
                let layout = salvage.header.layout
                var lost = Set(salvage.damagedChunks)
                if let missing = salvage.firstMissingChunk { lost.formUnion(missing..<layout.chunkCount) }
                #expect(lost.isEmpty == Recovery.same(file, original), "salvage names a loss: \(context)")
                for chunk in 0..<layout.chunkCount where !lost.contains(chunk) {
                    let offset = layout.plaintextOffset(ofChunk: chunk)
                    let count = layout.plaintextLength(ofChunk: chunk)
                    let kept = try salvage.reader.read(at: offset, count: count)
                    #expect(
                        kept[...] == payload[Int(offset)..<(Int(offset) + count)],
                        "salvage keeps chunk \(chunk) as sealed: \(context)")
                }
            }
            return true
        } catch {
            func damaged(_ range: Range<Int>) -> Bool { !Recovery.same(file, original, range) }
            let headerDamaged = damaged(0..<Int(sealed.recordOffset(ofChunk: 0)))
            let probeDamaged =
                sealed.version == .v1
                && (0..<min(4, sealed.chunkCount)).allSatisfy { chunk in
                    let start = Int(sealed.recordOffset(ofChunk: chunk))
                    return damaged(start..<(start + sealed.recordLength(ofChunk: chunk)))
                }
            #expect(headerDamaged || probeDamaged, "salvage refused what it should survey: \(context): \(error)")
            return false
        }
    }

    /// A packet of the set as written: which file, where, what.
    struct PacketPlace {
        let inIndex: Bool
        let range: Range<Int>
        let type: PacketType?
    }

    @Test(arguments: backups)
    func everyTrialRepairsOrSaysWhy(backup: Backup) throws {
        guard let place = Self.backups.firstIndex(where: { $0.payload == backup.payload }), Self.isPicked(place)
        else { return }
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(
            Recovery.noise(backup.payload, seed: UInt64(backup.payload)), to: path, chunkSize: backup.chunkSize,
            version: backup.version)
        let payload = Recovery.noise(backup.payload, seed: UInt64(backup.payload))
        let sealedLayout = try Self.layout(of: path)
        let set = try RecoverySet.protect(inputPath: path, redundancy: try RecoveryRedundancy(percent: backup.percent))
        let index = Recovery.read(set.indexPath)
        let volume = Recovery.read(set.volumePath)
        var places: [PacketPlace] = []
        for (bytes, inIndex) in [(index, true), (volume, false)] {
            var offset = 0
            for packet in HostileSetTests.packets(of: bytes) {
                places.append(
                    PacketPlace(
                        inIndex: inIndex, range: offset..<(offset + packet.count),
                        type: HostileSetTests.type(of: packet)))
                offset += packet.count
            }
        }
        let sliceSize = Int(set.sliceSize)
        var random = GaloisFieldTests.Random(state: UInt64(backup.payload) &* 31 &+ UInt64(backup.chunkSize))
        var tally: [String: (repaired: Int, refused: Int)] = [:]
        var salvaged = [0, 0]  // of the refused trials: salvage surveyed the file; it refused (header, probe)
        for damage in Damage.allCases {
            for trial in 0..<Self.trialsPerKind {
                folder.write("backup.goshuin", original)
                folder.write(FileSystem.lastComponent(of: set.indexPath), index)
                folder.write(FileSystem.lastComponent(of: set.volumePath), volume)
                var file = original
                var damagedPlaces: [Range<Int>] = []
                var indexDeleted = false
                switch damage {
                case .flipBits:
                    for _ in 0..<(1 + random.below(64)) {
                        let bit = random.below(file.count * 8)
                        file[bit / 8] ^= 1 << (bit % 8)
                    }
                case .zeroSector, .zeroMebibyte:
                    let count = min(file.count, damage == .zeroSector ? 4_096 : 1 << 20)
                    let start = random.below(file.count - count + 1)
                    file.replaceSubrange(start..<(start + count), with: [UInt8](repeating: 0, count: count))
                case .cutOnePercent:
                    file.removeLast(max(1, file.count / 100))
                case .damageTheSet:
                    file[random.below(file.count)] ^= 0x40
                    if random.below(3) == 0 {
                        indexDeleted = true
                        try FileManager.default.removeItem(atPath: set.indexPath)
                    }
                    let count = min(volume.count, 4_096)
                    let start = random.below(volume.count - count + 1)
                    var damagedVolume = volume
                    damagedVolume.replaceSubrange(start..<(start + count), with: [UInt8](repeating: 0, count: count))
                    folder.write(FileSystem.lastComponent(of: set.volumePath), damagedVolume)
                    damagedPlaces.append(start..<(start + count))
                }
                folder.write("backup.goshuin", file)

                // The oracle, from the bytes.
                var damagedSlices = 0
                for slice in 0..<set.inputSlices {
                    let range = (slice * sliceSize)..<min(original.count, (slice + 1) * sliceSize)
                    if range.upperBound > file.count || !Recovery.same(file, original, range) { damagedSlices += 1 }
                }
                func survives(_ place: PacketPlace) -> Bool {
                    if place.inIndex { return !indexDeleted }
                    return !damagedPlaces.contains { $0.overlaps(place.range) }
                }
                let recoverySurviving = places.filter { $0.type == .recoverySlice && survives($0) }.count
                let criticalSurvive = [PacketType.main, .fileDescription, .sliceChecksums].allSatisfy { type in
                    places.contains { $0.type == type && survives($0) }
                }
                let withinBudget = criticalSurvive && damagedSlices <= recoverySurviving
                let context =
                    "\(damage.rawValue), trial \(trial): \(damagedSlices) slices damaged,"
                    + " \(recoverySurviving) recovery slices intact"

                let output = folder.file("repaired.goshuin")
                try? FileManager.default.removeItem(atPath: output)
                do {
                    let result = try RecoverySet.repair(inputPath: path, to: .newFile(output))
                    #expect(withinBudget, "repaired although beyond the budget: \(context)")
                    if damagedSlices == 0 {
                        #expect(result.wasIntact, "\(context)")
                    } else {
                        #expect(Recovery.same(Recovery.read(output), original), "byte for byte: \(context)")
                        #expect(result.verification.damagedSliceCount == damagedSlices, "\(context)")
                    }
                    tally[damage.rawValue, default: (0, 0)].repaired += 1
                } catch let error as GoshuinError {
                    #expect(!withinBudget, "refused within the budget: \(context): \(error)")
                    if criticalSurvive {
                        #expect(error.code == .notRepairable, "\(context): \(error)")
                        #expect(
                            error.message.contains("\(damagedSlices) of the \(set.inputSlices) slices")
                                && error.message.contains("\(recoverySurviving) recovery slices are available"),
                            "it says why in numbers: \(error.message)")
                    } else {
                        #expect(error.code == .recoverySetInvalid, "\(context): \(error)")
                    }
                    #expect(Recovery.same(Recovery.read(path), file), "the damaged file is left as it was")
                    #expect(!FileManager.default.fileExists(atPath: output))
                    let surveyed = Self.expectSalvageNamesTheLoss(
                        path, payload: payload, sealed: original, damaged: file, layout: sealedLayout, context)
                    salvaged[surveyed ? 0 : 1] += 1
                    tally[damage.rawValue, default: (0, 0)].refused += 1
                }
            }
        }
        print(
            "damage trials, \(backup.testDescription), \(set.inputSlices) slices of \(set.sliceSize) bytes,"
                + " \(set.recoverySlices) recovery slices: "
                + Damage.allCases.map {
                    "\($0.rawValue) \(tally[$0.rawValue]?.repaired ?? 0) repaired / \(tally[$0.rawValue]?.refused ?? 0) refused"
                }
                .joined(separator: "; ")
                + "; of the refused, salvage named the loss in \(salvaged[0]) and refused \(salvaged[1])"
                + " (header or version 1's first chunks damaged)")
    }
}

/// The damage a trial does not make: a file longer than it was (bytes appended, a copy that went on too far).
@Suite struct LongerFileTests {
    @Test func aLongerFileIsRepairedToItsLength() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(100_000, seed: 21), to: path, chunkSize: 1_024, version: .v1)
        try RecoverySet.protect(inputPath: path)
        folder.write("backup.goshuin", original + Recovery.noise(5_000, seed: 22))
        let verification = try RecoverySet.verify(inputPath: path)
        #expect(!verification.isIntact && verification.damagedSliceCount == 0 && verification.isRepairable)
        #expect(verification.actualLength == UInt64(original.count + 5_000) && verification.fileHashMatches == nil)
        let result = try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(result.recoverySlicesUsed == 0)
        #expect(folder.read("backup.goshuin") == original)
        // Longer and damaged.
        var damaged = original + [1, 2, 3]
        damaged[50_000] ^= 4
        folder.write("backup.goshuin", damaged)
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(folder.read("backup.goshuin") == original)
    }

    /// A version 2 file's size is its layout: a longer one may be the complete backup and the set made of a
    /// copy cut short, so it is never cut (issue 34; `Spec/recovery-par2.md` §7.1), and neither is a file
    /// that is not a `.goshuin` file.
    @Test func aLongerFileThatDoesNotSayWhereItEndsIsNeverCut() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let full = try Recovery.seal(Recovery.noise(10_240, seed: 23), to: path, chunkSize: 1_024, version: .v2)
        // The set of a copy cut inside record 5, which passes the checks that need no key.
        folder.write("backup.goshuin", Array(full.prefix(77 + 5 * 1_040 + 16)))
        try RecoverySet.protect(inputPath: path)
        folder.write("backup.goshuin", full)
        let verification = try RecoverySet.verify(inputPath: path)
        #expect(!verification.isIntact && !verification.isRepairable)
        do {
            try RecoverySet.repair(inputPath: path, to: .inPlace)
            Issue.record("a complete version 2 backup was cut")
        } catch let error as GoshuinError {
            #expect(error.code == .notRepairable && error.recoveryVerification != nil, "\(error)")
        }
        #expect(folder.read("backup.goshuin") == full)
        let other = folder.write("notes.bin", Recovery.noise(50_000, seed: 24))
        try RecoverySet.protect(inputPath: other)
        folder.write("notes.bin", Recovery.noise(50_000, seed: 24) + [9, 9])
        #expect(try !RecoverySet.verify(inputPath: other).isRepairable)
    }
}
