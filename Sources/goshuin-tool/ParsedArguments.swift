/// What a command was given.
struct ParsedArguments {
    var positionals: [String] = []
    private var values: [OptionName: String] = [:]

    func value(_ option: OptionName) -> String? { values[option] }
    func has(_ option: OptionName) -> Bool { values[option] != nil }

    /// Splits `arguments` by the command's options. `--name=value`, `--name value` and `-o value` are
    /// accepted; `--` ends the options; `-` alone is a positional (standard input or output).
    static func parse(_ arguments: [String], command: CommandSpec) throws(ToolError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                parsed.positionals += remaining
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = command.options.first(where: { $0.name.rawValue == name || $0.short == name }) else {
                if ["--passphrase", "--password", "-p", "--pass", "--key"].contains(name) {
                    throw .usage(
                        "the passphrase is never an argument: a command line is seen by other users and kept in"
                            + " the shell's history; give it with --passphrase-file PATH, --passphrase-fd N or the"
                            + " environment variable GOSHUIN_PASSPHRASE, or type it at the prompt",
                        command: command.name)
                }
                throw .usage("unknown option '\(name)' for '\(command.name)'", command: command.name)
            }
            let optionName = option.name.rawValue
            guard parsed.values[option.name] == nil else {
                throw .usage("\(optionName) is given twice", command: command.name)
            }
            if option.valueName == nil {
                guard inlineValue == nil else {
                    throw .usage("\(optionName) takes no value", command: command.name)
                }
                parsed.values[option.name] = ""
            } else if let inlineValue {
                parsed.values[option.name] = inlineValue
            } else if let next = remaining.popFirst() {
                parsed.values[option.name] = next
            } else {
                throw .usage("\(optionName) needs a value (\(option.valueName ?? "VALUE"))", command: command.name)
            }
        }
        return parsed
    }
}
