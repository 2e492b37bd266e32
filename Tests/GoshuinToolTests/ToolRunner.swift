import Foundation
import GoshuinTestSupport

/// Runs the built `goshuin-tool` as a user would, in its own session so it has no controlling terminal
/// unless a test gives it one.
struct ToolRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        let stdoutBytes: [UInt8]

        /// The code of the error the run reported on standard error (`goshuin-tool: error: CODE: …`), the
        /// stable part of its one line: what a test asserts, where the wording is a transcript's.
        var errorCode: String? { ToolRunner.errorCode(in: stderr) }

        /// The JSON object printed on standard output (`--json`), or `nil`.
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(stdoutBytes)) as? [String: Any] }

        /// The `error` object of the JSON printed on standard output.
        var jsonError: [String: Any]? { json?["error"] as? [String: Any] }
    }

    /// The code of the first error reported in `text` (`goshuin-tool: error: CODE: …`), standard error or a
    /// terminal's screen.
    static func errorCode(in text: String) -> String? {
        text.firstMatch(of: /goshuin-tool: error: ([a-z0-9_]+):/).map { String($0.output.1) }
    }

    /// The notices of `text` (`goshuin-tool: …` lines that are not errors), for counting them.
    static func notices(in text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix("goshuin-tool: ") && !$0.hasPrefix("goshuin-tool: error: ") }
    }

    /// The tool binary beside the test bundle (`.build/<configuration>/goshuin-tool`), or the one
    /// `GOSHUIN_TESTS_TOOL` names (to show that a test fails with an earlier build).
    static let toolPath: String = {
        if let other = ProcessInfo.processInfo.environment["GOSHUIN_TESTS_TOOL"] { return other }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("goshuin-tool").path
    }()

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs `goshuin-tool arguments` in `directory` with `stdin` as standard input and only `environment`
    /// (plus PATH) in its environment.
    static func run(
        _ arguments: [String], in directory: String, stdin: [UInt8] = [], environment: [String: String] = [:],
        wrapper: [String] = []
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait"] + wrapper + [toolPath] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { first, _ in first }
        return try execute(process, stdin: stdin)
    }

    /// Runs another program, its standard output and error together.
    static func runCommand(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let result = try execute(process, stdin: [])
        return (result.status, result.stdout + result.stderr)
    }

    /// Copies the tool to `path`, by `cp`: a copy written by this process could be inherited, open for
    /// writing, by a child another test starts meanwhile, and running it would then fail with ETXTBSY.
    static func copyTool(to path: String) throws {
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = [toolPath, path]
        try copy.run()
        copy.waitUntilExit()
        guard copy.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Runs `process`, feeding `stdin` and collecting both outputs.
    static func execute(_ process: Process, stdin: [UInt8]) throws -> Result {
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let writer = Thread {
            ChildInput.write(stdin, to: input.fileHandleForWriting)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let stderrBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            stderrBox.data = error.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let stdoutData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let stderrData = stderrBox.data
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self), stdoutBytes: [UInt8](stdoutData))
    }

    /// Runs the tool on a pseudo-terminal made by script(1), answering each prompt that appears with the
    /// next line of `answers`; returns everything the terminal showed and the exit status. With a trigger,
    /// `key` (Ctrl-C unless given) is typed once the trigger is on the screen; `thenShow` is a shell command
    /// run on the same terminal after the tool, its exit status kept. With `standardInput`, the tool's
    /// standard input is that file (in `directory`) instead of the terminal, which still asks for passphrases.
    static func runOnTerminal(
        _ arguments: [String], in directory: String, answers: [String], environment: [String: String] = [:],
        interruptWhenShown trigger: String? = nil, key: UInt8 = 0x03, thenShow: String? = nil,
        standardInput: String? = nil
    ) throws -> (status: Int32, screen: String) {
        let quote = { (word: String) in "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let quoted = ([toolPath] + arguments).map(quote) + (standardInput.map { ["<", quote($0)] } ?? [])
        // The shell outlives a Ctrl-C or Ctrl-\ sent to the terminal's foreground group: it traps them (a
        // trap, unlike an ignored signal, is not inherited by the tool).
        let command =
            thenShow.map { "trap : INT QUIT; \(quoted.joined(separator: " ")); status=$?; \($0); exit $status" }
            ?? quoted.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment.merging(["PATH": "/usr/bin:/bin", "TERM": "dumb"]) { first, _ in first }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // A tool that waits forever fails the test instead of hanging it: after 30 s, the terminal's session
        // (script's child, the shell, and the tool in its process group) is killed.
        let watchdog = DispatchWorkItem { [pid = process.processIdentifier] in
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(-child, SIGKILL) }
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        var screen = ""
        var trigger = trigger
        var remaining = answers[...]
        var promptsSeen = 0
        while true {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            screen += String(decoding: data, as: UTF8.self)
            let prompts = screen.components(separatedBy: "Passphrase").count - 1
            while promptsSeen < prompts, let answer = remaining.popFirst() {
                promptsSeen += 1
                // An answer that is a control character alone (Ctrl-C, "\u{03}") is typed as it is.
                let typed = answer.count == 1 && (answer.unicodeScalars.first?.value ?? 0x20) < 0x20
                ChildInput.write(Data((typed ? answer : answer + "\n").utf8), to: input.fileHandleForWriting)
            }
            // Ctrl-C (or `key`), typed once the trigger text is on the screen.
            if let pending = trigger, screen.contains(pending) {
                trigger = nil
                ChildInput.write([key], to: input.fileHandleForWriting)
            }
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return (process.terminationStatus, screen)
    }
}

/// Data filled by one thread and read by another after a DispatchGroup wait, which orders the accesses.
final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// A shell on a pseudo-terminal (script(1)) that a test types into and reads, as a person at a terminal
/// would: `bash -i` has job control, so Ctrl-Z stops a command and `fg` continues it.
final class TerminalSession {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let screenBox = ScreenBox()
    private let reader: Thread

    /// Starts `command` (an interactive bash unless given) in `directory` on a new pseudo-terminal.
    init(
        in directory: String, command: String = "bash --norc --noprofile -i", environment: [String: String] = [:]
    ) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment.merging(["PATH": "/usr/bin:/bin", "TERM": "dumb", "PS1": "$ "]) {
            first, _ in first
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let handle = output.fileHandleForReading
        let box = screenBox
        reader = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                box.append(String(decoding: data, as: UTF8.self))
            }
        }
        try process.run()
        reader.start()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Everything the terminal showed so far.
    var screen: String { screenBox.text }

    /// Types `text`.
    func type(_ text: String) { ChildInput.write(Data(text.utf8), to: input.fileHandleForWriting) }

    /// Types the control character of `letter` (Ctrl-Z is `"Z"`).
    func typeControl(_ letter: Character) {
        guard let value = letter.asciiValue else { return }
        ChildInput.write([value & 0x1F], to: input.fileHandleForWriting)
    }

    /// Waits until `text` appears on the screen `count` times in all; false after `seconds`.
    @discardableResult
    func wait(for text: String, count: Int = 1, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if screen.components(separatedBy: text).count - 1 >= count { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Types `exit`, waits for the shell to end (killing it after 20 s) and returns the whole screen.
    func finish() -> String {
        type("exit\n")
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        return screen
    }
}

/// Text appended by a reader thread and read by the test's thread.
final class ScreenBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""

    var text: String { lock.withLock { value } }
    func append(_ more: String) { lock.withLock { value += more } }
}
