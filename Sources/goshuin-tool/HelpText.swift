import GoshuinFormat

/// The text of `goshuin-tool help` and of each command's `--help`, wrapped to the terminal's width (80
/// columns when standard output is not a terminal).
enum HelpText {
    static let version = "goshuin-tool 0.1.0 (.goshuin format version 1)"

    /// What a bare `goshuin-tool` prints, on standard error.
    static var shortUsage: String {
        "usage: goshuin-tool COMMAND [ARGUMENTS] [OPTIONS]\n"
            + "commands: \(GoshuinTool.commands.map { $0.name }.joined(separator: ", ")); 'goshuin-tool help' explains them\n"
    }

    /// The exit statuses, in order, as a definition list.
    static let exitStatuses: [(term: String, text: String)] = [
        ("0", "success"),
        ("1", "check: a vector failed or is malformed"),
        ("64", "usage error (a wrong option, a missing passphrase source, a refused passphrase)"),
        (
            "65",
            "the input is malformed or not authentic (wrong passphrase, damaged or cut file, not a backup), or its"
                + " recovery set is missing, unusable or cannot repair it"
        ),
        ("66", "the input does not exist or cannot be read"),
        ("71", "the system refused the memory the command needs (a memory limit)"),
        ("73", "the output cannot be created, or exists and --force was not given"),
        ("74", "reading or writing failed, a full disk included"),
        ("130", "stopped by SIGINT, SIGTERM or SIGHUP (what it had started to write is removed)"),
        (
            "141",
            "what read standard output stopped reading (open FILE -o - | head): no message, as a program ended by"
                + " SIGPIPE"
        ),
    ]

    /// The help topics that are not commands: `goshuin-tool help TOPIC`.
    static let topics: [(name: String, summary: String)] = [
        ("exit-codes", "What each exit status means, for every command.")
    ]

    /// The passphrase's sources, in the order they are looked for.
    static let passphraseSources: [(term: String, text: String)] = [
        ("--passphrase-file PATH", "the bytes of PATH before its first LF (or its end), less one CR before it"),
        ("--passphrase-fd N", "the same, read from file descriptor N"),
        ("GOSHUIN_PASSPHRASE", "the variable's bytes (set but empty is refused: empty_passphrase)"),
        ("otherwise", "a prompt on the terminal (/dev/tty), with echo off"),
    ]

    /// The PASSPHRASE section.
    static var passphrase: String {
        "PASSPHRASE\n" + paragraphs("Never given as an argument. The first of these that is given is used:", indent: 2)
            + definitions(passphraseSources, indent: 4)
            + paragraphs(
                "The passphrase is used as its exact bytes: no trimming, no Unicode normalization. At most 4096 bytes"
                    + " from any source (4094 typed at the terminal, the longest line it passes on whole). Sealing refuses an empty one and warns about one under 10 characters (a"
                    + " forgotten passphrase cannot be recovered, by anyone) and about bytes that are not UTF-8 (the"
                    + " app takes a typed passphrase). It is asked for only once the input and"
                    + " the output passed their checks; without any source and without a terminal, the command then"
                    + " stops with a usage error. Typed at the terminal, a passphrase that does not open the file is"
                    + " asked for again, three times in all.", indent: 2)
    }

    /// `goshuin-tool help exit-codes`: the one place the exit statuses are listed.
    static var exitCodes: String {
        "goshuin-tool exit codes — what each exit status means, for every command\n\nEXIT STATUS\n"
            + definitions(exitStatuses, indent: 2) + "\n"
            + paragraphs(
                "An error is one line on standard error, goshuin-tool: error: CODE: message, its CODE a stable name"
                    + " for programs to compare (with --json, also the \"error\" object on standard output); 'man"
                    + " goshuin-tool' lists every code.", indent: 2)
    }

    /// The EXIT STATUS section of the overview and of each command's help: where the statuses are listed.
    static var exitStatusSection: String {
        "EXIT STATUS\n"
            + paragraphs(
                "0 on success, 64 for a usage error, 65 for an input that is damaged, not authentic or not what was"
                    + " asked for; 'goshuin-tool help exit-codes' lists every status.", indent: 2)
    }

    static var overview: String {
        var text = """
            goshuin-tool — seal, open, check and repair .goshuin encrypted backups

            USAGE
              goshuin-tool COMMAND [ARGUMENTS] [OPTIONS]
              goshuin-tool help [COMMAND | exit-codes]
              goshuin-tool --version

            COMMANDS

            """
        for command in GoshuinTool.commands.map({ $0.spec }) {
            text += hanging("  " + command.name.padding(9), command.summary)
        }
        text += "\nTOPICS\n"
        for topic in topics { text += hanging("  " + topic.name.padding(12), topic.summary) }
        text +=
            "\n"
            + paragraphs(
                "Run 'goshuin-tool help COMMAND' (or COMMAND --help) for its options, 'goshuin-tool help exit-codes'"
                    + " for what each exit status means.", indent: 0)
        text += """

            EXAMPLES
              goshuin-tool seal my-backup/ -o backup.goshuin   # asks the passphrase twice
              goshuin-tool verify backup.goshuin --backup      # every chunk and every photo
              goshuin-tool open backup.goshuin --extract restored/
              goshuin-tool inspect backup.goshuin              # no passphrase needed
              goshuin-tool protect backup.goshuin              # recovery files beside it
              goshuin-tool repair backup.goshuin               # no passphrase needed

            """
        return text + "\n" + passphrase + "\n" + exitStatusSection
    }

    static func help(for command: CommandSpec) -> String {
        let title = words("goshuin-tool \(command.name) — \(command.summary)", width: width).joined(separator: "\n")
        var text = title + "\n\nUSAGE\n" + hanging("  ", command.usage)
        text += "\nDESCRIPTION\n" + paragraphs(command.discussion, indent: 2)
        text += "\nOPTIONS\n"
        for option in command.options {
            var names = option.short.map { "\($0), " } ?? "    "
            names += option.name.rawValue + (option.valueName.map { " \($0)" } ?? "")
            text += hanging("  " + names.padding(optionColumn - 2), option.help)
        }
        let examples = command.examples.map { "  " + $0 }.joined(separator: "\n")
        text += "\nEXAMPLES\n" + examples + "\n"
        if command.options.contains(where: { $0.name == .passphraseFile }) {
            text += "\n" + passphrase
        }
        return text + "\n" + exitStatusSection
    }

    /// Where option descriptions start.
    static let optionColumn = 30

    /// The width to wrap to: the terminal's columns when standard output is one, else 80.
    static var width: Int {
        if let columns = ProcessControl.terminalColumns(of: .standardOutput), columns >= 40 { return columns }
        return 80
    }

    /// `lead` then `text`, wrapped at word boundaries; continuation lines start at `lead`'s width, or, when
    /// `lead` is too wide for a description beside it, the description starts on the next line.
    static func hanging(_ lead: String, _ text: String) -> String {
        let indent = min(lead.count, optionColumn)
        let lines = words(text, width: width - indent)
        guard lead.count <= indent + 1 || lines.isEmpty else {
            // The lead alone on its line, without the padding that would have led to the text.
            let alone = lead.reversed().drop { $0 == " " }.reversed()
            return String(alone) + "\n"
                + lines.map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n")
                + "\n"
        }
        let pad = String(repeating: " ", count: indent)
        return lines.enumerated().map { ($0.offset == 0 ? lead : pad) + $0.element }.joined(separator: "\n") + "\n"
    }

    /// `text`'s paragraphs (separated by blank lines), each re-flowed to the width with `indent` spaces.
    static func paragraphs(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.split(whereSeparator: { $0.allSatisfy { $0 == " " } }).map { paragraph in
            words(paragraph.joined(separator: " "), width: width - indent).map { pad + $0 }.joined(separator: "\n")
                + "\n"
        }.joined(separator: "\n")
    }

    /// A definition list: each term at `indent`, its text beside it in a column that lines up for every
    /// term (two spaces after the longest), wrapped with its continuation lines in that column; a term too
    /// long for that column has its text on the next line.
    static func definitions(_ items: [(term: String, text: String)], indent: Int) -> String {
        let longest = items.map { $0.term.count }.max() ?? 0
        let column = min(indent + longest + 2, max(indent + 8, width / 2))
        let pad = String(repeating: " ", count: column)
        return items.map { item in
            let lead = String(repeating: " ", count: indent) + item.term
            let lines = words(item.text, width: width - column)
            guard lead.count + 2 <= column else {
                return lead + "\n" + lines.map { pad + $0 }.joined(separator: "\n") + "\n"
            }
            let first = lead.padding(column) + (lines.first ?? "")
            return ([first] + lines.dropFirst().map { pad + $0 }).joined(separator: "\n") + "\n"
        }.joined()
    }

    /// The words of `text` on lines of at most `width` characters (a longer word stands alone).
    static func words(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

extension String {
    /// The string padded with spaces to `width` characters (at least one space follows it).
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
