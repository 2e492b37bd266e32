import Glibc
import GoshuinFormat

/// Writing to standard output and standard error.
enum Console {
    static func out(_ text: String) {
        write(text, to: .standardOutput)
    }

    static func error(_ text: String) {
        write(text, to: .standardError)
    }

    private static func write(_ text: String, to descriptor: FileDescriptor) {
        // A closed or broken stream has nowhere to report to; the exit status still tells.
        try? descriptor.writeAll(Array(text.utf8))
    }

    /// Reports `error` as one line on standard error, `goshuin-tool: error: CODE: message` with its hint
    /// after a semicolon; with `json`, also as `{"ok": false, "error": {"code", "message"}}` on standard
    /// output.
    static func report(_ error: ToolError, json: Bool) {
        if json {
            let object: JSONValue = .object([
                ("ok", .bool(false)),
                ("error", .object([("code", .string(error.code)), ("message", .string(error.message))])),
            ])
            out(object.serialized() + "\n")
        }
        let hint = error.hint.map { "; \($0)" } ?? ""
        self.error("goshuin-tool: error: \(error.code): \(error.message)\(hint)\n")
    }
}
