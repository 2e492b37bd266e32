import GoshuinBackup
import GoshuinFormat
import GoshuinRecovery

/// `goshuin-tool verify INPUT.goshuin`: every chunk authenticated and, for a backup, every entry checked
/// against the manifest, writing nothing (restic's `check --read-data`, borg's `check --verify-data`).
enum VerifyCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "verify", summary: "Check that a .goshuin file opens, and a backup is sound, writing nothing.",
        usage: "goshuin-tool verify INPUT.goshuin [--backup] [options]",
        options: [
            OptionSpec(
                .backup,
                "Require a backup: exit 65, with the error open --extract would give, unless the payload is a"
                    + " backup it would restore."),
            OptionSpec(
                .recovery, value: "PATH",
                "Check the file against the recovery set this .par2 file is of (default: FILE.par2 and"
                    + " FILE.vol…par2 beside it, when they are there)."),
        ] + CommandSpec.passphraseOptions + [
            OptionSpec(.quiet, short: "-q", "Show no progress on standard error."), CommandSpec.jsonOption,
            CommandSpec.helpOption,
        ],
        discussion: """
            Authenticates every chunk with the passphrase and writes nothing: what to run on a backup before
            wiping a phone (with --backup, so that only a backup that open --extract restores passes). When
            the payload is a backup (a ZIP holding manifest.json), also checks its whole structure and every
            entry against the manifest (size, CRC-32, SHA-256), as open --extract would. Reads the file once.
            Prints the chunks and bytes, and for a backup the time it is as of (manifest.json's createdAt: when
            the app made the backup, or for a folder sealed by goshuin-tool the time of its newest file; not when
            the file was sealed), the size of records.csv and the number of photos. Exits 0 when everything
            verified, 65 with the error open would give when not.

            When a PAR 2.0 recovery set is beside the file (goshuin-tool protect, seal --recovery, par2) or
            named with --recovery, the file is first checked against it without the passphrase: every part of
            the file and its whole MD5. A damaged file is then named where it is damaged, with whether its
            recovery files repair it and the command to run ("damaged: 1 part of the file (in chunk 48); the
            recovery files backup.goshuin.par2 can rebuild up to 6 parts: goshuin-tool repair backup.goshuin"),
            and exits 65 (truncated for a file cut short) without asking for the passphrase; a passphrase given
            by a file, a descriptor or GOSHUIN_PASSPHRASE outranks the set: a file that authenticates whole is
            intact. --json gives the same in "recovery". An intact file is then authenticated with the
            passphrase as above; with no passphrase to be had (none given and no terminal) and without
            --backup, the set's checksums are the verdict, and it says that the chunks were not authenticated.
            A set is matched by what it protects, not by its name: one made for another file (an earlier backup
            sealed under the same name) is named and left aside, as is a set that cannot be used.
            """,
        examples: [
            "goshuin-tool verify backup.goshuin --backup",
            "goshuin-tool verify backup.goshuin --json --passphrase-file key.txt",
            "goshuin-tool verify backup.goshuin --recovery backup.goshuin.par2 --json",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let inputPath = try onlyPositional(arguments, "one INPUT.goshuin file")
        let passphraseReader = try PassphraseReader(arguments, command: name)
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        let recoveryPath = arguments.value(.recovery)
        var recovery = try recoveryCheck(inputPath, arguments, context)
        if case .checked(let checked) = recovery, !checked.isIntact {
            // The set says damaged. A passphrase given outranks it: a file that authenticates whole is intact,
            // whatever a set says (Spec/decisions/0048); without one, the set's verdict stands unasked.
            guard passphraseReader.isGiven,
                let verified = try authenticatedUnlessDamaged(inputPath, passphraseReader, arguments, context)
            else { throw damaged(checked, path: inputPath, recoveryPath: recoveryPath, context) }
            Console.notice(
                "\(DisplayText.quoted(inputPath)) authenticates whole with the passphrase, although its recovery files"
                    + " \(RecoveryReport.setName(checked)) say it differs from the file they were made for; they do"
                    + " not describe this file: make new ones with"
                    + " \(ShellQuoting.command(RecoveryReport.protectCommand(inputPath, replacing: true)))")
            recovery = .unusable(
                GoshuinError(
                    .recoverySetMismatch,
                    "the file authenticates whole with the passphrase; the recovery files do not describe it"))
            return finish(verified, path: inputPath, recovery: recovery, recoveryPath: recoveryPath, context)
        }
        // With the set checked and no passphrase to be had, the slices' checksums are the verdict.
        if case .checked(let checked) = recovery, !arguments.has(.backup), !passphraseReader.canRead {
            let input = try Paths.openInput(inputPath, command: name)
            let header = try input.closeAfter { try LockedContainer(checking: input).header }
            if !context.json { Console.out(unauthenticatedText(checked, header: header, path: inputPath)) }
            return CommandResult(
                summary: summary(
                    headerMembers(header, path: inputPath) + [
                        ("authenticated", .bool(false)), ("backup", .null),
                        ("recovery", recovery.json(path: inputPath, recoveryPath: recoveryPath)),
                    ]))
        }
        let verification: Verification
        do {
            verification = try authenticate(inputPath, passphraseReader, arguments, context)
        } catch let error as GoshuinError where recovery.isFound && !Interruption.isRequested {
            let failure = failureWith(error, recovery: recovery, path: inputPath)
            // What the set said stays in the JSON of the failure.
            throw CommandFailure(
                error: failure,
                summary: Console.failureJSON(
                    failure, command: name, file: inputPath,
                    more: [("recovery", recovery.json(path: inputPath, recoveryPath: recoveryPath))]))
        }
        return finish(verification, path: inputPath, recovery: recovery, recoveryPath: recoveryPath, context)
    }

    /// Authenticates the file at `inputPath` with the passphrase, every chunk and, for a backup, every entry.
    /// The library checks the structure before it asks: a cut file says so at once.
    private static func authenticate(
        _ inputPath: String, _ passphraseReader: PassphraseReader, _ arguments: ParsedArguments,
        _ context: CommandContext
    ) throws -> Verification {
        let input = try Paths.openInput(
            inputPath, command: name, authenticatingWith: passphraseReader, progress: context.reporter.handler)
        passphraseReader.checkTypedPassphrase(against: input, named: inputPath, progress: context.reporter.handler)
        return try input.closeAfter {
            try Verification.verify(
                input, passphrase: passphraseReader.read(confirm: false), requiringBackup: arguments.has(.backup),
                progress: context.reporter.handler)
        }
    }

    /// The file authenticated, for a file its set finds damaged: `nil` when it does not authenticate whole
    /// (the set's verdict then stands). A stop (Ctrl-C) or a memory limit met meanwhile says nothing of the
    /// file: it is the run's error, with its own exit status, never the set's "damaged".
    private static func authenticatedUnlessDamaged(
        _ inputPath: String, _ passphraseReader: PassphraseReader, _ arguments: ParsedArguments,
        _ context: CommandContext
    ) throws -> Verification? {
        do {
            return try authenticate(inputPath, passphraseReader, arguments, context)
        } catch let error as GoshuinError where error.code == .interrupted || error.code == .outOfMemory {
            throw error
        } catch {
            // Whatever else ended a stopped run is the stop (the tool says so, exit 130).
            if Interruption.isRequested { throw error }
            return nil
        }
    }

    /// The text and the summary of a file that authenticated.
    private static func finish(
        _ verification: Verification, path: String, recovery: RecoveryCheck, recoveryPath: String?,
        _ context: CommandContext
    ) -> CommandResult {
        if !context.json { Console.out(text(verification, path: path) + recovery.textLine) }
        return CommandResult(
            summary: verificationSummary(
                verification, path: path, recovery: recovery.json(path: path, recoveryPath: recoveryPath)))
    }

    /// The error of a failed authentication as the tool gives it: for a file its recovery files have just
    /// found intact, a wrong passphrase is said to be one (the file cannot be damaged).
    private static func failureWith(_ error: GoshuinError, recovery: RecoveryCheck, path: String) -> ToolError {
        guard error.code == .authFailed, case .checked(let checked) = recovery, checked.isIntact else {
            return ToolError(error)
        }
        return ToolError(
            code: error.code,
            "the passphrase is wrong: \(DisplayText.quoted(path)) is intact (every part of it matches its recovery"
                + " files \(RecoveryReport.setName(checked))), so the passphrase is what differs",
            hint: "check the passphrase (capital letters and spaces count, and the keyboard layout)",
            status: ToolError.status(for: error.code))
    }

    /// What the recovery set beside the file (or named by `--recovery`) says of it.
    enum RecoveryCheck {
        /// No set beside the file, and none named.
        case none
        /// A set beside the file that cannot be used for it (invalid, or made for another file).
        case unusable(GoshuinError)
        /// The file checked against its set.
        case checked(RecoveryVerification)

        /// The `recovery` member of the JSON summary.
        func json(path: String, recoveryPath: String?) -> JSONValue {
            switch self {
            case .none: return .null
            case .unusable(let error): return RecoveryReport.unusableJSON(error, path: path)
            case .checked(let verification):
                return RecoveryReport.json(verification, path: path, recoveryPath: recoveryPath)
            }
        }

        /// Whether there is a set, usable or not.
        var isFound: Bool {
            if case .none = self { return false }
            return true
        }

        /// The `recovery` line of the text output.
        var textLine: String {
            switch self {
            case .none: return ""
            case .unusable(let error) where error.code == .recoverySetMismatch:
                return "recovery     made for another file: they cannot check or repair this one\n"
            case .unusable(let error):
                return "recovery     not usable: \(DisplayText.escaped("\(error.code): \(error.message)"))\n"
            case .checked(let verification):
                return "recovery     \(DisplayText.escaped(RecoveryReport.intactLine(verification)))\n"
            }
        }
    }

    /// Checks the file against its recovery set, with no passphrase: the set named by `--recovery` (whose
    /// problems are errors), else the one beside the file, if there is one (whose problems are a notice: a set
    /// made for another file, in practice the set of an earlier backup under the same name, is left aside).
    static func recoveryCheck(
        _ inputPath: String, _ arguments: ParsedArguments, _ context: CommandContext
    ) throws -> RecoveryCheck {
        let named = arguments.value(.recovery)
        guard inputPath != "-" else {
            if named != nil { throw usage("--recovery needs the file by its name, not standard input") }
            return .none
        }
        try Paths.checkInputExists(inputPath, command: name)
        do {
            let verification = try RecoverySet.verify(
                inputPath: inputPath, recoveryPath: named, progress: context.reporter.recoveryHandler)
            RecoveryReport.noticeFilesAside(verification)
            return .checked(verification)
        } catch let error as GoshuinError where error.code.category == .recovery && named == nil {
            guard error.code != .recoverySetNotFound else { return .none }
            if error.code == .recoverySetMismatch {
                Console.notice(RecoveryReport.anotherFileNotice(inputPath))
            } else {
                Console.notice(
                    "the recovery files beside \(inputPath) cannot be used (\(error.code): \(error.message));"
                        + " verifying without them")
            }
            return .unusable(error)
        }
    }

    /// A file its recovery set finds damaged: the line that says where and what to run, and the error (65):
    /// `truncated` for a file cut short (a cut is `truncated` whoever says it), otherwise `chunk_damaged`
    /// (with the first chunk).
    static func damaged(
        _ verification: RecoveryVerification, path: String, recoveryPath: String?, _ context: CommandContext
    ) -> CommandFailure {
        let line = RecoveryReport.damageLine(verification, path: path, recoveryPath: recoveryPath)
        if !context.json { Console.out(DisplayText.escaped(line) + "\n") }
        let cut = RecoveryReport.isCut(verification)
        let chunk = RecoveryReport.damagedChunks(verification).first
        let code: GoshuinError.Code = cut ? .truncated : .chunkDamaged
        let next = ShellQuoting.command(
            RecoveryReport.nextCommand(verification, path: path, recoveryPath: recoveryPath))
        let hint: String
        if verification.isRepairable {
            hint = "repair it: \(next)"
        } else if cut {
            hint =
                "copy it again from where it was saved; if this is the only copy, to restore what is intact: \(next);"
                + " \(RecoveryReport.rescueAdvice(path))"
        } else {
            hint = "to restore what is intact: \(next); \(RecoveryReport.rescueAdvice(path))"
        }
        let error = ToolError(
            code: code,
            "\(path) is damaged: \(RecoveryReport.damage(verification))"
                + (verification.isRepairable ? "" : "; not repairable: \(RecoveryReport.shortfall(verification))"),
            hint: hint, status: ToolError.status(for: code), chunkIndex: cut ? nil : chunk)
        return CommandFailure(
            error: error,
            summary: Console.failureJSON(
                error, command: name, file: path,
                more: [("recovery", RecoveryReport.json(verification, path: path, recoveryPath: recoveryPath))]))
    }

    /// The text of a file checked against its set only, without the passphrase.
    static func unauthenticatedText(_ verification: RecoveryVerification, header: Header, path: String) -> String {
        [
            "intact       \(DisplayText.escaped(path)): every part of the file matches its recovery files",
            "format       version \(header.version.rawValue)",
            "chunks       \(header.chunkCount) of up to \(ProgressReporter.size(UInt64(header.chunkSize)))",
            "recovery     \(DisplayText.escaped(RecoveryReport.intactLine(verification)))",
            "not checked  no passphrase: the chunks were not authenticated, nor the backup's entries (give the"
                + " passphrase for that)",
        ].joined(separator: "\n") + "\n"
    }

    static func text(_ verification: Verification, path: String) -> String {
        let header = verification.header
        var lines = [
            "verified     \(DisplayText.escaped(Paths.describeInput(path))): "
                + (header.version == .v2 ? "the header MAC and every chunk authenticate" : "every chunk authenticates"),
            "format       version \(header.version.rawValue)",
            "chunks       \(header.chunkCount) of up to \(ProgressReporter.size(UInt64(header.chunkSize)))",
            "payload      \(header.plaintextLength) bytes",
        ]
        switch verification.payload {
        case .backup(let manifest):
            lines += [
                "backup       as of \(manifest.createdAt); every entry matches the manifest",
                "records      \(manifest.records.size) bytes",
                "photos       \(manifest.photos.count)",
            ]
        case .zipWithoutManifest:
            lines.append("backup       no: a ZIP without manifest.json")
        case .other:
            lines.append("backup       no: not a ZIP")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func verificationSummary(_ verification: Verification, path: String, recovery: JSONValue) -> JSONValue {
        var backup: JSONValue = .null
        if case .backup(let manifest) = verification.payload {
            backup = .object([
                ("createdAt", .string(manifest.createdAt)),
                ("recordsSize", .integer(manifest.records.size)),
                ("photoCount", .integer(manifest.photos.count)),
                ("entryCount", .integer(manifest.photos.count + 2)),
            ])
        }
        return summary(
            headerMembers(verification.header, path: path) + [
                ("backup", backup), ("authenticated", .bool(true)), ("recovery", recovery),
            ])
    }

    /// The members every summary has: the file and its header's numbers.
    static func headerMembers(_ header: Header, path: String) -> [(key: String, value: JSONValue)] {
        [
            ("file", .string(path)),
            ("formatVersion", .integer(header.version.rawValue)),
            ("chunkCount", .integer(header.chunkCount)),
            ("chunkSize", .integer(header.chunkSize)),
            ("plaintextLength", .integer(header.plaintextLength)),
            ("fileSize", .integer(header.fileSize)),
        ]
    }
}
