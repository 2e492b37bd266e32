/// State that threads share, owned by a lock, as swift-nio's `NIOLockedValueBox`: it is reached only inside
/// ``withLock(_:)`` and ``wait(until:then:)``, so no access can forget the lock. Threads change it there and
/// wait, under the lock, until it is what they need (a free buffer, a task, a decrypted chunk); every change
/// wakes the waiters.
///
/// A pthread mutex and condition variable, not `Synchronization.Mutex`: a thread must be able to wait for
/// the state to change, and ThreadSanitizer sees these (it does not see `Mutex`'s futex, and reported
/// accesses inside it as races).
package final class LockedState<State: Sendable>: @unchecked Sendable {
    // @unchecked: `state` is reached only holding the mutex, and what it holds is Sendable; the pthread
    // objects are made to be used from several threads and never move.
    private let condition = SystemCall.makeCondition()
    private var state: State

    /// Shared state starting as `state`.
    package init(_ state: State) { self.state = state }

    deinit { SystemCall.destroy(condition) }

    /// Runs `body` on the state holding the lock, then wakes every waiter (the state may have changed).
    @discardableResult
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        SystemCall.lock(condition)
        defer {
            SystemCall.broadcast(condition)
            SystemCall.unlock(condition)
        }
        return try body(&state)
    }

    /// Waits, holding the lock between looks, until `ready` is true of the state (it may change it, as
    /// taking a task does), then runs `body` on it holding the lock and wakes every waiter.
    @discardableResult
    package func wait<Result>(
        until ready: (inout State) -> Bool, then body: (inout State) throws -> Result
    ) rethrows -> Result {
        SystemCall.lock(condition)
        defer {
            SystemCall.broadcast(condition)
            SystemCall.unlock(condition)
        }
        while !ready(&state) { SystemCall.wait(condition) }
        return try body(&state)
    }
}
