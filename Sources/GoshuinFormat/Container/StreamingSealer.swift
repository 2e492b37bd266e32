/// Sees every byte of a payload once, in order, before it is sealed: on a thread of its own in a
/// ``StreamingSealer``, so that hashing what is sealed takes a core of its own.
package protocol PayloadObserver: AnyObject {
    /// The payload's bytes from `offset`.
    func observe(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
}

/// Seals a payload handed over piece by piece, in order, into a regular file, on every core: the caller's
/// thread fills chunk records (copying bytes in, or reading a file straight into them); an observer, when
/// there is one, sees each record's plaintext in order on a thread of its own; worker threads seal full
/// records and write them at the offsets the layout gives (`Spec/container-v1.md` §3, §5). The bytes are
/// those the sequential sealer writes for the same payload.
///
/// Memory is a few chunk records, within the chunk memory budget (`Spec/decisions/0010`), whatever the
/// payload's size. ``finish()`` seals the last record and checks that exactly `plaintextLength` bytes came;
/// on any error the output holds garbage and must be discarded (write it through an ``AtomicOutput``).
package final class StreamingSealer {
    private let output: FileDescriptor
    private let header: Header
    private let layout: ContainerLayout
    private let progress: ProgressHandler?
    private let state: SharedState
    private var threads: [SystemCall.Thread] = []
    /// The record being filled: its chunk index, how many plaintext bytes it holds, how many of them the
    /// observer has seen.
    private var current: (buffer: AllocatedBytes, index: UInt64, filled: Int, observed: Int)?
    private var bytesTaken: UInt64 = 0
    private var finished = false

    /// Writes the header into `output` and starts the threads.
    package init(
        into output: FileDescriptor, header: Header, key: SecretBytes, workerCount: Int, observer: PayloadObserver?,
        progress: ProgressHandler?
    ) throws {
        self.output = output
        self.header = header
        layout = header.layout
        self.progress = progress
        try describingFailure("cannot write the output") {
            try header.encode().withUnsafeBytes { try output.writeAll($0, atOffset: 0) }
        }
        let workerCount = max(1, min(workerCount, Int(min(layout.chunkCount, 64))))
        // One record per worker, one the observer reads, and two the caller fills meanwhile; within the
        // budget, at least two.
        let wanted = ChunkMemoryBudget.bufferCount(
            wanted: workerCount + (observer == nil ? 2 : 3), bufferSize: layout.largestRecordLength)
        var buffers = [try AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)]
        while buffers.count < max(2, wanted),
            let buffer = try? AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)
        {
            buffers.append(buffer)
        }
        state = SharedState(free: buffers, observing: observer != nil)
        if let observer {
            let watch = Watch(state: state, observer: observer, layout: layout)
            guard let thread = SystemCall.startThread(stackSize: ParallelChunks.workerStackSize, { watch.run() }) else {
                throw GoshuinError(.outOfMemory, "the system refused to start a thread to seal with")
            }
            threads.append(thread)
        }
        var workers = 0
        for _ in 0..<min(workerCount, buffers.count - 1) {
            let work = Work(
                state: state, cipher: try ChunkCipher(key: key, header: header), layout: layout, output: output)
            guard let thread = SystemCall.startThread(stackSize: ParallelChunks.workerStackSize, { work.run() }) else {
                break
            }
            threads.append(thread)
            workers += 1
        }
        guard workers > 0 else {
            stopThreads()
            throw GoshuinError(.outOfMemory, "the system refused to start a thread to seal with")
        }
    }

    deinit { stopThreads() }

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
        readingFrom file: FileDescriptor, count: UInt64, observe: (UnsafeRawBufferPointer) throws -> Void
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
            state.observe(filling.index, filling.buffer, from: filling.observed, to: filling.filled, thenSeal: false)
            filling.observed = filling.filled
            current = filling
        }
        try state.waitUntilObserved()
    }

    /// Seals the last record, waits for every record to be written, and checks that the payload had
    /// exactly the header's length.
    package func finish() throws {
        precondition(!finished, "a streaming sealer is finished once")
        finished = true
        guard bytesTaken == header.plaintextLength else {
            stopThreads()
            throw GoshuinError(
                .io,
                "the payload has \(bytesTaken) bytes where \(header.plaintextLength) were announced; it changed"
                    + " while being sealed")
        }
        if let current { submit(current) }
        current = nil
        stopThreads()
        if let failure = state.failure { throw failure }
    }

    /// The free plaintext part of the record being filled, a new record taken when there is none.
    private func currentSpace() throws -> UnsafeMutableRawBufferPointer {
        try Interruption.check()
        guard bytesTaken < header.plaintextLength else {
            throw GoshuinError(.io, "the payload grew beyond the \(header.plaintextLength) bytes announced")
        }
        if current == nil {
            current = (try state.takeFree(), layout.chunkIndex(containing: bytesTaken), 0, 0)
        }
        guard let current else { preconditionFailure("a record is being filled") }
        let start = ContainerLayout.prefixLength + current.filled
        let end = ContainerLayout.prefixLength + layout.plaintextLength(ofChunk: current.index)
        return UnsafeMutableRawBufferPointer(rebasing: current.buffer.bytes[start..<end])
    }

    /// Counts `count` bytes as filled into the current record; a full record goes on to be sealed.
    private func advance(by count: Int) throws {
        guard var filling = current else { return }
        filling.filled += count
        bytesTaken += UInt64(count)
        if filling.filled == layout.plaintextLength(ofChunk: filling.index) {
            submit(filling)
            current = nil
            progress?(.payload(bytesDone: bytesTaken, bytesTotal: header.plaintextLength))
        } else {
            current = filling
        }
    }

    /// Hands a record on: to the observer for what it has not seen, then to the workers.
    private func submit(_ record: (buffer: AllocatedBytes, index: UInt64, filled: Int, observed: Int)) {
        if state.observing {
            state.observe(record.index, record.buffer, from: record.observed, to: record.filled, thenSeal: true)
        } else {
            state.seal(record.index, record.buffer)
        }
    }

    private func stopThreads() {
        state.close()
        for thread in threads { SystemCall.join(thread) }
        threads = []
    }

    /// A part of a record for the observer to see.
    fileprivate struct Sighting {
        let index: UInt64
        let buffer: AllocatedBytes
        let range: Range<Int>
        /// Whether the record is full and goes on to be sealed once seen.
        let thenSeal: Bool
    }

    /// What the caller, the observer and the workers share, under one lock: free records, parts to observe,
    /// records to seal, the first failure, whether the stream is closing.
    private final class SharedState: @unchecked Sendable {
        // @unchecked: every field is touched under `lock` only, but `observing`, which never changes.
        private let lock = ConditionLock()
        let observing: Bool
        private var free: [AllocatedBytes]
        private var sightings: [Sighting] = []
        private var observerBusy = false
        private var pending: [(index: UInt64, buffer: AllocatedBytes)] = []
        private var closing = false
        private var error: GoshuinError?

        init(free: [AllocatedBytes], observing: Bool) {
            self.free = free
            self.observing = observing
        }

        var failure: GoshuinError? { lock.withLock { error } }

        /// A record to fill, once one is free; the first failure if there is one.
        func takeFree() throws -> AllocatedBytes {
            try lock.wait(until: { !free.isEmpty || error != nil }) {
                if let error { throw error }
                return free.removeLast()
            }
        }

        func observe(_ index: UInt64, _ buffer: AllocatedBytes, from: Int, to end: Int, thenSeal: Bool) {
            lock.withLock {
                sightings.append(Sighting(index: index, buffer: buffer, range: from..<end, thenSeal: thenSeal))
            }
        }

        func seal(_ index: UInt64, _ buffer: AllocatedBytes) { lock.withLock { pending.append((index, buffer)) } }

        /// Waits until the observer has seen every part handed to it; the first failure if there is one.
        func waitUntilObserved() throws {
            try lock.wait(until: { (sightings.isEmpty && !observerBusy) || error != nil }) {
                if let error { throw error }
            }
        }

        /// No more records will come: the threads end once the pending ones are done.
        func close() { lock.withLock { closing = true } }

        /// The next part to observe, or `nil` when there will be none.
        func takeSighting() -> Sighting? {
            lock.wait(until: { !sightings.isEmpty || closing || error != nil }) {
                guard error == nil, !sightings.isEmpty else { return nil }
                observerBusy = true
                return sightings.removeFirst()
            }
        }

        /// The observer saw `sighting`: the record goes on to be sealed when it is full.
        func observed(_ sighting: Sighting) {
            lock.withLock {
                observerBusy = false
                if sighting.thenSeal { pending.append((sighting.index, sighting.buffer)) }
            }
        }

        /// The next record to seal, or `nil` when there will be none.
        func takePending() -> (index: UInt64, buffer: AllocatedBytes)? {
            lock.wait(until: {
                !pending.isEmpty || error != nil || (closing && sightings.isEmpty && !observerBusy)
            }) {
                guard error == nil, !pending.isEmpty else { return nil }
                return pending.removeFirst()
            }
        }

        func recycle(_ buffer: AllocatedBytes) { lock.withLock { free.append(buffer) } }

        func fail(_ failure: GoshuinError) {
            lock.withLock {
                observerBusy = false
                if error == nil { error = failure }
            }
        }
    }

    /// The observer's thread: shows it every part in order.
    private final class Watch: @unchecked Sendable {
        // @unchecked: the observer is this thread's alone while the stream runs; the state is locked.
        let state: SharedState
        let observer: PayloadObserver
        let layout: ContainerLayout

        init(state: SharedState, observer: PayloadObserver, layout: ContainerLayout) {
            self.state = state
            self.observer = observer
            self.layout = layout
        }

        func run() {
            while let sighting = state.takeSighting() {
                do {
                    let start = ContainerLayout.prefixLength
                    let bytes = UnsafeRawBufferPointer(
                        rebasing: sighting.buffer.bytes[
                            start + sighting.range.lowerBound..<start + sighting.range.upperBound])
                    try observer.observe(
                        bytes, at: layout.plaintextOffset(ofChunk: sighting.index) + UInt64(sighting.range.lowerBound))
                    state.observed(sighting)
                } catch {
                    state.fail(error.goshuinError("cannot look at the payload"))
                }
            }
        }
    }

    /// One worker: seals records in place and writes them at their offsets.
    private final class Work: @unchecked Sendable {
        // @unchecked: the cipher is this worker's alone; the state is locked; the rest is immutable.
        let state: SharedState
        let cipher: ChunkCipher
        let layout: ContainerLayout
        let output: FileDescriptor

        init(state: SharedState, cipher: ChunkCipher, layout: ContainerLayout, output: FileDescriptor) {
            self.state = state
            self.cipher = cipher
            self.layout = layout
            self.output = output
        }

        func run() {
            while let (index, buffer) = state.takePending() {
                do {
                    let record = UnsafeMutableRawBufferPointer(
                        rebasing: buffer.bytes[0..<layout.recordLength(ofChunk: index)])
                    try cipher.sealRecord(record, index: index)
                    try describingFailure("cannot write the output") {
                        try output.writeAll(
                            UnsafeRawBufferPointer(record), atOffset: Int64(layout.recordOffset(ofChunk: index)))
                    }
                    state.recycle(buffer)
                } catch {
                    state.fail(error.goshuinError("cannot seal a chunk"))
                }
            }
        }
    }
}
