/// Threads the toolkit starts itself, with small stacks: the parallel chunk workers, the prefetcher, the
/// background writer (`Spec/decisions/0013`: not `Dispatch`, which retried `pthread_create` forever under a
/// memory limit).
package enum WorkerThreads {
    /// The stack of every thread the toolkit starts: enough for the chunk code, small enough that a memory
    /// limit which leaves room for the chunk buffers leaves room for the threads.
    package static let stackSize = 512 << 10

    /// The processors online.
    package static var processorCount: Int { SystemCall.onlineProcessorCount }

    /// The workers of one operation, unless it asks for others: one per online processor, at most 8.
    package static var defaultWorkerCount: Int { max(1, min(processorCount, 8)) }

    /// A started thread, to be joined once.
    package struct Started {
        fileprivate let thread: SystemCall.Thread

        /// Waits for the thread to return.
        package func join() { SystemCall.join(thread) }
    }

    /// Starts `body` on a new thread; `nil` when the system refuses (a memory limit), never retried.
    package static func start(_ body: @escaping () -> Void) -> Started? {
        SystemCall.startThread(stackSize: stackSize, body).map(Started.init)
    }

    /// Runs `body(0)` on this thread and `body(1)` … `body(count - 1)` on new threads, and returns when all
    /// have returned. A thread the system refuses to start (a memory limit) is not retried and no later one
    /// is started: their `body` never runs, so `body` must share its work through state all of them reach.
    package static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        var threads: [Started] = []
        for worker in 1..<max(count, 1) {
            guard let thread = start({ body(worker) }) else { break }
            threads.append(thread)
        }
        body(0)
        for thread in threads { thread.join() }
    }
}
