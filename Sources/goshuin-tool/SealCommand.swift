import GoshuinBackup
import GoshuinFormat
import GoshuinRecovery

/// `goshuin-tool seal INPUT|FOLDER -o OUTPUT`.
enum SealCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "seal", summary: "Encrypt a file into a .goshuin file.",
        usage:
            "goshuin-tool seal INPUT|FOLDER -o OUTPUT.goshuin [--format 1|2] [--iterations N] [--chunk-size SIZE]"
            + " [--recovery PERCENT] [options]",
        options: [
            OptionSpec(
                .output, short: "-o", value: "PATH", "Where to write the .goshuin file ('-': standard output)."),
            OptionSpec(
                .format, value: "1|2",
                "The format version to write: 1 (the default, and the one the app reads today) or 2 (a header MAC"
                    + " that commits the file to its passphrase and tells a wrong passphrase from damage, a flagged"
                    + " final chunk; '-' is sealed as it arrives, with no temporary copy). Version 1 stays the"
                    + " default until the app reads version 2; every command reads both."),
            OptionSpec(
                .iterations, value: "N",
                "PBKDF2 iterations, 1000 to 2000000 (default 600000). More is slower"
                    + " to open, and slower to guess."),
            OptionSpec(
                .leaveOutUnsupported,
                "For a FOLDER: leave out every file a backup cannot hold (videos such as a Live Photo's .MOV, .AAE"
                    + " edit sidecars, subfolders, other files), each listed on standard error and in --json;"
                    + " without it they are refused. A photo whose name only needs a rename is refused either way."),
            OptionSpec(
                .chunkSize, value: "SIZE",
                "Plaintext bytes per chunk, 1KiB to 64MiB (default 4MiB); bytes,"
                    + " or with a KiB or MiB suffix."),
            OptionSpec(
                .recovery, value: "PERCENT",
                "Also write a PAR 2.0 recovery set of PERCENT (such as 5%) beside OUTPUT, as goshuin-tool protect"
                    + " does: computed from the sealed bytes as they are written, or, past 24 MiB of recovery data,"
                    + " from OUTPUT read back and checked to be as written; not with -o - or a format 2 stream"
                    + " from '-'. --force replaces a set already there."),
        ] + CommandSpec.passphraseOptions + CommandSpec.outputOptions + [
            CommandSpec.jsonOption, CommandSpec.helpOption,
        ],
        discussion: """
            INPUT is a file, or '-' for standard input: in format 1 copied first to a private temporary file,
            because the header records the length; in format 2 sealed as it arrives, in flat memory. An empty
            input is refused in either format (it is almost always a writer that failed). A FOLDER is packed into a backup ZIP first: records.csv and photos
            (IMG_0001.jpg, .jpeg, .png, .heic, .heif or .webp, in any case) with a generated manifest.json.
            Every file that may not be in a backup is listed at once, with the rule it breaks and a name that
            would pass; .DS_Store, Thumbs.db, desktop.ini and ._* files are left out with a notice. Photos are
            never renamed: records.csv refers to them by name. Photos records.csv names that are not in the
            folder are warned about (the backup is sealed without them). The backup is as of the time of its
            newest file (or the date the manifest.json of a folder restored from a backup keeps), not of when it
            is sealed: the same folder seals into the same backup.

            An OUTPUT named other than NAME.goshuin (backup.zip) is warned about: it is a .goshuin file whatever it
            is called, and the app and goshuin-open.html take a backup by that name.

            The passphrase is asked twice on the terminal unless it comes from --passphrase-file,
            --passphrase-fd or GOSHUIN_PASSPHRASE; an empty one is refused, a short one warned about. Every
            file gets a fresh random salt and nonce. The output appears only once it is complete; a line on
            standard error then says what was sealed, where, and its size.

            With --recovery, OUTPUT.par2 and OUTPUT.vol…par2 appear beside it once it is in place: keep them next
            to the backup, wherever it is kept ('goshuin-tool repair' rebuilds a damaged backup from them).
            """,
        examples: [
            "goshuin-tool seal notes.zip -o notes.goshuin",
            "tar c photos | goshuin-tool seal - -o photos.goshuin --passphrase-file key.txt",
            "goshuin-tool seal my-backup/ -o backup.goshuin",
            "tar c photos | goshuin-tool seal - --format 2 -o photos-v2.goshuin",
            "goshuin-tool seal my-backup/ -o protected.goshuin --recovery 5%",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let inputPath = try onlyPositional(arguments, "one INPUT (a file, or - for standard input)")
        guard let outputPath = arguments.value(.output) else { throw usage("seal needs -o OUTPUT.goshuin") }
        let parameters = try sealParameters(arguments)
        let passphraseReader = try PassphraseReader(arguments, command: name)
        let force = arguments.has(.force)
        let recovery = try arguments.value(.recovery).map {
            try RecoveryReport.redundancy($0, option: .recovery, command: name)
        }
        if recovery != nil, outputPath == "-" {
            throw usage("--recovery writes its set beside OUTPUT: give -o a file name, not -")
        }
        if inputPath != "-", FileSystem.isDirectory(inputPath) {
            return try sealFolder(
                inputPath, to: outputPath, leavingOutUnsupported: arguments.has(.leaveOutUnsupported), force: force,
                passphraseReader, parameters, recovery: recovery, context.reporter)
        }
        let input = inputPath == "-" ? nil : try Paths.openInput(inputPath, command: name)
        defer { try? input?.close() }
        try Paths.checkOutput(outputPath, input: input, force: force, binary: true, command: name)
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        // Said before the passphrase is asked, so that the seal can still be stopped.
        let warnings = [ToolWarning.outputName(outputPath)].compactMap { $0 }
        warnings.forEach { $0.show() }
        if input == nil, parameters.version == .v2 {
            guard recovery == nil else {
                throw usage(
                    "--recovery needs the file's length before it is sealed, which a format 2 stream learns only at"
                        + " its end: seal it, then run"
                        + " \(ShellQuoting.command(RecoveryReport.protectCommand(outputPath, replacing: false)))")
            }
            return try sealStream(
                to: outputPath, force: force, passphraseReader, parameters, warnings: warnings, context.reporter)
        }
        let payload = try input ?? Paths.spoolStandardInput()
        defer { if input == nil { try? payload.close() } }
        return try seal(
            payload, to: outputPath, what: inputPath == "-" ? "standard input" : inputPath, force: force,
            passphraseReader, parameters, recovery: recovery, warnings: warnings, context.reporter)
    }

    /// Seals `payload`, described as `what` in the result line, into `outputPath`, asking for the
    /// passphrase once the input and the output passed their checks; returns the JSON summary.
    private static func seal(
        _ payload: FileDescriptor, to outputPath: String, what: String, force: Bool,
        _ passphraseReader: PassphraseReader, _ parameters: SealParameters, recovery: RecoveryRedundancy?,
        warnings: [ToolWarning], _ reporter: ProgressReporter
    ) throws -> CommandResult {
        guard let length = try describingFailure("cannot examine the input", { try payload.regularFileSize() }) else {
            throw usage("INPUT must be a regular file (or - for standard input)")
        }
        guard length > 0 else { throw emptyInput(what) }
        // Started before the passphrase is asked: a set already beside OUTPUT is refused first.
        let feed = try recovery.map {
            try RecoveryFeed(
                protecting: outputPath, plaintextLength: UInt64(length), parameters: parameters, redundancy: $0,
                replaceExisting: force)
        }
        let header = try feed.writingSet(besides: outputPath, progress: reporter.recoveryHandler) {
            try Paths.writeOutput(outputPath, force: force, input: payload) { output in
                let draft = try parameters.draft(plaintextLength: UInt64(length))
                let keyed = try draft.key(with: passphraseReader.read(confirm: true), progress: reporter.handler)
                guard let feed else { return try keyed.seal(from: payload, to: output, progress: reporter.handler) }
                // The sealer that shows its output in order, so the set is computed as the file is written.
                let sealer = try StreamingSealer(
                    into: output, header: keyed, plaintextLength: UInt64(length),
                    workerCount: WorkerThreads.defaultWorkerCount, observer: nil, sealedBytes: feed,
                    progress: reporter.handler)
                _ = try sealer.append(readingFrom: payload, count: UInt64(length))
                return try sealer.finish()
            }
        }
        return sealed(
            what, into: outputPath, header: header.result, force: force, warnings: warnings,
            recovery: (header.set, recovery))
    }

    /// `seal - --format 2`: standard input sealed as it arrives, straight into the output's chunk records
    /// (`Spec/container-v2.md` §6): no temporary copy of the payload, one chunk per worker in memory. The
    /// passphrase is asked first, since the input is read only once.
    private static func sealStream(
        to outputPath: String, force: Bool, _ passphraseReader: PassphraseReader, _ parameters: SealParameters,
        warnings: [ToolWarning], _ reporter: ProgressReporter
    ) throws -> CommandResult {
        let draft = try parameters.draft(plaintextLength: nil)
        let header = try Paths.writeOutput(outputPath, force: force, input: nil) { output in
            let keyed = try draft.key(with: passphraseReader.read(confirm: true), progress: reporter.handler)
            let sealer = try StreamingSealer(
                into: output, header: keyed, plaintextLength: nil, workerCount: WorkerThreads.defaultWorkerCount,
                observer: nil, progress: reporter.handler)
            _ = try sealer.append(readingFrom: .standardInput, count: .max)
            guard sealer.bytesSealed > 0 else { throw emptyInput("standard input") }
            return try sealer.finish()
        }
        return sealed("standard input", into: outputPath, header: header, force: force, warnings: warnings)
    }

    /// The result line and the JSON summary of a sealed file: `what` was sealed, and `more` says more.
    private static func sealed(
        _ what: String, into outputPath: String, header: Header, force: Bool,
        more: [(key: String, value: JSONValue)] = [], warnings: [ToolWarning], asOf: String? = nil,
        recovery: (set: RecoverySetFiles?, redundancy: RecoveryRedundancy?) = (nil, nil)
    ) -> CommandResult {
        Console.result(
            "sealed \(what) into \(Paths.describe(outputPath)),"
                + " \(ProgressReporter.size(header.fileSize))" + (asOf.map { "; \($0)" } ?? ""))
        var more = more + [("warnings", .array(warnings.map(\.json)))]
        if let set = recovery.set, let redundancy = recovery.redundancy {
            Console.result(ProtectCommand.resultLine(set, of: outputPath))
            more.append(("recovery", .object(ProtectCommand.members(set, redundancy, of: outputPath))))
        }
        if outputPath != "-" {
            let stale = StaleRecoveryFiles.settle(besides: outputPath, removing: force, keeping: recovery.set)
            more.append(("staleRecoveryFiles", stale.json))
        }
        return CommandResult(
            summary: summary(
                [
                    ("output", .string(outputPath)),
                    ("formatVersion", .integer(header.version.rawValue)),
                    ("plaintextLength", .integer(header.plaintextLength)),
                    ("fileSize", .integer(header.fileSize)),
                    ("chunkCount", .integer(header.chunkCount)),
                    ("kdfIterations", .integer(header.kdfIterations)),
                    ("chunkSize", .integer(header.chunkSize)),
                ] + more))
    }

    /// `empty_payload` for an empty input: almost always a pipe whose writer failed (`Spec/decisions/0034`).
    static func emptyInput(_ what: String) -> GoshuinError {
        GoshuinError(
            .emptyPayload,
            "\(what) is empty; there is nothing to seal (an empty pipe is usually a command before it that failed),"
                + " and nothing was written")
    }

    /// `1 photo`, `N photos`: how a result line counts photos, sealing and restoring alike.
    static func photos(_ count: Int) -> String { count == 1 ? "1 photo" : "\(count) photos" }

    /// The iteration count and chunk size asked for, checked against the format's bounds.
    static func sealParameters(_ arguments: ParsedArguments) throws -> SealParameters {
        var parameters = SealParameters()
        if let text = arguments.value(.format) {
            guard let number = UInt8(text), let version = FormatVersion(rawValue: number) else {
                throw usage("--format takes 1 or 2, not '\(text)'")
            }
            parameters.version = version
        }
        if let text = arguments.value(.iterations) {
            guard let iterations = UInt32(text) else {
                throw usage("--iterations takes a whole number, not '\(text)'")
            }
            parameters.iterations = iterations
        }
        if let text = arguments.value(.chunkSize) {
            guard let size = parseSize(text) else {
                throw usage("--chunk-size takes bytes or a size such as 64KiB or 4MiB, not '\(text)'")
            }
            parameters.chunkSize = size
        }
        do {
            try parameters.validate()
        } catch let error as GoshuinError {
            throw ToolError(usage: error, command: name)
        }
        return parameters
    }

    /// Bytes, or a number with a KiB or MiB suffix (K and M accepted too); `nil` if not a size that fits 32 bits.
    static func parseSize(_ text: String) -> UInt32? {
        let suffixes: [(String, UInt64)] = [("KiB", 1_024), ("MiB", 1_048_576), ("K", 1_024), ("M", 1_048_576)]
        var digits = Substring(text)
        var multiplier: UInt64 = 1
        for (suffix, value) in suffixes where text.hasSuffix(suffix) {
            digits = text.dropLast(suffix.count)
            multiplier = value
            break
        }
        guard let number = UInt64(digits) else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : UInt32(exactly: product)
    }

    /// `seal FOLDER`: the folder checked whole (its files' names, kinds and sizes: nothing it refuses
    /// needs a photo read), what it holds said at once, then the passphrase, then the backup written in one
    /// pass into the output alone.
    private static func sealFolder(
        _ folderPath: String, to outputPath: String, leavingOutUnsupported: Bool, force: Bool,
        _ passphraseReader: PassphraseReader, _ parameters: SealParameters, recovery: RecoveryRedundancy?,
        _ reporter: ProgressReporter
    ) throws -> CommandResult {
        try Paths.checkOutput(outputPath, input: nil, force: force, binary: true, command: name)
        let folder = try BackupFolder(checking: folderPath, leavingOutUnsupported: leavingOutUnsupported)
        reportLeftOut(folder.leftOut)
        let contents = "records.csv and \(photos(folder.photoCount))"
        Console.notice("\(Paths.describe(folderPath)) holds \(contents), \(ProgressReporter.size(folder.dataSize))")
        warnIfWrittenInto(folderPath, outputPath)
        // Said before the passphrase is asked, so that the seal can still be stopped: sealing goes on.
        let warnings = [
            ToolWarning.photosNotInFolder(folder, path: Paths.describe(folderPath)), ToolWarning.outputName(outputPath),
        ].compactMap { $0 }
        warnings.forEach { $0.show() }
        // Standard output is written through a spool in the temporary folder (``Paths/writeOutput``).
        let outputFolder =
            outputPath == "-" ? FileSystem.temporaryDirectory : FileSystem.parentDirectory(of: outputPath)
        let feed = try recovery.map {
            try RecoveryFeed(
                protecting: outputPath, plaintextLength: folder.payloadSize, parameters: parameters, redundancy: $0,
                replaceExisting: force)
        }
        let written = try feed.writingSet(besides: outputPath, progress: reporter.recoveryHandler) {
            try folder.seal(
                passphrase: passphraseReader.read(confirm: true), parameters: parameters, spaceNeededIn: outputFolder,
                sealedBytes: feed, progress: reporter.handler
            ) { write in try Paths.writeOutput(outputPath, force: force, input: nil, write) }
        }
        let backup = written.result
        let manifest = backup.manifest
        let leftOut = folder.leftOut.map {
            JSONValue.object(
                [("name", .string($0.name)), ("reason", .string($0.reason))]
                    + ($0.isFolder ? [("photos", .array($0.photos.map { .string($0) }))] : []))
        }
        return sealed(
            contents, into: outputPath, header: backup.header, force: force,
            more: [
                ("createdAt", .string(manifest.createdAt)), ("photoCount", .integer(manifest.photos.count)),
                ("leftOut", .array(leftOut)),
            ], warnings: warnings, asOf: asOf(manifest.createdAt, keptFromManifest: folder.scan.hasManifest),
            recovery: (written.set, recovery))
    }

    /// What a backup sealed from a folder is dated, and where that date comes from: its manifest's `createdAt`
    /// is the time of what it holds (`Spec/decisions/0006`), not when it was sealed (`Spec/decisions/0051`).
    static func asOf(_ createdAt: String, keptFromManifest: Bool) -> String {
        "as of \(createdAt), "
            + (keptFromManifest
                ? "the date its manifest.json keeps" : "the time of its newest file (records.csv or a photo)")
    }

    /// Says, on standard error, what was left out of the backup: the operating system's files on one line,
    /// and each file a backup cannot hold on a line with why.
    static func reportLeftOut(_ leftOut: [BackupFolder.LeftOut]) {
        let made = leftOut.filter { $0.reason == BackupFolder.operatingSystemFileReason }.map(\.name)
        if !made.isEmpty {
            Console.notice(
                "left out \(made.count) \(made.count == 1 ? "file" : "files") the operating system made:"
                    + " \(made.joined(separator: ", "))")
        }
        let unsupported = leftOut.filter { $0.reason != BackupFolder.operatingSystemFileReason }
        guard !unsupported.isEmpty else { return }
        let folders = unsupported.filter(\.isFolder).count
        let files = unsupported.count - folders
        let what = [
            folders == 0 ? nil : "\(folders) \(folders == 1 ? "folder" : "folders")",
            files == 0 ? nil : "\(files) \(files == 1 ? "file" : "files")",
        ].compactMap { $0 }.joined(separator: " and ")
        Console.notice("left out \(what) a backup cannot hold (--leave-out-unsupported):")
        for item in unsupported {
            Console.detail("\(item.name)\(item.isFolder ? "/" : ""): \(item.reason)")
            guard !item.photos.isEmpty else { continue }
            let shown = item.photos.prefix(leftOutPhotosShown).joined(separator: ", ")
            let more =
                item.photos.count > leftOutPhotosShown ? ", and \(item.photos.count - leftOutPhotosShown) more" : ""
            Console.detail(
                "  and with it \(photos(item.photos.count)), not in this backup: \(shown)\(more); to back them up,"
                    + " move them out of \(item.name)/ beside records.csv and seal again")
        }
    }

    /// How many of the photos in a left-out folder the text names (`--json` names them all).
    static let leftOutPhotosShown = 20

    /// Warns when the backup is written into the folder it backs up: this seal read the folder before the
    /// backup existed, but the next seal of the folder would refuse the backup found in it.
    static func warnIfWrittenInto(_ folder: String, _ outputPath: String) {
        guard outputPath != "-",
            case .success(let parent) = FileSystem.statusFollowingLinks(
                ofPath: FileSystem.parentDirectory(of: outputPath)),
            case .success(let sealed) = FileSystem.statusFollowingLinks(ofPath: folder),
            parent.identity == sealed.identity
        else { return }
        Console.notice(
            "warning: the backup is written into the folder it backs up; move it out before the folder is sealed"
                + " again, which would refuse a backup inside it")
    }
}
