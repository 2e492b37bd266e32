import Glibc
import GoshuinFormat

/// Writing to standard output and standard error.
enum Console {
    /// Whether standard output was closed when the tool started; it then points at `/dev/null`, so that
    /// no file the tool opens takes its number, and writing to it is an error.
    nonisolated(unsafe) private(set) static var standardOutputWasClosed = false
    /// Whether a write to standard output failed: the run then cannot succeed.
    nonisolated(unsafe) private(set) static var standardOutputFailed = false

    /// Puts `/dev/null` on standard input, output and error where they are closed. A descriptor the tool
    /// opens would otherwise get number 1, and "standard output" would be the input file, or the output.
    static func occupyClosedStandardDescriptors() {
        for descriptor in [FileDescriptor.standardInput, .standardOutput, .standardError] where !descriptor.isOpen {
            let null = Glibc.open("/dev/null", O_RDWR)
            if null >= 0, null != descriptor.rawValue {
                dup2(null, descriptor.rawValue)
                Glibc.close(null)
            }
            if descriptor == .standardOutput { standardOutputWasClosed = true }
        }
    }

    static func out(_ text: String) {
        guard !standardOutputWasClosed else {
            standardOutputFailed = true
            return
        }
        do {
            try FileDescriptor.standardOutput.writeAll(Array(text.utf8))
        } catch {
            standardOutputFailed = true
        }
    }

    static func error(_ text: String) {
        // A closed or broken standard error has nowhere to report to; the exit status still tells.
        try? FileDescriptor.standardError.writeAll(Array(text.utf8))
    }

    /// Reports `error` as one line on standard error, `goshuin-tool: error: CODE: message` with its hint
    /// after a semicolon, every part escaped for the terminal (messages quote names from files); with
    /// `json`, also as `{"ok": false, "error": {"code", "message"}}` on standard output.
    static func report(_ error: ToolError, json: Bool) {
        if json {
            let object: JSONValue = .object([
                ("ok", .bool(false)),
                ("error", .object([("code", .string(error.code)), ("message", .string(error.message))])),
            ])
            out(object.serialized() + "\n")
        }
        let hint = error.hint.map { "; \($0)" } ?? ""
        self.error(DisplayText.escaped("goshuin-tool: error: \(error.code): \(error.message)\(hint)") + "\n")
    }

    /// Whether notices are shown (not with `--quiet`).
    nonisolated(unsafe) static var showsNotices = true

    /// A line on standard error that is not an error, such as leftovers removed; silenced by `--quiet`.
    static func notice(_ text: String) {
        if showsNotices { error(DisplayText.escaped("goshuin-tool: \(text)") + "\n") }
    }
}
