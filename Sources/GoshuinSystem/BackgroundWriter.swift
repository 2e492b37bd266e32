/// Writes files on a thread of its own, straight from buffers lent to it (``write(lent:)``: a decrypted
/// chunk, no copy) or from its own buffers the caller fills (``write(_:)``): extracting a backup then
/// writes on one core while it hashes and checks on the other. Each file is written in order, its writeback
/// started as each piece is written, then given its time, synced and closed there too (the sync waits only
/// for the last pieces: `Spec/decisions/0043`); ``drain()`` waits for all of it and reports the first
/// failure, so a folder is moved into place only once every byte of it is on disk.
package final class BackgroundWriter {
    /// The size of each buffer handed over.
    package static let bufferSize = 1 << 20
    /// Buffers: one being filled, one being written, one waiting.
    private static let bufferCount = 3

    private let state: SharedState
    private var thread: WorkerThreads.Started?
    private var current: (buffer: AllocatedBytes, filled: Int)?
    private var file: FileDescriptor?

    /// Starts the writing thread; `out_of_memory` when the system refuses the buffers or the thread.
    package init() throws {
        state = SharedState(
            free: try (0..<Self.bufferCount).map { _ in
                try AllocatedBytes(count: Self.bufferSize, wipesOnRelease: true)
            })
        let state = self.state
        guard let thread = WorkerThreads.start({ state.run() }) else {
            throw GoshuinError(.outOfMemory, "the system refused to start a thread to write with")
        }
        self.thread = thread
    }

    deinit {
        state.stop()
        thread?.join()
    }

    /// Starts writing `file`, which the writer closes once it is written; `name` says which in messages.
    package func begin(_ file: FileDescriptor, name: String) {
        precondition(self.file == nil, "one file at a time")
        self.file = file
        state.enqueue(.begin(file, name))
    }

    /// Appends `bytes` to the file begun.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            if current == nil { current = (try state.takeFree(), 0) }
            guard var filling = current else { preconditionFailure("a buffer is being filled") }
            let count = min(Self.bufferSize - filling.filled, bytes.count - offset)
            UnsafeMutableRawBufferPointer(rebasing: filling.buffer.bytes[filling.filled..<filling.filled + count])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            filling.filled += count
            offset += count
            if filling.filled == Self.bufferSize {
                state.enqueue(.data(filling.buffer, filling.filled))
                current = nil
            } else {
                current = filling
            }
        }
    }

    /// Appends the bytes `lent` to the file begun, written from the lent buffer itself, which the writer
    /// borrows until they are written.
    package func write(lent: LentBytes) throws {
        guard lent.bytes.count > 0 else { return }
        if let filling = current, filling.filled > 0 { state.enqueue(.data(filling.buffer, filling.filled)) }
        current = nil
        lent.loan.borrow()
        state.enqueue(.lent(lent))
        if let failure = state.failure { throw failure }
    }

    /// Ends the file begun: what is left of it is written, then its access and modification times are set
    /// to `modificationTime` (when given), and it is synced and closed, on the writing thread.
    package func end(modificationTime: Int?) throws {
        if let filling = current, filling.filled > 0 { state.enqueue(.data(filling.buffer, filling.filled)) }
        current = nil
        file = nil
        state.enqueue(.end(modificationTime))
        if let failure = state.failure { throw failure }
    }

    /// Waits until every file is written, synced and closed; throws the first failure.
    package func drain() throws { try state.drain() }

    private enum Job {
        case begin(FileDescriptor, String)
        case data(AllocatedBytes, Int)
        case lent(LentBytes)
        case end(Int?)
    }

    /// What the caller and the writing thread share, under one lock.
    private final class SharedState: @unchecked Sendable {
        // @unchecked: every field is touched under `lock` only; the file is the writing thread's.
        private let lock = ConditionLock()
        private var free: [AllocatedBytes]
        private var jobs: [Job] = []
        private var busy = false
        private var stopping = false
        private var error: GoshuinError?
        private var file: (descriptor: FileDescriptor, name: String)?
        /// How many bytes of `file` are written.
        private var written: Int64 = 0

        init(free: [AllocatedBytes]) { self.free = free }

        var failure: GoshuinError? { lock.withLock { error } }

        func takeFree() throws -> AllocatedBytes {
            try lock.wait(until: { !free.isEmpty || error != nil }) {
                if let error { throw error }
                return free.removeLast()
            }
        }

        func enqueue(_ job: Job) { lock.withLock { jobs.append(job) } }

        func drain() throws {
            try lock.wait(until: { (jobs.isEmpty && !busy) || error != nil }) {
                if let error { throw error }
            }
        }

        func stop() { lock.withLock { stopping = true } }

        func run() {
            while let job = lock.wait(
                until: { !jobs.isEmpty || stopping },
                then: { () -> Job? in
                    guard !jobs.isEmpty else { return nil }
                    busy = true
                    return jobs.removeFirst()
                })
            {
                let failed = lock.withLock { error != nil }
                do {
                    if failed {
                        // After a failure nothing more is written, but every file is still closed.
                        if case .begin(let descriptor, let name) = job { file = (descriptor, name) }
                        if case .end = job, let (descriptor, _) = file {
                            try? descriptor.close()
                            file = nil
                        }
                    } else {
                        try perform(job)
                    }
                } catch {
                    lock.withLock { if self.error == nil { self.error = error.goshuinError("cannot write") } }
                }
                // A lent buffer goes back to its owner whatever became of the job.
                if case .lent(let lent) = job { lent.loan.giveBack() }
                lock.withLock {
                    if case .data(let buffer, _) = job { free.append(buffer) }
                    busy = false
                }
            }
            if let (descriptor, _) = file { try? descriptor.close() }
        }

        private func perform(_ job: Job) throws {
            switch job {
            case .begin(let descriptor, let name):
                file = (descriptor, name)
                written = 0
            case .data(let buffer, let count):
                try append(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]))
            case .lent(let lent):
                try append(lent.bytes)
            case .end(let modificationTime):
                guard let (descriptor, name) = file else { return }
                file = nil
                do {
                    try describingFailure("cannot write \(DisplayText.quoted(name))") {
                        if let modificationTime { try descriptor.setModificationTime(modificationTime) }
                        try descriptor.sync()
                    }
                } catch {
                    try? descriptor.close()
                    throw error
                }
                try describingFailure("cannot close \(DisplayText.quoted(name))") { try descriptor.close() }
            }
        }

        /// Writes `bytes` at the end of the file, and starts their writeback at once.
        private func append(_ bytes: UnsafeRawBufferPointer) throws {
            guard let (descriptor, name) = file else { return }
            try describingFailure("cannot write \(DisplayText.quoted(name))") { try descriptor.writeAll(bytes) }
            descriptor.startWriteback(offset: written, count: bytes.count)
            written += Int64(bytes.count)
        }
    }
}
