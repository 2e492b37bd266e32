import GoshuinFormat

/// Asks for a passphrase on `/dev/tty` with echo off, whatever standard input and output are.
enum TerminalPrompt {
    /// Whether there is a controlling terminal to ask on.
    static var isAvailable: Bool { ControllingTerminal() != nil }

    /// The longest line a terminal in canonical mode passes on whole: Linux keeps 4095 bytes of a line and
    /// drops what is typed beyond, silently, so a line that long may have been cut.
    static let longestWholeLine = 4_094

    /// Shows `prompt`, reads one line with echo off, and restores the terminal (also on Ctrl-C, which ends
    /// the prompt with `interrupted`).
    ///
    /// - Throws: `passphrase_too_long` for a line the terminal may have cut (``longestWholeLine``).
    static func ask(_ prompt: String) throws(ToolError) -> SecretBytes {
        guard let terminal = ControllingTerminal() else {
            throw .usage("no terminal to ask for the passphrase on")
        }
        _ = terminal.hideEcho()
        defer { terminal.restoreEcho() }
        // The prompt comes after echo is off, so an answer typed at it is never flushed or echoed.
        try? terminal.write(prompt)
        var line = [UInt8]()
        line.reserveCapacity(Passphrase.maximumLength + 2)
        defer { SecretBytes.wipe(&line) }
        while true {
            let byte: UInt8?
            do {
                byte = try terminal.readByte()
            } catch {
                guard Interruption.isRequested else {
                    throw ToolError(code: .io, "cannot read the passphrase from the terminal", status: .ioError)
                }
                // Ctrl-C: the prompt's line ends before the error; the caller removes what it had begun.
                try? terminal.write("\n")
                throw ToolError(
                    code: .interrupted, "stopped at the passphrase prompt; nothing was written",
                    status: .interrupted)
            }
            guard let byte, byte != UInt8(ascii: "\n") else { break }
            line.append(byte)
            guard line.count <= Self.longestWholeLine else { throw cutLine }
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return SecretBytes(copying: line)
    }

    private static let cutLine = ToolError(
        GoshuinError(
            .passphraseTooLong,
            "the passphrase typed is longer than \(longestWholeLine) bytes, more than a terminal passes on whole: it"
                + " may have been cut, so it is refused"),
        hint: "give a passphrase that long with --passphrase-file or --passphrase-fd")
}
