import GoshuinFormat

/// Asks for a passphrase on `/dev/tty` with echo off, whatever standard input and output are; the
/// terminal is opened once for every question of one command.
struct TerminalPrompt {
    private let terminal: ControllingTerminal

    /// The controlling terminal to ask on, or a usage error saying how else to give the passphrase.
    init(command: String) throws(ToolError) {
        guard let terminal = ControllingTerminal() else {
            throw .usage(
                "no passphrase: there is no terminal to ask on; use --passphrase-file, --passphrase-fd or"
                    + " \(PassphraseReader.environmentVariable)", command: command)
        }
        self.terminal = terminal
    }

    /// The longest line a terminal in canonical mode passes on whole: Linux keeps 4095 bytes of a line and
    /// drops what is typed beyond, silently, so a line that long may have been cut.
    static let longestWholeLine = 4_094

    /// Shows `prompt`, reads one line with echo off, and restores the terminal (also on Ctrl-C, which ends
    /// the prompt with `interrupted`, and on Ctrl-Z, after which `fg` shows the prompt again).
    ///
    /// - Throws: `passphrase_too_long` for a line the terminal may have cut (``longestWholeLine``).
    func ask(_ prompt: String) throws(ToolError) -> SecretBytes {
        do {
            return try terminal.readHiddenLine(prompt: prompt, maximumLength: Self.longestWholeLine)
        } catch {
            switch error {
            case .interrupted:
                // The caller removes what it had begun.
                throw ToolError(
                    code: .interrupted, "stopped at the passphrase prompt; nothing was written", status: .interrupted)
            case .tooLong: throw Self.cutLine
            case .unreadable:
                throw ToolError(code: .io, "cannot read the passphrase from the terminal", status: .ioError)
            }
        }
    }

    private static let cutLine = ToolError(
        GoshuinError(
            .passphraseTooLong,
            "the passphrase typed is longer than \(longestWholeLine) bytes, more than a terminal passes on whole: it"
                + " may have been cut, so it is refused"),
        hint: "give a passphrase that long with --passphrase-file or --passphrase-fd")
}
