import GoshuinBackup
import GoshuinFormat
import GoshuinRecovery

/// `goshuin-tool rekey INPUT.goshuin -o OUTPUT.goshuin`: the same payload under a new passphrase, decrypted and
/// sealed again chunk by chunk, never written in the clear (`Spec/decisions/0055`).
enum RekeyCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "rekey", summary: "Seal a .goshuin file again under a new passphrase, its contents never in the clear.",
        usage:
            "goshuin-tool rekey INPUT.goshuin -o OUTPUT.goshuin [--new-passphrase-file PATH | --new-passphrase-fd N]"
            + " [--format 1|2] [options]",
        options: [
            OptionSpec(
                .output, short: "-o", value: "PATH", "Where to write the new .goshuin file ('-': standard output)."),
            OptionSpec(
                .newPassphraseFile, value: "PATH",
                "Read the new passphrase from the first line of PATH (CR/LF removed); without it or"
                    + " --new-passphrase-fd, it is asked twice on the terminal."),
            OptionSpec(
                .newPassphraseDescriptor, value: "N",
                "Read the new passphrase from the first line of file descriptor N."),
            OptionSpec(
                .format, value: "1|2",
                "The format version to write: 1 (the default, what the app imports, whatever INPUT's version) or 2."),
            iterationsOption,
        ] + CommandSpec.passphraseOptions + CommandSpec.outputOptions + [
            CommandSpec.jsonOption, CommandSpec.helpOption,
        ],
        discussion: """
            For a backup to hand to someone under a passphrase of its own: OUTPUT holds the same payload, byte
            for byte, sealed under the new passphrase with fresh salts; the old passphrase does not open it, and
            INPUT is left as it is. Each chunk is decrypted, authenticated and sealed again in memory, a few
            chunks at a time: the contents are never written in the clear, whatever their size.

            The passphrase that opens INPUT comes from --passphrase-file, --passphrase-fd, GOSHUIN_PASSPHRASE or
            the terminal; the new one from --new-passphrase-file or --new-passphrase-fd, or the terminal, where
            it is asked twice (never from GOSHUIN_PASSPHRASE, and never from the old one's file or descriptor).
            An empty new passphrase is refused, a short one warned about, as seal does. OUTPUT is written as
            seal writes: format version 1 unless --format 2 (so a version 2 file comes out as version 1, which
            the app imports), 600000 iterations unless --iterations, 4 MiB chunks.

            Every chunk of INPUT must authenticate before OUTPUT appears: a damaged or cut INPUT is refused with
            the error open gives (65), and nothing is written; repair it from its recovery files, or save what
            is intact of a backup with goshuin-tool rescue. OUTPUT is written beside its destination under a
            temporary name; an existing file is replaced only with --force.
            """,
        examples: [
            "goshuin-tool rekey backup.goshuin -o to.goshuin --new-passphrase-file new.txt",
            "goshuin-tool rekey v2.goshuin -o v1.goshuin --new-passphrase-file new.txt",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let inputPath = try onlyPositional(arguments, "one INPUT.goshuin file (or - for standard input)")
        guard let outputPath = arguments.value(.output) else { throw usage("rekey needs -o OUTPUT.goshuin") }
        let parameters = try newFileParameters(arguments, command: name)
        let passphraseReader = try PassphraseReader(arguments, command: name)
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        let newReader = try NewPassphraseReader(
            arguments, command: name, old: passphraseReader, inputPath: inputPath)
        let force = arguments.has(.force)
        let reporter = context.reporter
        if inputPath == "-" {
            try Paths.checkOutput(outputPath, input: nil, force: force, binary: true, command: name)
        }
        let written: (old: Header, new: Header, samePassphrase: Bool)
        do {
            let input = try Paths.openInput(
                inputPath, command: name, authenticatingWith: passphraseReader, progress: reporter.handler)
            written = try input.closeAfter {
                try Paths.checkOutput(outputPath, input: input, force: force, binary: true, command: name)
                guard newReader.canRead else { throw newReader.noSource }
                // The structure is checked before either passphrase is asked for.
                let locked = try LockedContainer(checking: input)
                let old = try passphraseReader.read(confirm: false)
                let container = try locked.unlock(with: old, progress: reporter.handler)
                // Version 1 says whether the passphrase is right only in its chunks: its final chunk, before the
                // new passphrase is asked for (version 2's header MAC said so as it was unlocked).
                if locked.header.version == .v1 { _ = try container.reader(authenticatingFinalChunkFirst: true) }
                let new = try newReader.read()
                let same = old.bytes.withUnsafeBytes { one in new.bytes.withUnsafeBytes { one.elementsEqual($0) } }
                let draft = try parameters.draft(plaintextLength: locked.header.plaintextLength)
                let folder =
                    outputPath == "-" ? FileSystem.temporaryDirectory : FileSystem.parentDirectory(of: outputPath)
                try FileSystem.requireSpace(
                    draft.fileSize ?? locked.header.plaintextLength, at: folder, for: "the new file")
                let header = try Paths.writeOutput(outputPath, force: force, input: input) { output in
                    let keyed = try draft.key(with: new, progress: reporter.handler)
                    return try container.reseal(into: output, header: keyed, progress: reporter.handler)
                }
                return (locked.header, header, same)
            }
        } catch let error as GoshuinError where RecoveryAdvice.damageCodes.contains(error.code) {
            if let advised = RecoveryAdvice.advise(error, path: inputPath) { throw advised }
            let damage: Set<GoshuinError.Code> = [.chunkDamaged, .chunkLengthInvalid, .truncated]
            throw damage.contains(error.code) ? ToolError(error, hint: damagedHint(inputPath)) : ToolError(error)
        }
        return finish(written, inputPath: inputPath, outputPath: outputPath, force: force)
    }

    /// `--iterations` of `rescue` and `rekey`: the PBKDF2 iterations of the new file.
    static let iterationsOption = OptionSpec(
        .iterations, value: "N",
        "PBKDF2 iterations of the new file, 1000 to 2000000 (default 600000, as seal)."
    )

    /// The parameters of the new file `rescue` or `rekey` writes: `seal`'s defaults (format version 1, 600000
    /// iterations, 4 MiB chunks), but for `--format` and `--iterations` when given.
    static func newFileParameters(_ arguments: ParsedArguments, command: String) throws -> SealParameters {
        var parameters = SealParameters()
        if let text = arguments.value(.format) {
            guard let number = UInt8(text), let version = FormatVersion(rawValue: number) else {
                throw ToolError.usage("--format takes 1 or 2, not '\(text)'", command: command)
            }
            parameters.version = version
        }
        if let text = arguments.value(.iterations) {
            guard let iterations = UInt32(text) else {
                throw ToolError.usage("--iterations takes a whole number, not '\(text)'", command: command)
            }
            parameters.iterations = iterations
        }
        do {
            try parameters.validate()
        } catch let error as GoshuinError {
            throw ToolError(usage: error, command: command)
        }
        return parameters
    }

    /// What to do with an input that does not authenticate whole: repair it, or save what is intact.
    static func damagedHint(_ path: String) -> String {
        let argument = ShellQuoting.argument(path)
        return "a file is sealed again only whole; repair it first if you kept its recovery files ("
            + ShellQuoting.command(RecoveryReport.repairCommand(path, recoveryPath: nil)) + "); if it is the only"
            + " copy of a backup, save what is intact as a new backup: "
            + ShellQuoting.command(["goshuin-tool", "rescue", argument])
    }

    private static func finish(
        _ written: (old: Header, new: Header, samePassphrase: Bool), inputPath: String, outputPath: String,
        force: Bool
    ) -> CommandResult {
        if written.samePassphrase {
            Console.notice(
                "the new passphrase is the one that opens \(DisplayText.quoted(inputPath)): only the salts changed")
        }
        if written.old.version != written.new.version {
            Console.notice(
                "\(DisplayText.quoted(inputPath)) is format version \(written.old.version.rawValue); the new file is"
                    + " version \(written.new.version.rawValue)"
                    + (written.new.version == .v1
                        ? ", which the app imports (--format 2 keeps version 2)" : ""))
        }
        Console.result(
            "sealed \(inputPath) again into \(Paths.describe(outputPath)) under the new passphrase, format version"
                + " \(written.new.version.rawValue), \(ProgressReporter.size(written.new.fileSize)); every chunk of"
                + " \(inputPath) authenticated, and its contents are the same, byte for byte"
                + (written.samePassphrase ? "" : "; the old passphrase does not open it"))
        var stale: JSONValue = .null
        if outputPath != "-" {
            stale = StaleRecoveryFiles.settle(besides: outputPath, removing: force, keeping: nil).json
        }
        return CommandResult(
            summary: summary([
                ("file", .string(inputPath)),
                ("output", .string(outputPath)),
                ("inputFormatVersion", .integer(written.old.version.rawValue)),
                ("formatVersion", .integer(written.new.version.rawValue)),
                ("plaintextLength", .integer(written.new.plaintextLength)),
                ("fileSize", .integer(written.new.fileSize)),
                ("chunkCount", .integer(written.new.chunkCount)),
                ("kdfIterations", .integer(written.new.kdfIterations)),
                ("chunkSize", .integer(written.new.chunkSize)),
                ("samePassphrase", .bool(written.samePassphrase)),
                ("staleRecoveryFiles", stale),
            ]))
    }
}
