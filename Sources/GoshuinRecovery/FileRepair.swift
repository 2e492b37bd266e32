import GoshuinFormat

/// `repair`: the damaged and missing slices of a file rebuilt from its recovery set, and the file written
/// again, checked, then moved into place (`Spec/recovery-par2.md` §7).
///
/// Three passes over the data: the slices are checked (``SliceSurvey``, on every core); the unknown slices are
/// rebuilt in one combination of the intact slices and the recovery slices chosen (``RecoveryMatrix``,
/// ``StripCombiner``), written at their places in a temporary file beside the destination; then the file is
/// written in order, intact slices copied from the damaged file, while its MD5 is computed. It goes out only
/// if that MD5 is the set's and, for a `.goshuin` file, its structure passes the checks that need no key.
enum FileRepair {
    /// The memory the combination coefficients of one pass may take (2 bytes per unknown per known slice).
    static let coefficientBudget = 32 << 20

    /// Where the repaired file goes.
    enum Destination: Equatable {
        /// A new file (replaced only if `replaceExisting`, and only a regular file).
        case file(String, replaceExisting: Bool)
        /// The damaged file itself, replaced only once the repaired one is complete and checked.
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
        let opened = try RecoveryReading.open(path: path, recoveryPath: recoveryPath, progress: progress)
        return try opened.file.closeAfter {
            let survey = try SliceSurvey.survey(
                file: opened.file, path: path, actualLength: opened.length, index: opened.index,
                hashingWholeFile: false,
                workers: workers, progress: progress)
            defer { survey.close() }
            let index = opened.index
            let description = index.targetFile.description
            if survey.isIntact {
                // Every slice matches: the whole MD5 decides, as for a verify.
                let confirmed = try RecoveryReading.wholeFileHash(opened.file, path: path, length: opened.length)
                guard confirmed == description.fileHash else {
                    throw GoshuinError(
                        .recoverySetInvalid,
                        "every slice of \(DisplayText.quoted(path)) matches the recovery set but the whole file's MD5"
                            + " does not: the set contradicts itself")
                }
                let verification = RecoveryVerification(
                    survey: survey.with(fileHashMatches: true), filePath: path, headerBytes: opened.headerBytes,
                    repairable: true)
                return Outcome(verification: verification, writtenTo: nil, recoverySlicesUsed: 0)
            }
            // Nothing to rebuild when every slice is intact but the file is longer: it is written again, cut.
            let solution = survey.unknown.isEmpty ? nil : try solve(survey, path: path)
            let verification = RecoveryVerification(
                survey: survey, filePath: path, headerBytes: opened.headerBytes, repairable: true)
            let (target, replace) = destinationPath(destination, path: path)
            let output = try AtomicOutput(destination: target, replaceExisting: replace)
            do {
                try describingFailure("cannot size \(DisplayText.quoted(output.temporaryPath))") {
                    try output.descriptor.setSize(Int64(description.length))
                }
                let rebuilt = try readBack(output)
                defer { try? rebuilt.close() }
                let hash = try rebuildAndAssemble(
                    survey, solution: solution, from: opened.file, path: path, into: output, rebuilt: rebuilt,
                    workers: workers, progress: progress)
                guard hash == description.fileHash else {
                    throw GoshuinError(
                        .repairCheckFailed,
                        "the rebuilt file's MD5 is not the one the recovery set gives: nothing was written (the set may"
                            + " have been made for another version of the file)")
                }
                try checkStructure(rebuilt)
                if destination == .inPlace, let permissions = try? opened.file.status().permissions {
                    try? output.descriptor.setPermissions(permissions)
                }
                try Interruption.check()
                try output.commit()
            } catch {
                output.discard()
                throw error
            }
            return Outcome(
                verification: verification, writtenTo: target, recoverySlicesUsed: solution?.matrix.chosen.count ?? 0)
        }
    }

    /// The recovery slices chosen and the matrix inverted, or why not.
    static func solve(_ survey: SliceSurvey, path: String) throws -> (matrix: RecoveryMatrix, exponents: [UInt32]) {
        let index = survey.index
        let available = index.recoverySlices.count
        let needed = survey.unknown.count
        let others = needed - survey.damagedCount
        let alsoOthers =
            others > 0 ? " (and \(others) slices of the set's other files, which are not beside it intact)" : ""
        guard needed <= available else {
            throw GoshuinError(
                .notRepairable,
                "\(survey.damagedCount) of the \(survey.states.count) slices of \(DisplayText.quoted(path)) are"
                    + " damaged or missing\(alsoOthers), and \(available) recovery slices are available:"
                    + " \(needed - available) more would be needed")
        }
        guard needed <= RecoveryMatrix.maximumUnknowns else {
            throw GoshuinError(
                .notRepairable,
                "\(needed) slices would have to be rebuilt at once; this toolkit rebuilds at most"
                    + " \(RecoveryMatrix.maximumUnknowns)")
        }
        let exponents = index.recoverySlices.map(\.exponent)
        guard let matrix = try RecoveryMatrix.solve(unknowns: survey.unknown, exponents: exponents) else {
            throw GoshuinError(
                .notRepairable,
                "\(survey.damagedCount) slices of \(DisplayText.quoted(path)) are damaged\(alsoOthers) and \(available)"
                    + " recovery slices are available, but no \(needed) of them are independent (PAR 2.0's matrix is"
                    + " singular for these slices)")
        }
        return (matrix, exponents)
    }

    /// Writes the repaired file into `output` and returns its MD5: the unknown slices rebuilt at their places
    /// (``StripCombiner``), the intact ones copied from the damaged file (``SliceCopy``), and the whole file
    /// hashed in order from `rebuilt` (the output read back) as each block is complete, all in one pool, so the
    /// sequential MD5 of the start overlaps the rebuilding. When the coefficients need more than one pass, the
    /// passes but the last run first.
    static func rebuildAndAssemble(
        _ survey: SliceSurvey, solution: (matrix: RecoveryMatrix, exponents: [UInt32])?, from file: FileDescriptor,
        path: String, into output: AtomicOutput, rebuilt: FileDescriptor, workers: Int,
        progress: RecoveryProgressHandler?
    ) throws -> [UInt8] {
        let index = survey.index
        let sliceSize = index.sliceSize
        let length = index.targetFile.description.length
        let firstSlice = index.targetFile.firstSlice
        let outputName = output.temporaryPath
        var recoveryFiles: [FileDescriptor] = []
        defer { for recoveryFile in recoveryFiles { try? recoveryFile.close() } }
        var last: StripCombiner?
        let total = UInt64(survey.damagedCount) * sliceSize
        var done: UInt64 = 0
        if let solution {
            let chosen = solution.matrix.chosen.map { index.recoverySlices[$0] }
            for location in chosen {
                recoveryFiles.append(try FileSystem.openRegularFile(index.recoveryFiles[location.file]))
            }
            let recoveryRegions = zip(chosen, recoveryFiles).map { location, recoveryFile in
                SliceRegion(
                    file: recoveryFile, start: location.dataOffset, available: Int(sliceSize),
                    name: index.recoveryFiles[location.file])
            }
            // Unknown m of the file is row m of the inverse (the file's unknowns come first).
            let perPass = max(1, coefficientBudget / max(1, 2 * survey.known.count))
            let passes = stride(from: 0, to: survey.damagedCount, by: perPass).map {
                Array($0..<min(survey.damagedCount, $0 + perPass))
            }
            for (number, pass) in passes.enumerated() {
                let combiner = try combiner(
                    survey, solution: solution.matrix, chosen: chosen, recoveryRegions: recoveryRegions, pass: pass,
                    into: output)
                guard number < passes.count - 1 else {
                    last = combiner
                    break
                }
                try WorkPool.run(ComponentSchedule([combiner]), workers: workers) {
                    progress?(.rebuilding(bytesDone: done, bytesTotal: total))
                }
                done += UInt64(pass.count) * sliceSize
            }
        }
        let states = survey.states
        let intact = survey.known.filter { $0.slice >= firstSlice && $0.slice < firstSlice + states.count }.map {
            (slice: $0.slice - firstSlice, region: $0.region)
        }
        let copies = SliceCopy(intact, to: output.descriptor, name: outputName)
        let rebuilding = last
        let ready = ReadyCount()
        let blockSize = UInt64(SequentialHashChain.blockSize)
        let chain = try SequentialHashChain(
            length: length,
            reader: { offset, buffer in
                try SliceRegion(file: rebuilt, start: offset, available: buffer.count, name: outputName).read(
                    at: 0, into: buffer, toleratingShortFiles: false)
            },
            gate: { block in
                // Every slice the block touches is copied, or rebuilt: the slices ready from the start are
                // counted once each, however often a worker asks.
                let end = min(length, UInt64(block + 1) * blockSize)
                let lastSlice = Int((end - 1) / sliceSize)
                while ready.count < states.count, ready.count <= lastSlice {
                    let slice = ready.count
                    guard states[slice] == .intact ? copies.isCopied(slice) : (rebuilding?.isFinished ?? true)
                    else { break }
                    ready.count += 1
                }
                return lastSlice < ready.count
            })
        let components: [any WorkComponent] = [chain] + (last.map { [$0] } ?? []) + [copies]
        let rebuiltBefore = done
        try WorkPool.run(ComponentSchedule(components), workers: workers) {
            if let rebuilding, !rebuilding.isFinished {
                let share =
                    Double(rebuilding.bytesDone.load(ordering: .relaxed)) / Double(max(1, rebuilding.sourceBytes))
                let part = UInt64(Double(UInt64(rebuilding.outputCount) * sliceSize) * min(1, share))
                progress?(.rebuilding(bytesDone: rebuiltBefore + part, bytesTotal: total))
            } else {
                progress?(.writing(bytesDone: chain.bytesDone.load(ordering: .relaxed), bytesTotal: length))
            }
        }
        try describingFailure("cannot write \(DisplayText.quoted(outputName))") { try output.descriptor.sync() }
        return try chain.digest()
    }

    /// The combination that rebuilds the unknowns `pass` (rows of the inverse) of the file into `output`, at
    /// their places.
    static func combiner(
        _ survey: SliceSurvey, solution matrix: RecoveryMatrix, chosen: [RecoverySliceLocation],
        recoveryRegions: [SliceRegion], pass: [Int], into output: AtomicOutput
    ) throws -> StripCombiner {
        let index = survey.index
        let sliceSize = index.sliceSize
        let length = index.targetFile.description.length
        let firstSlice = index.targetFile.firstSlice
        // B[m][j] = Σ_d inverse[m][d] · c_j^(e_d) for each known slice j: its coefficient in unknown m.
        var known = [[UInt16]](repeating: [UInt16](repeating: 0, count: survey.known.count), count: pass.count)
        for (d, location) in chosen.enumerated() {
            try Interruption.check()
            let row = survey.known.map {
                InputSliceConstants.coefficient(ofSlice: $0.slice, exponent: location.exponent)
            }
            for (position, unknown) in pass.enumerated() where matrix.inverse[unknown][d] != 0 {
                RecoveryMatrix.addMultiple(matrix.inverse[unknown][d], of: row, to: &known[position])
            }
        }
        let knownCoefficients = known
        let recoveryCoefficients = pass.map { matrix.inverse[$0] }
        let knownCount = survey.known.count
        let starts = pass.map { UInt64(survey.unknown[$0] - firstSlice) * sliceSize }
        let descriptor = output.descriptor
        let outputName = output.temporaryPath
        return try StripCombiner(
            sources: survey.known.map(\.region) + recoveryRegions, outputCount: pass.count, sliceSize: Int(sliceSize),
            coefficients: { source in
                source < knownCount
                    ? knownCoefficients.map { $0[source] } : recoveryCoefficients.map { $0[source - knownCount] }
            },
            delivery: { output, offset, bytes in
                let start = starts[output] + offset
                guard start < length else { return }
                let count = Int(min(UInt64(bytes.count), length - start))
                try describingFailure("cannot write \(DisplayText.quoted(outputName))") {
                    try descriptor.writeAll(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), atOffset: Int64(start))
                }
            },
            toleratingShortFiles: true)
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
        let start = try ContainerStructure.readAt(file, offset: 0, count: 4)
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

/// How many slices from the start of a file being repaired are in place: changed by the hash chain's gate,
/// under the pool's lock.
private final class ReadyCount: @unchecked Sendable {
    // @unchecked: read and changed only under the pool's lock.
    var count = 0
}
