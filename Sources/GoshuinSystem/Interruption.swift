import Synchronization

/// A request, usually from a signal handler, that running operations stop at their next chunk and clean
/// up as on any failure: temporary files removed, destinations untouched.
public enum Interruption {
    private static let requested = Atomic<Bool>(false)

    /// Asks running operations to stop. Safe in a signal handler: one lock-free atomic store.
    public static func request() {
        requested.store(true, ordering: .relaxed)
    }

    /// Whether a stop was asked for.
    package static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Throws `interrupted` when a stop was asked for.
    package static func check() throws {
        if isRequested { throw error }
    }

    /// The error a requested stop ends an operation with.
    package static var error: GoshuinError { GoshuinError(.interrupted, "stopped on request; nothing was written") }
}
