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
    /// One pool of one worker per lane: entry `n` goes to lane `n % lanes.count`, and a lane's entries and
    /// their pieces are hashed in order.
    private let lanes: [WorkerPool<HashingQueue>]
    /// How many entries were begun; the next goes to lane `begun % lanes.count`.
    private var begun = 0

    /// Starts `threadCount` hashing threads (at least one); `out_of_memory` when the system refuses every one.
    init(threadCount: Int) throws {
        var lanes: [WorkerPool<HashingQueue>] = []
        for _ in 0..<max(1, threadCount) {
            let hashing = { @Sendable (_: Int) throws -> (HashingQueue.Task) throws -> Void in
                let entry = EntryHashing()
                return { task in try entry.perform(task) }
            }
            guard let lane = try? WorkerPool(HashingQueue(), workers: 1, hashing) else { break }
            lanes.append(lane)
        }
        guard !lanes.isEmpty else {
            throw GoshuinError(.outOfMemory, "the system refused to start a thread to check the entries with")
        }
        self.lanes = lanes
    }

    /// Starts the digests of `entry`, whose SHA-256 must be `expectedSHA256` when given; its pieces follow
    /// (``add(_:)``), then ``end()``.
    func begin(_ entry: ZipEntry, expectedSHA256: [UInt8]?) throws {
        try throwFailure()
        enqueue(.begin(order: begun, entry: entry, expected: expectedSHA256), lane: begun % lanes.count)
        begun += 1
    }

    /// Adds the next piece of the entry begun, borrowed until it is hashed.
    func add(_ piece: LentBytes) {
        piece.loan.borrow()
        enqueue(.piece(piece), lane: (begun - 1) % lanes.count)
    }

    /// Ends the entry begun: its CRC-32 and SHA-256 are checked once every piece is hashed.
    func end() { enqueue(.end, lane: (begun - 1) % lanes.count) }

    /// Once an entry failed: waits for the entries before it and throws the first failure in file order.
    func throwFailure() throws {
        if lanes.contains(where: { lane in lane.queue.withLock { $0.failure != nil } }) { try drain() }
    }

    /// Waits until every entry handed over is checked; throws the failure of the first in file order.
    func drain() throws {
        let failures = lanes.compactMap { lane in
            lane.queue.wait(until: { $0.jobs.isEmpty && !$0.busy }) { $0.failure }
        }
        if let first = failures.min(by: { $0.order < $1.order }) { throw first.error }
    }

    private func enqueue(_ job: Job, lane: Int) { lanes[lane].queue.withLock { $0.jobs.append(job) } }

    private enum Job: Sendable {
        case begin(order: Int, entry: ZipEntry, expected: [UInt8]?)
        case piece(LentBytes)
        case end
    }

    /// One lane's jobs, in order, and its first failure with the entry's place in file order.
    private struct HashingQueue: WorkQueue {
        struct Task {
            let job: Job
            /// Whether an entry before failed: then only the lent pieces are given back.
            let afterFailure: Bool
        }

        var jobs: [Job] = []
        var busy = false
        var failure: (order: Int, error: any Error)?
        /// The entry being hashed, for a failure's place.
        private var order = Int.max
        private var ended = false

        mutating func next(worker: Int) -> Task? {
            guard !busy, !jobs.isEmpty else { return nil }
            busy = true
            let job = jobs.removeFirst()
            if case .begin(let begun, _, _) = job { order = begun }
            return Task(job: job, afterFailure: failure != nil)
        }

        var isFinished: Bool { ended && jobs.isEmpty && !busy }

        mutating func complete(_ task: Task, _ outcome: Result<Void, any Error>) {
            busy = false
            if case .failure(let error) = outcome, failure == nil { failure = (order, error) }
        }

        mutating func stop(_ failure: any Error) {
            if self.failure == nil { self.failure = (order, failure) }
        }

        mutating func end() { ended = true }
    }

    /// The hashing thread's own: the entry being hashed.
    private final class EntryHashing {
        private var current: (entry: ZipEntry, expected: [UInt8]?, digest: EntryDigest)?

        func perform(_ task: HashingQueue.Task) throws {
            // A lent piece goes back to its owner whatever becomes of the job.
            defer { if case .piece(let piece) = task.job { piece.loan.giveBack() } }
            do {
                switch task.job {
                case .begin(_, let entry, let expected):
                    // After a failure the first failure is the one kept: nothing more is hashed.
                    current = task.afterFailure ? nil : (entry, expected, try EntryDigest())
                case .piece(let piece):
                    try current?.digest.add(piece.bytes)
                case .end:
                    guard let (entry, expected, digest) = current else { return }
                    current = nil
                    let sha256 = try digest.finish(checking: entry)
                    if let expected, expected != sha256 {
                        throw GoshuinError.manifestMismatch(
                            "\(entry.name) does not have the SHA-256 the manifest lists")
                    }
                }
            } catch {
                current = nil
                throw error
            }
        }
    }
}
