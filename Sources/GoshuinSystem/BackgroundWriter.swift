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

    private let pool: WorkerPool<WriteQueue>
    private var current: (buffer: AllocatedBytes, filled: Int)?
    private var file: FileDescriptor?

    /// Starts the writing thread; `out_of_memory` when the system refuses the buffers or the thread.
    package init() throws {
        let free = try (0..<Self.bufferCount).map { _ in
            try AllocatedBytes(count: Self.bufferSize, wipesOnRelease: true)
        }
        pool = try WorkerPool(WriteQueue(free: free), workers: 1) { _ in
            let writing = FileWriting()
            return { task in try writing.perform(task) }
        }
    }

    /// Starts writing `file`, which the writer closes once it is written; `name` says which in messages.
    package func begin(_ file: FileDescriptor, name: String) {
        precondition(self.file == nil, "one file at a time")
        self.file = file
        enqueue(.begin(file, name))
    }

    /// Appends `bytes` to the file begun.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            if current == nil { current = (try takeFree(), 0) }
            guard var filling = current else { preconditionFailure("a buffer is being filled") }
            let count = min(Self.bufferSize - filling.filled, bytes.count - offset)
            UnsafeMutableRawBufferPointer(rebasing: filling.buffer.bytes[filling.filled..<filling.filled + count])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            filling.filled += count
            offset += count
            if filling.filled == Self.bufferSize {
                enqueue(.data(filling.buffer, filling.filled))
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
        if let filling = current, filling.filled > 0 { enqueue(.data(filling.buffer, filling.filled)) }
        current = nil
        lent.loan.borrow()
        enqueue(.lent(lent))
        if let failure = pool.queue.withLock({ $0.failure }) { throw failure }
    }

    /// Ends the file begun: what is left of it is written, then its access and modification times are set
    /// to `modificationTime` (when given), and it is synced and closed, on the writing thread.
    package func end(modificationTime: Int?) throws {
        if let filling = current, filling.filled > 0 { enqueue(.data(filling.buffer, filling.filled)) }
        current = nil
        file = nil
        enqueue(.end(modificationTime))
        if let failure = pool.queue.withLock({ $0.failure }) { throw failure }
    }

    /// Waits until every file is written, synced and closed; throws the first failure.
    package func drain() throws {
        try pool.queue.wait(until: { ($0.jobs.isEmpty && !$0.busy) || $0.failure != nil }) { queue in
            if let failure = queue.failure { throw failure }
        }
    }

    private func enqueue(_ job: Job) { pool.queue.withLock { $0.jobs.append(job) } }

    private func takeFree() throws -> AllocatedBytes {
        try pool.queue.wait(until: { !$0.free.isEmpty || $0.failure != nil }) { queue in
            if let failure = queue.failure { throw failure }
            return queue.free.removeLast()
        }
    }

    private enum Job: Sendable {
        case begin(FileDescriptor, String)
        case data(AllocatedBytes, Int)
        case lent(LentBytes)
        case end(Int?)
    }

    /// The jobs, in order, for the one writing thread; the free buffers; the first failure.
    private struct WriteQueue: WorkQueue {
        struct Task {
            let job: Job
            /// Whether a job before failed: then nothing more is written, but every file is still closed.
            let afterFailure: Bool
        }

        var free: [AllocatedBytes]
        var jobs: [Job] = []
        var busy = false
        var failure: GoshuinError?
        private var ended = false

        init(free: [AllocatedBytes]) { self.free = free }

        mutating func next(worker: Int) -> Task? {
            guard !busy, !jobs.isEmpty else { return nil }
            busy = true
            return Task(job: jobs.removeFirst(), afterFailure: failure != nil)
        }

        var isFinished: Bool { ended && jobs.isEmpty && !busy }

        mutating func complete(_ task: Task, _ outcome: Result<Void, any Error>) {
            busy = false
            if case .data(let buffer, _) = task.job { free.append(buffer) }
            if case .failure(let error) = outcome { stop(error) }
        }

        mutating func stop(_ failure: any Error) {
            if self.failure == nil { self.failure = failure.goshuinError("cannot write") }
        }

        mutating func end() { ended = true }
    }

    /// The writing thread's own: the file being written and how much of it is.
    private final class FileWriting {
        private var file: (descriptor: FileDescriptor, name: String)?
        /// How many bytes of `file` are written.
        private var written: Int64 = 0

        deinit { if let (descriptor, _) = file { try? descriptor.close() } }

        func perform(_ task: WriteQueue.Task) throws {
            // A lent buffer goes back to its owner whatever becomes of the job.
            defer { if case .lent(let lent) = task.job { lent.loan.giveBack() } }
            guard !task.afterFailure else {
                if case .begin(let descriptor, let name) = task.job { file = (descriptor, name) }
                if case .end = task.job, let (descriptor, _) = file {
                    try? descriptor.close()
                    file = nil
                }
                return
            }
            switch task.job {
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
