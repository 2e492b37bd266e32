import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// The recovery known-answer vectors, `KnownAnswer/recovery/` (its README says how they were made): the
/// library makes the committed set from the committed backup byte for byte, repairs every damaged copy as
/// `cases.txt` says, and par2cmdline 0.8.1 and par2cmdline-turbo agree with every case.
///
/// `GOSHUIN_WRITE_RECOVERY_VECTORS=1 swift test --filter RecoveryKnownAnswerTests` writes the vectors afresh.
@Suite(.serialized, .slowTier) struct RecoveryKnownAnswerTests {
    static let folder = Recovery.packageRoot + "/KnownAnswer/recovery"

    /// One line of `cases.txt`: a damaged copy, the volume file to use, and what repairing gives.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let volume: String
        let repairs: Bool
        let damaged: Int
        let available: Int
        var testDescription: String { name }

        init?(line: Substring) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 5, let damaged = Int(fields[3]), let available = Int(fields[4]) else { return nil }
            (name, volume, repairs) = (fields[0], fields[1], fields[2] == "repairs")
            (self.damaged, self.available) = (damaged, available)
        }
    }

    static var cases: [Case] {
        guard let text = try? String(contentsOfFile: folder + "/cases.txt", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap(Case.init)
    }

    static let volumeName = "backup.goshuin.vol0+2.par2"

    @Test func theCommittedSetIsWhatProtectMakes() throws {
        if ProcessInfo.processInfo.environment["GOSHUIN_WRITE_RECOVERY_VECTORS"] == "1" { try Self.writeVectors() }
        let scratch = ScratchFolder()
        scratch.write("backup.goshuin", Recovery.read(Self.folder + "/backup.goshuin"))
        let set = try RecoverySet.protect(filePath: scratch.file("backup.goshuin"))
        #expect(FileSystem.lastComponent(of: set.volumePath) == Self.volumeName)
        #expect(Recovery.read(set.indexPath) == Recovery.read(Self.folder + "/backup.goshuin.par2"))
        #expect(Recovery.read(set.volumePath) == Recovery.read(Self.folder + "/" + Self.volumeName))
        #expect(Self.cases.count >= 6, "cases.txt lists the damaged copies")
    }

    /// A scratch folder holding the case's damaged copy as `backup.goshuin` beside the set.
    static func stage(_ testCase: Case) -> ScratchFolder {
        let scratch = ScratchFolder()
        scratch.write("backup.goshuin", Recovery.read(folder + "/" + testCase.name))
        scratch.write("backup.goshuin.par2", Recovery.read(folder + "/backup.goshuin.par2"))
        scratch.write(volumeName, Recovery.read(folder + "/" + testCase.volume))
        return scratch
    }

    @Test(arguments: cases)
    func theLibraryRepairsAsTheCaseSays(testCase: Case) throws {
        let scratch = Self.stage(testCase)
        let expected = Recovery.read(Self.folder + "/backup.goshuin")
        let verification = try RecoverySet.verify(filePath: scratch.file("backup.goshuin"))
        #expect(verification.damagedSliceCount == testCase.damaged)
        #expect(verification.recoverySlicesAvailable == testCase.available)
        #expect(verification.isRepairable == testCase.repairs)
        do {
            try RecoverySet.repair(filePath: scratch.file("backup.goshuin"), to: .inPlace)
            #expect(testCase.repairs)
            #expect(scratch.read("backup.goshuin") == expected)
        } catch let error as GoshuinError {
            #expect(!testCase.repairs && error.code == .notRepairable, "\(error)")
        }
    }

    @Test(arguments: cases, InteropTests.tools)
    func par2AgreesWithTheCase(testCase: Case, tool: String) throws {
        let scratch = Self.stage(testCase)
        let expected = Recovery.read(Self.folder + "/backup.goshuin")
        let verified = try Recovery.run([tool, "verify", "backup.goshuin.par2"], in: scratch.path)
        #expect(verified.status != 0, "\(tool) finds the damage")
        let repaired = try Recovery.run([tool, "repair", "backup.goshuin.par2"], in: scratch.path)
        if testCase.repairs {
            #expect(repaired.status == 0, "\(tool):\n\(repaired.output.suffix(500))")
            #expect(scratch.read("backup.goshuin") == expected, "\(tool) repairs it byte for byte")
        } else {
            #expect(repaired.status != 0, "\(tool) cannot repair it either")
            #expect(scratch.read("backup.goshuin") != expected)
        }
    }

    // MARK: - Writing the vectors

    static let passphrase = "correct horse battery staple"
    static let kdfSalt = (0..<16).map { UInt8(0x10 + $0) }
    static let payloadSalt = (0..<16).map { UInt8(0x80 + $0) }

    /// Writes `KnownAnswer/recovery/` afresh: a backup of records.csv and three photos (deterministic bytes,
    /// every modification time 2026-12-01T00:00:00Z), sealed as version 2 with fixed salts, 1,000 iterations
    /// and 4 KiB chunks; its set; the damaged copies and `cases.txt`.
    static func writeVectors() throws {
        let work = ScratchFolder()
        let backupFolder = work.file("backup")
        try FileManager.default.createDirectory(atPath: backupFolder, withIntermediateDirectories: true)
        let files: [(String, [UInt8])] = [
            (
                "records.csv",
                Array(
                    "date,shrine,photo\n2026-01-01,Meiji Jingu,IMG_0001.jpg\n2026-02-03,Fushimi Inari,IMG_0002.jpg\n2026-03-04,Itsukushima,IMG_0003.jpg\n"
                        .utf8)
            ),
            ("IMG_0001.jpg", Recovery.noise(70_000, seed: 101)),
            ("IMG_0002.jpg", Recovery.noise(50_000, seed: 102)),
            ("IMG_0003.jpg", Recovery.noise(30_000, seed: 103)),
        ]
        let time = Date(timeIntervalSince1970: 1_796_083_200)
        for (name, bytes) in files {
            let path = backupFolder + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: path)
        }
        let sealed = work.file("backup.goshuin")
        try BackupFile.seal(
            folder: backupFolder, outputPath: sealed, passphrase: Passphrase(passphrase),
            parameters: SealParameters(
                iterations: 1_000, chunkSize: 4_096, fixedSalt: kdfSalt, fixedPayloadSalt: payloadSalt))
        let set = try RecoverySet.protect(filePath: sealed)
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let original = Recovery.read(sealed)
        let volume = Recovery.read(set.volumePath)
        func put(_ name: String, _ bytes: [UInt8]) {
            _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))
        }
        put("backup.goshuin", original)
        put("backup.goshuin.par2", Recovery.read(set.indexPath))
        put(volumeName, volume)
        let slice = Int(set.sliceSize)
        func zeroed(_ bytes: [UInt8], _ ranges: [Range<Int>]) -> [UInt8] {
            var copy = bytes
            for range in ranges { copy.replaceSubrange(range, with: [UInt8](repeating: 0, count: range.count)) }
            return copy
        }
        var flipped = original
        flipped[5 * slice + 17] ^= 0x01
        flipped[20 * slice + 3_000] ^= 0x80
        // The first recovery slice's data zeroed in the volume file (its packet no longer verifies).
        let firstData = Int(
            RecoverySetLayout(
                plan: RecoveryPlan(
                    fileLength: UInt64(original.count), sliceSize: set.sliceSize, redundancy: .default),
                fileName: Array("backup.goshuin".utf8)
            ).recoveryDataOffset(exponent: 0))
        put("damaged-volume.par2", zeroed(volume, [firstData..<(firstData + 4_096)]))
        let copies: [(String, [UInt8], String)] = [
            ("damaged-sector.goshuin", zeroed(original, [(10 * slice + 2_000)..<(10 * slice + 6_096)]), volumeName),
            ("damaged-bits.goshuin", flipped, volumeName),
            ("damaged-header.goshuin", zeroed(original, [0..<77]), volumeName),
            ("damaged-cut.goshuin", Array(original.dropLast(original.count / 100)), volumeName),
            (
                "damaged-with-damaged-volume.goshuin", zeroed(original, [(30 * slice)..<(30 * slice + 100)]),
                "damaged-volume.par2"
            ),
            (
                "damaged-beyond-repair.goshuin",
                zeroed(
                    original,
                    [(3 * slice)..<(3 * slice + 10), (9 * slice)..<(9 * slice + 10), (27 * slice)..<(27 * slice + 10)]),
                volumeName
            ),
        ]
        var lines = [
            "# copy volume expectation damaged-slices recovery-slices-available",
            "# Each copy is repaired as backup.goshuin beside backup.goshuin.par2 and the volume named here,",
            "# renamed backup.goshuin.vol0+2.par2. \"repairs\" means the result is backup.goshuin byte for byte.",
        ]
        let stage = ScratchFolder()
        for (name, bytes, volumeFile) in copies {
            put(name, bytes)
            stage.write("backup.goshuin", bytes)
            stage.write("backup.goshuin.par2", Recovery.read(set.indexPath))
            stage.write(volumeName, Recovery.read(folder + "/" + volumeFile))
            let verification = try RecoverySet.verify(filePath: stage.file("backup.goshuin"))
            lines.append(
                "\(name) \(volumeFile) \(verification.isRepairable ? "repairs" : "not_repairable")"
                    + " \(verification.damagedSliceCount) \(verification.recoverySlicesAvailable)")
        }
        put("cases.txt", Array((lines.joined(separator: "\n") + "\n").utf8))
    }
}
