import GoshuinFormat

/// Writing to standard output and standard error.
enum Console {
    /// Whether standard output was closed when the tool started; it then points at `/dev/null`, so that
    /// no file the tool opens takes its number, and writing to it is an error.
    static var standardOutputWasClosed: Bool { closedAtStart.contains(.standardOutput) }
    /// Which of standard input, output and error were closed when the tool started (now `/dev/null`).
    nonisolated(unsafe) private(set) static var closedAtStart: Set<FileDescriptor> = []
    /// Why a write to standard output failed, if one did: the run then cannot succeed.
    nonisolated(unsafe) private(set) static var standardOutputFailure: GoshuinError?

    /// Puts `/dev/null` on standard input, output and error where they are closed. A descriptor the tool
    /// opens would otherwise get number 1, and "standard output" would be the input file, or the output.
    static func occupyClosedStandardDescriptors() {
        closedAtStart = ProcessControl.occupyClosedStandardDescriptors()
    }

    static func out(_ text: String) {
        guard standardOutputFailure == nil else { return }
        guard !standardOutputWasClosed else {
            standardOutputFailure = GoshuinError(.io, "cannot write to standard output: it is closed")
            return
        }
        do {
            try FileDescriptor.standardOutput.writeAll(Array(text.utf8))
        } catch {
            standardOutputFailure = error.goshuinError("cannot write to standard output")
        }
    }

    /// Whether a progress line is on standard error, not ended by a newline.
    nonisolated(unsafe) private static var progressLineOpen = false

    static func error(_ text: String) {
        // An error or a notice never continues a progress line: the line is cleared and it takes its place.
        clearProgress()
        write(text)
    }

    /// Draws `line` as the progress line, in place of the one before.
    static func progress(_ line: String) {
        write("\r\u{1B}[K" + line)
        progressLineOpen = true
    }

    /// Removes the progress line.
    static func clearProgress() {
        guard progressLineOpen else { return }
        write("\r\u{1B}[K")
        progressLineOpen = false
    }

    private static func write(_ text: String) {
        // A closed or broken standard error has nowhere to report to; the exit status still tells.
        try? FileDescriptor.standardError.writeAll(Array(text.utf8))
    }

    /// Reports `error` as one line on standard error, `goshuin-tool: error: CODE: message` with its hint
    /// after a semicolon, every part escaped for the terminal (messages quote names from files); with
    /// `json`, also as `{"ok": false, "command", "file", "error": {"code", "message"[, "chunkIndex"]}}` on
    /// standard output, `command` and `file` (the input) as a success gives them, when known.
    static func report(_ error: ToolError, json: Bool, command: String? = nil, file: String? = nil) {
        if json { out(failureJSON(error, command: command, file: file).serialized() + "\n") }
        let hint = error.hint.map { "; \($0)" } ?? ""
        self.error(DisplayText.escaped("goshuin-tool: error: \(error.code): \(error.message)\(hint)") + "\n")
        for detail in error.details { self.error("  " + DisplayText.escaped(detail) + "\n") }
    }

    /// `{"ok": false, "command", "file", "error": {"code", "message"[, "hint", "chunkIndex", "details"]}}`,
    /// then `more`.
    static func failureJSON(
        _ error: ToolError, command: String?, file: String?, more: [(key: String, value: JSONValue)] = []
    ) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
        ]
        if let hint = error.hint { members.append(("hint", .string(hint))) }
        if let chunkIndex = error.chunkIndex { members.append(("chunkIndex", .integer(chunkIndex))) }
        if !error.details.isEmpty { members.append(("details", .array(error.details.map { .string($0) }))) }
        var top: [(key: String, value: JSONValue)] = [("ok", .bool(false))]
        if let command { top.append(("command", .string(command))) }
        if let file { top.append(("file", .string(file))) }
        return .object(top + [("error", .object(members))] + more)
    }

    /// Whether notices and the result line are shown (not with `--quiet` or `--json`).
    nonisolated(unsafe) static var showsNotices = true

    /// The line that says what a command did (`sealed … into …, 880 KiB`), on standard error; silenced by
    /// `--quiet` and `--json`.
    static func result(_ text: String) {
        if showsNotices { error(DisplayText.escaped(text) + "\n") }
    }

    /// An indented line under a notice, such as one of the files it lists; silenced by `--quiet`.
    static func detail(_ text: String) {
        if showsNotices { error("  " + DisplayText.escaped(text) + "\n") }
    }

    /// A line on standard error that is not an error, such as leftovers removed; silenced by `--quiet`.
    static func notice(_ text: String) {
        if showsNotices { error(DisplayText.escaped("goshuin-tool: \(text)") + "\n") }
    }
}
