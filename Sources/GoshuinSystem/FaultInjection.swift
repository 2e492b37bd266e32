/// The fault seam of debug builds, as swift-system's `ENABLE_MOCKING`: the system calls of
/// ``SystemCall`` fail, are interrupted or transfer fewer bytes on request, for the faults a real system
/// cannot be made to give on demand (`EINTR` at a chosen call, a short write, `EIO`, `ENOSPC` at the
/// hundredth write). Release builds have none of it.
///
/// Rules apply to the thread that runs ``with(_:_:)`` and to every thread the toolkit starts from it
/// (``WorkerThreads``, the writers), so that tests running side by side do not meet each other's faults.
package enum FaultInjection {
    /// A system call a rule can aim at.
    package enum Call: Sendable, Hashable {
        case open, read, write, sync, rename, link, remove, makeDirectory
    }
    #if GOSHUIN_FAULT_INJECTION

        /// What a call meets.
        package enum Fault: Sendable, Equatable {
            /// It fails with `errno`, the call not made.
            case fails(errno: Int32)
            /// It is interrupted by a signal (`EINTR`) before it is made; a retry then makes it.
            case interrupted
            /// A read or write transfers at most `maximum` bytes (at least one).
            case shortTransfer(maximum: Int)
        }

        /// A fault for the calls of one kind: the first `skip` calls are left alone, the `times` after them
        /// meet `fault`.
        package struct Rule: Sendable {
            let call: Call
            let fault: Fault
            let skip: Int
            let times: Int

            /// A rule for `call`.
            package init(_ call: Call, _ fault: Fault, skip: Int = 0, times: Int = .max) {
                self.call = call
                self.fault = fault
                self.skip = skip
                self.times = times
            }
        }

        /// Runs `body` with `rules` applying to this thread and the threads it starts; returns how many
        /// calls met a fault, with `body`'s result.
        package static func with<Result>(_ rules: [Rule], _ body: () throws -> Result) rethrows -> (
            result: Result, faults: Int
        ) {
            let scope = Scope(rules)
            let previous = SystemCall.threadValue(key)
            SystemCall.setThreadValue(key, Unmanaged.passUnretained(scope).toOpaque())
            defer { SystemCall.setThreadValue(key, previous) }
            let result = try withExtendedLifetime(scope) { try body() }
            return (result, scope.met)
        }

        /// The fault the next call of `call` on this thread meets, if a rule says so.
        static func take(_ call: Call) -> Fault? { current?.take(call) }

        /// `count`, or less when a rule shortens the next transfer of `call`.
        static func transferLimit(_ call: Call, _ count: Int) -> Int {
            guard case .shortTransfer(let maximum)? = current?.take(call, shortening: true) else { return count }
            return max(1, min(count, maximum))
        }

        /// `body`, made to run with this thread's rules on the thread that runs it.
        static func inheritingScope(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
            guard let scope = current else { return body }
            return {
                SystemCall.setThreadValue(key, Unmanaged.passUnretained(scope).toOpaque())
                withExtendedLifetime(scope) { body() }
                SystemCall.setThreadValue(key, nil)
            }
        }

        private static let key = SystemCall.makeThreadKey()

        private static var current: Scope? {
            SystemCall.threadValue(key).map { Unmanaged<Scope>.fromOpaque($0).takeUnretainedValue() }
        }

        /// The rules of one ``with(_:_:)`` and how far each has gone, shared by its threads.
        private final class Scope: Sendable {
            private let rules: [Rule]
            /// The calls of each kind seen (apart for the questions of a short transfer and of the others),
            /// and how many faults were met.
            private let counts = LockedState(Counts())
            private struct Counts: Sendable {
                var seen: [Counter: Int] = [:]
                var met = 0
            }
            private struct Counter: Hashable, Sendable {
                let call: Call
                let shortening: Bool
            }
            var met: Int { counts.withLock { $0.met } }

            init(_ rules: [Rule]) { self.rules = rules }

            /// The fault of the next `call`: a short transfer only where one is asked about (`shortening`),
            /// the others only where they are not, so that each call is counted once.
            func take(_ call: Call, shortening: Bool = false) -> Fault? {
                let relevant = rules.filter { rule in
                    guard rule.call == call else { return false }
                    if case .shortTransfer = rule.fault { return shortening }
                    return !shortening
                }
                guard !relevant.isEmpty else { return nil }
                return counts.withLock { counts in
                    let counter = Counter(call: call, shortening: shortening)
                    let index = counts.seen[counter, default: 0]
                    counts.seen[counter] = index + 1
                    for rule in relevant where index >= rule.skip && index - rule.skip < rule.times {
                        counts.met += 1
                        return rule.fault
                    }
                    return nil
                }
            }
        }
    #endif
}
