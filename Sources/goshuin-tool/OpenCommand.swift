import GoshuinBackup
import GoshuinFormat

/// `goshuin-tool open INPUT.goshuin -o OUTPUT`.
enum OpenCommand {
    static func run(_ arguments: ParsedArguments, reporter: ProgressReporter) throws -> JSONValue {
        let command = CommandSpec.open.name
        guard arguments.positionals.count == 1, let inputPath = arguments.positionals.first else {
            throw ToolError.usage("open takes one INPUT.goshuin file", command: command)
        }
        let passphraseReader = PassphraseReader(arguments, command: command)
        if let folder = arguments.value("--extract") {
            guard !arguments.has("--output") else {
                throw ToolError.usage("give -o OUTPUT or --extract FOLDER, not both", command: command)
            }
            return try extract(inputPath, into: folder, passphraseReader, reporter)
        }
        guard let outputPath = arguments.value("--output") else {
            throw ToolError.usage("open needs -o OUTPUT (or --extract FOLDER for a backup)", command: command)
        }
        try passphraseReader.validate()
        let force = arguments.has("--force")
        let input = try Paths.openInput(inputPath, command: command)
        return try input.closeAfter {
            try Paths.checkOutput(outputPath, input: input, force: force, binary: false, command: command)
            // The structure is checked before the passphrase is asked for: a cut file says so at once.
            let header = try ContainerStructure.validate(input)
            let passphrase = try passphraseReader.read(confirm: false)
            try Paths.writeOutput(outputPath, force: force) { output in
                try GoshuinFile.decrypt(
                    input, header: header, passphrase: passphrase, to: output, progress: reporter.handler)
            }
            Console.result(
                "opened \(inputPath) into \(outputPath == "-" ? "standard output" : outputPath),"
                    + " \(ProgressReporter.size(header.plaintextLength))")
            return .object([
                ("ok", .bool(true)),
                ("command", .string(command)),
                ("output", .string(outputPath)),
                ("plaintextLength", .integer(header.plaintextLength)),
                ("chunkCount", .integer(header.layout.chunkCount)),
            ])
        }
    }

    /// `open --extract FOLDER`: the backup unpacked and verified into a new or empty folder.
    private static func extract(
        _ inputPath: String, into givenFolder: String, _ passphraseReader: PassphraseReader,
        _ reporter: ProgressReporter
    ) throws -> JSONValue {
        try passphraseReader.validate()
        let folder: String
        do {
            folder = try BackupExtractor.normalizedDestination(givenFolder)
        } catch {
            throw ToolError.usage("--extract needs a new or empty folder, not \"\(givenFolder)\"", command: "open")
        }
        try BackupExtractor.requireEmptyOrAbsent(folder)
        let input = try Paths.openInput(inputPath, command: CommandSpec.open.name)
        let header = try input.closeAfter { try ContainerStructure.validate(input) }
        try FileSystem.requireSpace(
            header.plaintextLength, at: AtomicOutput.directory(of: folder), for: "extracting this backup")
        let passphrase = try passphraseReader.read(confirm: false)
        Paths.sweepLeftovers(besides: folder)
        let manifest = try BackupExtractor.extract(
            inputPath: inputPath, passphrase: passphrase, into: folder, progress: reporter.handler)
        Console.result("restored \(manifest.photos.count + 2) files into \(givenFolder)")
        return .object([
            ("ok", .bool(true)),
            ("command", .string(CommandSpec.open.name)),
            ("extractedTo", .string(folder)),
            ("createdAt", .string(manifest.createdAt)),
            ("photoCount", .integer(manifest.photos.count)),
            ("entryCount", .integer(manifest.photos.count + 2)),
        ])
    }
}
