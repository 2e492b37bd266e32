/// The text of `goshuin-tool help` and of each command's `--help`.
enum HelpText {
    static let version = "goshuin-tool 0.1.0 (.goshuin format version 1)"

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
          The passphrase is used as its exact UTF-8 bytes: no trimming, no Unicode normalization.
          Without any source and without a terminal, the command stops with a usage error.
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
        for command in CommandSpec.all {
            text += "  " + command.name.padding(9) + command.summary + "\n"
        }
        text += """

            Run 'goshuin-tool help COMMAND' (or COMMAND --help) for its options.

            EXAMPLES
              goshuin-tool seal notes.zip -o notes.goshuin       asks the passphrase twice
              goshuin-tool inspect notes.goshuin                 no passphrase needed
              goshuin-tool open notes.goshuin -o notes.zip

            """
        return text + "\n" + passphrase + "\n\n" + exitStatuses + "\n"
    }

    static func help(for command: CommandSpec) -> String {
        var text = "goshuin-tool \(command.name) — \(command.summary)\n\nUSAGE\n  \(command.usage)\n\n"
        text += "DESCRIPTION\n" + command.discussion.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        text += "\n\nOPTIONS\n"
        for option in command.options {
            var names = option.short.map { "\($0), " } ?? "    "
            names += option.name + (option.valueName.map { " \($0)" } ?? "")
            text += "  " + names.padding(26) + option.help + "\n"
        }
        text += "\nEXAMPLES\n" + command.examples.map { "  " + $0 }.joined(separator: "\n") + "\n"
        if command.options.contains(where: { $0.name == "--passphrase-file" }) {
            text += "\n" + passphrase + "\n"
        }
        return text + "\n" + exitStatuses + "\n"
    }
}

extension String {
    /// The string padded with spaces to `width` characters (at least one space follows it).
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
