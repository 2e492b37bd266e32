import GoshuinFormat

/// `repair`: the damaged and missing slices of a file rebuilt from its recovery set, and the file written
/// again, checked, then moved into place (`Spec/recovery-par2.md` §7).
///
/// Two passes over the data: the slices are checked (``SliceSurvey``, on every core, for the set
/// ``SetMatching`` chose); then, in one pool, the unknown slices are rebuilt (``SliceRebuild``) and written at
/// their places in a temporary file beside the destination, the intact ones copied from the damaged file, and
/// the file's MD5 computed in order as its blocks are complete. It goes out only if that MD5 is the set's and,
/// for a `.goshuin` file, its structure passes the checks that need no key; in place, only if the file is
/// still the one that was read.
enum FileRepair {
    /// Where the repaired file goes.
    enum Destination: Equatable {
        /// A new file (replaced only if `replaceExisting`, and only a regular file).
        case file(String, replaceExisting: Bool)
        /// The damaged file itself, replaced only once the repaired one is complete and checked, and only if it
        /// is still the file that was read.
        case inPlace
    }

    /// What a repair did.
    struct Outcome {
        let verification: RecoveryVerification
        let writtenTo: String?
        let recoverySlicesUsed: Int
    }

    static func repair(
        path: String, recoveryPath: String?, destination: Destination, workers: Int, progress: RecoveryProgressHandler?
    ) throws -> Outcome {
        let reading = try RecoveryReading.open(
            path: path, recoveryPath: recoveryPath, hashingWholeFile: false, workers: workers, progress: progress)
        defer { reading.close() }
        let survey = reading.survey
        let description = survey.index.targetFile.description
        if survey.isIntact {
            // Every slice matches: the whole MD5 decides, as for a verify.
            let confirmed = try RecoveryReading.wholeFileHash(reading.file, path: path, length: reading.length)
            guard confirmed == description.fileHash else {
                throw GoshuinError(
                    .recoverySetInvalid,
                    "every slice of \(DisplayText.quoted(path)) matches the recovery set but the whole file's MD5"
                        + " does not: the set contradicts itself")
            }
            let verification = RecoveryVerification(
                reading, survey: survey.with(fileHashMatches: true), repairable: true)
            return Outcome(verification: verification, writtenTo: nil, recoverySlicesUsed: 0)
        }
        // A longer file is cut only where it says it ends (`Spec/recovery-par2.md` §7.1): a set made of a copy
        // cut short would otherwise cut a complete file down to it.
        guard reading.length <= description.length || reading.endsWhereItsSetSays(survey) else {
            throw Self.longer(reading, survey: survey)
        }
        let (target, replace) = destinationPath(destination, path: path)
        // Checked once the file is known to need it: an intact file is said to be so whatever is at the output.
        if case .file = destination { try AtomicOutput.checkDestination(target, replaceExisting: replace) }
        // Nothing to rebuild when every slice is intact but the file is longer: it is written again, cut.
        let rebuild: SliceRebuild?
        do {
            rebuild = survey.unknown.isEmpty ? nil : try SliceRebuild(survey, path: path)
        } catch let error as GoshuinError where error.code == .notRepairable || error.code == .truncated {
            throw error.attaching(RecoveryVerification(reading, survey: survey, repairable: false))
        }
        let verification = RecoveryVerification(reading, survey: survey, repairable: true)
        let output = try AtomicOutput(destination: target, replaceExisting: replace)
        do {
            try describingFailure("cannot size \(DisplayText.quoted(output.temporaryPath))") {
                try output.descriptor.setSize(Int64(description.length))
            }
            let rebuilt = try readBack(output)
            defer { try? rebuilt.close() }
            let hash = try rebuildAndAssemble(
                survey, rebuild: rebuild, from: reading.file, into: output, rebuilt: rebuilt, workers: workers,
                progress: progress)
            guard hash == description.fileHash else {
                throw GoshuinError(
                    .repairCheckFailed,
                    "the rebuilt file's MD5 is not the one the recovery set gives: nothing was written (the set may"
                        + " have been made for another version of the file)")
            }
            try checkStructure(rebuilt)
            try Interruption.check()
            if destination == .inPlace {
                try keepOwnership(of: reading.status, on: output)
                try output.commit(replacingOnly: reading.status)
            } else {
                try output.commit()
            }
        } catch let error as GoshuinError where error.code == .repairCheckFailed && Self.changed(reading) {
            output.discard()
            throw GoshuinError(
                .io,
                "\(DisplayText.quoted(path)) changed while it was being repaired (another program wrote it): it was"
                    + " left as it is, and nothing was written")
        } catch {
            output.discard()
            throw error
        }
        return Outcome(
            verification: verification, writtenTo: target, recoverySlicesUsed: rebuild?.matrix.chosen.count ?? 0)
    }

    /// Whether the file open in `reading` is no longer as it was when it was opened.
    static func changed(_ reading: RecoveryReading) -> Bool {
        guard let now = try? reading.file.status() else { return true }
        return !now.isUnchanged(comparedTo: reading.status)
    }

    /// `not_repairable` for a file longer than the one its set describes that does not say it ends there
    /// (`Spec/recovery-par2.md` §7.1).
    static func longer(_ reading: RecoveryReading, survey: SliceSurvey) -> GoshuinError {
        let described = survey.index.targetFile.description.length
        return GoshuinError(
            .notRepairable,
            "\(DisplayText.quoted(reading.path)) holds \(reading.length) bytes, \(reading.length - described) more"
                + " than the \(described) its recovery set describes, and does not say that it ends there; a repair"
                + " would cut them off, which a recovery set cannot decide (it may have been made of a copy cut"
                + " short): nothing was written",
            context: RecoveryVerification(reading, survey: survey, repairable: false))
    }

    /// Gives the repaired file the damaged one's owner and group where the caller may (root repairing a
    /// person's file keeps it theirs; an owner keeps its group when it belongs to it), then its permission bits.
    static func keepOwnership(of original: FileStatus, on output: AtomicOutput) throws {
        let current = try describingFailure("cannot examine \(DisplayText.quoted(output.temporaryPath))") {
            try output.descriptor.status()
        }
        if current.owner != original.owner || current.group != original.group {
            if (try? output.descriptor.setOwner(original.owner, group: original.group)) == nil {
                try? output.descriptor.setOwner(current.owner, group: original.group)
            }
        }
        try? output.descriptor.setPermissions(original.permissions)
    }

    /// Writes the repaired file into `output` and returns its MD5: the unknown slices rebuilt at their places
    /// (``SliceRebuild``), the intact ones copied from the damaged file (``SliceCopy``), and the whole file
    /// hashed in order from `rebuilt` (the output read back) as each block is complete, all in one pool, so the
    /// sequential MD5 of the start overlaps the rebuilding.
    static func rebuildAndAssemble(
        _ survey: SliceSurvey, rebuild: SliceRebuild?, from file: FileDescriptor, into output: AtomicOutput,
        rebuilt: FileDescriptor, workers: Int, progress: RecoveryProgressHandler?
    ) throws -> [UInt8] {
        let index = survey.index
        let sliceSize = index.sliceSize
        let length = index.targetFile.description.length
        let firstSlice = index.targetFile.firstSlice
        let outputName = output.temporaryPath
        let recoveryFiles = try rebuild?.openRecoveryFiles() ?? [:]
        defer { for recoveryFile in recoveryFiles.values { try? recoveryFile.close() } }
        let descriptor = output.descriptor
        let starts = survey.unknown.prefix(survey.damagedCount).map { UInt64($0 - firstSlice) * sliceSize }
        let rebuilding = try rebuild?.combiner(recoveryFiles: recoveryFiles) { output, offset, bytes in
            let start = starts[output] + offset
            guard start < length else { return }
            let count = Int(min(UInt64(bytes.count), length - start))
            try describingFailure("cannot write \(DisplayText.quoted(outputName))") {
                try descriptor.writeAll(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), atOffset: Int64(start))
            }
        }
        let states = survey.states
        let intact = survey.known.filter { $0.slice >= firstSlice && $0.slice < firstSlice + states.count }.map {
            (slice: $0.slice - firstSlice, region: $0.region)
        }
        let copies = SliceCopy(intact, to: output.descriptor, name: outputName)
        let blockSize = UInt64(SequentialHashChain.blockSize)
        let chain = try SequentialHashChain(
            length: length,
            reader: { offset, buffer in
                try SliceRegion(file: rebuilt, start: offset, available: buffer.count, name: outputName).read(
                    at: 0, into: buffer, toleratingShortFiles: false)
            },
            gate: { block in
                // Every slice the block touches is copied, or rebuilt.
                let end = min(length, UInt64(block + 1) * blockSize)
                return copies.areInPlace(through: Int((end - 1) / sliceSize), rebuilt: rebuilding?.isFinished ?? true)
            })
        let components: [any WorkComponent] = [chain] + (rebuilding.map { [$0] } ?? []) + [copies]
        let total = UInt64(survey.damagedCount) * sliceSize
        try ComponentQueue.run(components, workers: workers) {
            if let rebuilding, !rebuilding.isFinished {
                let share =
                    Double(rebuilding.bytesDone.load(ordering: .relaxed)) / Double(max(1, rebuilding.sourceBytes))
                progress?(.rebuilding(bytesDone: UInt64(Double(total) * min(1, share)), bytesTotal: total))
            } else {
                progress?(.writing(bytesDone: chain.bytesDone.load(ordering: .relaxed), bytesTotal: length))
            }
        }
        try describingFailure("cannot write \(DisplayText.quoted(outputName))") { try output.descriptor.sync() }
        return try chain.digest()
    }

    /// The temporary file of `output`, open for writing only, opened again for reading (the rebuilt slices are
    /// read back, and the structure checked), and checked to be the same file.
    static func readBack(_ output: AtomicOutput) throws -> FileDescriptor {
        let name = output.temporaryPath
        let reading = try FileSystem.openRegularFile(name)
        do {
            let same = try describingFailure("cannot examine \(DisplayText.quoted(name))") {
                try reading.fileIdentity() == output.descriptor.fileIdentity()
            }
            guard same else {
                throw GoshuinError(
                    .io, "the temporary file \(DisplayText.quoted(name)) was replaced while being written")
            }
            return reading
        } catch {
            try? reading.close()
            throw error
        }
    }

    /// For a file that starts as a `.goshuin` file does: its structure, checks 1–9 of `Spec/container-v1.md`
    /// or 1–8 of `Spec/container-v2.md` (no key).
    static func checkStructure(_ file: FileDescriptor) throws {
        let start = try FileSystem.read(file, at: 0, count: 4)
        guard start == Header.magic else { return }
        do {
            _ = try ContainerStructure.validate(file)
        } catch let error as GoshuinError where error.code.category == .container {
            throw GoshuinError(
                .repairCheckFailed,
                "the rebuilt file matches the recovery set but is not a well-formed .goshuin file (\(error.code):"
                    + " \(error.message)); nothing was written")
        }
    }

    private static func destinationPath(_ destination: Destination, path: String) -> (String, Bool) {
        switch destination {
        case .file(let target, let replace): return (target, replace)
        case .inPlace: return (path, true)
        }
    }
}
