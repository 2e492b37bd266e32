import GoshuinFormat

/// Dispatches the command line to a command and turns every outcome into output and an exit status.
enum GoshuinTool {
    static func run(_ arguments: [String]) -> ExitStatus {
        let optionArguments = arguments.prefix { $0 != "--" }
        let json = optionArguments.contains("--json")
        guard let first = arguments.first else {
            Console.error(HelpText.shortUsage)
            return .usage
        }
        switch first {
        case "help", "--help", "-h":
            return help(Array(arguments.dropFirst()), asked: first)
        case "--version", "-v", "version":
            Console.out(HelpText.version + "\n")
            return .success
        default:
            break
        }
        guard let command = CommandSpec.named(first) else {
            Console.report(unknownCommand(first), json: json)
            return .usage
        }
        if optionArguments.contains("--help") || optionArguments.contains("-h") {
            Console.out(HelpText.help(for: command))
            return .success
        }
        do {
            let parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), command: command)
            if json, parsed.value("--output") == "-" {
                throw ToolError.usage(
                    "--json and -o - both write to standard output; choose one", command: command.name)
            }
            Console.showsNotices = !parsed.has("--quiet") && !json
            let (summary, status) = try execute(command, parsed, json: json)
            if json { Console.out(summary.serialized() + "\n") }
            if Console.standardOutputFailed {
                Console.report(
                    ToolError(
                        code: .io, "cannot write to standard output (closed, or a broken pipe)", status: .ioError),
                    json: false)
                return .ioError
            }
            return status
        } catch let failure as InspectCommand.InspectionFailure {
            if json { Console.out(failure.summary.serialized() + "\n") }
            Console.report(failure.error, json: false)
            return failure.error.status
        } catch {
            Console.report(toolError(error), json: json)
            return toolError(error).status
        }
    }

    private static func execute(_ command: CommandSpec, _ arguments: ParsedArguments, json: Bool) throws -> (
        JSONValue, ExitStatus
    ) {
        let reporter = ProgressReporter(quiet: arguments.has("--quiet") || json)
        switch command.name {
        case "seal": return (try SealCommand.run(arguments, reporter: reporter), .success)
        case "open": return (try OpenCommand.run(arguments, reporter: reporter), .success)
        case "verify": return (try VerifyCommand.run(arguments, json: json, reporter: reporter), .success)
        case "inspect": return (try InspectCommand.run(arguments, json: json, reporter: reporter), .success)
        default: return try CheckCommand.run(arguments, json: json)
        }
    }

    /// A usage error for `name`, suggesting the command it most likely misspells.
    static func unknownCommand(_ name: String) -> ToolError {
        let known = CommandSpec.all.map(\.name) + ["help", "version"]
        let closest = known.map { ($0, editDistance(name.lowercased(), $0)) }.min { $0.1 < $1.1 }
        let suggestion = closest.flatMap { $0.1 <= 2 ? " (did you mean '\($0.0)'?)" : nil } ?? ""
        return .usage("unknown command '\(name)'\(suggestion)")
    }

    /// The Levenshtein distance between two short strings.
    static func editDistance(_ one: String, _ other: String) -> Int {
        let first = Array(one)
        let second = Array(other)
        var previous = Array(0...second.count)
        for (row, character) in first.enumerated() {
            var current = [row + 1]
            for (column, otherCharacter) in second.enumerated() {
                current.append(
                    min(
                        previous[column + 1] + 1, current[column] + 1,
                        previous[column] + (character == otherCharacter ? 0 : 1)))
            }
            previous = current
        }
        return previous[second.count]
    }

    private static func help(_ rest: [String], asked: String) -> ExitStatus {
        guard let name = rest.first, asked == "help" else {
            Console.out(HelpText.overview)
            return .success
        }
        guard let command = CommandSpec.named(name) else {
            Console.report(unknownCommand(name), json: false)
            return .usage
        }
        Console.out(HelpText.help(for: command))
        return .success
    }

    private static func toolError(_ error: any Error) -> ToolError {
        if Interruption.isRequested {
            return ToolError(code: .interrupted, "stopped by a signal; nothing was written", status: .interrupted)
        }
        if let errno = error as? Errno {
            return ToolError(code: .io, errno.description, status: .ioError)
        }
        switch error {
        case let error as ToolError: return error
        case let error as GoshuinError: return ToolError(error)
        default: return ToolError(code: .io, "\(error)", status: .ioError)
        }
    }
}
