import Foundation
import GoshuinFormat
import Testing

@testable import GoshuinRecovery

/// The profile's rules as `Spec/recovery-par2.md` states them: the slice size and counts (§5), the names
/// (§2), the packets' bytes (§3), and the error codes (§8).
@Suite struct RecoveryProfileTests {
    @Test func theSliceSizeFollowsTheRecords() throws {
        // A 1.5 GiB version 2 backup in 4 MiB chunks: whole records, 385 of them, 5% = 20.
        let big = RecoveryPlan(fileLength: 1_610_618_973, recordLength: 4_194_320, redundancy: .default)
        #expect(big.sliceSize == 4_194_320 && big.inputSliceCount == 385 && big.recoverySliceCount == 20)
        // Past 512 records, two records a slice.
        let bigger = RecoveryPlan(fileLength: 3_000_000_000, recordLength: 4_194_320, redundancy: .default)
        #expect(bigger.sliceSize == 2 * 4_194_320 && bigger.inputSliceCount <= 512)
        // Version 1 records of 1,044 bytes; chunk sizes that are not a multiple of 4 double the unit.
        #expect(RecoveryPlan(fileLength: 300_000, recordLength: 1_044, redundancy: .default).sliceSize == 1_044)
        #expect(RecoveryPlan(fileLength: 1_000_000, recordLength: 1_042, redundancy: .default).sliceSize == 2_084)
        #expect(RecoveryPlan(fileLength: 1_000_000, recordLength: 1_041, redundancy: .default).sliceSize == 4_164)
        // Fewer than 100 records: 100 slices of at least 4 KiB; a small file is one slice.
        let few = RecoveryPlan(fileLength: 100 << 20, recordLength: 4_194_320, redundancy: .default)
        #expect(few.inputSliceCount == 100 && few.sliceSize == 1_048_576 && few.recoverySliceCount == 5)
        let small = RecoveryPlan(fileLength: 40_000, recordLength: 4_112, redundancy: .default)
        #expect(small.sliceSize == 4_096 && small.inputSliceCount == 10 && small.recoverySliceCount == 2)
        let tiny = RecoveryPlan(fileLength: 1_401, recordLength: nil, redundancy: .default)
        #expect(tiny.sliceSize == 1_404 && tiny.inputSliceCount == 1 && tiny.recoverySliceCount == 1)
        // Any other file: units of 4 KiB.
        let other = RecoveryPlan(fileLength: 1 << 30, recordLength: nil, redundancy: .default)
        #expect(other.sliceSize == 2 * 1_048_576 && other.inputSliceCount == 512)
        for plan in [big, bigger, few, small, tiny, other] {
            #expect(plan.sliceSize % 4 == 0 && plan.inputSliceCount <= 32_768)
            #expect(UInt64(plan.inputSliceCount - 1) * plan.sliceSize < plan.fileLength)
        }
    }

    @Test func theRedundancyIsRoundedUpWithAFloorOfTwo() throws {
        #expect(RecoveryRedundancy.default.recoverySliceCount(inputSlices: 385) == 20)
        #expect(RecoveryRedundancy.default.recoverySliceCount(inputSlices: 21) == 2)
        #expect(RecoveryRedundancy.default.recoverySliceCount(inputSlices: 41) == 3)
        #expect(try RecoveryRedundancy(percent: 100).recoverySliceCount(inputSlices: 7) == 7)
        #expect(try RecoveryRedundancy(percent: 0.01).recoverySliceCount(inputSlices: 32_768) == 4)
        #expect(try RecoveryRedundancy(percent: 2.5).description == "2.5%")
        #expect(try RecoveryRedundancy(percent: 12.34).description == "12.34%")
        for bad in [0, -1, 100.01, .nan, .infinity, 0.004] {
            #expect(throws: GoshuinError(.invalidArgument, "")) { try RecoveryRedundancy(percent: bad) }
        }
    }

    @Test func theNamesAreParCmdlinesNames() throws {
        #expect(RecoverySetNames.volumeName(for: "b.goshuin", first: 0, count: 6) == "b.goshuin.vol0+6.par2")
        #expect(RecoverySetNames.volumeName(for: "b.goshuin", first: 0, count: 20) == "b.goshuin.vol00+20.par2")
        #expect(RecoverySetNames.volumeName(for: "b.goshuin", first: 0, count: 100) == "b.goshuin.vol000+100.par2")
        #expect(RecoverySetNames.volumeName(for: "b.goshuin", first: 0, count: 9) == "b.goshuin.vol0+9.par2")
        #expect(RecoverySetNames.volumeName(for: "b.goshuin", first: 0, count: 10) == "b.goshuin.vol00+10.par2")
        let name = "b.goshuin"
        for file in ["b.goshuin.par2", "b.goshuin.vol0+1.par2", "b.goshuin.vol01+02.par2", "b.goshuin.vol3-4.par2"] {
            #expect(RecoverySetNames.isSetFile(Array(file.utf8), of: name), "\(file)")
            #expect(RecoverySetNames.baseName(ofSetFile: file) == name, "\(file)")
        }
        for file in [
            "b.goshuin", "b.goshuin.par", "b.goshuin.vol+1.par2", "b.goshuin.vol1+.par2", "b.goshuin.volx+1.par2",
            "c.goshuin.par2", "b.goshuin.vol1+2.par2x", "b.goshuin.vol12345678901+1.par2",
        ] {
            #expect(!RecoverySetNames.isSetFile(Array(file.utf8), of: name), "\(file)")
        }
        // The names par2cmdline gives an exponential set are found, and only those.
        let folder = ScratchFolder()
        let path = folder.write("b.goshuin", Recovery.noise(100_000))
        let created = try Recovery.run(
            [Recovery.par2cmdline, "create", "-q", "-s4096", "-r10", "b.goshuin"], in: folder.path)
        try #require(created.status == 0)
        folder.write("b.goshuin.txt", [1])
        folder.write("other.par2", [1])
        let found = try RecoverySetNames.setFiles(besides: path).map { FileSystem.lastComponent(of: $0) }
        #expect(found.first == "b.goshuin.par2")
        #expect(Set(found) == Set(folder.entries.filter { $0.hasPrefix("b.goshuin.") && $0.hasSuffix(".par2") }))
        #expect(found.contains("b.goshuin.vol1+2.par2") && found.count == 3, "an exponential set: \(found)")
    }

    @Test func ourSetsBytesAreTheSpecificationsPackets() throws {
        let folder = ScratchFolder()
        let bytes = Recovery.noise(50_000, seed: 77)
        let path = folder.write("data.bin", bytes)
        let set = try RecoverySet.protect(inputPath: path)
        let index = HostileSetTests.packets(of: Recovery.read(set.indexPath))
        #expect(index.map { HostileSetTests.type(of: $0) } == [.main, .fileDescription, .sliceChecksums, .creator])
        for packet in index {
            #expect(packet.count % 4 == 0)
            #expect(Array(packet[16..<32]) == (try MD5Hasher.hash(packet[32...])), "the packet hash")
            #expect(Array(packet[0..<8]) == Array("PAR2".utf8) + [0] + Array("PKT".utf8))
        }
        let mainBody = Array(index[0][64...])
        let setID = try MD5Hasher.hash(mainBody[...])
        #expect(index.allSatisfy { Array($0[32..<48]) == setID }, "one set ID, the MD5 of the main body")
        let description = try #require(try FileDescriptionPacket(body: index[1][64...]))
        #expect(description.name == Array("data.bin".utf8) && description.length == 50_000)
        #expect(description.fileHash == (try MD5Hasher.hash(bytes[...])))
        #expect(description.hash16k == (try MD5Hasher.hash(bytes[0..<16_384])))
        let checksums = try #require(SliceChecksumPacket(body: index[2][64...]))
        #expect(checksums.checksums.count == 13, "50,000 bytes: 100 slices would be under 4 KiB, so 13 of 4,096")
        let plan = RecoveryPlan(fileLength: 50_000, recordLength: nil, redundancy: .default)
        let lastSlice = plan.inputSliceCount - 1
        let last =
            Array(bytes[(lastSlice * Int(plan.sliceSize))...])
            + [UInt8](repeating: 0, count: plan.inputSliceCount * Int(plan.sliceSize) - 50_000)
        #expect(
            checksums.checksums[lastSlice] == .init(md5: try MD5Hasher.hash(last[...]), crc32: CRC32.of(last)),
            "zero-padded")
        #expect(
            PacketEncoding.withoutTrailingZeros(index[3][64...]) == Array("Created by goshuin-toolkit recovery 1.".utf8)
        )
        // The volume: recovery slices from exponent 0, critical packets among them, the creator last.
        let volume = HostileSetTests.packets(of: Recovery.read(set.volumePath))
        let exponents = volume.filter { HostileSetTests.type(of: $0) == .recoverySlice }.map {
            UInt32($0[64]) | UInt32($0[65]) << 8 | UInt32($0[66]) << 16 | UInt32($0[67]) << 24
        }
        #expect(exponents == Array(0..<UInt32(set.recoverySlices)))
        #expect(
            HostileSetTests.type(of: volume[0]) == .recoverySlice
                && HostileSetTests.type(of: volume.last ?? []) == .creator)
        #expect(volume.filter { HostileSetTests.type(of: $0) == .main }.count >= 2)
    }

    @Test func theSpecificationListsTheModulesCodes() throws {
        let spec = try String(contentsOfFile: Recovery.packageRoot + "/Spec/recovery-par2.md", encoding: .utf8)
        let section = spec.components(separatedBy: "## 8. Error codes")[1].components(separatedBy: "\n## ")[0]
        let listed = Set(section.matches(of: /\n\| `([a-z_]+)` \|/).map { String($0.output.1) })
        #expect(listed == Set(GoshuinError.Code.recoveryModuleCodes.map(\.rawValue)))
        #expect(GoshuinError.Code.recoveryModuleCodes.allSatisfy { $0.category == .recovery })
        for figure in ["u ≥ 100", "⌈u / 512⌉", "min(4,096, L)", "max(2, ⌈b · n / 10,000⌉)", "32,768", "2^40", "4,096"] {
            #expect(spec.contains(figure), "§5 and §6 state \(figure)")
        }
        #expect(RecoveryPlan.preferredMinimum == 100 && RecoveryPlan.preferredMaximum == 512)
        #expect(RecoveryPlan.smallestSlice == 4_096 && RecoveryMatrix.maximumUnknowns == 4_096)
    }
}
