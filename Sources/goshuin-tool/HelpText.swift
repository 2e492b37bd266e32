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

    static let exitStatuses = """
        EXIT STATUS
          0   success
          1   check: a vector failed or is malformed
          64  usage error (a wrong option, a missing passphrase source, a refused passphrase)
          65  the input is malformed or not authentic (wrong passphrase, damaged or cut file)
          66  the input does not exist or cannot be read
          71  the system refused the memory the command needs (a memory limit)
          73  the output cannot be created, or exists and --force was not given
          74  reading or writing failed, a full disk included
          130 stopped by SIGINT, SIGTERM or SIGHUP (what it had started to write is removed)
        """

    static let passphrase = """
        PASSPHRASE
          Never given as an argument. In this order of preference:
            --passphrase-file PATH   the first line of PATH, without its CR/LF
            --passphrase-fd N        the first line read from file descriptor N
            GOSHUIN_PASSPHRASE       the environment variable
            otherwise a prompt on the terminal (/dev/tty), with echo off.
          The passphrase is used as its exact bytes: no trimming, no Unicode normalization. At most 4096 bytes
          from any source. Sealing refuses an empty one and warns about one under 10 characters: a forgotten
          passphrase cannot be recovered, by anyone. Without any source and without a terminal, the command
          stops with a usage error.
        """

    static var overview: String {
        var text = """
            goshuin-tool — seal, open and check .goshuin encrypted backups

            USAGE
              goshuin-tool COMMAND [ARGUMENTS] [OPTIONS]
              goshuin-tool help [COMMAND]
              goshuin-tool --version

            COMMANDS

            """
        for command in GoshuinTool.commands.map({ $0.spec }) {
            text += hanging("  " + command.name.padding(9), command.summary)
        }
        text += """

            Run 'goshuin-tool help COMMAND' (or COMMAND --help) for its options.

            EXAMPLES
              goshuin-tool seal my-backup/ -o backup.goshuin   # asks the passphrase twice
              goshuin-tool verify backup.goshuin               # checks chunks and photos
              goshuin-tool open backup.goshuin --extract restored/
              goshuin-tool inspect backup.goshuin              # no passphrase needed

            """
        return text + "\n" + wrap(passphrase) + "\n\n" + wrap(exitStatuses) + "\n"
    }

    static func help(for command: CommandSpec) -> String {
        var text = wrap("goshuin-tool \(command.name) — \(command.summary)") + "\n\nUSAGE\n"
        text += hanging("  ", command.usage)
        text += "\nDESCRIPTION\n" + paragraphs(command.discussion, indent: 2)
        text += "\nOPTIONS\n"
        for option in command.options {
            var names = option.short.map { "\($0), " } ?? "    "
            names += option.name.rawValue + (option.valueName.map { " \($0)" } ?? "")
            text += hanging("  " + names.padding(optionColumn - 2), option.help)
        }
        text += "\nEXAMPLES\n" + command.examples.map { "  " + $0 }.joined(separator: "\n") + "\n"
        if command.options.contains(where: { $0.name == .passphraseFile }) {
            text += "\n" + wrap(passphrase) + "\n"
        }
        return text + "\n" + wrap(exitStatuses) + "\n"
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
            return lead + "\n" + lines.map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n") + "\n"
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

    /// Each line of `text` wrapped to the width, its continuation lines indented like it plus two.
    static func wrap(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let indent = line.prefix { $0 == " " }.count
            let lines = words(String(line.dropFirst(indent)), width: width - indent - 2)
            guard !lines.isEmpty else { return "" }
            let first = String(repeating: " ", count: indent) + lines[0]
            let rest = lines.dropFirst().map { String(repeating: " ", count: indent + 2) + $0 }
            return ([first] + rest).joined(separator: "\n")
        }.joined(separator: "\n")
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
