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

    private let state: SharedState
    private var thread: WorkerThreads.Started?

    /// A prefetcher reading `input`'s chunks with its own cipher, and a record-sized slot to decrypt in;
    /// `nil` when the system refuses the thread.
    init?(input: FileDescriptor, header: Header, key: SecretBytes) throws {
        let reader = try ChunkReader(input: input, header: header, key: key)
        let slot = try AllocatedBytes(count: header.layout.largestRecordLength, wipesOnRelease: true)
        state = SharedState(reader: reader, slot: slot, layout: header.layout)
        let state = self.state
        guard let thread = WorkerThreads.start({ state.run() }) else {
            return nil
        }
        self.thread = thread
    }

    deinit {
        state.stop()
        thread?.join()
    }

    /// Starts decrypting chunk `index`, unless a chunk is being decrypted or waits to be taken.
    func prefetch(_ index: UInt64) { state.request(index) }

    /// Chunk `index`'s outcome, waiting for it, when it is the one prefetched; `nil` otherwise. The caller
    /// gives `replacement`, a buffer of the largest record's length, for the next prefetch.
    func take(_ index: UInt64, replacement: () throws -> AllocatedBytes) throws -> Outcome? {
        try state.take(index, replacement: replacement)
    }

    /// What the reader's thread and the prefetching thread share, under one lock.
    private final class SharedState: @unchecked Sendable {
        // @unchecked: every field but `reader` is touched under `lock`; `reader` by the prefetching thread
        // alone, while `job` is being worked on.
        private let lock = ConditionLock()
        private let reader: ChunkReader
        private let layout: ContainerLayout
        private var slot: AllocatedBytes?
        private var job: UInt64?
        private var done: (index: UInt64, authentic: Bool)?
        /// What prefetching a chunk threw, with that chunk's index: thrown only to a caller taking that chunk.
        private var error: (index: UInt64, error: Error)?
        private var stopping = false

        init(reader: ChunkReader, slot: AllocatedBytes, layout: ContainerLayout) {
            self.reader = reader
            self.slot = slot
            self.layout = layout
        }

        func request(_ index: UInt64) {
            lock.withLock {
                guard job == nil, done == nil, slot != nil, index < layout.chunkCount else { return }
                job = index
            }
        }

        func take(_ index: UInt64, replacement: () throws -> AllocatedBytes) throws -> Outcome? {
            let finished = try lock.wait(until: { job != index || done != nil || error != nil }) {
                () throws -> (slot: AllocatedBytes, authentic: Bool)? in
                if let failed = error {
                    self.error = nil
                    done = nil
                    job = nil
                    // Another chunk's failure is of no use now: that chunk is read again if it is needed.
                    guard failed.index == index else { return nil }
                    throw failed.error
                }
                if let stale = done, stale.index != index {
                    // Another chunk was prefetched: it is of no use now, and the slot is free again.
                    done = nil
                    job = nil
                    return nil
                }
                // Nothing prefetched for this chunk, or another one is still being decrypted.
                guard let result = done, let filled = slot else { return nil }
                _ = result
                slot = try replacement()
                done = nil
                job = nil
                return (filled, result.authentic)
            }
            guard let finished else { return nil }
            return finished.authentic ? .authentic(finished.slot) : .failsAuthentication
        }

        func stop() { lock.withLock { stopping = true } }

        /// The prefetching thread: decrypts each requested chunk into the slot.
        func run() {
            while true {
                let next = lock.wait(until: { stopping || (job != nil && done == nil) }) {
                    () -> (UInt64, AllocatedBytes)? in
                    guard !stopping, let job, let slot else { return nil }
                    return (job, slot)
                }
                guard let (index, target) = next else { return }
                do {
                    // Decrypted in the slot itself: the reader takes the slot as it is.
                    let authentic = try reader.authenticate(chunk: index, in: target) != nil
                    lock.withLock { done = (index, authentic) }
                } catch {
                    lock.withLock { self.error = (index, error) }
                }
            }
        }
    }
}
