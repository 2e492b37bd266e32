import GoshuinBackup
import GoshuinFormat
import GoshuinRecovery

/// `goshuin-tool inspect INPUT.goshuin`: the header and the size verdict, without the passphrase; with
/// `--list`, a backup's entries.
enum InspectCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "inspect", summary: "Show a .goshuin file's header and check its size, without the passphrase.",
        usage: "goshuin-tool inspect INPUT.goshuin [--list] [--json]",
        options: [
            OptionSpec(
                .list,
                "With the passphrase: list a backup's entries and its manifest (decrypts only the"
                    + " chunks the ZIP's directory and manifest are in).")
        ] + CommandSpec.passphraseOptions + [CommandSpec.jsonOption, CommandSpec.helpOption],
        discussion: """
            Prints the format version and every header field, the chunk count they imply, and the expected
            and actual file sizes (format 2: the records, the last record's size and the payload length the
            size implies; its header MAC is shown unverified), with a verdict: consistent, truncated,
            trailing_data, or the header error's code. Nothing here is authenticated: only opening with the
            passphrase proves the file genuine. Reads the header alone (77 bytes at most) whatever the file
            size. Exits 65 when the verdict is not 'consistent'. When it is not, and recovery files beside the
            file (FILE.par2, FILE.vol…par2) find it damaged, says so, where, and whether they repair it (a
            'recovery' line; "recovery" in --json, as verify gives it), with the error open would give; the
            verdict stays what the header alone says. --list needs the passphrase.
            """,
        examples: [
            "goshuin-tool inspect backup.goshuin", "goshuin-tool inspect backup.goshuin --json",
            "goshuin-tool inspect backup.goshuin --list",
        ])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let inputPath = try onlyPositional(arguments, "one INPUT.goshuin file")
        if arguments.has(.list) { return try list(inputPath, arguments, context) }
        let input = try Paths.openInput(inputPath, command: name)
        let inspection = try input.closeAfter { try ContainerInspection(input) }
        // The error as its recovery files tell it, when they are beside it: the same on standard error and in
        // the JSON.
        let advice = inspection.problem.flatMap { RecoveryAdvice.advice($0, path: inputPath) }
        let error = advice?.error ?? inspection.problem.map { ToolError($0) }
        // A damaged file is said to be one, and repairable or not, on standard output too (issue 34, item 12):
        // the verdict stays what the header alone says.
        let damaged = advice?.damaged
        let summary = jsonSummary(inspection, path: inputPath, error: error, recovery: damaged)
        if !context.json { Console.out(text(inspection, path: inputPath, recovery: damaged)) }
        if let error { throw CommandFailure(error: error, summary: summary) }
        return CommandResult(summary: summary)
    }

    /// The header's fields, unless the file is not a `.goshuin` file at all: past a wrong magic, nothing in
    /// it is a header, and decoding it would only print numbers that mean nothing.
    static func headerFields(_ inspection: ContainerInspection) -> ContainerInspection.StoredFields? {
        inspection.problem?.code == .badMagic ? nil : inspection.fields
    }

    /// Each header field as stored: its name, its text, its JSON value.
    static func fieldList(_ fields: ContainerInspection.StoredFields) -> [(name: String, text: String, json: JSONValue)]
    {
        func hex(_ bytes: [UInt8]) -> (String, JSONValue) { (Hex.encode(bytes), .string(Hex.encode(bytes))) }
        let magicText = String(
            decoding: fields.magic.map { (32...126).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        var list: [(name: String, text: String, json: JSONValue)] = [
            ("magic", "\(magicText) (\(Hex.encode(fields.magic)))", .string(Hex.encode(fields.magic))),
            ("version", "\(fields.version)", .integer(fields.version)),
        ]
        switch fields {
        case .v1(let v1):
            list += [
                ("kdfIterations", "\(v1.kdfIterations)", .integer(v1.kdfIterations)),
                ("salt", hex(v1.salt).0, hex(v1.salt).1), ("nonceBase", hex(v1.nonceBase).0, hex(v1.nonceBase).1),
                ("chunkSize", "\(v1.chunkSize)", .integer(v1.chunkSize)),
                ("plaintextLength", "\(v1.plaintextLength)", .integer(v1.plaintextLength)),
            ]
        case .v2(let v2):
            list += [
                ("kdfIterations", "\(v2.kdfIterations)", .integer(v2.kdfIterations)),
                ("kdfSalt", hex(v2.kdfSalt).0, hex(v2.kdfSalt).1),
                ("payloadSalt", hex(v2.payloadSalt).0, hex(v2.payloadSalt).1),
                ("chunkSize", "\(v2.chunkSize)", .integer(v2.chunkSize)),
                ("headerMac", hex(v2.headerMac).0 + " (unverified)", hex(v2.headerMac).1),
            ]
        case .start: break
        }
        return list
    }

    /// The JSON summary; `recovery`, the recovery files' verdict of a file they find damaged, adds the member
    /// `recovery` (as `verify` gives it) after the others.
    static func jsonSummary(
        _ inspection: ContainerInspection, path: String, error: ToolError?, recovery: RecoveryVerification? = nil
    ) -> JSONValue {
        let fields = headerFields(inspection)
        var members: [(key: String, value: JSONValue)] = [
            ("ok", .bool(inspection.problem == nil)),
            ("command", .string(name)),
            ("file", .string(path)),
            ("verdict", .string(inspection.verdict)),
            ("formatVersion", fields.map { .integer($0.version) } ?? .null),
            ("actualFileSize", .integer(inspection.fileSize)),
            ("expectedFileSize", inspection.expectedFileSize.map { .integer($0) } ?? .null),
            ("chunkCount", fields == nil ? .null : inspection.chunkCount.map { .integer($0) } ?? .null),
        ]
        if case .v2? = fields {
            members.append(("lastRecordLength", inspection.lastRecordLength.map { .integer($0) } ?? .null))
            members.append(("impliedPlaintextLength", inspection.impliedPlaintextLength.map { .integer($0) } ?? .null))
            // Without the passphrase nothing tells a whole version 2 file from one cut at a record's end.
            members.append(("wholeKnown", .bool(false)))
        }
        if let fields {
            members.append(
                ("header", .object([("authenticated", .bool(false))] + fieldList(fields).map { ($0.name, $0.json) })))
        } else {
            members.append(("header", .null))
        }
        if let error {
            members.append(
                ("error", .object([("code", .string(error.code.rawValue)), ("message", .string(error.message))])))
        }
        if let recovery {
            members.append(("recovery", RecoveryReport.json(recovery, path: path, recoveryPath: nil)))
        }
        return .object(members)
    }

    /// The text; `recovery`, the recovery files' verdict of a file they find damaged, is said on a line of its
    /// own, and a wrong start is then called damaged, not another kind of file.
    static func text(_ inspection: ContainerInspection, path: String, recovery: RecoveryVerification? = nil) -> String {
        var lines = [
            "file               \(DisplayText.escaped(Paths.describeInput(path)))",
            "verdict            \(inspection.verdict)" + (recovery == nil ? "" : " (read without its recovery files)"),
            "actual size        \(inspection.fileSize) bytes",
        ]
        let recoveryLine = recovery.map { verification in
            let line = RecoveryReport.damageLine(verification, path: path, recoveryPath: nil)
            let said =
                verification.isRepairable && line.hasPrefix("damaged: ")
                ? "damaged and repairable: " + line.dropFirst("damaged: ".count) : line
            return "recovery           \(DisplayText.escaped(said))"
        }
        guard let fields = headerFields(inspection) else {
            if let magic = inspection.fields?.magic {
                lines.append(
                    "starts with        \(Hex.encode(magic)): "
                        + (recovery == nil
                            ? "not a .goshuin file (those start with GSHN)"
                            : "where a .goshuin file has GSHN: its start is damaged, as its recovery files find"))
            }
            if let recoveryLine { lines.append(recoveryLine) }
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append(
            "format version     \(fields.version)"
                + (FormatVersion(rawValue: fields.version) == nil ? " (unknown)" : ""))
        if case .v2 = fields {
            lines.append("records            " + (inspection.chunkCount.map(String.init) ?? "unknown (header invalid)"))
            if let last = inspection.lastRecordLength { lines.append("last record        \(last) bytes") }
            lines.append(
                "payload            "
                    + (inspection.impliedPlaintextLength.map {
                        "\($0) bytes, implied by the size (confirmed only by the final chunk, with the passphrase)"
                    } ?? "unknown"))
            if inspection.problem == nil {
                // A version 2 file's size is its layout: a cut at any byte still gives a consistent one.
                lines.append(
                    "not known          whether the file is whole: a version 2 file cut short or added to still looks"
                        + " consistent without the passphrase; 'goshuin-tool verify FILE' tells (its last record"
                        + " authenticates only if it is)")
            }
        } else {
            lines.append(
                "expected size      "
                    + (inspection.expectedFileSize.map { "\($0) bytes" } ?? "unknown (header invalid)"))
            lines.append("chunk count        " + (inspection.chunkCount.map(String.init) ?? "none"))
        }
        lines.append("header (unauthenticated: only opening with the passphrase verifies it)")
        for field in fieldList(fields) { lines.append("  " + field.name.padding(17) + field.text) }
        if let problem = inspection.problem {
            lines.append("problem            \(problem.code.rawValue): \(problem.message)")
        }
        if let recoveryLine { lines.append(recoveryLine) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `inspect --list`: a backup's entries and manifest, read through the decrypting reader (only the
    /// chunks holding the ZIP's directory and manifest are decrypted).
    private static func list(_ inputPath: String, _ arguments: ParsedArguments, _ context: CommandContext) throws
        -> CommandResult
    {
        let passphraseReader = try PassphraseReader(arguments, command: name)
        try passphraseReader.refuseSharingStandardInput(with: inputPath)
        let input = try Paths.openInput(inputPath, command: name)
        passphraseReader.checkTypedPassphrase(against: input, named: inputPath, progress: context.reporter.handler)
        let listing = try input.closeAfter {
            try BackupListing(
                input, passphrase: passphraseReader.read(confirm: false), progress: context.reporter.handler)
        }
        if !context.json { Console.out(listText(listing)) }
        return CommandResult(summary: listSummary(listing, path: inputPath))
    }

    static func listText(_ listing: BackupListing) -> String {
        let manifest = listing.manifest
        var lines = [
            "as of        \(manifest.createdAt)",
            "records      \(manifest.records.size) bytes",
            "photos       \(manifest.photos.count)",
            "entries (size, stored size, method, name):",
        ]
        for entry in listing.entries {
            let method = entry.method == 0 ? "stored " : "deflate"
            lines.append(
                "  " + String(entry.uncompressedSize).padding(12) + String(entry.compressedSize).padding(12) + method
                    + "  " + entry.name)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func listSummary(_ listing: BackupListing, path: String) -> JSONValue {
        let manifest = listing.manifest
        return summary([
            ("file", .string(path)),
            ("createdAt", .string(manifest.createdAt)),
            ("recordsSize", .integer(manifest.records.size)),
            ("photoCount", .integer(manifest.photos.count)),
            (
                "entries",
                .array(
                    listing.entries.map { entry in
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
