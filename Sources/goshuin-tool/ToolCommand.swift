import GoshuinFormat

/// A command of `goshuin-tool`: its spec (the help, the man page and the completions are kept in step
/// with it by a test) and its run.
protocol ToolCommand: Sendable {
    /// The name, usage, options and help text.
    static var spec: CommandSpec { get }

    /// Runs the command; returns its JSON summary (printed with `--json`) and exit status.
    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult
}

extension ToolCommand {
    /// The command's name, as typed.
    static var name: String { spec.name }

    /// A usage error for this command, pointing at its help.
    static func usage(_ message: String) -> ToolError { .usage(message, command: name) }

    /// A successful summary: `{"ok": true, "command": NAME, …members}`.
    static func summary(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
        .object([("ok", .bool(true)), ("command", .string(name))] + members)
    }

    /// The one positional argument the command takes, or a usage error saying what it is.
    static func onlyPositional(_ arguments: ParsedArguments, _ what: String) throws(ToolError) -> String {
        guard arguments.positionals.count == 1, let only = arguments.positionals.first else {
            throw usage("\(name) takes \(what)")
        }
        return only
    }
}

/// What every command gets besides its arguments.
struct CommandContext {
    /// Whether `--json` was given: one JSON object on standard output instead of text.
    let json: Bool
    /// Where progress goes (nowhere with `--quiet` or `--json`).
    let reporter: ProgressReporter
}

/// What a command ends with.
struct CommandResult {
    /// The JSON summary.
    let summary: JSONValue
    /// The exit status.
    var status: ExitStatus = .success
}

/// A failure reported as an error with a JSON summary of its own (with `--json`, in place of the usual
/// error object): what the command found is still said.
struct CommandFailure: Error {
    /// The error, on standard error and as the exit status.
    let error: ToolError
    /// The JSON printed with `--json`.
    let summary: JSONValue
}
