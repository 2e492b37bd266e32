import GoshuinFormat

/// `goshuin-tool open INPUT.goshuin -o OUTPUT`.
enum OpenCommand {
    static func run(_ arguments: ParsedArguments, reporter: ProgressReporter) throws -> JSONValue {
        let command = CommandSpec.open.name
        guard arguments.positionals.count == 1, let inputPath = arguments.positionals.first else {
            throw ToolError.usage("open takes one INPUT.goshuin file", command: command)
        }
        guard let outputPath = arguments.value("--output") else {
            throw ToolError.usage("open needs -o OUTPUT", command: command)
        }
        let passphraseReader = PassphraseReader(arguments, command: command)
        try passphraseReader.validate()
        let force = arguments.has("--force")
        let input = try Paths.openInput(inputPath, command: command)
        return try input.closeAfter {
            try Paths.checkOutput(outputPath, input: input, force: force, command: command)
            // The structure is checked before the passphrase is asked for: a cut file says so at once.
            let header = try ContainerStructure.validate(input)
            let passphrase = try passphraseReader.read(confirm: false)
            try Paths.writeOutput(outputPath, force: force) { output in
                try GoshuinFile.decrypt(
                    input, header: header, passphrase: passphrase, to: output, progress: reporter.handler)
            }
            return .object([
                ("ok", .bool(true)),
                ("command", .string(command)),
                ("output", .string(outputPath)),
                ("plaintextLength", .integer(header.plaintextLength)),
                ("chunkCount", .integer(header.layout.chunkCount)),
            ])
        }
    }
}
