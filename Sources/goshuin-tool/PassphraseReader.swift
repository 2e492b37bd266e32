import GoshuinFormat

/// Where the passphrase comes from: `--passphrase-file`, `--passphrase-fd`, `GOSHUIN_PASSPHRASE`, or a
/// prompt on the terminal with echo off. Never from an argument.
struct PassphraseReader {
    static let environmentVariable = "GOSHUIN_PASSPHRASE"

    let file: String?
    let descriptor: String?
    let command: String
    /// The passphrase once it was read to open a file, and the check of one typed at the terminal.
    private let state = ReaderState()

    /// How many times a passphrase typed at the terminal is asked for when it does not open the file, in all
    /// (as sudo asks).
    static let tries = 3

    /// The sources `arguments` name, checked before any work: two explicit sources, or a descriptor that is
    /// not open, are usage errors. Whether there is a source at all is asked only when the passphrase is
    /// needed, after every check of the input and the output (``read(confirm:)``).
    init(_ arguments: ParsedArguments, command: String) throws(ToolError) {
        file = arguments.value(.passphraseFile)
        descriptor = arguments.value(.passphraseDescriptor)
        self.command = command
        try validate()
    }

    /// Whether a passphrase can be had: a source given, or a terminal to ask on. Nothing is read or asked.
    var canRead: Bool {
        file != nil || descriptor != nil || FileSystem.environment(Self.environmentVariable) != nil
            || ControllingTerminal() != nil
    }

    /// Whether a passphrase was given (a file, a descriptor or the environment): it can be read without asking.
    var isGiven: Bool {
        file != nil || descriptor != nil || FileSystem.environment(Self.environmentVariable) != nil
    }

    /// Whether the passphrase is to be read from standard input (`--passphrase-fd 0`).
    var usesStandardInput: Bool { descriptor.flatMap { Int32($0) } == 0 }

    /// Refuses an input of `-` when the passphrase comes from standard input too.
    func refuseSharingStandardInput(with inputPath: String) throws(ToolError) {
        guard inputPath == "-", usesStandardInput else { return }
        throw .usage("standard input cannot carry both the input and the passphrase", command: command)
    }

    private func validate() throws(ToolError) {
        if file != nil, descriptor != nil {
            throw .usage("give --passphrase-file or --passphrase-fd, not both", command: command)
        }
        if let descriptor {
            guard let number = Int32(descriptor), number >= 0 else {
                throw .usage("--passphrase-fd takes a file descriptor number, not '\(descriptor)'", command: command)
            }
            // Checked before anything is opened: a closed number would otherwise be reused by the tool's own
            // input, and the passphrase read from it.
            // 0, 1 and 2 closed at start point at /dev/null now (Console): still closed for this purpose.
            guard FileDescriptor(rawValue: number).isOpen,
                !Console.closedAtStart.contains(FileDescriptor(rawValue: number))
            else {
                throw .usage("--passphrase-fd \(number): no file descriptor \(number) is open", command: command)
            }
        }
    }

    /// Reads the passphrase; when sealing from the terminal it is asked twice and must match.
    ///
    /// When sealing (`confirm`), an empty passphrase is refused and a short one, or one that is not UTF-8,
    /// warned about, whatever the source; at the prompt, before the confirmation is asked. To open a file, a
    /// passphrase typed at the terminal that does not open it is asked for again, ``tries`` times in all
    /// (``checkTypedPassphrase(against:named:progress:)``).
    func read(confirm: Bool) throws -> Passphrase {
        // Read once: a descriptor or a prompt gives it once, and a file read from standard input is
        // authenticated as it arrives, then read with the same passphrase (``Paths/openInput(_:command:authenticatingWith:progress:)``).
        if !confirm, let known = state.passphrase { return known }
        let passphrase = try readOnce(confirm: confirm)
        if !confirm { state.passphrase = passphrase }
        return passphrase
    }

    /// Has a passphrase typed at the terminal checked against the file open at `input` (called `path`) before
    /// the command uses it, as the library checks it first (``LeadingAuthentication``: version 2's header MAC,
    /// version 1's first chunk, with chunks 1–3 when it fails): one that does not open the file (`auth_failed`)
    /// is asked for again, and nothing is written meanwhile. The key derived for the passphrase that passes is
    /// kept with it (``Passphrase``'s memo), so the command does not derive it again; and the check reads what
    /// the command's own first read reads, so a file that fails otherwise (damaged) fails as it would have.
    /// A passphrase given by a file, a descriptor or the environment is never asked again: it is used once.
    func checkTypedPassphrase(against input: FileDescriptor, named path: String, progress: ProgressHandler?) {
        checkTypedPassphrase(named: path) { passphrase in
            let size = try input.regularFileSize() ?? 0
            let head = try FileSystem.read(input, at: 0, count: FormatVersion.v2.headerLength)
            guard let leading = LeadingAuthentication(head: head) else { return }
            try leading.authenticate(input, available: UInt64(size), passphrase: passphrase, progress: progress)
        }
    }

    /// Has a passphrase typed at the terminal checked by `check` (which throws `auth_failed` for one that does
    /// not open the file called `path`) before it is used; see ``checkTypedPassphrase(against:named:progress:)``.
    func checkTypedPassphrase(named path: String, _ check: @escaping (Passphrase) throws -> Void) {
        state.check = (name: path, check: check)
    }

    private func readOnce(confirm: Bool) throws -> Passphrase {
        if let given = try readGiven() {
            if confirm { try Self.checkForSealing(given.bytes) }
            return given
        }
        let prompt = try TerminalPrompt(command: command)
        guard confirm else { return try askUntilItOpens(prompt) }
        let first = try prompt.ask("Passphrase: ")
        if confirm {
            try Self.checkForSealing(first)
            let second = try prompt.ask("Passphrase again: ")
            let same = first.withUnsafeBytes { one in second.withUnsafeBytes { two in one.elementsEqual(two) } }
            guard same else {
                throw ToolError(
                    code: .passphraseMismatch, "the two passphrases differ; nothing was written",
                    status: .usage)
            }
        }
        return Passphrase(secret: first)
    }

    /// A passphrase typed at `prompt`, checked against the file to open when there is a check: asked again,
    /// ``tries`` times in all, while it does not open it; the last try's error otherwise. Anything but
    /// `auth_failed` leaves the passphrase to the command, which reads the file and says what it finds.
    private func askUntilItOpens(_ prompt: TerminalPrompt) throws -> Passphrase {
        var retry = ""
        var attempt = 1
        while true {
            let typed = Passphrase(secret: try prompt.ask(retry + "Passphrase: "))
            guard let (name, check) = state.check else { return typed }
            do {
                try check(typed)
                return typed
            } catch let error as GoshuinError where error.code == .authFailed && !Interruption.isRequested {
                guard attempt < Self.tries else { throw error }
                let left = Self.tries - attempt
                attempt += 1
                // On the terminal, as part of the next prompt: where the person is typing, whatever standard
                // error is.
                retry =
                    DisplayText.escaped(
                        "goshuin-tool: that passphrase does not open \(Paths.describeInput(name)); try again"
                            + " (\(left) more \(left == 1 ? "try" : "tries"))") + "\n"
            } catch let error as GoshuinError where error.code == .interrupted || Interruption.isRequested {
                throw error
            } catch {
                return typed
            }
        }
    }

    /// The passphrase from a file, a descriptor or the environment; `nil` when none was given.
    private func readGiven() throws(ToolError) -> Passphrase? {
        if let file {
            return try firstLine(path: file)
        }
        if let descriptor, let number = Int32(descriptor) {
            return try firstLine(of: FileDescriptor(rawValue: number), source: "file descriptor \(number)")
        }
        if let value = FileSystem.environment(Self.environmentVariable) {
            // Set but empty is a mistake (`GOSHUIN_PASSPHRASE= goshuin-tool …`), not a wrong passphrase: refused
            // before any work, sealing or opening, with the code of an empty passphrase (container-v1.md §4.1).
            guard value.count > 0 else { throw Self.emptyVariable }
            guard value.count <= Passphrase.maximumLength else { throw tooLong(Self.environmentVariable) }
            return Passphrase(bytes: value)
        }
        return nil
    }

    /// Refuses an empty passphrase for sealing and warns about a short one and one that is not UTF-8.
    private static func checkForSealing(_ passphrase: SecretBytes) throws(ToolError) {
        guard passphrase.count > 0 else { throw empty }
        warnIfShort(passphrase)
        warnIfNotText(passphrase)
    }

    private func firstLine(path: String) throws(ToolError) -> Passphrase {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.openForReading(path)
        } catch {
            throw ToolError(
                code: .inputNotFound, "cannot open the passphrase file \(DisplayText.quoted(path)): \(error)",
                status: .noInput)
        }
        defer { try? descriptor.close() }
        return try firstLine(of: descriptor, source: path)
    }

    /// The first line from `descriptor`, without its CR/LF, read a byte at a time so nothing past the
    /// line is consumed.
    private func firstLine(of descriptor: FileDescriptor, source: String) throws(ToolError) -> Passphrase {
        // Reserved in full, so growing the line never leaves an unwiped copy behind.
        var line = [UInt8]()
        line.reserveCapacity(Passphrase.maximumLength + 2)
        defer { SecretBytes.wipe(&line) }
        var byte: UInt8 = 0
        while true {
            let count: Int
            do {
                count = try withUnsafeMutableBytes(of: &byte) { buffer throws(Errno) in
                    try descriptor.read(into: buffer)
                }
            } catch {
                throw ToolError(code: .io, "cannot read the passphrase from \(source): \(error)", status: .ioError)
            }
            if count == 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
            // One byte more than the limit may be the CR of a CRLF line end, removed below.
            guard line.count <= Passphrase.maximumLength + 1 else { throw tooLong(source) }
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard line.count <= Passphrase.maximumLength else { throw tooLong(source) }
        return Passphrase(bytes: line)
    }

    /// The refusal of an empty passphrase for sealing, whatever its source.
    static let empty = ToolError(
        GoshuinError(.emptyPassphrase, "an empty passphrase protects nothing; nothing was written"))

    /// The refusal of `GOSHUIN_PASSPHRASE` set but empty, for every command: almost always a variable that
    /// was meant to hold the passphrase. A file sealed with an empty passphrase by another program still
    /// opens from an empty file or an empty line at the prompt.
    static let emptyVariable = ToolError(
        code: .emptyPassphrase,
        "\(environmentVariable) is set but empty; nothing was read or written",
        hint:
            "set it to the passphrase, or unset it to be asked on the terminal (to open a file sealed with an empty"
            + " passphrase, give --passphrase-file /dev/null)", status: .usage)

    /// Passphrases shorter than this many characters get a warning when sealing.
    static let shortLength = 10

    /// Warns, on standard error, when sealing with a passphrase of fewer than ``shortLength`` characters:
    /// nothing refuses it, but nobody can recover a backup whose passphrase is forgotten or guessed.
    static func warnIfShort(_ passphrase: SecretBytes) {
        // Counted in place, as Unicode scalars (bytes that do not continue a UTF-8 sequence): a String made
        // of the passphrase would be a copy on the heap that nothing wipes.
        let characters = passphrase.withUnsafeBytes { bytes in bytes.count { $0 & 0xC0 != 0x80 } }
        guard characters > 0, characters < shortLength else { return }
        Console.notice(
            "warning: this passphrase has only \(characters) \(characters == 1 ? "character" : "characters"); a"
                + " short one is easy to guess, and a forgotten one cannot be recovered: nobody, not even the app,"
                + " can open the backup without it")
    }

    /// Warns, on standard error, when sealing with bytes that are not UTF-8 (a binary key file, a terminal in
    /// another encoding): the app takes its passphrase as typed text, whose bytes are always UTF-8
    /// (`Spec/container-v1.md` §4), so it could never open the backup.
    static func warnIfNotText(_ passphrase: SecretBytes) {
        // Judged in place: a String made of the passphrase would be a copy on the heap that nothing wipes.
        let isText = passphrase.withUnsafeBytes { bytes in
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
        guard !isText else { return }
        Console.notice(
            "warning: this passphrase is not UTF-8 text; the app, which takes a typed passphrase, cannot open a"
                + " backup sealed with it: keep the passphrase's source (the file) with the backup, or choose one"
                + " you can type")
    }

    /// The one refusal of a passphrase over ``Passphrase/maximumLength`` bytes, whatever its source.
    func tooLong(_ source: String) -> ToolError {
        ToolError(
            GoshuinError(
                .passphraseTooLong,
                "the passphrase from \(source) is longer than \(Passphrase.maximumLength) bytes, the most any source"
                    + " takes"))
    }

}

/// A passphrase read to open a file, kept for the rest of the run, and the check of one typed at the
/// terminal against the file it is to open.
private final class ReaderState {
    var passphrase: Passphrase?
    var check: (name: String, check: (Passphrase) throws -> Void)?
}
