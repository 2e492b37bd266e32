import GoshuinFormat
import Synchronization

/// The unknown slices of a file rebuilt from its set (`Spec/recovery-par2.md` §7.3–7.4,
/// `Spec/decisions/0049`): the recovery slices chosen (``RecoveryMatrix``), then, strip by strip, the syndromes
/// `s_d = recovery_d ⊕ Σ_known c_j^(e_d) · slice_j` (one per recovery slice chosen, started from its data) and
/// each of the file's unknown slices as `Σ_d inverse[m][d] · s_d` (``StripCombiner``'s transform). Nothing
/// here writes: the rebuilt bytes go to a ``StripCombiner/Delivery``.
struct SliceRebuild {
    /// The survey whose unknowns are rebuilt.
    let survey: SliceSurvey
    /// The recovery slices chosen and the inverse.
    let matrix: RecoveryMatrix

    /// The recovery slices chosen, or why the unknowns cannot be rebuilt.
    ///
    /// - Throws: `not_repairable` (more unknowns than recovery slices, more than ``RecoveryMatrix`` solves at
    ///   once, or too few independent ones), or `truncated` for a file cut short beyond the set's reach;
    ///   `out_of_memory`, `interrupted`.
    init(_ survey: SliceSurvey, path: String) throws {
        let index = survey.index
        let available = index.recoverySlices.count
        let needed = survey.unknown.count
        guard needed <= available, needed <= RecoveryMatrix.maximumUnknowns,
            let matrix = try RecoveryMatrix.solve(
                unknowns: survey.unknown, exponents: index.recoverySlices.map(\.exponent))
        else { throw Self.beyondReach(survey, path: path) }
        self.survey = survey
        self.matrix = matrix
    }

    /// Why `survey`'s unknowns cannot be rebuilt, in numbers (`Spec/recovery-par2.md` §7.2): `truncated` for a
    /// file cut short (copy it again), otherwise `not_repairable`.
    static func beyondReach(_ survey: SliceSurvey, path: String) -> GoshuinError {
        let index = survey.index
        let available = index.recoverySlices.count
        let needed = survey.unknown.count
        let others = needed - survey.damagedCount
        let alsoOthers =
            others > 0 ? " (and \(others) slices of the set's other files, which are not beside it intact)" : ""
        let why: String
        if needed > available {
            why = "\(needed - available) more would be needed"
        } else if let limit = limit(survey) {
            why =
                limit.exponentsNotInOneRun
                ? "no \(needed) of them have consecutive exponents, and this toolkit rebuilds at most"
                    + " \(limit.most) slices from recovery slices that do not"
                : "this toolkit rebuilds at most \(limit.most) at once"
        } else {
            why = "no \(needed) of them are independent (PAR 2.0's matrix is singular for these slices)"
        }
        let numbers =
            "\(survey.damagedCount) of the \(survey.states.count) slices of \(DisplayText.quoted(path)) are"
            + " damaged or missing\(alsoOthers), and \(available) recovery slices are available: \(why)"
        let expected = index.targetFile.description.length
        guard survey.actualLength < expected else { return GoshuinError(.notRepairable, numbers) }
        return GoshuinError(
            .truncated,
            "\(DisplayText.quoted(path)) is cut short: it holds \(survey.actualLength) of its \(expected) bytes, more"
                + " missing than its recovery files can rebuild (\(numbers)); copy it again from where it was saved")
    }

    /// The most unknowns this toolkit rebuilds at once from `survey`'s recovery slices, when there are enough of
    /// them but more unknowns than that: ``RecoveryMatrix/maximumUnknowns``, or
    /// ``RecoveryMatrix/eliminationMaximum`` when no run of as many of their exponents is consecutive; `nil`
    /// otherwise.
    static func limit(_ survey: SliceSurvey) -> RecoveryVerification.RebuildLimit? {
        let needed = survey.unknown.count
        let exponents = survey.index.recoverySlices.map(\.exponent)
        guard needed <= exponents.count else { return nil }
        if needed > RecoveryMatrix.maximumUnknowns {
            return .init(most: RecoveryMatrix.maximumUnknowns, exponentsNotInOneRun: false)
        }
        guard needed > RecoveryMatrix.eliminationMaximum,
            RecoveryMatrix.consecutiveRun(exponents, length: needed) == nil
        else { return nil }
        return .init(most: RecoveryMatrix.eliminationMaximum, exponentsNotInOneRun: true)
    }

    /// The combination that rebuilds the file's unknown slices, handing each one's bytes to `delivery` by its
    /// position among the file's unknowns (the first ``SliceSurvey/damagedCount`` of ``SliceSurvey/unknown``),
    /// reading the recovery slices chosen through `recoveryFiles` (open, by the index's file numbers).
    func combiner(recoveryFiles: [Int: FileDescriptor], delivery: @escaping StripCombiner.Delivery) throws
        -> StripCombiner
    {
        let index = survey.index
        let sliceSize = index.sliceSize
        let chosen = matrix.chosen.map { index.recoverySlices[$0] }
        let recoveryRegions = chosen.map { location in
            guard let file = recoveryFiles[location.file] else { preconditionFailure("every recovery file is open") }
            return SliceRegion(
                file: file, start: location.dataOffset, available: Int(sliceSize),
                name: index.recoveryFiles[location.file])
        }
        let exponents = chosen.map(\.exponent)
        let known = survey.known.map(\.slice)
        let transform = try WordMatrix(rows: survey.damagedCount, columns: chosen.count)
        for unknown in 0..<survey.damagedCount {
            let row = transform.row(unknown)
            for equation in 0..<chosen.count {
                row[equation] = matrix.coefficient(unknown: unknown, equation: equation)
            }
        }
        return try StripCombiner(
            sources: survey.known.map(\.region), accumulatorCount: chosen.count, sliceSize: Int(sliceSize),
            coefficients: { source in InputSliceConstants.coefficients(ofSlice: known[source], exponents: exponents) },
            delivery: delivery,
            start: { accumulator, offset, bytes in
                try recoveryRegions[accumulator].read(at: Int(offset), into: bytes, toleratingShortFiles: false)
            },
            transform: transform, toleratingShortFiles: true)
    }

    /// The recovery files the chosen slices lie in, opened for reading.
    func openRecoveryFiles() throws -> [Int: FileDescriptor] {
        var files: [Int: FileDescriptor] = [:]
        do {
            for location in matrix.chosen.map({ survey.index.recoverySlices[$0] }) where files[location.file] == nil {
                files[location.file] = try FileSystem.openRegularFile(survey.index.recoveryFiles[location.file])
            }
        } catch {
            for file in files.values { try? file.close() }
            throw error
        }
        return files
    }

    /// Whether the file's blocks that are what the rebuilt file holds at their place (blocks of `blockSize`
    /// at its multiples, cut at the end of what the file and the set both reach) hold `nonZeroBytes` bytes that
    /// are not zero (evidence that the file is a copy of the set's file, `Spec/decisions/0048` rule 3).
    /// Compares as the rebuilt bytes come; stops as soon as there are enough. Writes nothing.
    func blocksMatch(
        file: FileDescriptor, path: String, blockSize: UInt64, nonZeroBytes wanted: Int, workers: Int
    ) throws -> Bool {
        let index = survey.index
        let sliceSize = index.sliceSize
        let firstSlice = index.targetFile.firstSlice
        let end = min(survey.actualLength, index.targetFile.description.length)
        let starts = survey.unknown.prefix(survey.damagedCount).map { UInt64($0 - firstSlice) * sliceSize }
        let found = Atomic<Int>(0)
        let recoveryFiles = try openRecoveryFiles()
        defer { for recoveryFile in recoveryFiles.values { try? recoveryFile.close() } }
        let combiner = try combiner(recoveryFiles: recoveryFiles) { output, offset, bytes in
            let start = starts[output] + offset
            guard found.load(ordering: .relaxed) < wanted, start < end else { return }
            let count = Int(min(UInt64(bytes.count), end - start))
            let held = try AllocatedBytes(count: max(1, count), wipesOnRelease: false)
            let received = try describingFailure("cannot read \(DisplayText.quoted(path))") {
                try file.readFully(
                    into: UnsafeMutableRawBufferPointer(rebasing: held.bytes[0..<count]), atOffset: Int64(start))
            }
            var piece = start
            while piece < start + UInt64(received) {
                let pieceEnd = min((piece / blockSize + 1) * blockSize, start + UInt64(received))
                let range = Int(piece - start)..<Int(pieceEnd - start)
                let mine = UnsafeRawBufferPointer(rebasing: held.bytes[range])
                if ByteSearch.areEqual(mine, UnsafeRawBufferPointer(rebasing: bytes[range])) {
                    let nonZero = mine.count { $0 != 0 }
                    if found.add(nonZero, ordering: .relaxed).newValue >= wanted { throw EnoughEvidence() }
                }
                piece = pieceEnd
            }
        }
        do {
            try ComponentQueue.run([combiner], workers: workers)
        } catch is EnoughEvidence {
            return true
        }
        return found.load(ordering: .relaxed) >= wanted
    }

    /// Ends the comparison once there is evidence enough.
    private struct EnoughEvidence: Error {}
}
