/// An `errno` value with its `strerror` text, as the operating system reported it.
package struct Errno: Error, Equatable, CustomStringConvertible, Sendable {
    /// The raw `errno` value.
    package let rawValue: Int32

    /// Wraps a raw `errno` value.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The system's text for the value, such as "No space left on device".
    package var description: String { SystemCall.errorText(rawValue) }

    /// This error as a ``GoshuinError``, with what was being done and the system's text: `no_space` for a
    /// full disk (`Spec/decisions/0012`), `interrupted` for a call cut short because a stop was requested,
    /// `out_of_memory` for `ENOMEM`, `output_exists` for `EEXIST`, `io` otherwise. (Call sites use the
    /// one-argument form on any `Error`, below, which passes whether a stop is requested.)
    package func goshuinError(_ doing: String, stopRequested: Bool) -> GoshuinError {
        let code: GoshuinError.Code
        switch self {
        case _ where isNoSpace: code = .noSpace
        case .interrupted where stopRequested: return Interruption.error
        case .outOfMemory: code = .outOfMemory
        case .fileExists: code = .outputExists
        default: code = .io
        }
        return GoshuinError(code, "\(doing): \(description)", errno: rawValue)
    }
}

extension Error {
    /// This error as a ``GoshuinError``: an ``Errno`` mapped with what was being done
    /// (``Errno/goshuinError(_:stopRequested:)``), a ``GoshuinError`` as it is, anything else as `io`.
    package func goshuinError(_ doing: String) -> GoshuinError {
        switch self {
        case let error as GoshuinError: return error
        case let error as Errno: return error.goshuinError(doing, stopRequested: Interruption.isRequested)
        default: return GoshuinError(.io, "\(doing): \(self)")
        }
    }
}

/// Runs `body`, turning any error it throws into a ``GoshuinError`` that says what was being done
/// (``Swift/Error/goshuinError(_:)``): the one place a system error meets its context.
@inline(__always)
package func describingFailure<Result>(_ doing: @autoclosure () -> String, _ body: () throws -> Result)
    throws(GoshuinError) -> Result
{
    do {
        return try body()
    } catch {
        throw error.goshuinError(doing())
    }
}
