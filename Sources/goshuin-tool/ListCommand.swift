import GoshuinBackup
import GoshuinFormat

/// `goshuin-tool inspect INPUT.goshuin --list`: a backup's entries and manifest, read through the
/// decrypting reader (only the chunks holding the ZIP's directory and manifest are decrypted).
enum ListCommand {
    static func run(_ inputPath: String, _ arguments: ParsedArguments, json: Bool, reporter: ProgressReporter) throws
        -> JSONValue
    {
        let passphraseReader = PassphraseReader(arguments, command: CommandSpec.inspect.name)
        try passphraseReader.validate()
        let input = try Paths.openInput(inputPath, command: CommandSpec.inspect.name)
        return try input.closeAfter {
            _ = try ContainerStructure.validate(input)
            let passphrase = try passphraseReader.read(confirm: false)
            let reader = try DecryptingReader(input, passphrase: passphrase, progress: reporter.handler)
            let archive = try BackupArchive(reader)
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            if !json { Console.out(text(archive.directory, manifest)) }
            return summary(archive.directory, manifest, path: inputPath)
        }
    }

    static func text(_ directory: ZipDirectory, _ manifest: Manifest) -> String {
        var lines = [
            "created      \(manifest.createdAt)",
            "records      \(manifest.records.size) bytes",
            "photos       \(manifest.photos.count)",
            "entries (size, stored size, method, name):",
        ]
        for entry in directory.entries {
            let method = entry.method == 0 ? "stored " : "deflate"
            lines.append(
                "  " + String(entry.uncompressedSize).padding(12) + String(entry.compressedSize).padding(12) + method
                    + "  " + entry.name)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func summary(_ directory: ZipDirectory, _ manifest: Manifest, path: String) -> JSONValue {
        .object([
            ("ok", .bool(true)),
            ("command", .string("inspect")),
            ("file", .string(path)),
            ("createdAt", .string(manifest.createdAt)),
            ("recordsSize", .integer(manifest.records.size)),
            ("photoCount", .integer(manifest.photos.count)),
            (
                "entries",
                .array(
                    directory.entries.map { entry in
                        .object([
                            ("name", .string(entry.name)),
                            ("size", .integer(entry.uncompressedSize)),
                            ("compressedSize", .integer(entry.compressedSize)),
                            ("method", .string(entry.method == 0 ? "stored" : "deflate")),
                        ])
                    })
            ),
        ])
    }
}
