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
                "A .par2 file of the set, under any name (the other files of its set beside it are read too);"
                    + " default: FILE.par2 and FILE.vol…par2 beside FILE."),
            OptionSpec(
                .force, "Replace the output if it exists and is a regular file (it is never replaced otherwise)."),
            OptionSpec(.quiet, short: "-q", "Show no progress or result line on standard error."),
            CommandSpec.jsonOption, CommandSpec.helpOption,
        ],
        discussion: """
            Finds the recovery set beside FILE (FILE.par2 and FILE.vol…par2, as goshuin-tool protect, seal
            --recovery, par2cmdline, par2cmdline-turbo or MultiPar wrote it), checks every part of FILE by its
            MD5 and CRC-32, and rebuilds the damaged and missing ones from the recovery data. A set is matched
            by the file it protects, not by its name; one made for another file (an earlier backup sealed under
            the same name) is refused (recovery_set_mismatch) and nothing is written. Given a .par2 file in
            place of FILE, as par2 repair takes it, the file it protects is repaired with that set. The repaired
            file is checked against the whole file's MD5 the set gives and, for a .goshuin file, its header and
            size, and only then appears; if any check fails, nothing is written. No passphrase is needed or
            asked for.

            FILE itself is never changed unless --in-place is given, and then only if it is still the file that
            was read (a new backup written there meanwhile is left as it is), keeping its permissions and, where
            the caller may, its owner and group. Unlike par2 repair, which renames the damaged file FILE.1 and
            writes the repaired one in its place, the repaired file goes to FIXED, or to FILE with .repaired
            before its extension (an existing file is never replaced without --force). An intact file is said
            to be so, and nothing is written. When more parts are damaged than the recovery files can rebuild,
            it says so in numbers and exits 65 (truncated for a file cut short: copy it again): then
            'goshuin-tool open FILE --extract DIR --salvage' restores every photo that is still intact. After a
            repair, it says the next step: check the repaired file with its passphrase.
            """,
        examples: [
            "goshuin-tool repair backup.goshuin",
            "goshuin-tool repair backup.goshuin -o fixed.goshuin",
            "goshuin-tool repair backup.goshuin --recovery backup.goshuin.par2",
            "goshuin-tool repair backup.goshuin --in-place",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        var path = try onlyPositional(arguments, "one FILE to repair")
        guard !(arguments.has(.output) && arguments.has(.inPlace)) else {
            throw usage("give -o FIXED or --in-place, not both")
        }
        try Paths.checkRecoveryInput(path, command: name)
        var recoveryPath = arguments.value(.recovery)
        // par2's own syntax names a set file: the file it protects is repaired, with that set.
        if let protected = try SetFileArgument.protectedFile(of: path, command: name) {
            Console.notice(
                "\(DisplayText.quoted(path)) is a recovery file; repairing the file it protects:"
                    + " \(ShellQuoting.command(RecoveryReport.repairCommand(protected, recoveryPath: recoveryPath ?? path)))"
            )
            recoveryPath = recoveryPath ?? path
            path = protected
        }
        let destination: RepairDestination
        let input = try Paths.openInput(path, command: name)
        if arguments.has(.inPlace) {
            destination = .inPlace
            try input.closeAfter { Paths.sweepLeftovers(besides: path, sparing: input) }
        } else {
            let output = arguments.value(.output) ?? defaultOutput(for: path)
            guard output != "-" else { throw usage("repair writes a file; give -o FIXED a file name") }
            try input.closeAfter {
                // Whether something is already there is asked once the file is known to need repairing: an
                // intact file is said to be so, whatever is at the output.
                try Paths.checkOutput(output, input: input, force: true, binary: true, command: name)
                Paths.sweepLeftovers(besides: output, sparing: input)
            }
            destination = .newFile(output, replaceExisting: arguments.has(.force))
        }
        let result: RepairResult
        do {
            result = try RecoverySet.repair(
                inputPath: path, recoveryPath: recoveryPath, to: destination,
                progress: context.reporter.recoveryHandler)
        } catch let error as GoshuinError where error.code == .notRepairable || error.code == .truncated {
            throw beyondTheSet(path, error)
        } catch let error as GoshuinError where error.code == .recoverySetMismatch {
            throw ToolError(
                error,
                hint: "the recovery files beside it were made for another file; nothing was written; make new ones of"
                    + " an intact backup with"
                    + " \(ShellQuoting.command(RecoveryReport.protectCommand(path, replacing: true)))")
        } catch let error as GoshuinError where error.code == .outputExists {
            throw ToolError(
                error,
                hint: destination == .inPlace
                    ? "repair the file by its own path (not a link to it), or write the repaired file elsewhere with"
                        + " -o FIXED"
                    : "use --force to replace it, or -o to choose another name")
        }
        let verification = result.verification
        RecoveryReport.noticeFilesAside(verification)
        let set = RecoveryReport.setName(verification)
        if let output = result.outputPath {
            let place = destination == .inPlace ? "\(path) in place" : "\(path) into \(output)"
            Console.result(
                "repaired \(place): \(RecoveryReport.damage(verification)) rebuilt from its recovery files \(set);"
                    + " the repaired file's MD5 is the one they give")
            let check = ShellQuoting.command(RecoveryReport.verifyCommand(output))
            Console.result(
                destination == .inPlace
                    ? "next: check it with its passphrase: \(check); its recovery files still match it"
                    : "next: check it with its passphrase: \(check); then keep it in place of \(path) (its recovery"
                        + " files match it under that name), or make recovery files of its own:"
                        + " \(ShellQuoting.command(RecoveryReport.protectCommand(output, replacing: false)))")
        } else {
            Console.result(
                "\(path) is intact: every part of the file matches its recovery files \(set); nothing was written")
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

    /// `not_repairable` in parts of the file (how many to rebuild, how many the recovery files can), with where
    /// the damage is and the salvage that restores what is intact; `truncated` for a file cut short beyond
    /// what they rebuild, which is copied again first. The numbers are what the library found
    /// (``GoshuinError/recoveryVerification``): nothing is read again.
    static func beyondTheSet(_ path: String, _ error: GoshuinError) -> ToolError {
        let salvage =
            "to restore what is intact: \(ShellQuoting.command(RecoveryReport.salvageCommand(path)));"
            + " \(RecoveryReport.rescueAdvice(path))"
        let copy = "copy it again from where it was saved; if this is the only copy, \(salvage)"
        guard let verification = error.recoveryVerification else {
            return ToolError(error, hint: error.code == .truncated ? copy : salvage)
        }
        RecoveryReport.noticeFilesAside(verification)
        if verification.actualLength > verification.expectedLength {
            return ToolError(error, hint: RecoveryReport.longerAdvice(path))
        }
        return ToolError(
            GoshuinError(
                error.code,
                "\(path) cannot be repaired: \(RecoveryReport.damage(verification));"
                    + " \(RecoveryReport.shortfall(verification)); nothing was written"),
            hint: error.code == .truncated ? copy : salvage)
    }
}
