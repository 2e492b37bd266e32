import GoshuinBackup
import GoshuinFormat

/// `goshuin-tool open INPUT.goshuin (-o OUTPUT | --extract FOLDER)`.
enum OpenCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "open", summary: "Decrypt a .goshuin file, or unpack a backup into a folder.",
        usage: "goshuin-tool open INPUT.goshuin (-o OUTPUT | --extract FOLDER) [options]",
        options: [
            OptionSpec(.output, short: "-o", value: "PATH", "Where to write the payload ('-': standard output)."),
            OptionSpec(
                .extract, value: "FOLDER",
                "Unpack a backup into FOLDER (new or empty): manifest.json, records.csv and the photos, each"
                    + " checked against the manifest."),
            OptionSpec(
                .salvage,
                "For a damaged or cut file that is the only copy: restore what is intact. With --extract, every"
                    + " entry whose bytes all authenticate and pass their checks, each lost one named; with -o, every"
                    + " chunk that authenticates, zeros for the rest, the lost bytes listed. Exit 65 when anything is"
                    + " lost."),
        ] + CommandSpec.passphraseOptions + CommandSpec.outputOptions + [
            CommandSpec.jsonOption, CommandSpec.helpOption,
        ],
        discussion: """
            The file's structure is checked before the passphrase is used. Every chunk is authenticated
            before OUTPUT appears; if any check fails, nothing is written. With -o - the payload is verified
            in a private temporary file first, then copied to standard output; to a terminal only when it is
            plain text, or with --force. With --extract the backup's ZIP is read in place, chunk by chunk,
            without writing it out; the folder appears only when every entry verified. Free space is checked
            before the passphrase is used (no_space). A line on standard error then says what was written.

            A damaged or cut backup is refused, with the entries the damage touches named. When it is the only
            copy, --salvage restores every photo that is still whole: with the backup's list of contents
            intact, each checked against it; with the end of the file lost (a cut transfer), by walking the
            entries from the start, checked by size and CRC-32 only. Nothing from a chunk that does not
            authenticate is ever written, and a wrong passphrase still restores nothing.
            """,
        examples: [
            "goshuin-tool open backup.goshuin -o backup.zip",
            "goshuin-tool open backup.goshuin --extract restored/",
            "goshuin-tool open damaged.goshuin --extract rescued/ --salvage",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        if arguments.positionals.count == 2, !arguments.has(.output), !arguments.has(.extract) {
            let (first, second) = (arguments.positionals[0], arguments.positionals[1])
            let (input, folder) = (ShellQuoting.argument(first), ShellQuoting.argument(second))
            throw usage(
                "open takes one INPUT.goshuin; to unpack a backup into the folder \(DisplayText.quoted(second)), say"
                    + " so with --extract: \(ShellQuoting.command(["goshuin-tool", "open", input, "--extract", folder]))"
                    + " (or -o \(ShellQuoting.quoted(folder)) for the payload as one file)")
        }
        let inputPath = try onlyPositional(arguments, "one INPUT.goshuin file (or - for standard input)")
        if let folder = arguments.value(.extract) {
            guard !arguments.has(.output) else { throw usage("give -o OUTPUT or --extract FOLDER, not both") }
            return try extract(inputPath, into: folder, arguments, context.reporter)
        }
        guard let outputPath = arguments.value(.output) else {
            throw usage("open needs -o OUTPUT (or --extract FOLDER for a backup)")
        }
        if arguments.has(.salvage) { return try salvageOutput(inputPath, to: outputPath, arguments, context.reporter) }
        let warnings = [ToolWarning.openedIntoGoshuinName(outputPath)].compactMap { $0 }
        let header = try writing(
            from: inputPath, to: outputPath, arguments, warnings: warnings, progress: context.reporter.handler
        ) {
            input, output, passphraseReader in
            // The structure is checked before the passphrase is asked for: a cut file says so at once.
            let locked = try LockedContainer(checking: input)
            let container = try locked.unlock(
                with: passphraseReader.read(confirm: false), progress: context.reporter.handler)
            try container.open(to: output, progress: context.reporter.handler)
            return locked.header
        }
        Console.result(
            "opened \(Paths.describeInput(inputPath)) into \(Paths.describe(outputPath)),"
                + " \(ProgressReporter.size(header.plaintextLength))")
        return CommandResult(
            summary: summary([
                ("output", .string(outputPath)),
                ("formatVersion", .integer(header.version.rawValue)),
                ("plaintextLength", .integer(header.plaintextLength)),
                ("chunkCount", .integer(header.chunkCount)), ("warnings", .array(warnings.map(\.json))),
            ]))
    }

    /// The frame of `open FILE -o OUTPUT`, shared with salvage: the passphrase source and the output checked,
    /// the input opened, then `write` into the output, which appears only once `write` returned
    /// (``Paths/writeOutput(_:force:input:_:)``).
    static func writing<Result>(
        from inputPath: String, to outputPath: String, _ arguments: ParsedArguments, warnings: [ToolWarning] = [],
        progress: ProgressHandler?,
        _ write: (_ input: FileDescriptor, _ output: FileDescriptor, PassphraseReader) throws -> Result
    ) throws -> Result {
        let passphraseReader = try PassphraseReader(arguments, command: name)
        let force = arguments.has(.force)
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        // Standard input is authenticated as it arrives, after the output's checks; not for a salvage, which
        // reads what it can of a damaged file.
        if inputPath == "-" {
            try Paths.checkOutput(outputPath, input: nil, force: force, binary: false, command: name)
        }
        let input = try Paths.openInput(
            inputPath, command: name, authenticatingWith: arguments.has(.salvage) ? nil : passphraseReader,
            progress: progress)
        passphraseReader.checkTypedPassphrase(against: input, named: inputPath, progress: progress)
        return try input.closeAfter {
            try Paths.checkOutput(outputPath, input: input, force: force, binary: false, command: name)
            // Said before the passphrase is asked, so that the command can still be stopped.
            warnings.forEach { $0.show() }
            return try Paths.writeOutput(outputPath, force: force, input: input) {
                try write(input, $0, passphraseReader)
            }
        }
    }

    /// `open --extract FOLDER`: the backup unpacked and verified into a new or empty folder.
    private static func extract(
        _ inputPath: String, into givenFolder: String, _ arguments: ParsedArguments, _ reporter: ProgressReporter
    ) throws -> CommandResult {
        let passphraseReader = try PassphraseReader(arguments, command: name)
        // Named once: the path normalized, checked and its parent opened, for every step after.
        let destination: ExtractionDestination
        do {
            destination = try ExtractionDestination(checking: givenFolder)
        } catch .place(let refusal) {
            throw Paths.toolError(refusal)
        } catch .namesNoFolder {
            throw usage("--extract needs a new or empty folder, not \(DisplayText.quoted(givenFolder))")
        } catch .folderNotOpened(let error) {
            throw error
        }
        let folder = destination.path
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        let input = try Paths.openInput(
            inputPath, command: name, authenticatingWith: arguments.has(.salvage) ? nil : passphraseReader,
            progress: reporter.handler)
        passphraseReader.checkTypedPassphrase(against: input, named: inputPath, progress: reporter.handler)
        return try input.closeAfter {
            Paths.sweepLeftovers(in: destination.parent, path: destination.parentPath, sparing: input)
            if arguments.has(.salvage) {
                return try salvageExtract(input, inputPath, into: destination, passphraseReader, reporter)
            }
            let manifest = try BackupExtractor.extract(
                input, into: destination, passphrase: passphraseReader.read(confirm: false),
                progress: reporter.handler)
            let size = manifest.listedFiles.reduce(0) { $0 + $1.size }
            Console.result(
                "restored records.csv and \(SealCommand.photos(manifest.photos.count)) into \(givenFolder),"
                    + " \(ProgressReporter.size(size)); the backup is as of \(manifest.createdAt)")
            return CommandResult(
                summary: summary([
                    ("extractedTo", .string(folder)),
                    ("createdAt", .string(manifest.createdAt)),
                    ("photoCount", .integer(manifest.photos.count)),
                    ("entryCount", .integer(manifest.photos.count + 2)),
                ]))
        }
    }
}
