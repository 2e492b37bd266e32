import GoshuinFormat

/// A file checked slice by slice against its recovery set (`Spec/recovery-par2.md` §7.1): each slice's MD5
/// and CRC-32 against the set's, at its place in the file; a slice the file no longer reaches is missing,
/// one it reaches only in part is read with zeros after the end. The other recoverable files of a set of
/// several are checked too when they are beside the set under a plain name, because their intact slices are
/// needed as much as this file's to solve for its damaged ones; those that are not there count as unknown.
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

    /// Checks the file open at `file` (named `path`, `actualLength` bytes long) against `index`, on `workers`
    /// workers; with `hashingWholeFile`, its whole MD5 too (one more pass, on another core).
    static func survey(
        file: FileDescriptor, path: String, actualLength: UInt64, index: RecoveryIndex, hashingWholeFile: Bool,
        workers: Int, progress: RecoveryProgressHandler?
    ) throws -> SliceSurvey {
        let sliceSize = index.sliceSize
        let target = index.targetFile
        let expectedLength = target.description.length
        let readable = min(actualLength, expectedLength)
        var regions: [SliceRegion] = []
        var owners: [(slice: Int, expected: SliceChecksumPacket.Checksum, target: Bool)] = []
        var states = [State](repeating: .missing, count: target.sliceCount)
        for slice in 0..<target.sliceCount {
            let start = UInt64(slice) * sliceSize
            guard start < readable else { continue }
            regions.append(
                SliceRegion(file: file, start: start, available: Int(min(sliceSize, readable - start)), name: path))
            guard let checksums = target.checksums else { preconditionFailure("the index has the file's checksums") }
            owners.append((target.firstSlice + slice, checksums.checksums[slice], true))
        }
        var otherFiles: [FileDescriptor] = []
        var unknownOthers: [Int] = []
        let folder = index.recoveryFiles.first.map { FileSystem.parentDirectory(of: $0) } ?? "."
        // The other files are hashed, padding included, only within twice what they hold and 64 MiB more
        // (`Spec/decisions/0049`): a set of many tiny files with huge slices costs no more than that.
        var othersBudget: UInt64 = 64 << 20
        for (position, other) in index.files.enumerated() where position != index.target {
            guard let checksums = other.checksums, let name = safeName(other.description.name),
                let descriptor = try? FileSystem.openRegularFile(folder + "/" + name)
            else {
                unknownOthers += other.firstSlice..<(other.firstSlice + other.sliceCount)
                continue
            }
            let size = (try? descriptor.regularFileSize()).flatMap { $0 }.map { UInt64($0) } ?? 0
            let otherReadable = min(size, other.description.length)
            let slicesHeld = (otherReadable + sliceSize - 1) / sliceSize
            othersBudget = othersBudget.addingReportingOverflow(2 * otherReadable).partialValue
            guard slicesHeld.multipliedReportingOverflow(by: sliceSize).partialValue <= othersBudget else {
                try? descriptor.close()
                unknownOthers += other.firstSlice..<(other.firstSlice + other.sliceCount)
                continue
            }
            othersBudget -= slicesHeld * sliceSize
            otherFiles.append(descriptor)
            for slice in 0..<other.sliceCount {
                let start = UInt64(slice) * sliceSize
                guard start < otherReadable else {
                    unknownOthers.append(other.firstSlice + slice)
                    continue
                }
                regions.append(
                    SliceRegion(
                        file: descriptor, start: start, available: Int(min(sliceSize, otherReadable - start)),
                        name: folder + "/" + name))
                owners.append((other.firstSlice + slice, checksums.checksums[slice], false))
            }
        }
        do {
            let hashing = SliceHashing(regions: regions, sliceSize: Int(sliceSize), toleratingShortFiles: true)
            var components: [any WorkComponent] = []
            let chain: SequentialHashChain?
            if hashingWholeFile, actualLength == expectedLength {
                let wholeFile = try SequentialHashChain(length: expectedLength) { offset, buffer in
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
            let work = regions.reduce(UInt64(0)) { $0 + UInt64($1.available) } + (chain == nil ? 0 : expectedLength)
            let shown = max(readable, 1)
            progress?(.verifying(bytesDone: 0, bytesTotal: shown))
            try WorkPool.run(ComponentSchedule(components), workers: workers) {
                let done = hashing.bytesDone.load(ordering: .relaxed) + (chain?.bytesDone.load(ordering: .relaxed) ?? 0)
                let part = Double(min(done, work)) / Double(max(work, 1))
                progress?(.verifying(bytesDone: UInt64(Double(shown) * part), bytesTotal: shown))
            }
            progress?(.verifying(bytesDone: shown, bytesTotal: shown))
            var known: [(Int, SliceRegion)] = []
            var unknownTarget: [Int] = []
            for (position, checksum) in hashing.checksums().enumerated() {
                let owner = owners[position]
                let matches = checksum == owner.expected
                if owner.target {
                    states[owner.slice - target.firstSlice] = matches ? .intact : .damaged
                }
                if matches {
                    known.append((owner.slice, regions[position]))
                } else if !owner.target {
                    unknownOthers.append(owner.slice)
                }
            }
            for (slice, state) in states.enumerated() where state != .intact {
                unknownTarget.append(target.firstSlice + slice)
            }
            let fileHashMatches = try chain.map { try $0.digest() == target.description.fileHash }
            return SliceSurvey(
                index: index, actualLength: actualLength, states: states, known: known,
                unknown: unknownTarget + unknownOthers.sorted(), fileHashMatches: fileHashMatches,
                otherFiles: otherFiles)
        } catch {
            for descriptor in otherFiles { try? descriptor.close() }
            throw error
        }
    }

    /// The same survey with the whole file's MD5 known.
    func with(fileHashMatches matches: Bool) -> SliceSurvey {
        SliceSurvey(
            index: index, actualLength: actualLength, states: states, known: known, unknown: unknown,
            fileHashMatches: matches, otherFiles: otherFiles)
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
