import GoshuinFormat

/// Where the passphrase of a new file comes from, for `rescue` and `rekey` (`Spec/decisions/0055`):
/// `--new-passphrase-file PATH` or `--new-passphrase-fd N`, read as `--passphrase-file` and `--passphrase-fd`
/// are, or the terminal, asked twice. Never the environment (`GOSHUIN_PASSPHRASE` is the passphrase that opens
/// the input), and never the source the input's passphrase comes from: the two are read from two places, or the
/// command stops before anything is read. The sealing rules are `seal`'s: an empty passphrase is refused, a
/// short one or one that is not UTF-8 warned about.
struct NewPassphraseReader {
    /// The prompts on the terminal: both hold "Passphrase", as every prompt of the tool does.
    static let prompt = "Passphrase for the new file: "
    static let promptAgain = "Passphrase for the new file again: "

    let file: String?
    let descriptor: String?
    let command: String
    /// The reader of a file or descriptor given, which reads them as the input's passphrase is read.
    private let given: PassphraseReader?

    /// The sources `arguments` name, checked before any work against each other and against `old`, the
    /// input's: usage errors for both options, a descriptor that is not open, or a source that is the old one
    /// (the same descriptor, the same file, or standard input when the input is `-`).
    init(_ arguments: ParsedArguments, command: String, old: PassphraseReader, inputPath: String) throws(ToolError) {
        file = arguments.value(.newPassphraseFile)
        descriptor = arguments.value(.newPassphraseDescriptor)
        self.command = command
        if file != nil, descriptor != nil {
            throw .usage("give --new-passphrase-file or --new-passphrase-fd, not both", command: command)
        }
        var newSource: FileIdentity?
        if let descriptor {
            guard let number = Int32(descriptor), number >= 0 else {
                throw .usage(
                    "--new-passphrase-fd takes a file descriptor number, not '\(descriptor)'", command: command)
            }
            let open = FileDescriptor(rawValue: number)
            guard open.isOpen, !Console.closedAtStart.contains(open) else {
                throw .usage("--new-passphrase-fd \(number): no file descriptor \(number) is open", command: command)
            }
            if let oldNumber = old.descriptor.flatMap({ Int32($0) }), oldNumber == number {
                throw Self.sameSource("file descriptor \(number)", command: command)
            }
            if number == 0, inputPath == "-" {
                throw .usage(
                    "standard input cannot carry both the input and the new passphrase", command: command)
            }
            newSource = try? open.fileIdentity()
        } else if let file {
            if case .success(let found) = FileSystem.statusFollowingLinks(ofPath: file) { newSource = found.identity }
        }
        // The same file or pipe under two names (a path and /dev/fd/N, two links): read twice, it would give
        // the second passphrase from what follows the first, or the first again.
        if let newSource, newSource == Self.identity(of: old) {
            throw Self.sameSource(file.map { DisplayText.quoted($0) } ?? "that file descriptor", command: command)
        }
        if file != nil || descriptor != nil {
            var given: [String] = []
            if let file { given = [OptionName.passphraseFile.rawValue, file] }
            if let descriptor { given = [OptionName.passphraseDescriptor.rawValue, descriptor] }
            let spec = CommandSpec(
                name: command, summary: "", usage: "", options: CommandSpec.passphraseOptions, discussion: "",
                examples: [])
            self.given = try PassphraseReader(ParsedArguments.parse(given, command: spec), command: command)
        } else {
            self.given = nil
        }
    }

    /// Whether a new passphrase was given (a file or a descriptor): it is read without asking.
    var isGiven: Bool { given != nil }

    /// Whether a new passphrase can be had: given, or a terminal to ask on. Nothing is read or asked.
    var canRead: Bool { isGiven || ControllingTerminal() != nil }

    /// The refusal when there is no terminal to ask the new passphrase on and none was given.
    var noSource: ToolError {
        .usage(
            "no passphrase for the new file: there is no terminal to ask on; give it with --new-passphrase-file PATH"
                + " or --new-passphrase-fd N", command: command)
    }

    /// Reads the new passphrase: from the file or descriptor given, or asked twice on the terminal, where the
    /// two must match. An empty one is refused, a short one or one that is not UTF-8 warned about.
    func read() throws -> Passphrase {
        if let given { return try given.read(confirm: true) }
        guard ControllingTerminal() != nil else { throw noSource }
        let prompt = try TerminalPrompt(command: command)
        let first = try prompt.ask(Self.prompt)
        guard first.count > 0 else { throw PassphraseReader.empty }
        PassphraseReader.warnIfShort(first)
        PassphraseReader.warnIfNotText(first)
        let second = try prompt.ask(Self.promptAgain)
        let same = first.withUnsafeBytes { one in second.withUnsafeBytes { two in one.elementsEqual(two) } }
        guard same else {
            throw ToolError(
                code: .passphraseMismatch, "the two new passphrases differ; nothing was written", status: .usage)
        }
        return Passphrase(secret: first)
    }

    /// The identity of the file or descriptor the input's passphrase is read from, when it names one.
    private static func identity(of old: PassphraseReader) -> FileIdentity? {
        if let number = old.descriptor.flatMap({ Int32($0) }) {
            return try? FileDescriptor(rawValue: number).fileIdentity()
        }
        if let file = old.file, case .success(let found) = FileSystem.statusFollowingLinks(ofPath: file) {
            return found.identity
        }
        return nil
    }

    private static func sameSource(_ what: String, command: String) -> ToolError {
        .usage(
            "the passphrase that opens the input and the new one would both be read from \(what); give the new one"
                + " its own file or descriptor (--new-passphrase-file, --new-passphrase-fd), or type it at the prompt",
            command: command)
    }
}
