/// Runs one body on several threads the toolkit starts itself, with small stacks: the parallel chunk
/// workers (`Spec/decisions/0013`: not `Dispatch`, which retried `pthread_create` forever under a memory
/// limit).
package enum WorkerThreads {
    /// Runs `body(0)` on this thread and `body(1)` … `body(count - 1)` on new threads with `stackSize`-byte
    /// stacks, and returns when all have returned. A thread the system refuses to start (a memory limit)
    /// is not retried and no later one is started: their `body` never runs, so `body` must share its work
    /// through state all of them reach.
    package static func run(_ count: Int, stackSize: Int, _ body: @escaping @Sendable (Int) -> Void) {
        var threads: [SystemCall.Thread] = []
        for worker in 1..<max(count, 1) {
            guard let thread = SystemCall.startThread(stackSize: stackSize, { body(worker) }) else { break }
            threads.append(thread)
        }
        body(0)
        for thread in threads { SystemCall.join(thread) }
    }
}
