import Foundation
import Testing

@testable import goshuin_tool

/// The completions and the man page's option lists, checked against the commands' declarations (each
/// command's `CommandSpec`, which its help prints): every command, and under each command every option it
/// declares (short and long name, whether it takes a value) and nothing else (`Spec/decisions/0054`).
@Suite struct DeclarationsTests {
    static let specs = GoshuinTool.commands.map { $0.spec }

    /// The names a command's options are typed with: `-o`, `--output`, …
    static func names(_ spec: CommandSpec) -> Set<String> {
        Set(spec.options.flatMap { [$0.name.rawValue] + ($0.short.map { [$0] } ?? []) })
    }

    /// The long names of a command's options that take a value.
    static func valued(_ spec: CommandSpec) -> Set<String> {
        Set(spec.options.filter { $0.valueName != nil }.map(\.name.rawValue))
    }

    static func file(_ path: String) throws -> String {
        try String(contentsOfFile: ToolRunner.packageRoot + "/" + path, encoding: .utf8)
    }

    /// The text of `text` from the line `start` to the first line after it that `isEnd` accepts.
    static func block(of text: String, from start: String, until isEnd: (Substring) -> Bool) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0 == start }) else { return [] }
        let rest = lines[(first + 1)...]
        return Array(rest.prefix { !isEnd($0) })
    }

    /// Every `-x` and `--name` word in `lines`.
    static func optionWords(_ lines: some Sequence<Substring>) -> Set<String> {
        Set(lines.flatMap { $0.matches(of: /(?:^|[^\w-])(--[a-z][a-z-]*|-[a-z])\b/).map { String($0.output.1) } })
    }

    @Test func theDeclarationsAreWhatTheToolRuns() throws {
        #expect(Self.specs.map(\.name) == HelpTests.commands)
        for spec in Self.specs {
            let help = try ToolRunner.run(["help", spec.name], in: "/").stdout
            for option in spec.options {
                #expect(help.contains(option.name.rawValue + (option.valueName.map { " " + $0 } ?? "")), "\(spec.name)")
            }
        }
    }

    @Test func bashCompletesEveryCommandAndEachCommandsOptionsAndNothingElse() throws {
        let script = try Self.file("Completions/goshuin-tool.bash")
        let commands = try #require(script.firstMatch(of: /-W '([a-z -]+ help)' -- "\$cur"/)).output.1
        #expect(commands.split(separator: " ").map(String.init) == HelpTests.commands + ["help"])
        let topics = try #require(
            script.firstMatch(of: /help\)\n\s+\(\(COMP_CWORD == 2\)\) && _goshuin_tool_reply -W '([a-z -]+)'/))
        #expect(
            topics.output.1.split(separator: " ").map(String.init)
                == HelpTests.commands + HelpText.topics.map(\.name), "help completes the commands and the topics")
        // The value of an option: completed, or said to have nothing to complete, for each option that takes one.
        let values = Self.block(of: script, from: "    if [[ \" ${options[*]} \" == *\" $prev \"* ]]; then") {
            $0 == "    fi"
        }
        let completedValues = Set(
            values.filter { $0.hasPrefix("        -") }.flatMap { line in
                line.split(separator: ")")[0].split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            })
        for spec in Self.specs {
            let block = Self.block(of: script, from: "    \(spec.name))") { $0.hasPrefix("        ;;") }
            #expect(
                Self.optionWords(block.filter { !$0.contains("#") }) == Self.names(spec),
                "bash completes \(spec.name)'s options")
            for option in spec.options {
                let takesValue = completedValues.contains(option.name.rawValue)
                #expect(takesValue == (option.valueName != nil), "bash: \(spec.name) \(option.name.rawValue)")
            }
        }
    }

    @Test func zshCompletesEveryCommandAndEachCommandsOptionsAndNothingElse() throws {
        let script = try Self.file("Completions/_goshuin-tool")
        let described =
            script.matches(of: /\n    '([a-z]+):/).map { String($0.output.1) }
            + script.matches(of: /\n    "([a-z]+):/).map { String($0.output.1) }
        #expect(Set(described) == Set(HelpTests.commands))
        // The arrays every command block may name: $json, $help, $passphrase, $output.
        var shared: [String: [Substring]] = [:]
        for name in ["json", "help", "passphrase", "output"] {
            let one = script.firstMatch(of: try Regex("local -a \(name)=\\(([^\\n]*)\\)"))
            let many = Self.block(of: script, from: "      local -a \(name)=(") { $0 == "      )" }
            shared[name] = one.map { [$0.output[1].substring ?? ""] } ?? many
        }
        for spec in Self.specs {
            let block = Self.block(of: script, from: "        \(spec.name))") { $0 == "          ;;" }
            var lines = block
            for (name, definition) in shared where block.contains(where: { $0.contains("$" + name) }) {
                lines += definition
            }
            // What is between brackets is an option's description, which may name another option; `_files -g`
            // is zsh's.
            lines = lines.map { Substring($0.replacing(/\[[^\]]*\]/, with: "").replacing("_files -g", with: "_files")) }
            #expect(Self.optionWords(lines) == Self.names(spec), "zsh completes \(spec.name)'s options")
            let withValues = Set(lines.flatMap { $0.matches(of: /(--[a-z-]+)=/).map { String($0.output.1) } })
            #expect(withValues == Self.valued(spec), "zsh: \(spec.name)'s options that take a value")
        }
    }

    @Test func theManPageDocumentsEachCommandsOptionsUnderItAndNothingElse() throws {
        let manual = try Self.file("Documentation/goshuin-tool.1")
        let options = Self.block(of: manual, from: ".SH OPTIONS") { $0.hasPrefix(".SH ") }
        #expect(
            options.filter { $0.hasPrefix(".SS ") }.map { String($0.dropFirst(4)) } == HelpTests.commands,
            "a section per command, in order")
        for spec in Self.specs {
            let section = Self.block(of: options.joined(separator: "\n"), from: ".SS \(spec.name)") {
                $0.hasPrefix(".SS ")
            }
            // Each entry's first line: what follows .TP.
            let entries = zip(section, section.dropFirst()).filter { $0.0 == ".TP" }.map {
                $0.1.replacingOccurrences(of: "\\-", with: "-")
            }
            #expect(
                Self.optionWords(entries.map { Substring($0) }) == Self.names(spec),
                "the man page's OPTIONS for \(spec.name): \(entries)")
            for option in spec.options {
                let entry = entries.first { $0.contains(option.name.rawValue) } ?? ""
                if let value = option.valueName {
                    #expect(entry.contains(value), "the man page: \(spec.name) \(option.name.rawValue) \(value)")
                } else {
                    #expect(!entry.contains("\\fI") && !entry.hasPrefix(".BI"), "\(spec.name) \(entry)")
                }
            }
        }
    }
}
