import GoshuinFormat

/// One kind of work of a recovery operation (hashing slices, the whole-file MD5 block after block, combining
/// strips, copying slices): its tasks are numbered; it says which is ready, holding the pool's lock
/// (``ComponentQueue``), and runs one, not holding it, at the same time as others.
protocol WorkComponent: AnyObject, Sendable {
    /// The next ready task, taken; `nil` when none is ready now. Called holding the pool's lock.
    func nextTask() -> Int?
    /// Whether every task ran. Called holding the pool's lock.
    var isFinished: Bool { get }
    /// Records `task` as done. Called holding the pool's lock.
    func complete(_ task: Int)
    /// Runs `task` with the worker's scratch memory.
    func run(_ task: Int, scratch: WorkerScratch) throws
}

/// Several components run by one ``WorkerPool``: a worker takes a ready task of the first component that has
/// one, so the order of `components` is their priority (a sequential chain first keeps its one core busy).
/// The first error of any task, or a stop request, stops every worker at its next task.
struct ComponentQueue: WorkQueue {
    /// A component's task.
    struct Task {
        let component: Int
        let task: Int
    }

    let components: [any WorkComponent]
    private(set) var failure: (any Error)?

    init(_ components: [any WorkComponent]) { self.components = components }

    mutating func next(worker: Int) -> Task? {
        guard failure == nil else { return nil }
        for (index, component) in components.enumerated() {
            if let task = component.nextTask() { return Task(component: index, task: task) }
        }
        return nil
    }

    var isFinished: Bool { failure != nil || components.allSatisfy(\.isFinished) }

    mutating func complete(_ task: Task, _ outcome: Result<Void, any Error>) {
        switch outcome {
        case .success: components[task.component].complete(task.task)
        case .failure(let error): stop(error)
        }
    }

    mutating func stop(_ failure: any Error) { self.failure = self.failure ?? failure }

    mutating func end() {}

    /// Runs every task of `components` on `workers` workers, this thread being the first; `progress` is
    /// called on this thread after each task it ran, and once when all ran. Throws the first failure.
    static func run(
        _ components: [any WorkComponent], workers: Int, progress: (() -> Void)? = nil
    ) throws {
        let ended = WorkerPool.run(Self(components), workers: workers, afterEachTask: progress) { _ in
            let scratch = WorkerScratch()
            return { task in try components[task.component].run(task.task, scratch: scratch) }
        }
        if let failure = ended.failure { throw failure }
        precondition(ended.isFinished, "every task ran")
        progress?()
    }
}
