import GoshuinFormat

/// The work of one recovery operation, cut into tasks that any worker may take: the schedule says which task
/// is ready next (some wait for others: the whole-file MD5 goes block after block, a strip's flush waits for
/// its encoding), runs it, and records it done. ``WorkPool`` runs a schedule on the calling thread and on
/// more threads, all taking tasks from it, so the work ends even when the system refuses to start a thread.
protocol WorkSchedule: AnyObject, Sendable {
    /// A piece of work.
    associatedtype Task: Sendable
    /// A worker's own memory, made once per worker (buffers).
    associatedtype Scratch

    /// Called holding the pool's lock: the next task to run, taken (no other worker gets it); `nil` when
    /// none is ready now.
    func nextTask() -> Task?
    /// Called holding the pool's lock: whether every task has run.
    var isFinished: Bool { get }
    /// Called holding the pool's lock once `task` ran.
    func complete(_ task: Task)
    /// Makes a worker's scratch memory, on that worker's thread.
    func makeScratch() throws -> Scratch
    /// Runs `task`, not holding the lock (tasks of a schedule run at the same time).
    func run(_ task: Task, scratch: inout Scratch) throws
}

/// Runs a ``WorkSchedule`` with workers of the toolkit's own threads (`Spec/decisions/0013`).
enum WorkPool {

    /// Runs every task of `schedule` on `workers` workers, this thread being the first; `progress` is called
    /// on this thread after each task it ran. The first error of any task (or `interrupted`, when a stop is
    /// requested) stops every worker at its next task and is thrown.
    static func run<Schedule: WorkSchedule>(
        _ schedule: Schedule, workers: Int = WorkerThreads.defaultWorkerCount,
        control: WorkPoolControl = WorkPoolControl(),
        progress: (() -> Void)? = nil
    ) throws {
        let state = control
        let progressOnThisThread = UncheckedBox(progress)
        WorkerThreads.run(max(1, workers)) { worker in
            var scratch: Schedule.Scratch
            do {
                scratch = try schedule.makeScratch()
            } catch {
                state.lock.withLock { state.failure = state.failure ?? error }
                return
            }
            while true {
                var picked: Schedule.Task?
                let stop = state.lock.wait(
                    until: {
                        if state.failure == nil, Interruption.isRequested { state.failure = Interruption.error }
                        if state.failure != nil || schedule.isFinished { return true }
                        picked = schedule.nextTask()
                        return picked != nil
                    },
                    then: { picked == nil })
                guard !stop, let task = picked else { return }
                do {
                    try schedule.run(task, scratch: &scratch)
                    state.lock.withLock { schedule.complete(task) }
                } catch {
                    state.lock.withLock { state.failure = state.failure ?? error }
                    return
                }
                if worker == 0 { progressOnThisThread.value?() }
            }
        }
        if let failure = state.failure { throw failure }
        precondition(schedule.isFinished, "every task ran")
    }
}

/// A pool's lock and its first failure. A schedule whose tasks appear while the pool runs (a stream fed by
/// another thread) shares the lock: what changes the schedule under it wakes the waiting workers, and the
/// feeder sees a failure there.
final class WorkPoolControl: @unchecked Sendable {
    // @unchecked: `failure` is touched only under `lock`.
    /// The lock the pool's workers wait on.
    let lock = ConditionLock()
    /// The first failure of a task, or a stop request.
    var failure: Error?
}

/// A value handed to the worker threads that only the calling thread (worker 0) uses.
private final class UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked: read by worker 0 alone, which is the thread that made it.
    let value: Value
    init(_ value: Value) { self.value = value }
}
