import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// A hostile or broken recovery set never makes anything but the repaired file be written, never allocates
/// past a bound, never hangs, and never lets a repaired file out unless it matches the set's MD5.
@Suite struct HostileSetTests {
    /// The packets of a PAR 2.0 file written without gaps: each whole packet's bytes.
    static func packets(of bytes: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var offset = 0
        while offset + 64 <= bytes.count {
            var cursor = ByteCursor(bytes[offset..<(offset + 64)])
            guard let header = PacketHeader(parsing: &cursor) else { break }
            let length = Int(header.length)
            result.append(Array(bytes[offset..<(offset + length)]))
            offset += length
        }
        return result
    }

    static func type(of packet: [UInt8]) -> PacketType? { PacketType(Array(packet[48..<64])) }

    /// A set of hand-made packets for a file named `name` of `length` bytes: main, description, checksums.
    static func handMadeSet(
        name: String, length: UInt64, sliceSize: UInt64, checksums: [SliceChecksumPacket.Checksum] = []
    ) throws -> [UInt8] {
        let description = try FileDescriptionPacket(
            fileHash: [UInt8](repeating: 1, count: 16), hash16k: [UInt8](repeating: 2, count: 16), length: length,
            name: Array(name.utf8))
        let main = MainPacket(sliceSize: sliceSize, recoverableFiles: [description.fileID])
        let setID = try main.setID()
        return try main.encode() + PacketEncoding.packet(.fileDescription, setID: setID, body: description.body)
            + PacketEncoding.packet(
                .sliceChecksums, setID: setID,
                body: SliceChecksumPacket(fileID: description.fileID, checksums: checksums).body)
    }

    /// A sealed backup of `payload` noise bytes and its set, in a folder of their own.
    static func protectedBackup(_ payload: Int, seed: UInt64) throws -> (
        folder: ScratchFolder, path: String, original: [UInt8], set: RecoverySetFiles
    ) {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(payload, seed: seed), to: path)
        return (folder, path, original, try RecoverySet.protect(inputPath: path))
    }

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

    @Test func aMainPacketClaimingBillionsOfSlicesIsRefusedBeforeAnyAllocation() throws {
        let folder = ScratchFolder()
        let path = folder.write("backup.goshuin", Recovery.noise(1_000))
        folder.write("backup.goshuin.par2", try Self.handMadeSet(name: "backup.goshuin", length: 1 << 42, sliceSize: 4))
        Self.expectError(.recoverySetInvalid) { _ = try RecoverySet.verify(inputPath: path) }
    }

    @Test func sliceSizesNear2To64AreRefused() throws {
        let folder = ScratchFolder()
        let path = folder.write("backup.goshuin", Recovery.noise(1_000))
        for sliceSize in [UInt64.max - 3, UInt64(1) << 62, RecoverySlicePacket.maximumSliceSize + 4] {
            folder.write(
                "backup.goshuin.par2",
                try Self.handMadeSet(name: "backup.goshuin", length: UInt64.max - 7, sliceSize: sliceSize))
            Self.expectError(.recoverySetInvalid) { _ = try RecoverySet.verify(inputPath: path) }
        }
        // A slice size that is not a multiple of 4, or 0: the main packet itself is refused.
        #expect(MainPacket(body: MainPacket(sliceSize: 6, recoverableFiles: []).body[...]) == nil)
        #expect(MainPacket(body: MainPacket(sliceSize: 0, recoverableFiles: []).body[...]) == nil)
    }

    @Test func packetLengthsThatLieAreSkippedAndTheCopiesFound() throws {
        let (folder, path, original, set) = try Self.protectedBackup(200_000, seed: 5)
        let index = Recovery.read(set.indexPath)
        let mainLength = Int(Self.packets(of: index)[0].count)
        for lie in [UInt64.max - 3, UInt64(index.count + 4), UInt64(mainLength - 4), UInt64(mainLength + 2), 0, 60] {
            var lying = index
            withUnsafeBytes(of: lie.littleEndian) { lying.replaceSubrange(8..<16, with: $0) }
            folder.write("backup.goshuin.par2", lying)
            Recovery.overwrite(path, at: 50_000, count: 100)
            let verification = try RecoverySet.verify(inputPath: path)
            #expect(verification.damagedSliceCount == 1, "the main packet's copies in the volume file are used")
            try RecoverySet.repair(inputPath: path, to: .inPlace)
            #expect(Recovery.read(path) == original)
        }
        // With the volume file gone, a lying main packet leaves nothing to use.
        try FileManager.default.removeItem(atPath: set.volumePath)
        var lying = index
        lying[8] ^= 0x10
        folder.write("backup.goshuin.par2", lying)
        Self.expectError(.recoverySetInvalid) { _ = try RecoverySet.verify(inputPath: path) }
    }

    @Test(.slowTier) func thousandsOfDuplicatePacketsAreReadOnceEach() throws {
        let (folder, path, original, set) = try Self.protectedBackup(300_000, seed: 6)
        let index = Recovery.read(set.indexPath)
        let volumePackets = Self.packets(of: Recovery.read(set.volumePath))
        let recovery = try #require(volumePackets.first { Self.type(of: $0) == .recoverySlice })
        var flood = [UInt8]()
        for _ in 0..<3_000 { flood += index }
        for _ in 0..<500 { flood += recovery }
        folder.write("backup.goshuin.par2", flood)
        Recovery.overwrite(path, at: 10_000, count: 10)
        let clock = ContinuousClock()
        let started = clock.now
        let verification = try RecoverySet.verify(inputPath: path)
        #expect(clock.now - started < .seconds(30), "flooded with duplicates: still a bounded pass")
        #expect(verification.recoverySlicesAvailable == set.recoverySlices, "each exponent once")
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == original)
    }

    @Test func aSetForAnotherFileIsRefusedAndNeitherFileIsTouched() throws {
        let folder = ScratchFolder()
        let other = folder.file("other.goshuin")
        try Recovery.seal(Recovery.noise(50_000, seed: 8), to: other)
        let set = try RecoverySet.protect(inputPath: other)
        let path = folder.write("backup.goshuin", Recovery.noise(50_000, seed: 9))
        try FileManager.default.moveItem(atPath: set.indexPath, toPath: folder.file("backup.goshuin.par2"))
        try FileManager.default.moveItem(atPath: set.volumePath, toPath: folder.file("backup.goshuin.vol0+2.par2"))
        let before = folder.entries.map { folder.read($0) }
        Self.expectError(.recoverySetMismatch) { _ = try RecoverySet.verify(inputPath: path) }
        Self.expectError(.recoverySetMismatch) { _ = try RecoverySet.repair(inputPath: path, to: .inPlace) }
        #expect(folder.entries.map { folder.read($0) } == before, "nothing written, nothing changed")
    }

    @Test func descriptionsNamingParentPathsAreNeverOpenedOrWritten() throws {
        let outer = ScratchFolder()
        let inner = outer.file("inner")
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        let outside = outer.write("outside.bin", Recovery.noise(8_192, seed: 1))
        let ours = Recovery.noise(8_192, seed: 2)
        let path = inner + "/backup.bin"
        _ = FileManager.default.createFile(atPath: path, contents: Data(ours))
        // A set of two files, "../outside.bin" first, made here with an independent reference encoder.
        let set = try ReferenceSet.make(
            files: [("../outside.bin", Recovery.read(outside)), ("backup.bin", ours)], sliceSize: 1_024,
            exponents: Array(0..<12))
        _ = FileManager.default.createFile(atPath: inner + "/backup.bin.par2", contents: Data(set))
        #expect(try RecoverySet.verify(inputPath: path).isIntact)
        Recovery.overwrite(path, at: 1_000, count: 1_500)
        let verification = try RecoverySet.verify(inputPath: path)
        // The other file is not read: its 8 slices are unknowns too; 3 of ours are damaged; 12 available.
        #expect(verification.damagedSliceCount == 3 && verification.otherUnknownSlices == 8)
        #expect(verification.isRepairable)
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == ours)
        #expect(Recovery.read(outside) == Recovery.noise(8_192, seed: 1), "the file outside is untouched")
        #expect(outer.entries == ["inner", "outside.bin"])
    }

    @Test func aSetOfSeveralFilesUsesTheOthersWhenTheyAreBesideIt() throws {
        let folder = ScratchFolder()
        let other = folder.write("photos.zip", Recovery.noise(40_000, seed: 3))
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(40_000, seed: 4), to: path)
        let created = try Recovery.run(
            [Recovery.par2turbo, "create", "-q", "-s4096", "-r10", "set.par2", "backup.goshuin", "photos.zip"],
            in: folder.path)
        try #require(created.status == 0, "\(created.output)")
        Recovery.overwrite(path, at: 20_000, count: 10)
        let sets = try RecoverySetNames.setFiles(named: folder.file("set.par2"))
        #expect(sets.count >= 2)
        let verification = try RecoverySet.verify(inputPath: path, recoveryPath: folder.file("set.par2"))
        #expect(verification.damagedSliceCount == 1 && verification.otherUnknownSlices == 0)
        try RecoverySet.repair(inputPath: path, recoveryPath: folder.file("set.par2"), to: .inPlace)
        #expect(Recovery.read(path) == original)
        // Without the other file, its 10 slices are unknown too: 11 needed, 2 available.
        try FileManager.default.removeItem(atPath: other)
        Recovery.overwrite(path, at: 20_000, count: 10)
        do {
            try RecoverySet.repair(inputPath: path, recoveryPath: folder.file("set.par2"), to: .inPlace)
            Issue.record("repaired without enough recovery slices")
        } catch let error as GoshuinError {
            #expect(error.code == .notRepairable)
            #expect(error.message.contains("1 of the 10 slices"), "\(error.message)")
            #expect(error.message.contains("and 10 slices of the set's other files"), "\(error.message)")
            // The error carries what the check found: a caller says it without checking the file again.
            let found = try #require(error.recoveryVerification)
            #expect(found.damagedSliceCount == 1 && found.otherUnknownSlices == 10 && !found.isRepairable)
            #expect(found.recoverySlicesAvailable == verification.recoverySlicesAvailable)
        }
    }

    @Test(.slowTier) func aFileOfLyingHeadersIsScannedInBoundedTime() throws {
        let folder = ScratchFolder()
        let path = folder.write("backup.goshuin", Recovery.noise(10_000))
        // 8 MiB of packet headers, one every 64 bytes, each claiming to run to the end of the file.
        let size = 8 << 20
        var bytes = [UInt8](repeating: 0, count: size)
        for offset in stride(from: 0, to: size - 64, by: 64) {
            let header = PacketHeader(
                length: UInt64((size - offset) & ~3), packetHash: [UInt8](repeating: 0, count: 16),
                setID: RecoverySetID([UInt8](repeating: 7, count: 16)),
                type: offset % 128 == 0 ? .recoverySlice : .sliceChecksums)
            bytes.replaceSubrange(offset..<(offset + 64), with: header.encode())
        }
        folder.write("backup.goshuin.par2", bytes)
        let clock = ContinuousClock()
        let started = clock.now
        Self.expectError(.recoverySetInvalid) { _ = try RecoverySet.verify(inputPath: path) }
        #expect(clock.now - started < .seconds(30))
        var catalog = RecoveryCatalog(protectedLength: 10_000)
        try catalog.add(fileAt: folder.file("backup.goshuin.par2"))
        #expect(catalog.filesNotReadToTheEnd.count == 1, "the budget ran out and says so")
    }

    @Test func forgedRecoveryDataIsNeverWritten() throws {
        let (folder, path, original, set) = try Self.protectedBackup(200_000, seed: 12)
        // Every recovery slice's data changed, and its packet hash made right again.
        var forged: [UInt8] = []
        for var packet in Self.packets(of: Recovery.read(set.volumePath)) {
            if Self.type(of: packet) == .recoverySlice {
                packet[100] ^= 0xFF
                let hash = try MD5Hasher.hash(packet[32...])
                packet.replaceSubrange(16..<32, with: hash)
            }
            forged += packet
        }
        folder.write(FileSystem.lastComponent(of: set.volumePath), forged)
        var damaged = original
        damaged[60_000] ^= 1
        folder.write("backup.goshuin", damaged)
        Self.expectError(.repairCheckFailed) {
            _ = try RecoverySet.repair(inputPath: path, to: .newFile(folder.file("out")))
        }
        Self.expectError(.repairCheckFailed) { _ = try RecoverySet.repair(inputPath: path, to: .inPlace) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out")))
        #expect(Recovery.read(path) == damaged, "the damaged file is as it was")
        #expect(folder.entries.count == 3, "no temporary file is left: \(folder.entries)")
    }

    @Test(.slowTier) func aSingularChoiceMovesOnToTheNextRecoverySlice() throws {
        // Slices 0 and k whose constants' ratio has order 3 (2^1 and 2^43691): the rows of exponents e and
        // e + 3 are then proportional, so recovery slices 0 and 3 cannot rebuild them together.
        let other = try #require(InputSliceConstants.all.firstIndex(of: GaloisField16.exponential(43_691)))
        let sliceSize = 4
        let data = Recovery.noise((other + 1) * sliceSize, seed: 13)
        let folder = ScratchFolder()
        let path = folder.write("data.bin", data)
        let set = try ReferenceSet.make(files: [("data.bin", data)], sliceSize: sliceSize, exponents: [0, 3, 4])
        folder.write("data.bin.par2", set)
        var damaged = data
        damaged[0] ^= 1
        damaged[other * sliceSize] ^= 1
        folder.write("data.bin", damaged)
        // With no two consecutive exponents, the elimination passes 3 over for the next one.
        let solution = try #require(try RecoveryMatrix.solve(unknowns: [0, other], exponents: [0, 3, 5]))
        #expect(solution.chosen == [0, 2], "exponent 3 is passed over for 5")
        #expect(try RecoveryMatrix.solve(unknowns: [0, other], exponents: [0, 3]) == nil)
        // With two consecutive ones (3 and 4), they are taken: a Vandermonde matrix, never singular.
        #expect(try RecoveryMatrix.solve(unknowns: [0, other], exponents: [0, 3, 4])?.chosen == [1, 2])
        // par2cmdline 0.8.1 takes exponents 0 and 3 and does not pivot: it stops on an assertion.
        let theirs = try Recovery.run([Recovery.par2cmdline, "repair", "data.bin.par2"], in: folder.path)
        #expect(theirs.status != 0 && theirs.output.contains("pivotvalue != 0"), "\(theirs.output.suffix(300))")
        folder.write("data.bin", damaged)
        try? FileManager.default.removeItem(atPath: folder.file("data.bin.1"))
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(Recovery.read(path) == data)
        // par2cmdline-turbo repairs it too.
        folder.write("data.bin", damaged)
        let turbo = try Recovery.run([Recovery.par2turbo, "repair", "data.bin.par2"], in: folder.path)
        #expect(turbo.status == 0 && Recovery.read(path) == data, "\(turbo.output.suffix(300))")
    }
}

/// An independent PAR 2.0 writer for tests: the recovery slices computed word by word from the definition
/// (`Σ_i c_i^e · slice_i`, with the library's field arithmetic only for the scalars), for sets of several
/// files and chosen exponents that the library's writer never makes.
enum ReferenceSet {
    static func make(files: [(name: String, bytes: [UInt8])], sliceSize: Int, exponents: [UInt32]) throws -> [UInt8] {
        var descriptions: [FileDescriptionPacket] = []
        var checksums: [SliceChecksumPacket] = []
        var slices: [[UInt8]] = []
        for file in files {
            let description = try FileDescriptionPacket(
                fileHash: try MD5Hasher.hash(file.bytes[...]), hash16k: try MD5Hasher.hash(file.bytes.prefix(16_384)),
                length: UInt64(file.bytes.count), name: Array(file.name.utf8))
            descriptions.append(description)
            var sums: [SliceChecksumPacket.Checksum] = []
            for start in stride(from: 0, to: file.bytes.count, by: sliceSize) {
                var slice = Array(file.bytes[start..<min(start + sliceSize, file.bytes.count)])
                slice += [UInt8](repeating: 0, count: sliceSize - slice.count)
                sums.append(.init(md5: try MD5Hasher.hash(slice[...]), crc32: CRC32.of(slice)))
                slices.append(slice)
            }
            checksums.append(SliceChecksumPacket(fileID: description.fileID, checksums: sums))
        }
        // par2cmdline's order: the files by file ID; the slices follow that order.
        let order = descriptions.indices.sorted { descriptions[$0].fileID < descriptions[$1].fileID }
        var ordered: [[UInt8]] = []
        var offsets: [Int] = []
        for (position, file) in files.enumerated() {
            offsets.append(
                position == 0
                    ? 0 : offsets[position - 1] + (files[position - 1].bytes.count + sliceSize - 1) / sliceSize)
            _ = file
        }
        for file in order {
            let count = (files[file].bytes.count + sliceSize - 1) / sliceSize
            ordered += slices[offsets[file]..<(offsets[file] + count)]
        }
        let main = MainPacket(sliceSize: UInt64(sliceSize), recoverableFiles: order.map { descriptions[$0].fileID })
        let setID = try main.setID()
        var bytes = try main.encode()
        for file in order {
            bytes += try PacketEncoding.packet(.fileDescription, setID: setID, body: descriptions[file].body)
            bytes += try PacketEncoding.packet(.sliceChecksums, setID: setID, body: checksums[file].body)
        }
        for exponent in exponents {
            var words = [UInt16](repeating: 0, count: sliceSize / 2)
            for (index, slice) in ordered.enumerated() {
                let coefficient = GaloisField16.power(InputSliceConstants.constant(ofSlice: index), exponent)
                for word in words.indices {
                    let value = UInt16(slice[2 * word]) | UInt16(slice[2 * word + 1]) << 8
                    words[word] ^= GaloisField16.multiply(coefficient, value)
                }
            }
            var body: [UInt8] = []
            body.appendLittleEndian(exponent)
            for word in words { body.appendLittleEndian(word) }
            bytes += try PacketEncoding.packet(.recoverySlice, setID: setID, body: body)
        }
        bytes += try PacketEncoding.packet(
            .creator, setID: setID, body: PacketEncoding.paddedToFour(Array("tests".utf8)))
        return bytes
    }
}
