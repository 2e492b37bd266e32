/// Seals a payload handed over piece by piece, in order, into a regular file, on every core: the caller's
/// thread fills chunk records (copying bytes in, or reading a file straight into them), and worker threads
/// seal full records and write them at the offsets the layout gives (`Spec/container-v1.md` §3, §5). The
/// bytes are those the sequential sealer writes for the same payload.
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
    private var workers: [SystemCall.Thread] = []
    /// The record being filled, its chunk index and how many plaintext bytes it holds.
    private var current: (buffer: AllocatedBytes, index: UInt64, filled: Int)?
    private var bytesTaken: UInt64 = 0
    private var finished = false

    /// Writes the header into `output` and starts the workers.
    package init(
        into output: FileDescriptor, header: Header, key: SecretBytes, workerCount: Int, progress: ProgressHandler?
    ) throws {
        self.output = output
        self.header = header
        layout = header.layout
        self.progress = progress
        try describingFailure("cannot write the output") {
            try header.encode().withUnsafeBytes { try output.writeAll($0, atOffset: 0) }
        }
        let workerCount = max(1, min(workerCount, Int(min(layout.chunkCount, 64))))
        // One record per worker, and two the caller fills meanwhile; within the budget, at least two.
        let wanted = ChunkMemoryBudget.bufferCount(wanted: workerCount + 2, bufferSize: layout.largestRecordLength)
        var buffers = [try AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)]
        while buffers.count < max(2, wanted),
            let buffer = try? AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)
        {
            buffers.append(buffer)
        }
        state = SharedState(free: buffers)
        for _ in 0..<min(workerCount, buffers.count - 1) {
            let cipher = try ChunkCipher(key: key, header: header)
            let work = Work(state: state, cipher: cipher, layout: layout, output: output)
            guard let thread = SystemCall.startThread(stackSize: ParallelChunks.workerStackSize, { work.run() }) else {
                break
            }
            workers.append(thread)
        }
        guard !workers.isEmpty else {
            throw GoshuinError(.outOfMemory, "the system refused to start a thread to seal with")
        }
    }

    deinit { stopWorkers() }

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
    /// piece to `observe` (to hash it) as it arrives; returns how many bytes the file gave, fewer at its end.
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

    /// Seals the last record, waits for every record to be written, and checks that the payload had
    /// exactly the header's length.
    package func finish() throws {
        precondition(!finished, "a streaming sealer is finished once")
        finished = true
        guard bytesTaken == header.plaintextLength else {
            stopWorkers()
            throw GoshuinError(
                .io,
                "the payload has \(bytesTaken) bytes where \(header.plaintextLength) were announced; it changed"
                    + " while being sealed")
        }
        if let current { state.submit(current.index, current.buffer) }
        current = nil
        stopWorkers()
        if let failure = state.failure { throw failure }
    }

    /// The free plaintext part of the record being filled, a new record taken when there is none.
    private func currentSpace() throws -> UnsafeMutableRawBufferPointer {
        try Interruption.check()
        guard bytesTaken < header.plaintextLength else {
            throw GoshuinError(.io, "the payload grew beyond the \(header.plaintextLength) bytes announced")
        }
        if current == nil {
            let index = layout.chunkIndex(containing: bytesTaken)
            current = (try state.takeFree(), index, 0)
        }
        guard let current else { preconditionFailure("a record is being filled") }
        let length = layout.plaintextLength(ofChunk: current.index)
        let start = ContainerLayout.prefixLength + current.filled
        return UnsafeMutableRawBufferPointer(
            rebasing: current.buffer.bytes[start..<ContainerLayout.prefixLength + length])
    }

    /// Counts `count` bytes as filled into the current record; a full record goes to the workers.
    private func advance(by count: Int) throws {
        guard var filling = current else { return }
        filling.filled += count
        bytesTaken += UInt64(count)
        if filling.filled == layout.plaintextLength(ofChunk: filling.index) {
            state.submit(filling.index, filling.buffer)
            current = nil
            progress?(.payload(bytesDone: bytesTaken, bytesTotal: header.plaintextLength))
        } else {
            current = filling
        }
    }

    private func stopWorkers() {
        state.close()
        for worker in workers { SystemCall.join(worker) }
        workers = []
    }

    /// What the caller and the workers share, under one lock: free records, full ones to seal, the first
    /// failure, whether the stream is closing.
    private final class SharedState: @unchecked Sendable {
        // @unchecked: every field is touched under `lock` only.
        private let lock = ConditionLock()
        private var free: [AllocatedBytes]
        private var pending: [(index: UInt64, buffer: AllocatedBytes)] = []
        private var closing = false
        private var error: GoshuinError?

        init(free: [AllocatedBytes]) { self.free = free }

        var failure: GoshuinError? { lock.withLock { error } }

        /// A record to fill, once one is free; the workers' failure if there is one.
        func takeFree() throws -> AllocatedBytes {
            try lock.wait(until: { !free.isEmpty || error != nil }) {
                if let error { throw error }
                return free.removeLast()
            }
        }

        func submit(_ index: UInt64, _ buffer: AllocatedBytes) {
            lock.withLock { pending.append((index, buffer)) }
        }

        /// No more records will come: the workers end once the pending ones are sealed.
        func close() { lock.withLock { closing = true } }

        /// The next record to seal, or `nil` when there will be none.
        func takePending() -> (index: UInt64, buffer: AllocatedBytes)? {
            lock.wait(until: { !pending.isEmpty || closing || error != nil }) {
                guard error == nil, !pending.isEmpty else { return nil }
                return pending.removeFirst()
            }
        }

        func recycle(_ buffer: AllocatedBytes) { lock.withLock { free.append(buffer) } }

        func fail(_ failure: GoshuinError) { lock.withLock { if error == nil { error = failure } } }
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
