/// The work a ``WorkerPool`` runs, as a value its lock owns: which task is ready next (some wait for others:
/// a file's MD5 goes block after block, a record is shown to its observer before it is sealed), what a task's
/// outcome changes, and when the work is over. Its methods are called holding the pool's lock, so they only
/// do bookkeeping; the tasks themselves run outside it, at the same time, on the pool's workers.
package protocol WorkQueue: Sendable {
    /// A piece of work, handed to one worker.
    associatedtype Task
    /// What running a task gives.
    associatedtype Outcome = Void

    /// The next task `worker` may run now, taken (no other worker gets it); `nil` when none is ready now.
    /// Worker 0 is the pool's first: the calling thread of ``WorkerPool/run(_:workers:afterEachTask:_:)``, or
    /// the first thread a pool started.
    mutating func next(worker: Int) -> Task?

    /// Whether no task will be ready again: a worker that finds none ready then returns.
    var isFinished: Bool { get }

    /// `task` ran: its outcome, or what it threw.
    mutating func complete(_ task: Task, _ outcome: Result<Outcome, any Error>)

    /// The work must stop with `failure`: a stop was requested (``Interruption``) or a worker could not be
    /// made ready. Called again with later failures, which the first outranks. A queue whose tasks must run
    /// whatever happens (a lent buffer given back, a file closed) goes on handing them out.
    mutating func stop(_ failure: any Error)

    /// No task will be added: the queue is finished once the tasks it holds are done (or at once, when they
    /// are of no use any more). A pool's owner ends its queue before it joins; a pool let go of ends it.
    mutating func end()
}
