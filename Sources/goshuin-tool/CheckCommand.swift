import GoshuinFormat
import GoshuinVectors

/// `goshuin-tool check [PATH…]`: known-answer vectors against this implementation, every vector through
/// every reader and sealer, every problem with what the vector says and what was computed.
enum CheckCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "check", summary: "Check known-answer vectors against this implementation.",
        usage: "goshuin-tool check [PATH…] [--json]",
        options: [
            OptionSpec(
                .json,
                "Print one JSON object on standard output: {\"ok\", \"passed\", \"failed\", \"malformed\", \"skipped\","
                    + " \"vectors\": [{\"name\", \"outcome\", \"problems\", \"computed\"}]}; the error object only when"
                    + " the check cannot run."),
            CommandSpec.helpOption,
        ],
        discussion: """
            Each PATH is a directory of vectors (every NAME.json directly in it) or one vector's JSON file;
            the default is KnownAnswer/. The vector format is Spec/vectors-v1.md. Every vector goes through
            every reader (streaming, parallel, random access) and a success vector through both sealers.
            Prints one line per vector and, under a failing one, a line per problem with what the vector says
            and what was computed; a JSON file without a "format" member is not a vector and is skipped. Then
            'N malformed' and 'N passed, N failed'; exits 1 if any vector fails or is malformed.
            """,
        examples: ["goshuin-tool check", "goshuin-tool check their-vectors/ --json"])

    static let defaultPath = "KnownAnswer"

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let json = context.json
        let paths = arguments.positionals.isEmpty ? [defaultPath] : arguments.positionals
        var results: [VectorCheckResult] = []
        for path in paths {
            guard FileSystem.exists(path) else {
                throw ToolError(
                    code: .inputNotFound, "\(DisplayText.quoted(path)) does not exist",
                    hint: "give a directory of vectors or a vector's .json file", status: .noInput)
            }
            let found =
                FileSystem.isDirectory(path)
                ? try VectorChecker.check(directory: path) : [try VectorChecker.check(vectorAt: path)]
            guard found.contains(where: { $0.outcome != .skipped }) else {
                throw ToolError(
                    code: .inputNotFound, "\(DisplayText.quoted(path)) holds no *.json vector", status: .noInput)
            }
            for result in found {
                if !json { Console.out(text(result)) }
                results.append(result)
            }
        }
        let count = { (outcome: VectorCheckResult.Outcome) in results.filter { $0.outcome == outcome }.count }
        let (passed, failed, malformed, skipped) = (count(.passed), count(.failed), count(.malformed), count(.skipped))
        if !json {
            if skipped > 0 { Console.out("\(skipped) skipped (not vectors)\n") }
            Console.out("\(malformed) malformed\n\(passed) passed, \(failed) failed\n")
        }
        let summary: JSONValue = .object([
            ("ok", .bool(failed == 0 && malformed == 0)),
            ("command", .string(name)),
            ("passed", .integer(passed)),
            ("failed", .integer(failed)),
            ("malformed", .integer(malformed)),
            ("skipped", .integer(skipped)),
            ("vectors", .array(results.map(jsonValue))),
        ])
        return CommandResult(summary: summary, status: failed == 0 && malformed == 0 ? .success : .vectorsFailed)
    }

    /// The lines for one vector: `ok NAME (…)`, `SKIP`, `MALFORMED NAME: …`, or `FAIL NAME` followed by one
    /// indented line per problem.
    static func text(_ result: VectorCheckResult) -> String {
        let name = DisplayText.escaped(result.name)
        switch result.outcome {
        case .passed: return "ok \(name) (\(result.detail))\n"
        case .skipped: return "SKIP \(name): \(DisplayText.escaped(result.detail))\n"
        case .malformed where result.problems.isEmpty:
            return "MALFORMED \(name): \(DisplayText.escaped(result.detail))\n"
        case .malformed, .failed:
            let label = result.outcome == .failed ? "FAIL" : "MALFORMED"
            let computed = result.computed.map {
                "  computed here: key \(Hex.encode($0.key)), file SHA-256 \(Hex.encode($0.fileSha256))\n"
            }
            return "\(label) \(name)\n"
                + result.problems.map { "  " + DisplayText.escaped($0.description) + "\n" }.joined() + (computed ?? "")
        }
    }

    static func jsonValue(_ result: VectorCheckResult) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("name", .string(result.name)),
            ("outcome", .string(result.outcome.rawValue)),
            ("detail", .string(result.detail)),
            (
                "problems",
                .array(
                    result.problems.map {
                        .object([
                            ("check", .string($0.check)), ("expected", .string($0.expected)),
                            ("computed", .string($0.computed)),
                        ])
                    })
            ),
        ]
        if let computed = result.computed {
            members.append(("computed", computedValue(computed)))
        }
        return .object(members)
    }

    private static func computedValue(_ computed: VectorComputation) -> JSONValue {
        .object([
            ("key", .string(Hex.encode(computed.key))),
            ("fileSha256", .string(Hex.encode(computed.fileSha256))),
            (
                "readers",
                .array(
                    computed.readers.map { reader in
                        var members: [(key: String, value: JSONValue)] = [
                            ("reader", .string(reader.reader)), ("verdict", .string(reader.verdict)),
                            ("chunkIndex", reader.chunkIndex.map { .integer($0) } ?? .null),
                        ]
                        if let released = reader.released {
                            members.append(("releasedLength", .integer(released.length)))
                            members.append(("releasedSha256", .string(Hex.encode(released.sha256))))
                        }
                        return .object(members)
                    })
            ),
            (
                "reseals",
                .array(
                    computed.reseals.map { reseal in
                        .object([
                            ("sealer", .string(reseal.sealer)), ("sha256", .string(Hex.encode(reseal.sha256))),
                            ("firstDifference", reseal.firstDifference.map { .string($0) } ?? .null),
                        ])
                    })
            ),
        ])
    }
}
