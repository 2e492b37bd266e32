import Glibc

/// An `errno` value with its `strerror` text, as the operating system reported it.
public struct Errno: Error, Equatable, CustomStringConvertible, Sendable {
    /// The raw `errno` value.
    public let rawValue: Int32

    /// Wraps a raw `errno` value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The current thread's `errno`.
    static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// The system's text for the value, such as "No space left on device".
    public var description: String { String(cString: strerror(rawValue)) }

    /// `ENOENT`.
    public static let noSuchFile = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `EINTR`.
    public static let interrupted = Errno(rawValue: EINTR)

    /// Whether the error means the file system is full or a file-size limit was hit.
    public var isNoSpace: Bool { rawValue == ENOSPC || rawValue == EDQUOT || rawValue == EFBIG }

    /// This error as a ``GoshuinError``: `output_exists` for `EEXIST`, `io` otherwise (a full disk
    /// included: its text says so), with what was being done and the system's text.
    func goshuinError(_ doing: String) -> GoshuinError {
        if self == .fileExists {
            return GoshuinError(.outputExists, "\(doing): \(description)", errno: rawValue)
        }
        return GoshuinError(.io, "\(doing): \(description)", errno: rawValue)
    }
}

/// Runs a system call, retrying while it fails with `EINTR`; throws the `errno` of any other failure.
@inline(__always)
func retryOnInterrupt<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        // A signal that asked the operation to stop ends the call instead of restarting it.
        if error != .interrupted || Interruption.isRequested { throw error }
    }
}
