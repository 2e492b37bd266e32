import GoshuinFormat

/// How a harness states its invariants: a broken one is written to standard error, then traps.
///
/// The message is written first because an optimized build drops the message of `preconditionFailure`.
struct InvariantCheck {
    /// The harness's name, the first word of every message.
    let harness: String

    /// Traps with `message` unless `condition` holds.
    func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// Reports `message` as a broken invariant and traps.
    func fail(_ message: String) -> Never {
        try? FileDescriptor.standardError.writeAll(Array("\(harness): invariant violated: \(message)\n".utf8))
        preconditionFailure("\(harness): invariant violated: \(message)")
    }
}
