import GoshuinBackup
import GoshuinFormat

/// `goshuin-tool verify INPUT.goshuin`: every chunk authenticated and, for a backup, every entry checked
/// against the manifest, writing nothing (restic's `check --read-data`, borg's `check --verify-data`).
enum VerifyCommand {
    static func run(_ arguments: ParsedArguments, json: Bool, reporter: ProgressReporter) throws -> JSONValue {
        let command = CommandSpec.verify.name
        guard arguments.positionals.count == 1, let inputPath = arguments.positionals.first else {
            throw ToolError.usage("verify takes one INPUT.goshuin file", command: command)
        }
        let passphraseReader = PassphraseReader(arguments, command: command)
        try passphraseReader.validate()
        // The structure is checked before the passphrase is asked for: a cut file says so at once.
        let input = try Paths.openInput(inputPath, command: command)
        _ = try input.closeAfter { try ContainerStructure.validate(input) }
        let passphrase = try passphraseReader.read(confirm: false)
        let verification = try Verification.verify(
            inputPath: inputPath, passphrase: passphrase, progress: reporter.handler)
        if !json { Console.out(text(verification, path: inputPath)) }
        return summary(verification, path: inputPath)
    }

    static func text(_ verification: Verification, path: String) -> String {
        let header = verification.header
        let layout = header.layout
        var lines = [
            "verified     \(DisplayText.escaped(path)): every chunk authenticates",
            "chunks       \(layout.chunkCount) of up to \(ProgressReporter.size(UInt64(header.chunkSize)))",
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

    static func summary(_ verification: Verification, path: String) -> JSONValue {
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
        return .object([
            ("ok", .bool(true)),
            ("command", .string(CommandSpec.verify.name)),
            ("file", .string(path)),
            ("chunkCount", .integer(header.layout.chunkCount)),
            ("chunkSize", .integer(header.chunkSize)),
            ("plaintextLength", .integer(header.plaintextLength)),
            ("fileSize", .integer(header.layout.expectedFileSize)),
            ("backup", backup),
        ])
    }
}
