import GoshuinFormat

/// Dispatches the command line to a command and turns every outcome into output and an exit status.
enum GoshuinTool {
    /// Every command, in the order help lists them.
    static let commands: [any ToolCommand.Type] = [
        SealCommand.self, OpenCommand.self, VerifyCommand.self, ProtectCommand.self, RepairCommand.self,
        RescueCommand.self, RekeyCommand.self, InspectCommand.self, CheckCommand.self,
    ]

    /// The command called `name`.
    static func command(named name: String) -> (any ToolCommand.Type)? { commands.first { $0.name == name } }

    static func run(_ arguments: [String]) -> ExitStatus {
        let optionArguments = arguments.prefix { $0 != "--" }
        let json = optionArguments.contains(OptionName.json.rawValue)
        guard let first = arguments.first else {
            Console.error(HelpText.shortUsage)
            return .usage
        }
        switch first {
        case "help", OptionName.help.rawValue, CommandSpec.helpOption.short:
            return finishPrinting(help(Array(arguments.dropFirst()), asked: first))
        case "--version", "-v", "version":
            Console.out(HelpText.version + "\n")
            return finishPrinting(.success)
        default:
            break
        }
        guard let command = command(named: first) else {
            Console.report(unknownCommand(first), json: json, command: first)
            return .usage
        }
        if optionArguments.contains(OptionName.help.rawValue)
            || optionArguments.contains(CommandSpec.helpOption.short ?? "")
        {
            Console.out(HelpText.help(for: command.spec))
            return finishPrinting(.success)
        }
        // What a JSON error says it was about, as a success does: the command and its input.
        var input: String?
        do {
            let parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), command: command.spec)
            input = parsed.positionals.first
            if json, parsed.value(.output) == "-" {
                throw ToolError.usage(
                    "--json and -o - both write to standard output; choose one", command: command.name)
            }
            Console.showsNotices = !parsed.has(.quiet) && !json
            let context = CommandContext(
                json: json, reporter: ProgressReporter(quiet: parsed.has(.quiet) || json, command: command.name))
            let result = try command.run(parsed, context)
            if json { Console.out(result.summary.serialized() + "\n") }
            return finishPrinting(result.status)
        } catch let error as GoshuinError where error.errno == Errno.brokenPipe.rawValue {
            ProcessControl.endByBrokenPipe()
        } catch let failure as CommandFailure {
            if json { Console.out(failure.summary.serialized() + "\n") }
            Console.report(failure.error, json: false)
            return failure.error.status
        } catch let error as GoshuinError where command.name == OpenCommand.name || command.name == InspectCommand.name
        {
            let reported = RecoveryAdvice.advise(error, path: input) ?? toolError(error)
            Console.report(reported, json: json, command: command.name, file: input)
            return reported.status
        } catch {
            Console.report(toolError(error), json: json, command: command.name, file: input)
            return toolError(error).status
        }
    }

    /// `status`, unless writing to standard output failed: then the run failed too, with 74.
    private static func finishPrinting(_ status: ExitStatus) -> ExitStatus {
        guard let failure = Console.standardOutputFailure else { return status }
        // A reader that stopped early (`| head`) is no error to report: the process ends as by SIGPIPE.
        if failure.errno == Errno.brokenPipe.rawValue { ProcessControl.endByBrokenPipe() }
        let error = ToolError(failure, hint: "check where standard output goes (a closed pipe, a full disk)")
        Console.report(error, json: false)
        return error.status
    }

    /// Words people type for what a command does, and the command line that does it.
    static let commandsByIntent: [String: String] = [
        "restore": "goshuin-tool open BACKUP.goshuin --extract FOLDER",
        "extract": "goshuin-tool open BACKUP.goshuin --extract FOLDER",
        "unpack": "goshuin-tool open BACKUP.goshuin --extract FOLDER",
        "decrypt": "goshuin-tool open FILE.goshuin -o OUTPUT",
        "encrypt": "goshuin-tool seal INPUT -o OUTPUT.goshuin",
        "backup": "goshuin-tool seal FOLDER -o BACKUP.goshuin",
        "list": "goshuin-tool inspect BACKUP.goshuin --list",
        "ls": "goshuin-tool inspect BACKUP.goshuin --list",
        "fix": "goshuin-tool repair BACKUP.goshuin",
        "recover": "goshuin-tool repair BACKUP.goshuin",
        "par2": "goshuin-tool protect BACKUP.goshuin",
        "password": "goshuin-tool rekey FILE.goshuin -o NEW.goshuin",
        "passphrase": "goshuin-tool rekey FILE.goshuin -o NEW.goshuin",
        "salvage": "goshuin-tool rescue DAMAGED.goshuin",
    ]

    /// A usage error for `name`, suggesting the command it most likely misspells, or the command line for
    /// what the word says (`restore`: `open … --extract`).
    static func unknownCommand(_ name: String, topics: [String] = []) -> ToolError {
        if let intended = commandsByIntent[name.lowercased()] {
            return .usage("unknown command '\(name)'; to do that: \(intended)")
        }
        let known = commands.map { $0.name } + ["help", "version"] + topics
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
        if HelpText.topics.contains(where: { $0.name == name }) {
            Console.out(HelpText.exitCodes)
            return .success
        }
        guard let command = command(named: name) else {
            Console.report(unknownCommand(name, topics: HelpText.topics.map(\.name)), json: false)
            return .usage
        }
        Console.out(HelpText.help(for: command.spec))
        return .success
    }

    private static func toolError(_ error: any Error) -> ToolError {
        // A stop says that it was one, in the words of where it happened when there are some (the prompt).
        if let error = error as? ToolError, error.status == .interrupted { return error }
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
