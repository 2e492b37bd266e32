/// What a damaged or cut file still holds (`Spec/container-v1.md` §7.4, `Spec/container-v2.md` §7.3): every
/// chunk that is present is authenticated, the damaged and missing ones are named, the passphrase is decided
/// as the version decides it (version 1's probe, version 2's header MAC), and a reader lends the bytes of
/// the chunks that authenticate, and only those.
///
/// In version 2 the end of the payload is known only when the final record authenticates: a last record
/// that fails, or a cut at a record boundary, leaves the final chunk damaged or missing and the length
/// after it unknown.
package final class ContainerSalvage {
    /// What became of a chunk that is not intact.
    package enum ChunkState: String, Sendable {
        /// Present but it does not authenticate (or its length prefix is wrong).
        case damaged
        /// Not in the file: it was cut before its end.
        case missing
    }

    /// A run of payload bytes that is lost: its range, its chunks and what became of them.
    package struct LostRange: Equatable, Sendable {
        /// The payload's bytes, `start..<end`.
        package let bytes: Range<UInt64>
        /// The chunks, `first...last`.
        package let chunks: ClosedRange<UInt64>
        /// Damaged or missing (a run holds chunks of one state).
        package let state: ChunkState
    }

    /// The header (its own checks passed; authentic: by its MAC in version 2, in version 1 since a chunk
    /// authenticated with it as additional data).
    package let header: Header
    /// The file's size.
    package let fileSize: UInt64
    /// The damaged chunks, ascending.
    package let damagedChunks: [UInt64]
    /// The first missing chunk (every chunk from it on is missing); `nil` when the file is not cut.
    package let firstMissingChunk: UInt64?
    /// The bytes after the last chunk, ignored.
    package let trailingBytes: UInt64
    /// Lends the bytes of the chunks that authenticate; reading a lost chunk's byte is an error.
    package let reader: DecryptingReader
    private let damaged: Set<UInt64>

    /// Surveys the regular file open at `input`: the checks of its header alone (version 1's 1–7, version
    /// 2's 1–7), then `passphrase` evaluated, the keys derived and, in version 2, the header MAC verified,
    /// then every chunk present authenticated (in parallel).
    ///
    /// - Throws: the header's code; `auth_failed` when version 2's MAC does not verify or version 1's probe
    ///   (§7.1) says the passphrase is wrong (nothing is lent then); `io`.
    package convenience init(
        _ input: FileDescriptor, passphrase: @autoclosure () throws -> Passphrase, progress: ProgressHandler? = nil
    ) throws {
        let header = try Self.header(of: input)
        let container = try LockedContainer(input, header: header).unlock(with: passphrase(), progress: progress)
        try self.init(container, progress: progress)
    }

    /// The header of a file that may be cut or damaged: version 1's as stored; version 2's with the payload
    /// length its size implies, or, when its last record is shorter than a tag (a cut at a record boundary),
    /// the length of its full records, the final one missing.
    package static func header(of input: FileDescriptor) throws -> Header {
        let fileSize = try ContainerStructure.regularFileSize(of: input)
        let bytes = try FileSystem.read(input, at: 0, count: ContainerStructure.headerReadLength)
        switch try ContainerStructure.version(headerBytes: bytes, fileSize: fileSize) {
        case .v1:
            return try Header.decode(bytes)
        case .v2:
            let fields = try ContainerStructure.v2Fields(headerBytes: bytes, fileSize: fileSize)
            do {
                let layout = try ContainerLayout.v2(chunkSize: fields.chunkSize, fileSize: fileSize)
                return try Header(validating: fields, plaintextLength: layout.plaintextLength)
            } catch let error as GoshuinError where error.code == .truncated {
                let geometry = ChunkGeometry(version: .v2, chunkSize: fields.chunkSize)
                let fullRecords = (fileSize - UInt64(FormatVersion.v2.headerLength)) / UInt64(geometry.fullRecordLength)
                return try Header(validating: fields, plaintextLength: fullRecords * UInt64(fields.chunkSize))
            }
        }
    }

    /// Surveys the file of `container`, unlocked.
    package init(_ container: UnlockedContainer, progress: ProgressHandler? = nil) throws {
        let input = container.input
        let header = container.header
        fileSize = try ContainerStructure.regularFileSize(of: input)
        self.header = header
        let layout = header.layout
        trailingBytes = fileSize > layout.expectedFileSize ? fileSize - layout.expectedFileSize : 0
        // Chunk i is present when the file holds its whole record.
        var present = layout.chunkCount
        if fileSize < layout.expectedFileSize {
            let record = UInt64(layout.geometry.fullRecordLength)
            present = min(layout.chunkCount, (fileSize - UInt64(layout.version.headerLength)) / record)
        }
        firstMissingChunk = present < layout.chunkCount ? present : nil
        let key = container.payloadKey
        let failing = try Self.survey(input, header: header, key: key, present: present, progress: progress)
        damagedChunks = failing
        let failingSet = Set(failing)
        damaged = failingSet
        // Version 1's §7.1 with missing chunks failing too: nothing in chunks 0…3 authenticates → wrong
        // passphrase. Version 2's MAC already said the passphrase is right.
        if layout.version == .v1 {
            let probe = (0..<min(ChunkVerdict.v1ProbeWindow, layout.chunkCount)).contains { index in
                index < present && !failingSet.contains(index)
            }
            guard probe else { throw GoshuinError.authenticationFailed }
        }
        reader = try DecryptingReader(
            input, header: header, key: key, authenticatingFinalChunkFirst: false, salvaging: true)
    }

    /// Writes the payload into the empty regular file `output`: every chunk that authenticates at its offset,
    /// zeros in the lost ranges (`container-v1.md` §7.4).
    package func write(into output: FileDescriptor) throws {
        try describingFailure("cannot write the output") { try output.setSize(Int64(header.plaintextLength)) }
        let layout = header.layout
        let present = firstMissingChunk ?? layout.chunkCount
        var index: UInt64 = 0
        while index < present {
            try Interruption.check()
            guard isIntact(chunk: index) else {
                index += 1
                continue
            }
            let offset = layout.plaintextOffset(ofChunk: index)
            let length = UInt64(layout.plaintextLength(ofChunk: index))
            var position = offset
            _ = try reader.forEachPiece(at: offset, count: length) { piece in
                try describingFailure("cannot write the output") {
                    try output.writeAll(piece, atOffset: Int64(position))
                }
                position += UInt64(piece.count)
            }
            index += 1
        }
    }

    /// Whether chunk `index` authenticates.
    package func isIntact(chunk index: UInt64) -> Bool {
        !damaged.contains(index) && firstMissingChunk.map { index < $0 } ?? true
    }

    /// Whether the payload's end is known: from version 1's header; in version 2 only when the final chunk
    /// authenticates (`container-v2.md` §7.3).
    package var endKnown: Bool { header.version == .v1 || isIntact(chunk: header.layout.finalChunk) }

    /// The payload bytes the chunks present in the file cover: `0..<presentEnd`.
    package var presentEnd: UInt64 {
        firstMissingChunk.map { header.layout.plaintextOffset(ofChunk: $0) } ?? header.plaintextLength
    }

    /// What became of the chunks of payload bytes `range` that are not intact: `nil` when no byte of it lies
    /// in a damaged or missing chunk (a byte past a known end is in neither: the caller refuses it),
    /// otherwise the lost chunks' range and `damaged` when one of them is damaged, else `missing`. A byte past
    /// what the file holds is missing when it lies before the payload's known end, or anywhere once the end is
    /// unknown (a cut version 2 file); its chunks are then counted on past the file's, as `Spec/backup-v1.md`
    /// §4.2 and the page count them.
    package func loss(in range: Range<UInt64>) -> (chunks: ClosedRange<UInt64>, state: ChunkState)? {
        guard !range.isEmpty else { return nil }
        let layout = header.layout
        let chunkSize = UInt64(layout.chunkSize)
        let first = range.lowerBound / chunkSize
        let last = (range.upperBound - 1) / chunkSize
        // Damaged: a chunk among those that hold the range's bytes the file still holds (a damaged empty final
        // chunk holds none). By binary search: a range may cover 2^32 chunks, and so may the damaged ones.
        var damagedRun: ClosedRange<UInt64>? = nil
        if range.lowerBound < presentEnd {
            let lastPresent = (min(range.upperBound, presentEnd) - 1) / chunkSize
            let low = damagedChunks.firstIndex(notBelow: first)
            let high = damagedChunks.firstIndex(notBelow: lastPresent + 1)
            if low < high { damagedRun = damagedChunks[low]...damagedChunks[high - 1] }
        }
        // Missing: bytes in missing chunks before a known end, or past what the file holds once it is unknown.
        let endKnown = self.endKnown
        let end = header.plaintextLength
        guard range.upperBound > presentEnd, !endKnown || (range.lowerBound < end && presentEnd < end) else {
            return damagedRun.map { ($0, .damaged) }
        }
        let present = firstMissingChunk ?? layout.chunkCount
        let missingFirst = max(first, present)
        let missingRun = missingFirst...max(missingFirst, endKnown ? min(last, layout.chunkCount - 1) : last)
        guard let damagedRun else { return (missingRun, .missing) }
        return (
            min(damagedRun.lowerBound, missingRun.lowerBound)...max(damagedRun.upperBound, missingRun.upperBound),
            .damaged
        )
    }

    /// The lost ranges of the payload, ascending, adjacent chunks of one state merged.
    package var lostRanges: [LostRange] {
        let layout = header.layout
        var runs: [(chunks: ClosedRange<UInt64>, state: ChunkState)] = []
        for index in damagedChunks {
            if let last = runs.last, last.state == .damaged, last.chunks.upperBound + 1 == index {
                runs[runs.count - 1].chunks = last.chunks.lowerBound...index
            } else {
                runs.append((index...index, .damaged))
            }
        }
        if let missing = firstMissingChunk { runs.append((missing...layout.chunkCount - 1, .missing)) }
        return runs.map { run in
            let start = layout.plaintextOffset(ofChunk: run.chunks.lowerBound)
            let end =
                layout.plaintextOffset(ofChunk: run.chunks.upperBound)
                + UInt64(layout.plaintextLength(ofChunk: run.chunks.upperBound))
            return LostRange(bytes: start..<end, chunks: run.chunks, state: run.state)
        }
    }

    /// Authenticates chunks `0..<present` on every core; returns those that fail, ascending.
    private static func survey(
        _ input: FileDescriptor, header: Header, key: SecretBytes, present: UInt64, progress: ProgressHandler?
    ) throws -> [UInt64] {
        guard present > 0 else { return [] }
        let layout = header.layout
        let workers = ChunkMemoryBudget.bufferCount(
            wanted: min(WorkerThreads.defaultWorkerCount, Int(min(present, 8))), bufferSize: layout.largestRecordLength
        )
        let surveyed = WorkerPool.run(SurveyQueue(present: present), workers: workers) { _ in
            let reader = try ChunkReader(input: input, header: header, key: key)
            return { index in
                do {
                    return try reader.authenticates(chunk: index)
                } catch let error as GoshuinError where error.code == .chunkLengthInvalid {
                    return false
                }
            }
        }
        if let failure = surveyed.failure { throw failure }
        progress?(.payload(bytesDone: header.plaintextLength, bytesTotal: header.plaintextLength))
        return surveyed.failing.sorted()
    }

    /// The chunks `0..<present`, each authenticated once by any worker.
    private struct SurveyQueue: WorkQueue {
        let present: UInt64
        private var nextIndex: UInt64 = 0
        /// The chunks that do not authenticate, in the order they were found.
        private(set) var failing: [UInt64] = []
        private(set) var failure: (any Error)?

        init(present: UInt64) { self.present = present }

        mutating func next(worker: Int) -> UInt64? {
            guard !isFinished else { return nil }
            nextIndex += 1
            return nextIndex - 1
        }

        var isFinished: Bool { failure != nil || nextIndex >= present }

        mutating func complete(_ index: UInt64, _ outcome: Result<Bool, any Error>) {
            switch outcome {
            case .success(let authentic): if !authentic { failing.append(index) }
            case .failure(let error): stop(error)
            }
        }

        mutating func stop(_ failure: any Error) { self.failure = self.failure ?? failure }

        mutating func end() { nextIndex = present }
    }
}

extension [UInt64] {
    /// The index of the first element not below `value` in this ascending array (its count when none is).
    fileprivate func firstIndex(notBelow value: UInt64) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
