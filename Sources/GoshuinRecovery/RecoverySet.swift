import GoshuinFormat

/// PAR 2.0 recovery sets beside a file (`Spec/recovery-par2.md`): `FILE.par2` and `FILE.volA+B.par2`,
/// which par2cmdline, par2cmdline-turbo and MultiPar read too. Nothing here needs a passphrase: a set
/// protects the file's bytes, sealed or not.
public enum RecoverySet {
    /// Writes a recovery set for the file at `path` beside it: `FILE.par2` with the critical packets and one
    /// volume file with the recovery slices, both mode 0600, both in place only once both are complete.
    ///
    /// - Parameters:
    ///   - redundancy: how many recovery slices, as a share of the file's slices (at least 2).
    ///   - replaceExisting: replace a set already there (and remove its other volume files); otherwise a set
    ///     already there is `output_exists`.
    ///   - progress: called on this thread as the work goes.
    /// - Returns: the files written.
    /// - Throws: `invalid_argument` for an empty file or one that is not a regular file, `output_exists`,
    ///   `no_space`, `io` (also when the file changes while being read), `interrupted`, `out_of_memory`.
    @discardableResult
    public static func protect(
        inputPath path: String, redundancy: RecoveryRedundancy = .default, replaceExisting: Bool = false,
        progress: RecoveryProgressHandler? = nil
    ) throws -> RecoverySetFiles {
        try FileProtection.protect(
            path: path, redundancy: redundancy, replaceExisting: replaceExisting,
            workers: WorkerThreads.defaultWorkerCount,
            progress: progress)
    }

    /// Checks the file at `path` against its recovery set, slice by slice and as a whole: where it is damaged
    /// (slices, bytes and, for a `.goshuin` file, records), how many recovery slices verify, and whether they
    /// can repair it. Writes nothing.
    ///
    /// - Parameter recoveryPath: a `.par2` file of the set (its other files beside it are read too); `nil`
    ///   reads the set beside the file (`FILE.par2`, `FILE.vol…par2`).
    /// - Throws: `recovery_set_not_found`, `recovery_set_invalid`, `recovery_set_mismatch` (no set describes
    ///   this file: a set made for another file, `Spec/decisions/0048`), `invalid_argument` (not a regular
    ///   file), `io`, `interrupted`, `out_of_memory`. Damage is not an error: it is the result.
    public static func verify(
        inputPath path: String, recoveryPath: String? = nil, progress: RecoveryProgressHandler? = nil
    ) throws -> RecoveryVerification {
        let workers = WorkerThreads.defaultWorkerCount
        let reading = try RecoveryReading.open(
            path: path, recoveryPath: recoveryPath, hashingWholeFile: true, workers: workers, progress: progress)
        defer { reading.close() }
        let survey = reading.survey
        // A longer file is cut only where it says it ends (`Spec/recovery-par2.md` §7.1).
        let longer = survey.actualLength > survey.index.targetFile.description.length
        let repairable =
            try (!longer || reading.endsWhereItsSetSays(survey))
            && RecoveryMatrix.isSolvable(
                unknowns: survey.unknown, exponents: survey.index.recoverySlices.map(\.exponent))
        return RecoveryVerification(reading, survey: survey, repairable: repairable)
    }

    /// Repairs the file at `path` from its recovery set: rebuilds its damaged and missing slices, checks the
    /// result against the MD5 the set gives for the whole file and, for a `.goshuin` file, its structure
    /// (header and sizes; no key), and only then writes it to `destination`. A file that is already intact is
    /// not written again.
    ///
    /// - Throws: `not_repairable` (with how many slices are damaged and how many recovery slices are
    ///   available) when the damage is beyond the set; `repair_check_failed` when the rebuilt file fails its
    ///   checks; `recovery_set_not_found`, `recovery_set_invalid`, `recovery_set_mismatch`; `output_exists`,
    ///   `no_space`, `io`, `interrupted`, `out_of_memory`. Nothing is written on any error, and the damaged
    ///   file is never changed but by a successful in-place repair.
    @discardableResult
    public static func repair(
        inputPath path: String, recoveryPath: String? = nil, to destination: RepairDestination,
        progress: RecoveryProgressHandler? = nil
    ) throws -> RepairResult {
        let target: FileRepair.Destination
        switch destination {
        case .newFile(let output, let replaceExisting): target = .file(output, replaceExisting: replaceExisting)
        case .inPlace: target = .inPlace
        }
        let outcome = try FileRepair.repair(
            path: path, recoveryPath: recoveryPath, destination: target, workers: WorkerThreads.defaultWorkerCount,
            progress: progress)
        return RepairResult(
            verification: outcome.verification, outputPath: outcome.writtenTo,
            recoverySlicesUsed: outcome.recoverySlicesUsed)
    }
}

extension RecoverySet {
    /// The path of the file the recovery file at `path` protects, when `path` is one (its name is `X.par2` or
    /// `X.volA+B.par2`, and it starts with a PAR 2.0 packet's magic): `X`, beside it, whether or not it is
    /// there. `nil` for any other file.
    /// The paths of the files of the recovery sets beside the file at `path` (`FILE.par2`, `FILE.vol…par2`),
    /// whatever they are; none when its folder cannot be listed.
    package static func filesOfSets(besides path: String) -> [String] {
        (try? RecoverySetNames.setFiles(besides: path)) ?? []
    }

    package static func fileProtected(bySetFile path: String) -> String? {
        guard let base = RecoverySetNames.baseName(ofSetFile: FileSystem.lastComponent(of: path)),
            RecoverySetNames.startsWithPacketMagic(path)
        else { return nil }
        let folder = FileSystem.parentDirectory(of: path)
        return path.contains("/") ? (folder == "/" ? "/" : folder + "/") + base : base
    }
}

/// Where ``RecoverySet/repair(inputPath:recoveryPath:to:progress:)`` writes the repaired file.
public enum RepairDestination: Equatable, Sendable {
    /// The file at this path, written beside it under a temporary name and moved into place once checked; an
    /// existing file there is replaced only when `replaceExisting` (and only a regular file).
    case newFile(String, replaceExisting: Bool = false)
    /// The damaged file itself: the repaired file is written beside it and replaces it only once it is
    /// complete and checked, keeping its permission bits.
    case inPlace
}

/// What a repair did.
public struct RepairResult: Sendable {
    /// The file as it was found, before the repair.
    public let verification: RecoveryVerification
    /// Where the repaired file was written; `nil` when the file was intact and nothing was written.
    public let outputPath: String?
    /// The recovery slices used.
    public let recoverySlicesUsed: Int

    /// Whether the file was already intact.
    public var wasIntact: Bool { outputPath == nil }
}
