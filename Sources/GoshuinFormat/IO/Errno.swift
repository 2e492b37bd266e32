import Glibc

/// An `errno` value with its `strerror` text, as the operating system reported it.
package struct Errno: Error, Equatable, CustomStringConvertible, Sendable {
    /// The raw `errno` value.
    package let rawValue: Int32

    /// Wraps a raw `errno` value.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The current thread's `errno`.
    package static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// The system's text for the value, such as "No space left on device".
    package var description: String { String(cString: strerror(rawValue)) }

    /// `ENOENT`.
    package static let noSuchFile = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// `EINTR`.
    package static let interrupted = Errno(rawValue: EINTR)

    /// Whether the error means the destination cannot hold more: the file system or the user's quota is
    /// full, or the file reached the largest size the file system or the process's limit allows.
    package var isNoSpace: Bool { rawValue == ENOSPC || rawValue == EDQUOT || rawValue == EFBIG }

    /// This error as a ``GoshuinError``, with what was being done and the system's text: `no_space` for a
    /// full disk (`Spec/decisions/0012`), `interrupted` for a call cut short because a stop was requested,
    /// `out_of_memory` for `ENOMEM`, `output_exists` for `EEXIST`, `io` otherwise. (Call sites use the
    /// one-argument form on any `Error`, below, which passes whether a stop is requested.)
    package func goshuinError(_ doing: String, stopRequested: Bool) -> GoshuinError {
        let code: GoshuinError.Code
        switch self {
        case _ where isNoSpace: code = .noSpace
        case .interrupted where stopRequested: return Interruption.error
        case Errno(rawValue: ENOMEM): code = .outOfMemory
        case .fileExists: code = .outputExists
        default: code = .io
        }
        return GoshuinError(code, "\(doing): \(description)", errno: rawValue)
    }
}

/// Runs a system call, retrying while it fails with `EINTR`; throws the `errno` of any other failure.
@inline(__always)
package func retryOnInterrupt<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        // A signal that asked the operation to stop ends the call instead of restarting it.
        if error != .interrupted || Interruption.isRequested { throw error }
    }
}

extension Error {
    /// This error as a ``GoshuinError``: an ``Errno`` mapped with what was being done, a ``GoshuinError``
    /// as it is, anything else as `io`.
    package func goshuinError(_ doing: String) -> GoshuinError {
        switch self {
        case let error as GoshuinError: return error
        case let error as Errno: return error.goshuinError(doing, stopRequested: Interruption.isRequested)
        default: return GoshuinError(.io, "\(doing): \(self)")
        }
    }
}

extension GoshuinError {
    /// `error` as a ``GoshuinError`` with what was being done: an ``Errno`` with its code (`no_space` for a
    /// full disk, `interrupted` after a requested stop, …) and the system's text, a ``GoshuinError`` as
    /// it is, anything else as `io`.
    package init(_ error: any Error, doing: String) {
        self = error.goshuinError(doing)
    }
}
