/// Decrypts, on a thread of its own, the chunk after the one a reader just read in order, while the reader's
/// caller works on the one it has: a backup is extracted or verified on two cores. A chunk is authenticated
/// before any byte of it is used, here as in the reader; one that fails is reported as failing, and the
/// reader judges the file's verdict itself (``ChunkVerdict``).
final class ChunkPrefetcher {
    /// What a prefetch gave.
    enum Outcome {
        /// The chunk's record, decrypted in place (its plaintext at the geometry's plaintext start), in a
        /// buffer now the caller's.
        case authentic(AllocatedBytes)
        /// The chunk does not authenticate.
        case failsAuthentication
    }

    private let pool: WorkerPool<PrefetchQueue>

    /// A prefetcher reading `input`'s chunks with its own cipher, and a record-sized slot to decrypt in;
    /// `nil` when the system refuses the thread.
    static func start(input: FileDescriptor, header: Header, key: SecretBytes) throws -> ChunkPrefetcher? {
        let slot = try AllocatedBytes(count: header.layout.largestRecordLength, wipesOnRelease: true)
        let queue = PrefetchQueue(slot: slot, chunkCount: header.layout.chunkCount)
        // A refused thread is not an error: the reader decrypts every chunk itself.
        guard
            let pool = try? WorkerPool(
                queue, workers: 1,
                { _ in
                    let reader = try ChunkReader(input: input, header: header, key: key)
                    // Decrypted in the slot itself: the reader takes the slot as it is.
                    return { task in try reader.authenticate(chunk: task.index, in: task.slot) != nil }
                })
        else { return nil }
        return ChunkPrefetcher(pool: pool)
    }

    // A plain initializer: a failable, throwing one crashed the optimizer (Swift 6.3.1, CopyPropagation).
    private init(pool: WorkerPool<PrefetchQueue>) {
        self.pool = pool
    }

    /// Starts decrypting chunk `index`, unless a chunk is being decrypted or waits to be taken.
    func prefetch(_ index: UInt64) {
        pool.queue.withLock { queue in
            guard !queue.stopped, queue.job == nil, queue.done == nil, queue.slot != nil, index < queue.chunkCount
            else { return }
            queue.job = index
        }
    }

    /// Chunk `index`'s outcome, waiting for it, when it is the one prefetched; `nil` otherwise. The caller
    /// gives `replacement`, a buffer of the largest record's length, for the next prefetch.
    func take(_ index: UInt64, replacement: () throws -> AllocatedBytes) throws -> Outcome? {
        let finished = try pool.queue.wait(
            until: { $0.job != index || $0.done != nil || $0.failed != nil || ($0.stopped && !$0.running) }
        ) { queue -> (slot: AllocatedBytes, authentic: Bool)? in
            if let failed = queue.failed {
                queue.failed = nil
                queue.done = nil
                queue.job = nil
                // Another chunk's failure is of no use now: that chunk is read again if it is needed.
                guard failed.index == index else { return nil }
                throw failed.error
            }
            if let stale = queue.done, stale.index != index {
                // Another chunk was prefetched: it is of no use now, and the slot is free again.
                queue.done = nil
                queue.job = nil
                return nil
            }
            // Nothing prefetched for this chunk: another one is still being decrypted, or the prefetcher
            // stopped (a stop request), and the reader decrypts it itself.
            guard let result = queue.done, let filled = queue.slot else { return nil }
            queue.slot = try replacement()
            queue.done = nil
            queue.job = nil
            return (filled, result.authentic)
        }
        guard let finished else { return nil }
        return finished.authentic ? .authentic(finished.slot) : .failsAuthentication
    }

    /// The chunk asked for, the slot it is decrypted in, and what became of it, for the one prefetching worker.
    private struct PrefetchQueue: WorkQueue {
        struct Task {
            let index: UInt64
            let slot: AllocatedBytes
        }

        var slot: AllocatedBytes?
        let chunkCount: UInt64
        var job: UInt64?
        var running = false
        var done: (index: UInt64, authentic: Bool)?
        /// What prefetching a chunk threw, with that chunk's index: thrown only to a caller taking that chunk.
        var failed: (index: UInt64, error: any Error)?
        /// Whether prefetching is over (the reader is done, or a stop was requested).
        var stopped = false

        init(slot: AllocatedBytes, chunkCount: UInt64) {
            self.slot = slot
            self.chunkCount = chunkCount
        }

        mutating func next(worker: Int) -> Task? {
            guard !stopped, !running, done == nil, failed == nil, let job, let slot else { return nil }
            running = true
            return Task(index: job, slot: slot)
        }

        var isFinished: Bool { stopped }

        mutating func complete(_ task: Task, _ outcome: Result<Bool, any Error>) {
            running = false
            switch outcome {
            case .success(let authentic): done = (task.index, authentic)
            case .failure(let error): failed = (task.index, error)
            }
        }

        mutating func stop(_ failure: any Error) { stopped = true }

        mutating func end() { stopped = true }
    }
}
