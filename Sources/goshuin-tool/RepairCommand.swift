import GoshuinFormat
import GoshuinRecovery

/// `goshuin-tool repair FILE [-o FIXED | --in-place] [--recovery PATH]`: the file rebuilt from its PAR 2.0
/// recovery set, checked, and written beside it (`Spec/recovery-par2.md` §7). No passphrase.
enum RepairCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "repair", summary: "Repair a damaged file from its PAR 2.0 recovery set, without the passphrase.",
        usage: "goshuin-tool repair FILE [-o FIXED | --in-place] [--recovery PATH] [options]",
        options: [
            OptionSpec(
                .output, short: "-o", value: "PATH",
                "Where to write the repaired file (default: FILE with .repaired before its extension,"
                    + " backup.goshuin giving backup.repaired.goshuin)."),
            OptionSpec(
                .inPlace,
                "Replace FILE itself, only once the repaired file is complete and checked (its permissions kept)."),
            OptionSpec(
                .recovery, value: "PATH",
                "A .par2 file of the set (the other files of its set beside it are read too); default: FILE.par2"
                    + " and FILE.vol…par2 beside FILE."),
            OptionSpec(
                .force, "Replace the output if it exists and is a regular file (it is never replaced otherwise)."),
            OptionSpec(.quiet, short: "-q", "Show no progress or result line on standard error."),
            CommandSpec.jsonOption, CommandSpec.helpOption,
        ],
        discussion: """
            Finds the recovery set beside FILE (FILE.par2 and FILE.vol…par2, as goshuin-tool protect, seal
            --recovery, par2cmdline, par2cmdline-turbo or MultiPar wrote it), checks every slice of FILE by its
            MD5 and CRC-32, and rebuilds the damaged and missing ones from the recovery slices. The repaired file
            is checked against the whole file's MD5 the set gives and, for a .goshuin file, its header and size,
            and only then appears; if any check fails, nothing is written. No passphrase is needed or asked for.

            FILE itself is never changed unless --in-place is given; unlike par2 repair, which renames the
            damaged file FILE.1 and writes the repaired one in its place, the repaired file goes to FIXED, or
            to FILE with .repaired before its extension (an existing file is never replaced without --force).
            An intact file is said to be so, and nothing is written. When more slices are damaged than the
            recovery slices can rebuild, it says so in numbers and exits 65: then 'goshuin-tool open FILE
            --extract DIR --salvage' restores every photo that is still intact.
            """,
        examples: [
            "goshuin-tool repair backup.goshuin",
            "goshuin-tool repair backup.goshuin -o fixed.goshuin",
            "goshuin-tool repair backup.goshuin --recovery backup.goshuin.par2",
            "goshuin-tool repair backup.goshuin --in-place",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let path = try onlyPositional(arguments, "one FILE to repair")
        guard !(arguments.has(.output) && arguments.has(.inPlace)) else {
            throw usage("give -o FIXED or --in-place, not both")
        }
        try Paths.checkRecoveryInput(path, command: name)
        let recoveryPath = arguments.value(.recovery)
        let destination: RepairDestination
        if arguments.has(.inPlace) {
            destination = .inPlace
        } else {
            let output = arguments.value(.output) ?? defaultOutput(for: path)
            guard output != "-" else { throw usage("repair writes a file; give -o FIXED a file name") }
            let input = try Paths.openInput(path, command: name)
            try input.closeAfter {
                try Paths.checkOutput(output, input: input, force: arguments.has(.force), binary: true, command: name)
                Paths.sweepLeftovers(besides: output, sparing: input)
            }
            destination = .newFile(output, replaceExisting: arguments.has(.force))
        }
        let result: RepairResult
        do {
            result = try RecoverySet.repair(
                filePath: path, recoveryPath: recoveryPath, to: destination,
                progress: context.reporter.recoveryHandler)
        } catch let error as GoshuinError where error.code == .notRepairable {
            throw beyondTheSet(path, recoveryPath: recoveryPath, error)
        }
        let verification = result.verification
        let set = RecoveryReport.setName(verification)
        if let output = result.outputPath {
            Console.result(
                "repaired \(path) into \(output): \(RecoveryReport.slices(verification.damagedSliceCount)) rebuilt"
                    + " (\(RecoveryReport.places(verification))) with \(result.recoverySlicesUsed) of the"
                    + " \(verification.recoverySlicesAvailable) recovery slices of \(set); its MD5 is the set's")
        } else {
            Console.result("\(path) is intact: every slice and the whole file match \(set); nothing was written")
        }
        return CommandResult(
            summary: summary([
                ("file", .string(path)),
                ("output", result.outputPath.map { .string($0) } ?? .null),
                ("intact", .bool(result.wasIntact)),
                ("repaired", .bool(!result.wasIntact)),
                ("recoverySlicesUsed", .integer(result.recoverySlicesUsed)),
                ("recovery", RecoveryReport.json(verification, path: path, recoveryPath: recoveryPath)),
            ]))
    }

    /// Where the repaired file goes without -o: `.repaired` before the extension of the last component
    /// (`backup.goshuin`: `backup.repaired.goshuin`), after the name when it has none.
    static func defaultOutput(for path: String) -> String {
        let name = FileSystem.lastComponent(of: path)
        let folder = String(path.dropLast(name.count))
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + ".repaired" }
        return folder + name[..<dot] + ".repaired" + name[dot...]
    }

    /// `not_repairable` in numbers (slices damaged, recovery slices available, how many more), with where the
    /// damage is and the salvage that restores what is intact.
    static func beyondTheSet(_ path: String, recoveryPath: String?, _ error: GoshuinError) -> ToolError {
        let hint = "to restore what is intact: \(RecoveryReport.salvageCommand(path))"
        guard let verification = try? RecoverySet.verify(filePath: path, recoveryPath: recoveryPath),
            !verification.isRepairable
        else { return ToolError(error, hint: hint) }
        let missing = verification.recoverySlicesNeeded - verification.recoverySlicesAvailable
        let why =
            missing > 0
            ? "\(missing) more would be needed"
            : "no \(verification.recoverySlicesNeeded) of them are independent (PAR 2.0's matrix is singular here)"
        return ToolError(
            GoshuinError(
                .notRepairable,
                "\(path) cannot be repaired with \(RecoveryReport.setName(verification)):"
                    + " \(RecoveryReport.budget(verification)); \(why) (damaged: \(RecoveryReport.places(verification)));"
                    + " nothing was written"),
            hint: hint)
    }
}
