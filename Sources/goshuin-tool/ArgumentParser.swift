/// One option a command accepts.
struct OptionSpec {
    /// The long name with its dashes, such as `--output`.
    let name: String
    /// The short name, such as `-o`.
    let short: String?
    /// The placeholder of its value; `nil` for a flag.
    let valueName: String?
    /// One line of help.
    let help: String

    init(_ name: String, short: String? = nil, value valueName: String? = nil, _ help: String) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
    }
}

/// What a command was given.
struct ParsedArguments {
    var positionals: [String] = []
    private var values: [String: String] = [:]

    func value(_ option: String) -> String? { values[option] }
    func has(_ option: String) -> Bool { values[option] != nil }

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
            guard let option = command.options.first(where: { $0.name == name || $0.short == name }) else {
                throw .usage("unknown option '\(name)' for '\(command.name)'", command: command.name)
            }
            guard parsed.values[option.name] == nil else {
                throw .usage("\(option.name) is given twice", command: command.name)
            }
            if option.valueName == nil {
                guard inlineValue == nil else {
                    throw .usage("\(option.name) takes no value", command: command.name)
                }
                parsed.values[option.name] = ""
            } else if let inlineValue {
                parsed.values[option.name] = inlineValue
            } else if let next = remaining.popFirst() {
                parsed.values[option.name] = next
            } else {
                throw .usage("\(option.name) needs a value (\(option.valueName ?? "VALUE"))", command: command.name)
            }
        }
        return parsed
    }
}
