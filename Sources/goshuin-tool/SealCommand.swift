import GoshuinBackup
import GoshuinFormat

/// `goshuin-tool seal INPUT -o OUTPUT`.
enum SealCommand {
    static func run(_ arguments: ParsedArguments, reporter: ProgressReporter) throws -> JSONValue {
        let command = CommandSpec.seal.name
        guard arguments.positionals.count == 1, let inputPath = arguments.positionals.first else {
            throw ToolError.usage("seal takes one INPUT (a file, or - for standard input)", command: command)
        }
        guard let outputPath = arguments.value("--output") else {
            throw ToolError.usage("seal needs -o OUTPUT.goshuin", command: command)
        }
        let parameters = try sealParameters(arguments)
        let passphraseReader = PassphraseReader(arguments, command: command)
        try passphraseReader.validate()
        let force = arguments.has("--force")
        if inputPath != "-", FileSystem.isDirectory(inputPath) {
            try Paths.checkOutput(outputPath, input: nil, force: force, binary: true, command: command)
            let (packed, manifest) = try packFolder(inputPath, besides: outputPath)
            defer { try? packed.close() }
            let photos = manifest.photos.count == 1 ? "1 photo" : "\(manifest.photos.count) photos"
            return try seal(
                packed, to: outputPath, what: "records.csv and \(photos)", arguments, passphraseReader, parameters,
                reporter)
        }
        let input = inputPath == "-" ? nil : try Paths.openInput(inputPath, command: command)
        defer { try? input?.close() }
        try Paths.checkOutput(outputPath, input: input, force: force, binary: true, command: command)
        if inputPath == "-", passphraseReader.usesStandardInput {
            throw ToolError.usage("standard input cannot carry both the payload and the passphrase", command: command)
        }
        let payload = try input ?? spoolStandardInput()
        defer { if input == nil { try? payload.close() } }
        return try seal(
            payload, to: outputPath, what: inputPath == "-" ? "standard input" : inputPath, arguments,
            passphraseReader, parameters, reporter)
    }

    /// Asks for the passphrase and seals `payload`, described as `what` in the result line, into `outputPath`;
    /// returns the JSON summary.
    private static func seal(
        _ payload: FileDescriptor, to outputPath: String, what: String, _ arguments: ParsedArguments,
        _ passphraseReader: PassphraseReader, _ parameters: SealParameters, _ reporter: ProgressReporter
    ) throws -> JSONValue {
        let command = CommandSpec.seal.name
        let force = arguments.has("--force")
        let length = try plaintextLength(of: payload)
        let passphrase = try passphraseReader.read(confirm: true)
        var header: Header?
        try Paths.writeOutput(outputPath, force: force) { output in
            header = try ContainerSealer.seal(
                from: payload, plaintextLength: length, to: output, passphrase: passphrase, parameters: parameters,
                progress: reporter.handler)
        }
        guard let header else { throw GoshuinError(.io, "sealing produced no header") }
        Console.result(
            "sealed \(what) into \(outputPath == "-" ? "standard output" : outputPath),"
                + " \(ProgressReporter.size(header.layout.expectedFileSize))")
        return .object([
            ("ok", .bool(true)),
            ("command", .string(command)),
            ("output", .string(outputPath)),
            ("plaintextLength", .integer(header.plaintextLength)),
            ("fileSize", .integer(header.layout.expectedFileSize)),
            ("chunkCount", .integer(header.layout.chunkCount)),
            ("kdfIterations", .integer(header.kdfIterations)),
            ("chunkSize", .integer(header.chunkSize)),
        ])
    }

    /// The iteration count and chunk size asked for, checked against the format's bounds.
    static func sealParameters(_ arguments: ParsedArguments) throws -> SealParameters {
        var parameters = SealParameters()
        if let text = arguments.value("--iterations") {
            guard let iterations = UInt32(text) else {
                throw ToolError.usage("--iterations takes a whole number, not '\(text)'", command: "seal")
            }
            parameters.iterations = iterations
        }
        if let text = arguments.value("--chunk-size") {
            guard let size = parseSize(text) else {
                throw ToolError.usage(
                    "--chunk-size takes bytes or a size such as 64KiB or 4MiB, not '\(text)'", command: "seal")
            }
            parameters.chunkSize = size
        }
        do {
            _ = try Header(
                kdfIterations: parameters.iterations, salt: [UInt8](repeating: 0, count: Header.saltLength),
                nonceBase: [UInt8](repeating: 0, count: Header.nonceBaseLength), chunkSize: parameters.chunkSize,
                plaintextLength: 1)
        } catch let error as GoshuinError {
            throw ToolError(usage: error, command: "seal")
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

    /// Packs a backup folder into a private, already unlinked temporary file beside the output (so the
    /// space needed is on the output's disk), ready to be sealed.
    private static func packFolder(_ folder: String, besides outputPath: String) throws -> (
        FileDescriptor, Manifest
    ) {
        let directory = outputPath == "-" ? FileSystem.temporaryDirectory : AtomicOutput.directory(of: outputPath)
        let packed = try FileSystem.anonymousFile(in: directory)
        do {
            let result = try BackupPacker.pack(folder: folder, into: packed)
            let skipped = result.skipped
            if !skipped.isEmpty {
                Console.notice(
                    "left out \(skipped.count) \(skipped.count == 1 ? "file" : "files") the operating system made:"
                        + " \(skipped.joined(separator: ", "))")
            }
            try packed.seek(to: 0)
            return (packed, result.manifest)
        } catch {
            try? packed.close()
            throw error
        }
    }

    /// Copies standard input into a private, already unlinked temporary file: the header needs the length
    /// before the first chunk is written.
    private static func spoolStandardInput() throws -> FileDescriptor {
        let spool = try FileSystem.anonymousFile()
        do {
            try spool.copyAll(from: .standardInput)
            try spool.seek(to: 0)
        } catch {
            try? spool.close()
            throw GoshuinError(.io, "cannot copy standard input to a temporary file: \(error)")
        }
        return spool
    }

    private static func plaintextLength(of payload: FileDescriptor) throws -> UInt64 {
        let size: Int64?
        do {
            size = try payload.regularFileSize()
        } catch {
            throw GoshuinError(.io, "cannot examine the input: \(error)")
        }
        guard let size else {
            throw ToolError.usage("INPUT must be a regular file (or - for standard input)", command: "seal")
        }
        guard size > 0 else {
            throw GoshuinError(.emptyPayload, "the input is empty; an empty payload cannot be sealed")
        }
        return UInt64(size)
    }
}
