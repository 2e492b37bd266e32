import GoshuinFormat
import GoshuinSystem
import Testing

/// The worker pool: tasks that wait for others run after them, on every worker; a failure or a stop request
/// stops the queue; a pool started for a caller serves the tasks it adds until it ends the queue.
@Suite struct WorkerPoolTests {
    /// Tasks 0..<count where task i is ready only once task i − 1 completed when `chained`, each recording
    /// the order tasks completed and which worker ran it.
    struct Numbers: WorkQueue {
        let count: Int
        let chained: Bool
        var failAt: Int?
        var next = 0
        var running = 0
        var completed: [Int] = []
        var workers: Set<Int> = []
        var failure: (any Error)?
        var ended = false

        mutating func next(worker: Int) -> (index: Int, worker: Int)? {
            guard failure == nil, next < count, !chained || running == 0 else { return nil }
            next += 1
            running += 1
            return (next - 1, worker)
        }

        var isFinished: Bool { failure != nil || completed.count == count }

        mutating func complete(_ task: (index: Int, worker: Int), _ outcome: Result<Void, any Error>) {
            running -= 1
            workers.insert(task.worker)
            switch outcome {
            case .success: completed.append(task.index)
            case .failure(let error): stop(error)
            }
        }

        mutating func stop(_ failure: any Error) { self.failure = self.failure ?? failure }

        mutating func end() { ended = true }
    }

    @Test func chainedTasksRunInOrderOnWhicheverWorkerIsFree() {
        let ended = WorkerPool.run(Numbers(count: 200, chained: true), workers: 4) { _ in
            { _ in }
        }
        #expect(ended.completed == Array(0..<200))
        #expect(ended.failure == nil)
    }

    @Test func independentTasksRunOnSeveralWorkersAndEveryOneRuns() {
        var afterEachTask = 0
        let ended = WorkerPool.run(
            Numbers(count: 400, chained: false), workers: 4, afterEachTask: { afterEachTask += 1 }
        ) {
            _ in
            { _ in
                // Long enough that other workers take tasks meanwhile.
                var total = 0
                for value in 0..<20_000 { total &+= value }
                precondition(total > 0)
            }
        }
        #expect(ended.completed.sorted() == Array(0..<400))
        #expect(ended.workers.count > 1, "the work was shared: \(ended.workers)")
        #expect(afterEachTask > 0 && afterEachTask <= 400, "called on this thread, after its own tasks only")
    }

    @Test func aFailingTaskStopsTheQueueAndIsWhatItEndsWith() {
        let ended = WorkerPool.run(Numbers(count: 1_000, chained: true), workers: 3) { _ in
            { task in
                if task.index == 10 { throw GoshuinError(.io, "task 10 failed") }
            }
        }
        #expect(ended.completed == Array(0..<10), "nothing ran after the failure")
        #expect((ended.failure as? GoshuinError)?.message == "task 10 failed")
    }

    @Test func aWorkerThatCannotBeMadeReadyStopsTheQueue() {
        let ended = WorkerPool.run(Numbers(count: 10, chained: false), workers: 2) { worker in
            guard worker == 0 else { throw GoshuinError(.outOfMemory, "no buffer for worker \(worker)") }
            return { _ in }
        }
        #expect((ended.failure as? GoshuinError)?.code == .outOfMemory)
    }

    @Test func aStartedPoolServesTheTasksItsOwnerAddsUntilTheQueueEnds() throws {
        /// Jobs added by the owner, run in order by one worker, with the sum of what they carried.
        struct Jobs: WorkQueue {
            var jobs: [Int] = []
            var busy = false
            var sum = 0
            var ended = false

            mutating func next(worker: Int) -> Int? {
                guard !busy, !jobs.isEmpty else { return nil }
                busy = true
                return jobs.removeFirst()
            }

            var isFinished: Bool { ended && jobs.isEmpty && !busy }

            mutating func complete(_ task: Int, _ outcome: Result<Int, any Error>) {
                busy = false
                if case .success(let value) = outcome { sum += value }
            }

            mutating func stop(_ failure: any Error) {}

            mutating func end() { ended = true }
        }
        let pool = try WorkerPool(Jobs(), workers: 1) { _ in { $0 * 2 } }
        for value in 1...100 { pool.queue.withLock { $0.jobs.append(value) } }
        pool.queue.wait(until: { $0.jobs.isEmpty && !$0.busy }, then: { _ in })
        #expect(pool.queue.withLock { $0.sum } == 10_100)
        pool.queue.withLock { $0.jobs.append(1) }
        pool.endAndJoin()
        #expect(pool.queue.withLock { $0.sum } == 10_102, "the tasks it held when it ended ran")
        pool.endAndJoin()
    }
}
