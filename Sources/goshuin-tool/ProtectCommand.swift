import GoshuinFormat
import GoshuinRecovery

/// `goshuin-tool protect FILE [--redundancy 5%]`: a PAR 2.0 recovery set beside the file
/// (`Spec/recovery-par2.md`), which `repair`, par2cmdline and par2cmdline-turbo repair it with.
enum ProtectCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "protect", summary: "Write a PAR 2.0 recovery set beside a file, to repair it if it is damaged.",
        usage: "goshuin-tool protect FILE [--redundancy PERCENT] [options]",
        options: [
            OptionSpec(
                .redundancy, value: "PERCENT",
                "How much recovery data, as a share of the file's parts: 0.01% to 100% (default 5%), rounded up, and"
                    + " at least 2 parts (1 for a file of one part)."),
            OptionSpec(
                .force,
                "Replace a recovery set of FILE already beside it (FILE.par2 and every FILE.vol…par2); without it an"
                    + " existing set is left alone (output_exists)."),
            OptionSpec(.quiet, short: "-q", "Show no progress or result line on standard error."),
            CommandSpec.jsonOption, CommandSpec.helpOption,
        ],
        discussion: """
            Writes FILE.par2 (the index: the file's name, size and MD5, and every part's MD5 and CRC-32) and
            one FILE.volA+B.par2 holding the recovery data, named as par2cmdline names them, mode 0600, both in
            place only once both are complete. A .goshuin file is cut into parts of whole records (at most
            512), so one bad sector costs one part of the file. No passphrase is needed: the set protects the
            file's bytes. The file is read, never changed. A recovery file, and a file that starts as a .goshuin
            file but is not a well-formed one, are refused.

            Keep the .par2 files next to the backup, wherever it is kept (the cloud drive, the copy on the
            computer): with them, 'goshuin-tool repair FILE' (or par2 repair, or MultiPar) rebuilds damaged or
            missing parts of the file, as many as the redundancy allows, and 'goshuin-tool verify FILE' says
            where a damaged file is damaged without the passphrase. 'goshuin-tool seal --recovery' writes the
            set while sealing.
            """,
        examples: [
            "goshuin-tool protect backup.goshuin",
            "goshuin-tool protect backup.goshuin --redundancy 10% --force",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let path = try onlyPositional(arguments, "one FILE to protect")
        let redundancy = try arguments.value(.redundancy).map {
            try RecoveryReport.redundancy($0, option: .redundancy, command: name)
        }
        try Paths.checkRecoveryInput(path, command: name)
        if let protected = RecoverySet.fileProtected(bySetFile: path) {
            throw usage(
                "\(DisplayText.quoted(path)) is a recovery file: recovery files protect a file, and are not protected"
                    + " themselves; to protect the file it protects:"
                    + " \(ShellQuoting.command(RecoveryReport.protectCommand(protected, replacing: true)))")
        }
        let input = try Paths.openInput(path, command: name)
        try input.closeAfter { Paths.sweepLeftovers(besides: path, sparing: input) }
        let files: RecoverySetFiles
        do {
            files = try RecoverySet.protect(
                inputPath: path, redundancy: redundancy ?? .default, replaceExisting: arguments.has(.force),
                progress: context.reporter.recoveryHandler)
        } catch let error as GoshuinError where error.code == .outputExists {
            // With --force, the set there was kept because it repairs the file.
            let hint =
                arguments.has(.force)
                ? "repair it: \(ShellQuoting.command(RecoveryReport.repairCommand(path, recoveryPath: nil)))"
                : "to replace them: \(ShellQuoting.command(RecoveryReport.protectCommand(path, replacing: true)))"
            throw ToolError(error, hint: hint)
        }
        Console.result(resultLine(files, of: path))
        return CommandResult(
            summary: summary([("file", .string(path))] + members(files, redundancy ?? .default, of: path)))
    }

    /// What a set written says on standard error: its files and what they repair.
    static func resultLine(_ files: RecoverySetFiles, of path: String) -> String {
        let names =
            "\(FileSystem.lastComponent(of: files.indexPath)) and \(FileSystem.lastComponent(of: files.volumePath))"
        let capacity =
            "they can rebuild up to \(RecoveryReport.parts(files.recoverySlices)) of the file's"
            + " \(files.inputSlices) (\(ProgressReporter.size(files.sliceSize)) each)"
        return
            "protected \(path): \(names), \(ProgressReporter.size(files.bytes)); \(capacity); keep them next to the file"
    }

    /// The JSON members of a set written for the file at `path`, its files named as that path is.
    static func members(_ files: RecoverySetFiles, _ redundancy: RecoveryRedundancy, of path: String) -> [(
        key: String, value: JSONValue
    )] {
        let parent = FileSystem.parentDirectory(of: path)
        let folder = !path.contains("/") ? "" : parent == "/" ? "/" : parent + "/"
        return [
            ("indexFile", .string(folder + FileSystem.lastComponent(of: files.indexPath))),
            ("volumeFile", .string(folder + FileSystem.lastComponent(of: files.volumePath))),
            ("redundancy", .string(redundancy.description)), ("sliceSize", .integer(files.sliceSize)),
            ("sliceCount", .integer(files.inputSlices)), ("recoverySliceCount", .integer(files.recoverySlices)),
            ("recoveryBytes", .integer(files.bytes)),
        ]
    }
}
