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
                    + " \"vectors\": [{\"name\", \"outcome\", \"detail\", \"problems\", \"likelyCauses\", \"notes\","
                    + " \"computed\"}]},"
                    + " each problem once with the readers or sealers that computed it (\"by\"); the error object only"
                    + " when the check cannot run."),
            CommandSpec.helpOption,
        ],
        discussion: """
            Each PATH is a directory of vectors (every NAME.json directly in it) or one vector's JSON file;
            the default is the clone's KnownAnswer/ when run at the root of one, else the set installed with
            the tool (PREFIX/share/goshuin-toolkit/KnownAnswer). The vector format is Spec/vectors-v1.md,
            for both container versions. Every vector goes through every reader (streaming, parallel, random
            access in order and final chunk first) and a success vector through every sealer (streaming,
            parallel, piecewise), unless its passphrase is one this toolkit does not seal with (empty, as
            every writer must refuse, or longer than 4096 bytes): it is judged by its readers, and its line
            says it was not re-sealed and why. A folder's rfc5869/hkdf-sha256.json (RFC 5869's HKDF cases)
            is checked too. Every file of a
            vector set is opened inside its folder, never through a link: anything else makes the vector
            malformed. Prints one line per vector and, under a failing or malformed one, every problem once
            with what the vector says and what was computed, naming the readers or sealers that agree (where
            two hex values differ, a caret marks the first different digit). When the file shows a mistake
            other implementations are known to make, a line names the likely cause first: the nonce's index
            in the wrong byte order, a version 2 final flag missing or set too early, the empty final record
            left out, the header missing from the AAD (or its MAC). A JSON file without a "format" member is
            not a vector and is skipped. Then 'N malformed' and 'N passed, N failed'; exits 1 if any vector
            fails or is malformed.
            """,
        examples: ["goshuin-tool check", "goshuin-tool check their-vectors/ --json"])

    /// Where the installed vector set is, under the tool's prefix: `PREFIX/bin/goshuin-tool` has it in
    /// `PREFIX/share/goshuin-toolkit/KnownAnswer`.
    static let installedSetPath = "share/goshuin-toolkit/KnownAnswer"

    /// The vector set `check` runs with no argument: the clone's `KnownAnswer/` when run at the root of a
    /// clone, otherwise the one installed beside the tool.
    static func defaultPath() throws(ToolError) -> String {
        if FileSystem.isDirectory("KnownAnswer"), FileSystem.exists("Package.swift") { return "KnownAnswer" }
        let installed = ProcessControl.executablePath.map { executable in
            FileSystem.parentDirectory(of: FileSystem.parentDirectory(of: executable)) + "/" + installedSetPath
        }
        guard let installed, FileSystem.isDirectory(installed) else {
            throw ToolError(
                code: .inputNotFound,
                "no vector set to check: this is not the root of a goshuin-toolkit clone (no ./KnownAnswer), and"
                    + " none is installed beside the tool\(installed.map { " (\(DisplayText.quoted($0)))" } ?? "")",
                hint: "give a folder of vectors, or run it at the root of a clone", status: .noInput)
        }
        return installed
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> CommandResult {
        let json = context.json
        let paths = arguments.positionals.isEmpty ? [try defaultPath()] : arguments.positionals
        for path in paths {
            guard FileSystem.exists(path) else {
                throw ToolError(
                    code: .inputNotFound, "\(DisplayText.quoted(path)) does not exist",
                    hint: "give a directory of vectors or a vector's .json file", status: .noInput)
            }
            if !FileSystem.isDirectory(path), path.hasSuffix(".goshuin") || Self.startsLikeASealedFile(path) {
                throw usage(
                    "\(DisplayText.quoted(path)) is a .goshuin file, not a vector: check takes a vector's .json file"
                        + " (which names its .goshuin file) or a folder of vectors; to open or check the file itself,"
                        + " use 'goshuin-tool verify'")
            }
        }
        if !json {
            Console.out(
                "every vector through the readers: \(VectorChecker.readerNames.joined(separator: ", ")); every success"
                    + " vector re-sealed by the \(VectorChecker.sealerNames.joined(separator: ", "))\n")
        }
        var results: [VectorCheckResult] = []
        for path in paths {
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

    /// Whether the file at `path` starts with a `.goshuin` file's magic bytes.
    private static func startsLikeASealedFile(_ path: String) -> Bool {
        guard let file = try? FileSystem.openRegularFile(path) else { return false }
        defer { try? file.close() }
        return (try? FileSystem.read(file, at: 0, count: 4)) == Array("GSHN".utf8)
    }

    /// The lines for one vector: `ok NAME (…)`, `SKIP`, or `FAIL NAME` / `MALFORMED NAME` followed by the
    /// likely causes of a failure, then its problems, each once (the readers or sealers that computed the
    /// same named on its line), two hex values that differ one above the other with a caret under the first
    /// different digit, and what was not checked.
    static func text(_ result: VectorCheckResult) -> String {
        let name = DisplayText.escaped(result.name)
        switch result.outcome {
        case .passed: return "ok \(name) (\(DisplayText.escaped(result.detail)))\n"
        case .skipped: return "SKIP \(name): \(DisplayText.escaped(result.detail))\n"
        case .malformed, .failed:
            let label = result.outcome == .failed ? "FAIL" : "MALFORMED"
            let computed = result.computed.map {
                "  computed here: key \(Hex.encode($0.key)), file SHA-256 \(Hex.encode($0.fileSha256))\n"
            }
            let problems = result.problems
            // One problem fits the vector's line; several follow it, one each.
            if problems.count == 1, problems[0].firstDifferentHexDigit == nil, computed == nil {
                return "\(label) \(name): \(DisplayText.escaped(problems[0].description))\n"
            }
            let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
            let causes = result.likelyCauses.map {
                "  likely cause (\($0.cause.rawValue)): \(DisplayText.escaped($0.explanation))\n"
            }
            let notes = result.notes.map { "  note: \(DisplayText.escaped($0))\n" }
            return "\(label) \(name): \(count)\n" + causes.joined() + problems.map(problemText).joined()
                + notes.joined() + (computed ?? "")
        }
    }

    /// One problem as lines: `check: expected …, computed …`, or, for two hex values that differ, the two
    /// values one above the other with a caret under the first different digit.
    static func problemText(_ problem: VectorProblem) -> String {
        guard let digit = problem.firstDifferentHexDigit else {
            return "  " + DisplayText.escaped(problem.description) + "\n"
        }
        let expected = DisplayText.escaped(problem.expected)
        let computed = DisplayText.escaped(problem.computed)
        // The hex values end both lines and have one length: the caret goes under the digit in both.
        let column =
            "    expected ".count + expected.count - (expected.split(separator: " ").last?.count ?? 0) + digit - 1
        return "  \(DisplayText.escaped(problem.check)):\n    expected \(expected)\n    computed \(computed)\n"
            + String(repeating: " ", count: column) + "^ they differ from hex digit \(digit)\n"
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
                            ("firstDifferentHexDigit", $0.firstDifferentHexDigit.map { .integer($0) } ?? .null),
                            ("by", .array($0.by.map { .string($0) })),
                        ])
                    })
            ),
            (
                "likelyCauses",
                .array(
                    result.likelyCauses.map {
                        .object([("cause", .string($0.cause.rawValue)), ("explanation", .string($0.explanation))])
                    })
            ),
            ("notes", .array(result.notes.map { .string($0) })),
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
