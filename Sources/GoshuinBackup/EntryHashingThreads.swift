import GoshuinFormat

/// Computes the entries' CRC-32 and SHA-256 on threads of their own, from the decrypted chunks lent to
/// them, while the caller's thread goes on to the next chunk: one entry on one thread, the next on the
/// other, so that extracting or verifying a backup keeps both cores busy. Each entry's CRC-32 is checked
/// against its ZIP record and its SHA-256 against the manifest as the one-thread read does
/// (``BackupArchive/read(_:checkedAgainst:into:)``), with the same errors.
///
/// A failure is kept with the entry's place in file order; ``drain()`` waits for every entry handed over
/// and throws the failure of the first in file order, so the error is the one reading in order gives.
final class EntryHashingThreads {
    private let hashers: [Hasher]
    private var threads: [WorkerThreads.Started] = []
    /// How many entries were begun; the next goes to hasher `begun % hashers.count`.
    private var begun = 0

    /// Starts `threadCount` hashing threads (at least one); `out_of_memory` when the system refuses every one.
    init(threadCount: Int) throws {
        var hashers: [Hasher] = []
        for _ in 0..<max(1, threadCount) {
            let hasher = Hasher()
            guard let thread = WorkerThreads.start({ hasher.run() }) else { break }
            hashers.append(hasher)
            threads.append(thread)
        }
        guard !hashers.isEmpty else {
            throw GoshuinError(.outOfMemory, "the system refused to start a thread to check the entries with")
        }
        self.hashers = hashers
    }

    deinit {
        for hasher in hashers { hasher.stop() }
        for thread in threads { thread.join() }
    }

    /// Starts the digests of `entry`, whose SHA-256 must be `expectedSHA256` when given; its pieces follow
    /// (``add(_:)``), then ``end()``.
    func begin(_ entry: ZipEntry, expectedSHA256: [UInt8]?) throws {
        try throwFailure()
        let hasher = hashers[begun % hashers.count]
        hasher.enqueue(.begin(order: begun, entry: entry, expected: expectedSHA256))
        begun += 1
    }

    /// Adds the next piece of the entry begun, borrowed until it is hashed.
    func add(_ piece: LentBytes) {
        piece.loan.borrow()
        hashers[(begun - 1) % hashers.count].enqueue(.piece(piece))
    }

    /// Ends the entry begun: its CRC-32 and SHA-256 are checked once every piece is hashed.
    func end() { hashers[(begun - 1) % hashers.count].enqueue(.end) }

    /// Once an entry failed: waits for the entries before it and throws the first failure in file order.
    func throwFailure() throws {
        if hashers.contains(where: { $0.failure != nil }) { try drain() }
    }

    /// Waits until every entry handed over is checked; throws the failure of the first in file order.
    func drain() throws {
        for hasher in hashers { hasher.waitUntilIdle() }
        if let failure = hashers.compactMap({ $0.failure }).min(by: { $0.order < $1.order }) { throw failure.error }
    }

    private enum Job {
        case begin(order: Int, entry: ZipEntry, expected: [UInt8]?)
        case piece(LentBytes)
        case end
    }

    /// One hashing thread and its queue, under one lock.
    private final class Hasher: @unchecked Sendable {
        // @unchecked: `jobs`, `busy`, `stopping` and `failed` are touched under `lock` only; the entry being
        // hashed is this thread's alone.
        private let lock = ConditionLock()
        private var jobs: [Job] = []
        private var busy = false
        private var stopping = false
        private var failed: (order: Int, error: Error)?
        private var current: (order: Int, entry: ZipEntry, expected: [UInt8]?, digest: EntryDigest)?

        var failure: (order: Int, error: Error)? { lock.withLock { failed } }

        func enqueue(_ job: Job) { lock.withLock { jobs.append(job) } }

        func stop() { lock.withLock { stopping = true } }

        func waitUntilIdle() { lock.wait(until: { jobs.isEmpty && !busy }) {} }

        func run() {
            while let job = lock.wait(
                until: { !jobs.isEmpty || stopping },
                then: { () -> Job? in
                    guard !jobs.isEmpty else { return nil }
                    busy = true
                    return jobs.removeFirst()
                })
            {
                do {
                    try perform(job)
                } catch {
                    var order = current?.order ?? .max
                    if case .begin(let begun, _, _) = job { order = begun }
                    current = nil
                    lock.withLock { if failed == nil { failed = (order, error) } }
                }
                // A lent piece goes back to its owner whatever became of the job.
                if case .piece(let piece) = job { piece.loan.giveBack() }
                lock.withLock { busy = false }
            }
        }

        private func perform(_ job: Job) throws {
            switch job {
            case .begin(let order, let entry, let expected):
                // After a failure only the lent pieces are given back: the first failure is the one kept.
                current = lock.withLock { failed == nil } ? (order, entry, expected, try EntryDigest()) : nil
            case .piece(let piece):
                try current?.digest.add(piece.bytes)
            case .end:
                guard let (_, entry, expected, digest) = current else { return }
                let sha256 = try digest.finish(checking: entry)
                if let expected, expected != sha256 {
                    throw GoshuinError.manifestMismatch("\(entry.name) does not have the SHA-256 the manifest lists")
                }
                current = nil
            }
        }
    }
}
