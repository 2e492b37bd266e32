import GoshuinBackup
import GoshuinFormat

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
                    + " backup it would restore.")
        ] + CommandSpec.passphraseOptions + [
            OptionSpec(.quiet, short: "-q", "Show no progress on standard error."), CommandSpec.jsonOption,
            CommandSpec.helpOption,
        ],
        discussion: """
            Authenticates every chunk with the passphrase and writes nothing: what to run on a backup before
            wiping a phone (with --backup, so that only a backup that open --extract restores passes). When
            the payload is a backup (a ZIP holding manifest.json), also checks its whole structure and every
            entry against the manifest (size, CRC-32, SHA-256), as open --extract would. Reads the file once.
            Prints the chunks and bytes, and for a backup when it was made, the size of records.csv and the
            number of photos. Exits 0 when everything verified, 65 with the error open would give when not.
            """,
        examples: [
            "goshuin-tool verify backup.goshuin --backup",
            "goshuin-tool verify backup.goshuin --json --passphrase-file key.txt",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let inputPath = try onlyPositional(arguments, "one INPUT.goshuin file")
        let passphraseReader = try PassphraseReader(arguments, command: name)
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        let input = try Paths.openInput(inputPath, command: name)
        // The library checks the structure before it asks: a cut file says so at once.
        let verification = try input.closeAfter {
            try Verification.verify(
                input, passphrase: passphraseReader.read(confirm: false), requiringBackup: arguments.has(.backup),
                progress: context.reporter.handler)
        }
        if !context.json { Console.out(text(verification, path: inputPath)) }
        return CommandResult(summary: verificationSummary(verification, path: inputPath))
    }

    static func text(_ verification: Verification, path: String) -> String {
        let header = verification.header
        var lines = [
            "verified     \(DisplayText.escaped(path)): "
                + (header.version == .v2 ? "the header MAC and every chunk authenticate" : "every chunk authenticates"),
            "format       version \(header.version.rawValue)",
            "chunks       \(header.chunkCount) of up to \(ProgressReporter.size(UInt64(header.chunkSize)))",
            "payload      \(header.plaintextLength) bytes",
        ]
        switch verification.payload {
        case .backup(let manifest):
            lines += [
                "backup       made \(manifest.createdAt); every entry matches the manifest",
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

    static func verificationSummary(_ verification: Verification, path: String) -> JSONValue {
        let header = verification.header
        var backup: JSONValue = .null
        if case .backup(let manifest) = verification.payload {
            backup = .object([
                ("createdAt", .string(manifest.createdAt)),
                ("recordsSize", .integer(manifest.records.size)),
                ("photoCount", .integer(manifest.photos.count)),
                ("entryCount", .integer(manifest.photos.count + 2)),
            ])
        }
        return summary([
            ("file", .string(path)),
            ("formatVersion", .integer(header.version.rawValue)),
            ("chunkCount", .integer(header.chunkCount)),
            ("chunkSize", .integer(header.chunkSize)),
            ("plaintextLength", .integer(header.plaintextLength)),
            ("fileSize", .integer(header.fileSize)),
            ("backup", backup),
        ])
    }
}
