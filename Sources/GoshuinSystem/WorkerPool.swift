/// The toolkit's one worker pool: every thread the toolkit starts is one of its workers, each taking tasks
/// from a ``WorkQueue`` held by a ``LockedState``, running them, and recording their outcome there. Sealing
/// and opening chunks on every core, prefetching the next chunk, writing and hashing extracted files, and
/// computing or using recovery sets are queues of their own.
///
/// A pool runs one of two ways: ``run(_:workers:afterEachTask:_:)`` runs a queue to its end with the calling
/// thread as its first worker and returns it; ``init(_:workers:_:)`` starts workers that serve a queue while
/// the caller goes on and adds tasks (a file to write, a record to seal), until ``endAndJoin()``.
///
/// Threads are the toolkit's own, with small stacks (`Spec/decisions/0013`: not `Dispatch`, which retried
/// `pthread_create` forever under a memory limit). One the system refuses to start is not retried and no later
/// one is started: the work goes on with fewer workers, so a queue may keep tasks for worker 0, which is always
/// there, but never for another.
/// A stop request (``Interruption``) stops the queue (``WorkQueue/stop(_:)``) at a worker's next look.
package final class WorkerPool<Queue: WorkQueue>: Sendable {
    /// Makes worker `index`'s runner, on that worker's thread: what it needs of its own (a cipher, a buffer)
    /// is made there and used only there.
    package typealias RunnerFactory = @Sendable (_ index: Int) throws -> (Queue.Task) throws -> Queue.Outcome

    /// The queue, under the lock the workers wait on.
    package let queue: LockedState<Queue>
    private let threads: LockedState<[WorkerThreads.Started]>

    /// Starts up to `workers` threads serving `queue`; they return once it is finished (or stopped).
    ///
    /// - Throws: `out_of_memory` when the system refuses to start any.
    package init(_ queue: Queue, workers: Int, _ makeRunner: @escaping RunnerFactory) throws {
        let shared = LockedState(queue)
        var started: [WorkerThreads.Started] = []
        for index in 0..<max(1, workers) {
            guard let thread = WorkerThreads.start({ Self.serve(shared, worker: index, makeRunner) }) else { break }
            started.append(thread)
        }
        guard !started.isEmpty else {
            throw GoshuinError(.outOfMemory, "the system refused to start a thread to work with")
        }
        self.queue = shared
        threads = LockedState(started)
    }

    deinit { endAndJoin() }

    /// Ends the queue (``WorkQueue/end()``) and waits until every worker returned. Later calls return at once.
    package func endAndJoin() {
        queue.withLock { $0.end() }
        let started = threads.withLock { started in
            defer { started = [] }
            return started
        }
        for thread in started { thread.join() }
    }

    /// Runs `queue` to its end on `workers` workers, this thread being the first, and returns it as it ended;
    /// `afterEachTask` is called on this thread after each task it ran.
    package static func run(
        _ queue: Queue, workers: Int, afterEachTask: (() -> Void)? = nil, _ makeRunner: @escaping RunnerFactory
    ) -> Queue {
        let shared = LockedState(queue)
        var started: [WorkerThreads.Started] = []
        for index in 1..<max(1, workers) {
            guard let thread = WorkerThreads.start({ serve(shared, worker: index, makeRunner) }) else { break }
            started.append(thread)
        }
        serve(shared, worker: 0, makeRunner, afterEachTask: afterEachTask)
        for thread in started { thread.join() }
        return shared.withLock { $0 }
    }

    /// A worker: takes ready tasks until the queue is finished.
    private static func serve(
        _ shared: LockedState<Queue>, worker: Int, _ makeRunner: RunnerFactory, afterEachTask: (() -> Void)? = nil
    ) {
        let runner: (Queue.Task) throws -> Queue.Outcome
        do {
            runner = try makeRunner(worker)
        } catch {
            shared.withLock { $0.stop(error) }
            return
        }
        while true {
            var taken: Queue.Task?
            shared.wait(
                until: { queue in
                    if Interruption.isRequested { queue.stop(Interruption.error) }
                    taken = queue.next(worker: worker)
                    return taken != nil || queue.isFinished
                },
                then: { _ in })
            guard let task = taken else { return }
            let outcome = Result { try runner(task) }
            shared.withLock { $0.complete(task, outcome) }
            afterEachTask?()
        }
    }
}

/// The threads a ``WorkerPool`` starts, and how many an operation uses.
package enum WorkerThreads {
    /// The stack of every thread the toolkit starts: enough for the chunk code, small enough that a memory
    /// limit which leaves room for the chunk buffers leaves room for the threads.
    package static let stackSize = 512 << 10

    /// The processors online.
    package static var processorCount: Int { SystemCall.onlineProcessorCount }

    /// The workers of one operation, unless it asks for others: one per online processor, at most 8.
    package static var defaultWorkerCount: Int { max(1, min(processorCount, 8)) }

    /// A started thread, to be joined once.
    fileprivate struct Started: Sendable {
        let thread: SystemCall.Thread

        func join() { SystemCall.join(thread) }
    }

    /// Starts `body` on a new thread; `nil` when the system refuses (a memory limit), never retried.
    fileprivate static func start(_ body: @escaping @Sendable () -> Void) -> Started? {
        SystemCall.startThread(stackSize: stackSize, body).map(Started.init)
    }
}
