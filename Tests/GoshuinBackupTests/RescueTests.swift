import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// A rescue (`Spec/decisions/0055`) of every case of the shared salvage corpus: the new backup holds exactly
/// what the salvage restores, byte for byte, and verifies as a backup of format version 1; where the salvage
/// stops, or restores no records.csv, nothing is written.
@Suite struct RescueCorpusTests {
    /// Rescues the corpus case `name` into `output`.
    static func rescue(_ name: String, into output: String, newPassphrase: String? = nil) throws -> RescueReport {
        let input = try FileSystem.openInput(SalvageCorpusTests.corpus + "/" + name + ".goshuin")
        return try input.closeAfter {
            try BackupRescue.rescue(
                input, passphrase: Passphrase(SalvageCorpusTests.passphrase),
                newPassphrase: newPassphrase.map { new in { Passphrase(new) } },
                parameters: Fixtures.parameters(chunkSize: 4_096),
                spaceNeededIn: FileSystem.parentDirectory(of: output), progress: nil
            ) { write in try withAtomicOutput(to: output, replaceExisting: false, write) }
        }
    }

    @Test(arguments: SalvageCorpusTests.cases)
    func theNewBackupHoldsExactlyWhatTheSalvageRestores(_ corpusCase: SalvageCorpusTests.Case) throws {
        let directory = TemporaryDirectory()
        let output = directory.file("rescued.goshuin")
        let restoresRecords = corpusCase.restored.contains { $0.name == "records.csv" }
        let report: RescueReport
        do {
            report = try Self.rescue(corpusCase.name, into: output)
        } catch let error as GoshuinError {
            #expect(directory.entries.isEmpty, "nothing is written, no temporary left: \(directory.entries)")
            if corpusCase.salvage != "restored" {
                #expect(error.code.rawValue == corpusCase.salvage, "the salvage's code")
            } else {
                #expect(!restoresRecords, "refused with \(error.code) though the salvage restores records.csv")
                let reason = corpusCase.lost.first { $0.name == "records.csv" }?.reason ?? "not_found"
                let expected =
                    ["damaged", "missing", "not_found"].contains(reason)
                    ? ["chunk_damaged", "truncated", "zip_malformed"] : [reason]
                #expect(expected.contains(error.code.rawValue), "records.csv lost (\(reason)): \(error.code)")
            }
            return
        }
        #expect(restoresRecords, "a backup is made only with records.csv")
        #expect(report.salvage.mode.rawValue == corpusCase.mode)
        #expect(report.salvage.restored == corpusCase.restored.map(\.name), "what the salvage restores")
        #expect(report.salvage.lost.map(\.name) == corpusCase.lost.map(\.name), "lost, in file order")
        #expect(report.salvage.lost.map(\.reason) == corpusCase.lost.map(\.reason), "why each is lost")

        let verification = try BackupFile.verify(
            inputPath: output, passphrase: Passphrase(SalvageCorpusTests.passphrase), requiringBackup: true)
        #expect(verification.header.version == .v1, "format version 1, what the app imports")
        guard case .backup(let manifest) = verification.payload else {
            Issue.record("the new file is not a backup")
            return
        }
        #expect(manifest == report.manifest)
        let held = Dictionary(
            ([manifest.records] + manifest.photos).map { ($0.name, Hex.encode($0.sha256)) },
            uniquingKeysWith: { first, _ in first })
        let restored = Dictionary(
            corpusCase.restored.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        #expect(held == restored, "exactly the restored entries, byte for byte")
        #expect(
            manifest.photos.map(\.name)
                == manifest.photos.map(\.name).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// The hostile cases whose entries authenticate but fail their checks: the rescue finds them as it writes,
    /// names them lost, and writes the backup again from the entries that pass.
    @Test func anEntryThatFailsItsChecksAsItIsWrittenIsLeftOut() throws {
        let failing = SalvageCorpusTests.cases.filter { corpusCase in
            corpusCase.mode == "directory" && corpusCase.restored.contains { $0.name == "records.csv" }
                && corpusCase.lost.contains { !["damaged", "missing"].contains($0.reason) }
        }
        #expect(!failing.isEmpty, "the corpus has directory-mode entries that fail their checks")
        for corpusCase in failing {
            let directory = TemporaryDirectory()
            let report = try Self.rescue(corpusCase.name, into: directory.file("rescued.goshuin"))
            #expect(report.salvage.lost.map(\.reason) == corpusCase.lost.map(\.reason), "\(corpusCase.name)")
            #expect(directory.entries == ["rescued.goshuin"], "\(corpusCase.name): no temporary left")
        }
    }

    @Test func aNewPassphraseOpensTheNewBackupAndTheOldOneDoesNot() throws {
        let directory = TemporaryDirectory()
        let output = directory.file("rescued.goshuin")
        _ = try Self.rescue("flip-photo-chunk", into: output, newPassphrase: "a passphrase for the family")
        _ = try BackupFile.verify(
            inputPath: output, passphrase: Passphrase("a passphrase for the family"), requiringBackup: true)
        #expect(throws: GoshuinError.self) {
            try BackupFile.verify(
                inputPath: output, passphrase: Passphrase(SalvageCorpusTests.passphrase), requiringBackup: true)
        }
    }
}

/// `UnlockedContainer.reseal`: the same payload under a new passphrase, and nothing of a file that does not
/// authenticate whole.
@Suite struct ResealTests {
    @Test(arguments: [FormatVersion.v1, .v2], [FormatVersion.v1, .v2])
    func theSamePayloadUnderANewPassphrase(from source: FormatVersion, to target: FormatVersion) throws {
        let directory = TemporaryDirectory()
        let payload = Fixtures.payload(10_000)
        let input = directory.write("plain.bin", payload)
        var parameters = Fixtures.parameters()
        parameters.version = source
        try GoshuinFile.seal(
            inputPath: input, outputPath: directory.file("old.goshuin"), passphrase: Passphrase("old"),
            parameters: parameters)
        let locked = try LockedContainer(checkingFileAt: directory.file("old.goshuin"))
        let container = try locked.unlock(with: Passphrase("old"))
        var newParameters = Fixtures.parameters(chunkSize: 4_096)
        newParameters.version = target
        let draft = try newParameters.draft(plaintextLength: locked.header.plaintextLength)
        let header = try withAtomicOutput(to: directory.file("new.goshuin"), replaceExisting: false) { output in
            try container.reseal(into: output, header: try draft.key(with: Passphrase("new")))
        }
        #expect(header.version == target && header.plaintextLength == UInt64(payload.count))
        try GoshuinFile.open(
            inputPath: directory.file("new.goshuin"), outputPath: directory.file("again.bin"),
            passphrase: Passphrase("new"))
        #expect(Fixtures.readBytes(directory.file("again.bin")) == payload)
        #expect(throws: GoshuinError.self) {
            try GoshuinFile.open(
                inputPath: directory.file("new.goshuin"), outputPath: directory.file("never.bin"),
                passphrase: Passphrase("old"))
        }
    }

    @Test func aDamagedChunkThrowsTheFilesVerdict() throws {
        let directory = TemporaryDirectory()
        var bytes = try Fixtures.seal(Fixtures.payload(10_000), in: directory, passphrase: "old")
        bytes[45 + 5 * 1_044 + 20] ^= 1
        let damaged = directory.write("damaged.goshuin", bytes)
        let locked = try LockedContainer(checkingFileAt: damaged)
        let container = try locked.unlock(with: Passphrase("old"))
        let draft = try Fixtures.parameters().draft(plaintextLength: locked.header.plaintextLength)
        do {
            _ = try withAtomicOutput(to: directory.file("new.goshuin"), replaceExisting: false) { output in
                try container.reseal(into: output, header: try draft.key(with: Passphrase("new")))
            }
            Issue.record("a damaged file was sealed again")
        } catch let error as GoshuinError {
            #expect(error.code == .chunkDamaged && error.chunkIndex == 5)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("new.goshuin")))
    }
}
