/// Sees the sealed file's bytes as they are written, in file order (the header, then each record), on the
/// thread that feeds the sealer: what `seal --recovery` computes a recovery set from without reading the file
/// back.
package protocol SealedBytesObserver: AnyObject {
    /// The next bytes of the file.
    func sealed(_ bytes: UnsafeRawBufferPointer) throws
}

/// Sees every byte of a payload once, in order, before it is sealed: on a thread of its own in a
/// ``StreamingSealer``, so that hashing what is sealed takes a core of its own.
package protocol PayloadObserver: AnyObject, Sendable {
    /// The payload's bytes from `offset`.
    func observe(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
}

/// Seals a payload handed over piece by piece, in order, into a regular file, on every core: the caller's
/// thread fills chunk records (copying bytes in, or reading a file straight into them); an observer, when
/// there is one, sees each record's plaintext in order on a worker of its own; other workers seal full
/// records and write them at the offsets the geometry gives (`Spec/container-v1.md` §3, §5;
/// `Spec/container-v2.md` §3, §5). The bytes are those the sequential sealer writes for the same payload.
///
/// Version 1 needs the payload's length first (it is in the header). Version 2 does not: every full record
/// is sealed as soon as it is full (a full record is never the final one), and ``finish()`` seals what is
/// left as the flagged final record, after every other record was written (§6), so a sealer stopped at any
/// moment leaves a file that does not open.
///
/// Memory is a few chunk records, within the chunk memory budget (`Spec/decisions/0010`), whatever the
/// payload's size. ``finish()`` seals the last record and checks that exactly the announced length came;
/// on any error the output holds garbage and must be discarded (write it through an ``AtomicOutput``).
///
/// Outside the package it is met only inside ``KeyedHeader/seal(progress:_:)``, which writes into a
/// temporary beside the destination and finishes the sealer itself.
public final class StreamingSealer {
    private let output: FileDescriptor
    private let keyed: KeyedHeader
    private let geometry: ChunkGeometry
    /// The payload's length when it was announced (always in version 1); `nil` for a stream.
    private let announcedLength: UInt64?
    /// The layout the announced length gives.
    private let layout: ContainerLayout?
    /// The plaintext bytes a record buffer holds.
    private let recordCapacity: Int
    private let progress: ProgressHandler?
    /// Shown every record once written, in index order, by this thread (``SealingQueue/takeSealed()``).
    private let sealedBytes: SealedBytesObserver?
    private let pool: WorkerPool<SealingQueue>
    /// The record being filled: its chunk index, how many plaintext bytes it holds, how many of them the
    /// observer has seen.
    private var current: Filling?
    private var bytesTaken: UInt64 = 0
    private var finished = false

    /// A record being filled.
    private struct Filling {
        let buffer: AllocatedBytes
        let index: UInt64
        var filled: Int
        var observed: Int
    }

    /// Writes the header into `output` and starts the workers.
    ///
    /// - Parameter plaintextLength: the payload's length; required in version 1, `nil` in version 2 for a
    ///   stream whose length is learnt at its end.
    package init(
        into output: FileDescriptor, header keyed: KeyedHeader, plaintextLength: UInt64?, workerCount: Int,
        observer: PayloadObserver?, sealedBytes: SealedBytesObserver? = nil, progress: ProgressHandler?
    ) throws {
        self.output = output
        self.keyed = keyed
        geometry = keyed.geometry
        announcedLength = plaintextLength
        layout = plaintextLength.map { ContainerLayout(geometry: keyed.geometry, plaintextLength: $0) }
        precondition(layout != nil || geometry.version == .v2, "version 1 is sealed with its length announced")
        recordCapacity = Int(min(UInt64(geometry.chunkSize), plaintextLength ?? UInt64(geometry.chunkSize)))
        self.progress = progress
        try describingFailure("cannot write the output") {
            try keyed.bytes.withUnsafeBytes { try output.writeAll($0, atOffset: 0) }
        }
        try keyed.bytes.withUnsafeBytes { try sealedBytes?.sealed($0) }
        self.sealedBytes = sealedBytes
        let workerCount = max(1, min(workerCount, Int(min(layout?.chunkCount ?? 64, 64))))
        let recordLength = geometry.recordLength(plaintextLength: recordCapacity)
        // One record per worker, one the observer reads, and two the caller fills meanwhile; within the
        // budget, at least two.
        let wanted = ChunkMemoryBudget.bufferCount(
            wanted: workerCount + (observer == nil ? 2 : 3), bufferSize: recordLength)
        var buffers = [try AllocatedBytes(count: recordLength, wipesOnRelease: true)]
        while buffers.count < max(2, wanted),
            let buffer = try? AllocatedBytes(count: recordLength, wipesOnRelease: true)
        {
            buffers.append(buffer)
        }
        // One worker more when there is an observer: worker 0 observes, and seals when it has nothing to see.
        pool = try WorkerPool(
            SealingQueue(free: buffers, observing: observer != nil, showing: sealedBytes != nil),
            workers: min(workerCount, buffers.count - 1) + (observer == nil ? 0 : 1),
            Self.runner(observer: observer, keyed: keyed, output: output))
    }

    /// How many payload bytes were appended so far.
    package var bytesSealed: UInt64 { bytesTaken }

    /// Appends `bytes` to the payload.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let space = try currentSpace()
            let count = min(space.count, bytes.count - offset)
            UnsafeMutableRawBufferPointer(rebasing: space[0..<count]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            try advance(by: count)
            offset += count
        }
    }

    /// Appends `count` bytes read from `file` at its position straight into the chunk records, handing each
    /// piece to `observe` as it arrives; returns how many bytes the file gave, fewer at its end.
    package func append(
        readingFrom file: FileDescriptor, count: UInt64, observe: (UnsafeRawBufferPointer) throws -> Void = { _ in }
    ) throws -> UInt64 {
        var done: UInt64 = 0
        while done < count {
            let space = try currentSpace()
            let wanted = Int(min(UInt64(space.count), count - done))
            let received = try describingFailure("cannot read the input") {
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: space[0..<wanted]))
            }
            if received == 0 { break }
            try observe(UnsafeRawBufferPointer(rebasing: space[0..<received]))
            try advance(by: received)
            done += UInt64(received)
        }
        return done
    }

    /// Waits until the observer has seen every byte appended so far, the record being filled included.
    package func waitForObserver() throws {
        if var filling = current, filling.observed < filling.filled {
            let sighting = SealingQueue.Sighting(
                index: filling.index, buffer: filling.buffer, range: filling.observed..<filling.filled, thenSeal: false)
            pool.queue.withLock { $0.observe(sighting) }
            filling.observed = filling.filled
            current = filling
        }
        try pool.queue.wait(until: { $0.isObserved || $0.failure != nil }) { queue in
            if let failure = queue.failure { throw failure }
        }
    }

    /// Seals the last record, waits for every record to be written, and checks that the payload had exactly
    /// the announced length; returns the header of the file written. In version 2 the final record, what is
    /// left (0 … chunkSize − 1 bytes), is sealed and written here, after every other record was written.
    @discardableResult
    package func finish() throws -> Header {
        precondition(!finished, "a streaming sealer is finished once")
        finished = true
        if let announcedLength, bytesTaken != announcedLength {
            pool.endAndJoin()
            throw GoshuinError(
                .io,
                "the payload has \(bytesTaken) bytes where \(announcedLength) were announced; it changed while being"
                    + " sealed")
        }
        switch geometry.version {
        case .v1:
            if let current { submit(current) }
            current = nil
            try endWork()
        case .v2:
            if observing { try waitForObserver() }
            try endWork()
            try sealFinalRecord()
        }
        progress?(.payload(bytesDone: bytesTaken, bytesTotal: bytesTaken))
        return try keyed.header(plaintextLength: bytesTaken)
    }

    /// Version 2's final record: what is left of the payload, flagged, at the index after the last full one.
    private func sealFinalRecord() throws {
        let index = geometry.chunkIndex(containing: bytesTaken)
        let filled = current?.filled ?? 0
        let buffer = try current?.buffer ?? AllocatedBytes(count: geometry.recordOverhead, wipesOnRelease: true)
        current = nil
        let record = UnsafeMutableRawBufferPointer(
            rebasing: buffer.bytes[0..<geometry.recordLength(plaintextLength: filled)])
        try keyed.cipher().sealRecord(record, index: index, final: true)
        try describingFailure("cannot write the output") {
            try output.writeAll(UnsafeRawBufferPointer(record), atOffset: Int64(geometry.recordOffset(ofChunk: index)))
        }
        // Every earlier record was shown (``endWork()``).
        try sealedBytes?.sealed(UnsafeRawBufferPointer(record))
    }

    /// The free plaintext part of the record being filled, a new record taken when there is none.
    private func currentSpace() throws -> UnsafeMutableRawBufferPointer {
        try Interruption.check()
        guard !finished else {
            throw GoshuinError(.invalidArgument, "the payload is sealed already; nothing more can be added to it")
        }
        if let announcedLength, bytesTaken >= announcedLength {
            throw GoshuinError(.io, "the payload grew beyond the \(announcedLength) bytes announced")
        }
        if current == nil {
            current = Filling(
                buffer: try takeRecord(), index: geometry.chunkIndex(containing: bytesTaken), filled: 0, observed: 0)
        }
        guard let current else { preconditionFailure("a record is being filled") }
        let start = geometry.plaintextStart + current.filled
        let end = geometry.plaintextStart + capacity(ofChunk: current.index)
        return UnsafeMutableRawBufferPointer(rebasing: current.buffer.bytes[start..<end])
    }

    /// The plaintext bytes chunk `index` takes before it goes on to be sealed: its length in version 1;
    /// in version 2 a full chunk (the final one is sealed by ``finish()`` with what is left).
    private func capacity(ofChunk index: UInt64) -> Int {
        guard geometry.version == .v1, let layout else { return recordCapacity }
        return layout.plaintextLength(ofChunk: index)
    }

    /// Counts `count` bytes as filled into the current record; a full record goes on to be sealed.
    private func advance(by count: Int) throws {
        guard var filling = current else { return }
        filling.filled += count
        bytesTaken += UInt64(count)
        let full =
            geometry.version == .v1
            ? filling.filled == capacity(ofChunk: filling.index) : filling.filled == Int(geometry.chunkSize)
        guard full else {
            current = filling
            return
        }
        // Version 2's final record needs an index of its own after this one (§10.2).
        if geometry.version == .v2, filling.index == Header.maximumChunkCount - 1 {
            throw GoshuinError(
                .tooManyChunks,
                "the payload needs more than 2^32 records of \(geometry.chunkSize) bytes; seal it with a larger"
                    + " chunk size")
        }
        submit(filling)
        current = nil
        if let announcedLength {
            progress?(.payload(bytesDone: bytesTaken, bytesTotal: announcedLength))
        } else {
            progress?(.streamed(bytesDone: bytesTaken))
        }
    }

    /// Whether a payload observer sees the records.
    private var observing: Bool { pool.queue.withLock { $0.observing } }

    /// Hands a record on: to the observer for what it has not seen, then to the workers.
    private func submit(_ record: Filling) {
        pool.queue.withLock { queue in
            if queue.observing {
                queue.observe(
                    SealingQueue.Sighting(
                        index: record.index, buffer: record.buffer, range: record.observed..<record.filled,
                        thenSeal: true))
            } else {
                queue.seal(SealingQueue.Record(index: record.index, buffer: record.buffer, length: record.filled))
            }
        }
    }

    /// A record to fill: a free one, or the next sealed one once shown to the sealed bytes' observer.
    private func takeRecord() throws -> AllocatedBytes {
        let (buffer, toShow) = try pool.queue.wait(until: { $0.hasRecordForCaller }) { try $0.takeRecord() }
        if let toShow { try show(toShow) }
        return buffer
    }

    /// Shows a sealed record to the sealed bytes' observer.
    private func show(_ record: SealingQueue.Record) throws {
        let length = geometry.recordLength(plaintextLength: record.length)
        try sealedBytes?.sealed(UnsafeRawBufferPointer(rebasing: record.buffer.bytes[0..<length]))
    }

    /// Ends the workers once every record handed over is sealed, then shows what is left to show.
    private func endWork() throws {
        pool.endAndJoin()
        try pool.queue.withLock { queue in
            if let failure = queue.failure { throw failure }
        }
        while let record = pool.queue.withLock({ $0.takeSealed() }) { try show(record) }
    }
}
