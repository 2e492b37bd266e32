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

    /// The folder of a set for a one-slice backup and the files the set is for, or not (`Spec/decisions/0048`).
    static let anotherFileFolder = folder + "/another-file"

    /// One line of a `cases.txt`: a copy, the volume file to use, and what repairing gives (`repairs`,
    /// `not_repairable`, or `recovery_set_mismatch`: the set is for another file, `-` for the counts).
    struct Case: CustomTestStringConvertible, Sendable {
        enum Expectation: String, Sendable {
            case repairs
            case notRepairable = "not_repairable"
            case anotherFile = "recovery_set_mismatch"
        }

        let folder: String
        let name: String
        let volume: String
        let expectation: Expectation
        let damaged: Int?
        let available: Int?
        var repairs: Bool { expectation == .repairs }
        var testDescription: String { FileSystem.lastComponent(of: folder) + "/" + name }

        init?(line: Substring, folder: String) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 5, let expectation = Expectation(rawValue: fields[2]) else { return nil }
            (self.folder, name, volume, self.expectation) = (folder, fields[0], fields[1], expectation)
            (damaged, available) = (Int(fields[3]), Int(fields[4]))
            guard (expectation == .anotherFile) == (damaged == nil && available == nil) else { return nil }
        }
    }

    static func cases(in folder: String) -> [Case] {
        guard let text = try? String(contentsOfFile: folder + "/cases.txt", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { Case(line: $0, folder: folder) }
    }

    static var cases: [Case] { cases(in: folder) + cases(in: anotherFileFolder) }

    static let volumeName = "backup.goshuin.vol0+2.par2"

    /// The volume file's name in a case's folder: the one `backup.goshuin.vol…par2` there.
    static func volumeName(in folder: String) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.first { $0.hasPrefix("backup.goshuin.vol") } ?? volumeName
    }

    @Test func theCommittedSetIsWhatProtectMakes() throws {
        if ProcessInfo.processInfo.environment["GOSHUIN_WRITE_RECOVERY_VECTORS"] == "1" { try Self.writeVectors() }
        let scratch = ScratchFolder()
        scratch.write("backup.goshuin", Recovery.read(Self.folder + "/backup.goshuin"))
        let set = try RecoverySet.protect(inputPath: scratch.file("backup.goshuin"))
        #expect(FileSystem.lastComponent(of: set.volumePath) == Self.volumeName)
        #expect(Recovery.read(set.indexPath) == Recovery.read(Self.folder + "/backup.goshuin.par2"))
        #expect(Recovery.read(set.volumePath) == Recovery.read(Self.folder + "/" + Self.volumeName))
        #expect(Self.cases(in: Self.folder).count >= 6, "cases.txt lists the damaged copies")
        #expect(Self.cases(in: Self.anotherFileFolder).count >= 5, "another-file/cases.txt lists its copies")
        let small = ScratchFolder()
        small.write("backup.goshuin", Recovery.read(Self.anotherFileFolder + "/backup.goshuin"))
        let smallSet = try RecoverySet.protect(inputPath: small.file("backup.goshuin"))
        #expect(smallSet.inputSlices == 1 && smallSet.recoverySlices == 1, "a one-slice backup")
        #expect(Recovery.read(smallSet.indexPath) == Recovery.read(Self.anotherFileFolder + "/backup.goshuin.par2"))
        #expect(
            Recovery.read(smallSet.volumePath)
                == Recovery.read(Self.anotherFileFolder + "/" + FileSystem.lastComponent(of: smallSet.volumePath)))
    }

    /// A scratch folder holding the case's copy as `backup.goshuin` beside the set of its folder.
    static func stage(_ testCase: Case) -> ScratchFolder {
        let scratch = ScratchFolder()
        scratch.write("backup.goshuin", Recovery.read(testCase.folder + "/" + testCase.name))
        scratch.write("backup.goshuin.par2", Recovery.read(testCase.folder + "/backup.goshuin.par2"))
        scratch.write(volumeName(in: testCase.folder), Recovery.read(testCase.folder + "/" + testCase.volume))
        return scratch
    }

    @Test(arguments: cases)
    func theLibraryRepairsAsTheCaseSays(testCase: Case) throws {
        let scratch = Self.stage(testCase)
        let expected = Recovery.read(testCase.folder + "/backup.goshuin")
        let path = scratch.file("backup.goshuin")
        guard testCase.expectation != .anotherFile else {
            let copy = scratch.read("backup.goshuin")
            HostileSetTests.expectError(.recoverySetMismatch) { _ = try RecoverySet.verify(inputPath: path) }
            HostileSetTests.expectError(.recoverySetMismatch) {
                _ = try RecoverySet.repair(inputPath: path, to: .inPlace)
            }
            #expect(scratch.read("backup.goshuin") == copy, "the other file is as it was")
            return
        }
        let verification = try RecoverySet.verify(inputPath: path)
        #expect(verification.damagedSliceCount == testCase.damaged)
        #expect(verification.recoverySlicesAvailable == testCase.available)
        #expect(verification.isRepairable == testCase.repairs)
        do {
            try RecoverySet.repair(inputPath: path, to: .inPlace)
            #expect(testCase.repairs)
            #expect(scratch.read("backup.goshuin") == expected)
        } catch let error as GoshuinError {
            #expect(!testCase.repairs && error.code == .notRepairable, "\(error)")
        }
    }

    /// par2 has no notion of another file: a set is the file it describes, so par2cmdline "repairs" a backup
    /// sealed again into the old one when it can. Only the cases of a damaged copy are theirs to agree with.
    @Test(arguments: cases.filter { $0.expectation != .anotherFile }, InteropTests.tools)
    func par2AgreesWithTheCase(testCase: Case, tool: String) throws {
        let scratch = Self.stage(testCase)
        let expected = Recovery.read(testCase.folder + "/backup.goshuin")
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
        let set = try RecoverySet.protect(inputPath: sealed)
        let readme = Recovery.read(folder + "/README.md")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let original = Recovery.read(sealed)
        let volume = Recovery.read(set.volumePath)
        func put(_ name: String, _ bytes: [UInt8]) {
            _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))
        }
        put("README.md", readme)
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
            let verification = try RecoverySet.verify(inputPath: stage.file("backup.goshuin"))
            lines.append(
                "\(name) \(volumeFile) \(verification.isRepairable ? "repairs" : "not_repairable")"
                    + " \(verification.damagedSliceCount) \(verification.recoverySlicesAvailable)")
        }
        put("cases.txt", Array((lines.joined(separator: "\n") + "\n").utf8))
        try writeAnotherFileVectors(backupFolder: backupFolder)
    }

    /// Writes `KnownAnswer/recovery/another-file/`: a one-slice backup (records.csv and a photo of 2,000
    /// bytes, version 1, 4 KiB chunks), its set (one recovery slice), and copies: the same folder sealed again under other salts (a set
    /// for another file, told by rule 3 of `Spec/decisions/0048`: the set rebuilds the old file, and no 512-byte
    /// block is the same), and damaged copies that are still the set's file.
    static func writeAnotherFileVectors(backupFolder: String) throws {
        let work = ScratchFolder()
        let folderOfRecords = work.file("records")
        try FileManager.default.createDirectory(atPath: folderOfRecords, withIntermediateDirectories: true)
        for name in ["records.csv"] {
            try FileManager.default.copyItem(atPath: backupFolder + "/" + name, toPath: folderOfRecords + "/" + name)
        }
        // A small photo: the backup stays under 4 KiB, one slice, with 512-byte blocks on either side of damage.
        let photo = folderOfRecords + "/IMG_0001.jpg"
        _ = FileManager.default.createFile(atPath: photo, contents: Data(Recovery.noise(2_000, seed: 104)))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_796_083_200)], ofItemAtPath: photo)
        func seal(_ name: String, salt: UInt8) throws -> [UInt8] {
            let path = work.file(name)
            try BackupFile.seal(
                folder: folderOfRecords, outputPath: path, passphrase: Passphrase(passphrase),
                parameters: SealParameters(
                    iterations: 1_000, chunkSize: 4_096, fixedSalt: [UInt8](repeating: salt, count: 16),
                    fixedNonceBase: [UInt8](repeating: salt &+ 1, count: 8)))
            return Recovery.read(path)
        }
        let original = try seal("backup.goshuin", salt: 0x31)
        let resealed = try seal("resealed.goshuin", salt: 0x41)
        let set = try RecoverySet.protect(inputPath: work.file("backup.goshuin"))
        precondition(set.inputSlices == 1, "a one-slice backup")
        let target = anotherFileFolder
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        func put(_ name: String, _ bytes: [UInt8]) {
            _ = FileManager.default.createFile(atPath: target + "/" + name, contents: Data(bytes))
        }
        let volume = FileSystem.lastComponent(of: set.volumePath)
        put("backup.goshuin", original)
        put("backup.goshuin.par2", Recovery.read(set.indexPath))
        put(volume, Recovery.read(set.volumePath))
        var bit = original
        bit[original.count / 2] ^= 0x04
        var sector = original
        sector.replaceSubrange(512..<1_024, with: [UInt8](repeating: 0, count: 512))
        let copies: [(String, [UInt8])] = [
            ("resealed.goshuin", resealed),
            ("damaged-bit.goshuin", bit),
            ("damaged-sector.goshuin", sector),
            ("damaged-erased.goshuin", [UInt8](repeating: 0, count: original.count)),
            ("damaged-cut.goshuin", Array(original.prefix(original.count / 2))),
        ]
        var lines = [
            "# copy volume expectation damaged-slices recovery-slices-available",
            "# Each copy is repaired as backup.goshuin beside backup.goshuin.par2 and \(volume). \"repairs\" means the",
            "# result is backup.goshuin byte for byte; \"recovery_set_mismatch\" that the set is for another file",
            "# (Spec/decisions/0048): nothing is repaired, nothing written.",
        ]
        let stage = ScratchFolder()
        for (name, bytes) in copies {
            put(name, bytes)
            stage.write("backup.goshuin", bytes)
            stage.write("backup.goshuin.par2", Recovery.read(set.indexPath))
            stage.write(volume, Recovery.read(set.volumePath))
            do {
                let verification = try RecoverySet.verify(inputPath: stage.file("backup.goshuin"))
                lines.append(
                    "\(name) \(volume) \(verification.isRepairable ? "repairs" : "not_repairable")"
                        + " \(verification.damagedSliceCount) \(verification.recoverySlicesAvailable)")
            } catch let error as GoshuinError where error.code == .recoverySetMismatch {
                lines.append("\(name) \(volume) recovery_set_mismatch - -")
            }
        }
        put("cases.txt", Array((lines.joined(separator: "\n") + "\n").utf8))
    }
}
