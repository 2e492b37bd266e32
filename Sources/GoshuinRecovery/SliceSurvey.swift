import GoshuinFormat

/// A file checked slice by slice against its recovery set (`Spec/recovery-par2.md` §7.1): each slice's MD5
/// and CRC-32 against the set's, at its place in the file; a slice the file no longer reaches is missing,
/// one it reaches only in part is read with zeros after the end. The other recoverable files of a set of
/// several are checked too when they are beside the set under a plain name, because their intact slices are
/// needed as much as this file's to solve for its damaged ones; those that are not there count as unknown.
///
/// The file's own slices are hashed once for every set with the same slice size (``FileSlices``), however many
/// sets are weighed against it (``SetMatching``).
struct SliceSurvey {
    /// What a slice is.
    enum State: Equatable, Sendable {
        /// Its MD5 and CRC-32 match.
        case intact
        /// The file holds it, but it does not match.
        case damaged
        /// The file ends before it.
        case missing
    }

    /// The set it was checked against.
    let index: RecoveryIndex
    /// The file's length now.
    let actualLength: UInt64
    /// The state of each of the file's slices.
    let states: [State]
    /// Every slice of the set whose content is known (intact, in this file or another): global index and where
    /// to read it.
    let known: [(slice: Int, region: SliceRegion)]
    /// The global indices of the slices of the set whose content is not known, this file's first.
    let unknown: [Int]
    /// The file's MD5 matches the set's, when it was computed.
    let fileHashMatches: Bool?
    /// The bytes that are not zero in the file's intact slices, each slice's counted up to
    /// ``FileSlices/nonZeroCounted``: evidence that the file is the set's (`Spec/decisions/0048`).
    let nonZeroIntactBytes: Int
    /// The descriptors of the other files opened; closed by ``close()``.
    private let otherFiles: [FileDescriptor]

    /// The slices of this file that need rebuilding.
    var damagedCount: Int { states.count { $0 != .intact } }
    /// The bytes of the file's intact slices (the file's bytes in them, padding left out).
    var intactBytes: UInt64 {
        let sliceSize = index.sliceSize
        let length = index.targetFile.description.length
        return states.enumerated().reduce(0) { total, entry in
            guard entry.element == .intact else { return total }
            let start = UInt64(entry.offset) * sliceSize
            return total + min(sliceSize, length - start)
        }
    }
    /// Whether the file is what the set describes.
    var isIntact: Bool { damagedCount == 0 && actualLength == index.targetFile.description.length }

    /// The file's slices as `index` lays them out: which are the length `slices` were hashed for.
    static func readableLength(of index: RecoveryIndex, actualLength: UInt64) -> UInt64 {
        min(actualLength, index.targetFile.description.length)
    }

    /// The file checked against `index`, from its slices hashed for the set's slice size (`slices`, whose
    /// length is ``readableLength(of:actualLength:)``). The other files of a set of several are hashed now,
    /// on `workers` workers, unless `otherFiles` is false (a set being weighed, not used): then their slices
    /// are left out.
    static func survey(
        _ slices: FileSlices, file: FileDescriptor, path: String, actualLength: UInt64, index: RecoveryIndex,
        otherFiles includingOthers: Bool, workers: Int, progress: RecoveryProgressHandler?
    ) throws -> SliceSurvey {
        let target = index.targetFile
        guard let checksums = target.checksums else { preconditionFailure("the index has the file's checksums") }
        precondition(slices.sliceSize == index.sliceSize, "the file hashed at the set's slice size")
        var states = [State](repeating: .missing, count: target.sliceCount)
        var known: [(slice: Int, region: SliceRegion)] = []
        var nonZero = 0
        for slice in 0..<min(target.sliceCount, slices.checksums.count) {
            guard slices.checksums[slice] == checksums.checksums[slice] else {
                states[slice] = .damaged
                continue
            }
            states[slice] = .intact
            known.append((target.firstSlice + slice, slices.regions[slice]))
            nonZero += slices.nonZero[slice]
        }
        var unknown = states.indices.filter { states[$0] != .intact }.map { target.firstSlice + $0 }
        var otherFiles: [FileDescriptor] = []
        if includingOthers, index.files.count > 1 {
            let others = try OtherFiles.survey(
                index, file: file, path: path, workers: workers, progress: progress)
            otherFiles = others.descriptors
            known += others.known
            unknown += others.unknown.sorted()
        } else {
            for (position, other) in index.files.enumerated() where position != index.target {
                unknown += other.firstSlice..<(other.firstSlice + other.sliceCount)
            }
        }
        let matches = slices.wholeFileHash.flatMap {
            actualLength == target.description.length ? $0 == target.description.fileHash : nil
        }
        return SliceSurvey(
            index: index, actualLength: actualLength, states: states, known: known, unknown: unknown,
            fileHashMatches: matches, nonZeroIntactBytes: nonZero, otherFiles: otherFiles)
    }

    /// The same survey with the whole file's MD5 known.
    func with(fileHashMatches matches: Bool) -> SliceSurvey {
        SliceSurvey(
            index: index, actualLength: actualLength, states: states, known: known, unknown: unknown,
            fileHashMatches: matches, nonZeroIntactBytes: nonZeroIntactBytes, otherFiles: otherFiles)
    }

    /// Closes the other files opened.
    func close() {
        for descriptor in otherFiles { try? descriptor.close() }
    }

    /// `name` as a path component when it is one: valid UTF-8, no `/`, no NUL, not `.` or `..`. A set's file
    /// names are the set writer's word only; nothing else is opened (and only for reading).
    static func safeName(_ name: [UInt8]) -> String? {
        guard let text = String(validating: name, as: UTF8.self), !name.contains(UInt8(ascii: "/")),
            !name.contains(0), text != ".", text != ".."
        else { return nil }
        return text
    }
}

/// The slices of the file being checked, at one slice size: each one's MD5 and CRC-32 (zero-padded) and how
/// many of its bytes are not zero, hashed once for every set of that slice size; with the whole file's MD5
/// when it is asked for (one more pass, on another core).
struct FileSlices {
    /// Each slice's bytes that are not zero are counted up to this: enough to tell a slice of data from one
    /// that matches by chance (`Spec/decisions/0048`: sixteen bytes).
    static let nonZeroCounted = 16

    /// The slice size.
    let sliceSize: UInt64
    /// The bytes of the file hashed, from its start.
    let readable: UInt64
    /// Each slice's checksums.
    let checksums: [SliceChecksumPacket.Checksum]
    /// Each slice's bytes that are not zero, up to ``nonZeroCounted``.
    let nonZero: [Int]
    /// Where each slice lies in the file.
    let regions: [SliceRegion]
    /// The MD5 of the file's first `readable` bytes, when it was asked for.
    let wholeFileHash: [UInt8]?

    /// The first `readable` bytes of `file` (named `path`) in slices of `sliceSize`, on `workers` workers;
    /// with `hashingWholeFile`, their MD5 too.
    static func hash(
        _ file: FileDescriptor, path: String, sliceSize: UInt64, readable: UInt64, hashingWholeFile: Bool,
        workers: Int, progress: RecoveryProgressHandler?
    ) throws -> FileSlices {
        let count = readable == 0 ? 0 : Int((readable - 1) / sliceSize + 1)
        let regions = (0..<count).map { slice in
            let start = UInt64(slice) * sliceSize
            return SliceRegion(file: file, start: start, available: Int(min(sliceSize, readable - start)), name: path)
        }
        let hashing = SliceHashing(regions: regions, sliceSize: Int(sliceSize), toleratingShortFiles: true)
        var components: [any WorkComponent] = []
        let chain: SequentialHashChain?
        if hashingWholeFile {
            let wholeFile = try SequentialHashChain(length: readable) { offset, buffer in
                try SliceRegion(file: file, start: offset, available: buffer.count, name: path).read(
                    at: 0, into: buffer, toleratingShortFiles: true)
            }
            components.append(wholeFile)
            chain = wholeFile
        } else {
            chain = nil
        }
        components.append(hashing)
        // Reported in the file's bytes: with its whole MD5, each byte is read twice, and counts once.
        let work = readable + (chain == nil ? 0 : readable)
        let shown = max(readable, 1)
        progress?(.verifying(bytesDone: 0, bytesTotal: shown))
        try ComponentQueue.run(components, workers: workers) {
            let done = hashing.bytesDone.load(ordering: .relaxed) + (chain?.bytesDone.load(ordering: .relaxed) ?? 0)
            let part = Double(min(done, work)) / Double(max(work, 1))
            progress?(.verifying(bytesDone: UInt64(Double(shown) * part), bytesTotal: shown))
        }
        progress?(.verifying(bytesDone: shown, bytesTotal: shown))
        let results = hashing.results()
        return FileSlices(
            sliceSize: sliceSize, readable: readable, checksums: results.map(\.checksum),
            nonZero: results.map(\.nonZero), regions: regions, wholeFileHash: try chain?.digest())
    }
}

/// The other recoverable files of a set of several, checked slice by slice where they are beside the set.
private enum OtherFiles {
    /// Their intact slices, their unknown ones and the descriptors opened (`Spec/decisions/0049`: they are
    /// hashed, padding included, only within twice what they hold and 64 MiB more; past that, unknown).
    static func survey(
        _ index: RecoveryIndex, file: FileDescriptor, path: String, workers: Int, progress: RecoveryProgressHandler?
    ) throws -> (known: [(slice: Int, region: SliceRegion)], unknown: [Int], descriptors: [FileDescriptor]) {
        let sliceSize = index.sliceSize
        var regions: [SliceRegion] = []
        var owners: [(slice: Int, expected: SliceChecksumPacket.Checksum)] = []
        var descriptors: [FileDescriptor] = []
        var unknown: [Int] = []
        let folder = index.recoveryFiles.first.map { FileSystem.parentDirectory(of: $0) } ?? "."
        var budget: UInt64 = 64 << 20
        for (position, other) in index.files.enumerated() where position != index.target {
            guard let checksums = other.checksums, let name = SliceSurvey.safeName(other.description.name),
                let descriptor = try? FileSystem.openRegularFile(folder + "/" + name)
            else {
                unknown += other.firstSlice..<(other.firstSlice + other.sliceCount)
                continue
            }
            let size = (try? descriptor.regularFileSize()).flatMap { $0 }.map { UInt64($0) } ?? 0
            let readable = min(size, other.description.length)
            let slicesHeld = (readable + sliceSize - 1) / sliceSize
            budget = budget.addingReportingOverflow(2 * readable).partialValue
            guard slicesHeld.multipliedReportingOverflow(by: sliceSize).partialValue <= budget else {
                try? descriptor.close()
                unknown += other.firstSlice..<(other.firstSlice + other.sliceCount)
                continue
            }
            budget -= slicesHeld * sliceSize
            descriptors.append(descriptor)
            for slice in 0..<other.sliceCount {
                let start = UInt64(slice) * sliceSize
                guard start < readable else {
                    unknown.append(other.firstSlice + slice)
                    continue
                }
                regions.append(
                    SliceRegion(
                        file: descriptor, start: start, available: Int(min(sliceSize, readable - start)),
                        name: folder + "/" + name))
                owners.append((other.firstSlice + slice, checksums.checksums[slice]))
            }
        }
        do {
            let hashing = SliceHashing(regions: regions, sliceSize: Int(sliceSize), toleratingShortFiles: true)
            try ComponentQueue.run([hashing], workers: workers)
            var known: [(slice: Int, region: SliceRegion)] = []
            for (position, result) in hashing.results().enumerated() {
                if result.checksum == owners[position].expected {
                    known.append((owners[position].slice, regions[position]))
                } else {
                    unknown.append(owners[position].slice)
                }
            }
            return (known, unknown, descriptors)
        } catch {
            for descriptor in descriptors { try? descriptor.close() }
            throw error
        }
    }
}
