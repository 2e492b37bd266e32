import GoshuinBackup
import GoshuinFormat
import GoshuinRecovery

/// `goshuin-tool rescue DAMAGED.goshuin [-o NEW.goshuin]`: what is intact of a damaged or cut backup, sealed
/// straight into a new backup the app can import (`Spec/decisions/0055`).
enum RescueCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "rescue", summary: "Save what is intact of a damaged backup as a new backup the app can import.",
        usage:
            "goshuin-tool rescue DAMAGED.goshuin [-o NEW.goshuin] [--new-passphrase-file PATH | --new-passphrase-fd N"
            + " | --ask-new-passphrase] [options]",
        options: [
            OptionSpec(
                .output, short: "-o", value: "PATH",
                "Where to write the new backup (default: DAMAGED.rescued.goshuin beside the damaged one; '-':"
                    + " standard output)."),
            OptionSpec(
                .newPassphraseFile, value: "PATH",
                "Seal the new backup with the passphrase on the first line of PATH (CR/LF removed), not the one that"
                    + " opens the damaged backup."),
            OptionSpec(
                .newPassphraseDescriptor, value: "N",
                "Seal the new backup with the passphrase on the first line of file descriptor N."),
            OptionSpec(
                .askNewPassphrase,
                "Seal the new backup with a new passphrase, asked twice on the terminal."),
            RekeyCommand.iterationsOption,
        ] + CommandSpec.passphraseOptions + CommandSpec.outputOptions + [
            CommandSpec.jsonOption, CommandSpec.helpOption,
        ],
        discussion: """
            For a backup that is damaged or cut, with no other copy and no recovery files that repair it: the
            new backup holds records.csv as it was (its rows for the lost photos are kept) and every photo that
            is still exactly as it was sealed, with a manifest that lists exactly those. It is format version
            1, what the app imports, laid out as seal writes a folder of the same files: the same as
            open DAMAGED --extract DIR --salvage, then seal DIR, in one step, with nothing written in the clear.
            The lost photos are named, each with why.

            Every chunk of the damaged backup is authenticated first; nothing from a chunk that does not
            authenticate is used, and a wrong passphrase saves nothing. When the backup's list of contents is
            lost too (the end of the file is cut), the photos are found from the start of the file and checked
            by their size and CRC-32 only: look through them before you rely on them.

            The new backup is sealed with the passphrase that opens the damaged one, unless a new one is given
            (--new-passphrase-file, --new-passphrase-fd) or asked for (--ask-new-passphrase: typed twice; an empty
            one is refused, a short one warned about). Before it appears, it is read back and checked as verify
            --backup checks it. It is written beside its destination under a temporary name and appears only
            once complete and checked; an existing file is replaced only with --force. Exits 65 when anything
            was lost (as open --salvage does), 0 when the backup was whole; records.csv lost leaves nothing to
            import, and nothing is written.
            """,
        examples: [
            "goshuin-tool rescue damaged.goshuin",
            "goshuin-tool rescue damaged.goshuin --new-passphrase-file new.txt",
            "goshuin-tool rescue damaged.goshuin -o app.goshuin --json",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let inputPath = try onlyPositional(arguments, "one DAMAGED.goshuin backup (or - for standard input)")
        let parameters = try RekeyCommand.newFileParameters(arguments, command: name)
        guard let outputPath = arguments.value(.output) ?? (inputPath == "-" ? nil : defaultOutput(for: inputPath))
        else { throw usage("rescue from standard input needs -o NEW.goshuin") }
        let passphraseReader = try PassphraseReader(arguments, command: name)
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        let newReader = try NewPassphraseReader(
            arguments, command: name, old: passphraseReader, inputPath: inputPath)
        let asksNew = arguments.has(.askNewPassphrase)
        if asksNew, newReader.isGiven {
            throw usage("--ask-new-passphrase asks on the terminal; with --new-passphrase-file or -fd, leave it out")
        }
        let force = arguments.has(.force)
        if inputPath == "-" {
            try Paths.checkOutput(outputPath, input: nil, force: force, binary: true, command: name)
        }
        let input = try Paths.openInput(inputPath, command: name)
        let reporter = context.reporter
        let report: RescueReport
        do {
            report = try input.closeAfter {
                try Paths.checkOutput(outputPath, input: input, force: force, binary: true, command: name)
                if asksNew, !newReader.canRead { throw newReader.noSource }
                let outputFolder =
                    outputPath == "-" ? FileSystem.temporaryDirectory : FileSystem.parentDirectory(of: outputPath)
                return try BackupRescue.rescue(
                    input, passphrase: passphraseReader.read(confirm: false),
                    newPassphrase: asksNew || newReader.isGiven ? { try newReader.read() } : nil,
                    parameters: parameters, spaceNeededIn: outputFolder, progress: reporter.handler
                ) { write in try Paths.writeOutput(outputPath, force: force, input: input, write) }
            }
        } catch let error as GoshuinError where error.code == .chunkDamaged || error.code == .truncated {
            // records.csv lost: no backup to make. Recovery files beside it that repair it make it whole; the
            // photos can still be restored into a folder.
            var hint =
                "the photos that are intact can still be restored into a folder: "
                + ShellQuoting.command(RecoveryReport.salvageCommand(inputPath))
            if inputPath != "-", let set = try? RecoverySet.verify(inputPath: inputPath), !set.isIntact,
                set.isRepairable
            {
                let repair = ShellQuoting.command(RecoveryReport.repairCommand(inputPath, recoveryPath: nil))
                hint = "its recovery files repair it whole: \(repair); otherwise, " + hint
            }
            throw ToolError(error, hint: hint)
        } catch let error as GoshuinError {
            throw RecoveryAdvice.advise(error, path: inputPath, offeringRescue: false) ?? ToolError(error)
        }
        return finish(report, inputPath: inputPath, outputPath: outputPath, force: force)
    }

    /// The lines that say what the new backup holds and what was lost, and the JSON summary.
    private static func finish(_ report: RescueReport, inputPath: String, outputPath: String, force: Bool)
        -> CommandResult
    {
        let salvage = report.salvage
        for lost in salvage.lost {
            Console.notice("lost \(lost.name): \(OpenCommand.reasonText(lost, salvage))")
        }
        let photos = report.manifest.photos.count
        let lostPhotos = salvage.lost.filter { $0.name != Manifest.recordsName }.map(\.name)
        var line =
            "saved records.csv and \(SealCommand.photos(photos)) into \(Paths.describe(outputPath)), a new backup"
            + " (format version \(report.header.version.rawValue)), \(ProgressReporter.size(report.header.fileSize))"
        // Up to ten lost photos are named on the line (every one has a notice of its own above).
        let names = lostPhotos.count <= 10 ? ": " + lostPhotos.joined(separator: ", ") : ""
        if salvage.manifestLost {
            line +=
                "; the backup's list of contents is lost: a photo that lay past the damage may be missing from it"
                + " unnamed"
                + (lostPhotos.isEmpty ? "" : "; known to be lost, \(SealCommand.photos(lostPhotos.count))\(names)")
        } else if !lostPhotos.isEmpty {
            line +=
                lostPhotos.count == 1
                ? "; the photo that was lost is not in it\(names)"
                : "; the \(lostPhotos.count) photos that were lost are not in it\(names)"
        } else {
            line += "; nothing was lost"
        }
        Console.result(line)
        if !lostPhotos.isEmpty || salvage.manifestLost {
            Console.result("records.csv is as it was: its rows for the lost photos are kept")
        }
        if salvage.manifestLost {
            Console.result(
                "the photos were checked by their size and CRC-32 only (\(OpenCommand.lostChunksText(salvage))):"
                    + " look through them before you rely on them")
        }
        let verify = ShellQuoting.command(RecoveryReport.verifyCommand(outputPath))
        Console.result(
            "checked: it opens with its passphrase and every entry matches its manifest"
                + (outputPath == "-" ? "" : ", as \(verify) checks; import it into the app")
                + (inputPath == "-" ? "" : ", and keep \(inputPath) until the new backup is there"))
        if !salvage.isComplete, inputPath != "-", !RecoverySet.filesOfSets(besides: inputPath).isEmpty {
            Console.notice(
                "recovery files are beside \(DisplayText.quoted(inputPath)): if they repair it, it comes back whole:"
                    + " \(ShellQuoting.command(RecoveryReport.repairCommand(inputPath, recoveryPath: nil)))")
        }
        var stale: JSONValue = .null
        if outputPath != "-" {
            stale = StaleRecoveryFiles.settle(besides: outputPath, removing: force, keeping: nil).json
        }
        let lostJSON = salvage.lost.map {
            JSONValue.object([("name", .string($0.name)), ("reason", .string($0.reason))])
        }
        return CommandResult(
            summary: .object([
                ("ok", .bool(salvage.isComplete)), ("command", .string(name)), ("file", .string(inputPath)),
                ("output", .string(outputPath)), ("formatVersion", .integer(report.header.version.rawValue)),
                ("fileSize", .integer(report.header.fileSize)), ("createdAt", .string(report.manifest.createdAt)),
                ("photoCount", .integer(photos)),
                ("photos", .array(report.manifest.photos.map { .string($0.name) })),
                ("verified", .bool(true)), ("mode", .string(salvage.mode.rawValue)),
                ("manifestLost", .bool(salvage.manifestLost)), ("lost", .array(lostJSON)),
                ("damagedChunks", .array(salvage.damagedChunks.map { .integer($0) })),
                ("firstMissingChunk", salvage.firstMissingChunk.map { .integer($0) } ?? .null),
                ("staleRecoveryFiles", stale),
            ]), status: salvage.isComplete ? .success : .dataError)
    }

    /// Where the new backup goes without -o: beside the damaged one, its name with `.rescued.goshuin` in place
    /// of `.goshuin` (`backup.goshuin`: `backup.rescued.goshuin`, the name the page gives it too), or after
    /// the whole name when it does not end so.
    static func defaultOutput(for path: String) -> String {
        let suffix = ".goshuin"
        let name = FileSystem.lastComponent(of: path)
        let stem =
            name.lowercased().hasSuffix(suffix) && name.count > suffix.count ? name.dropLast(suffix.count) : name[...]
        return String(path.dropLast(name.count)) + stem + ".rescued" + suffix
    }
}
