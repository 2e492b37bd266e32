/// A lock and a condition: threads change shared state under the lock and wait, under it, until the state
/// is what they need (a free buffer, a chunk to seal, a decrypted chunk).
package final class ConditionLock: @unchecked Sendable {
    // @unchecked: the state it guards is the caller's, touched only inside `withLock` and `wait(until:)`.
    private let condition = SystemCall.makeCondition()

    package init() {}

    deinit { SystemCall.destroy(condition) }

    /// Runs `body` holding the lock, then wakes every waiter (the state may have changed).
    @discardableResult
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        SystemCall.lock(condition)
        defer {
            SystemCall.broadcast(condition)
            SystemCall.unlock(condition)
        }
        return try body()
    }

    /// Waits, holding the lock between looks, until `ready` is true, then runs `body` holding it and wakes
    /// every waiter.
    @discardableResult
    package func wait<Result>(until ready: () -> Bool, then body: () throws -> Result) rethrows -> Result {
        SystemCall.lock(condition)
        defer {
            SystemCall.broadcast(condition)
            SystemCall.unlock(condition)
        }
        while !ready() { SystemCall.wait(condition) }
        return try body()
    }
}
