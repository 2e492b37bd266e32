import GoshuinFormat

/// `goshuin-tool inspect INPUT.goshuin`: the header and the size verdict, without the passphrase.
enum InspectCommand {
    static func run(_ arguments: ParsedArguments, json: Bool, reporter: ProgressReporter) throws -> JSONValue {
        let command = CommandSpec.inspect.name
        guard arguments.positionals.count == 1, let inputPath = arguments.positionals.first else {
            throw ToolError.usage("inspect takes one INPUT.goshuin file", command: command)
        }
        if arguments.has("--list") {
            return try ListCommand.run(inputPath, arguments, json: json, reporter: reporter)
        }
        let input = try Paths.openInput(inputPath, command: command)
        let inspection = try input.closeAfter { try ContainerInspection(input) }
        let summary = jsonSummary(inspection, path: inputPath)
        if !json { Console.out(text(inspection, path: inputPath)) }
        if let problem = inspection.problem {
            throw InspectionFailure(error: ToolError(problem), summary: summary)
        }
        return summary
    }

    /// A failing verdict: reported as an error, with the inspection still printed.
    struct InspectionFailure: Error {
        let error: ToolError
        let summary: JSONValue
    }

    /// The header's fields, unless the file is not a `.goshuin` file at all: past a wrong magic, nothing in
    /// it is a header, and decoding it would only print numbers that mean nothing.
    static func headerFields(_ inspection: ContainerInspection) -> HeaderFields? {
        inspection.problem?.code == .badMagic ? nil : inspection.fields
    }

    static func jsonSummary(_ inspection: ContainerInspection, path: String) -> JSONValue {
        let fields = headerFields(inspection)
        var members: [(key: String, value: JSONValue)] = [
            ("ok", .bool(inspection.problem == nil)),
            ("command", .string("inspect")),
            ("file", .string(path)),
            ("verdict", .string(inspection.verdict)),
            ("actualFileSize", .integer(inspection.fileSize)),
            ("expectedFileSize", inspection.expectedFileSize.map { .integer($0) } ?? .null),
            ("chunkCount", fields == nil ? .null : inspection.chunkCount.map { .integer($0) } ?? .null),
        ]
        if let fields {
            members.append(
                (
                    "header",
                    .object([
                        ("authenticated", .bool(false)),
                        ("magic", .string(Hex.encode(fields.magic))),
                        ("version", .integer(fields.version)),
                        ("kdfIterations", .integer(fields.kdfIterations)),
                        ("salt", .string(Hex.encode(fields.salt))),
                        ("nonceBase", .string(Hex.encode(fields.nonceBase))),
                        ("chunkSize", .integer(fields.chunkSize)),
                        ("plaintextLength", .integer(fields.plaintextLength)),
                    ])
                ))
        } else {
            members.append(("header", .null))
        }
        if let problem = inspection.problem {
            members.append(
                ("error", .object([("code", .string(problem.code.rawValue)), ("message", .string(problem.message))])))
        }
        return .object(members)
    }

    static func text(_ inspection: ContainerInspection, path: String) -> String {
        var lines = [
            "file               \(DisplayText.escaped(path))",
            "verdict            \(inspection.verdict)",
            "actual size        \(inspection.fileSize) bytes",
        ]
        guard let fields = headerFields(inspection) else {
            if let magic = inspection.fields?.magic {
                lines.append("starts with        \(Hex.encode(magic)): not a .goshuin file (those start with GSHN)")
            }
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append(
            "expected size      " + (inspection.expectedFileSize.map { "\($0) bytes" } ?? "unknown (header invalid)"))
        let magic = String(
            decoding: fields.magic.map { (32...126).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        lines += [
            "chunk count        " + (inspection.chunkCount.map(String.init) ?? "none"),
            "header (unauthenticated: only opening with the passphrase verifies it)",
            "  magic            \(magic) (\(Hex.encode(fields.magic)))",
            "  version          \(fields.version)",
            "  kdfIterations    \(fields.kdfIterations)",
            "  salt             \(Hex.encode(fields.salt))",
            "  nonceBase        \(Hex.encode(fields.nonceBase))",
            "  chunkSize        \(fields.chunkSize)",
            "  plaintextLength  \(fields.plaintextLength)",
        ]
        if let problem = inspection.problem {
            lines.append("problem            \(problem.code.rawValue): \(problem.message)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
