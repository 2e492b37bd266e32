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

    /// Reports `error` as the one line `goshuin-tool: error: CODE: message` (and a hint line), or, with
    /// `json`, as `{"ok": false, "error": …}` on standard output.
    static func report(_ error: ToolError, json: Bool) {
        if json {
            let object: JSONValue = .object([
                ("ok", .bool(false)),
                ("error", .object([("code", .string(error.code)), ("message", .string(error.message))])),
            ])
            out(object.serialized() + "\n")
        }
        var line = "goshuin-tool: error: \(error.code): \(error.message)\n"
        if let hint = error.hint { line += "goshuin-tool: hint: \(hint)\n" }
        self.error(line)
    }
}
