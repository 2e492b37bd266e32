import GoshuinFormat

/// `goshuin-tool check [PATH…]`: known-answer vectors against this implementation.
enum CheckCommand {
    static let defaultPath = "KnownAnswer"

    static func run(_ arguments: ParsedArguments, json: Bool) throws -> (JSONValue, ExitStatus) {
        let paths = arguments.positionals.isEmpty ? [defaultPath] : arguments.positionals
        var results: [VectorCheckResult] = []
        for path in paths {
            guard FileSystem.exists(path) else {
                throw ToolError(
                    code: "input_not_found", "\(path) does not exist",
                    hint: "give a directory of vectors or a vector's .json file", status: .noInput)
            }
            let found =
                FileSystem.isDirectory(path)
                ? try VectorChecker.check(directory: path)
                : [
                    VectorChecker.check(vectorAt: path)
                ]
            guard !found.isEmpty else {
                throw ToolError(code: "input_not_found", "\(path) holds no *.json vector", status: .noInput)
            }
            for result in found {
                if !json { Console.out(line(result) + "\n") }
                results.append(result)
            }
        }
        let passed = results.filter { $0.outcome == .passed }.count
        let failed = results.count - passed
        if !json { Console.out("\(passed) passed, \(failed) failed\n") }
        let summary: JSONValue = .object([
            ("ok", .bool(failed == 0)),
            ("command", .string("check")),
            ("passed", .integer(passed)),
            ("failed", .integer(failed)),
            (
                "vectors",
                .array(
                    results.map { result in
                        .object([
                            ("name", .string(result.name)),
                            ("outcome", .string(result.outcome.rawValue)),
                            ("detail", .string(result.detail)),
                        ])
                    })
            ),
        ])
        return (summary, failed == 0 ? .success : .vectorsFailed)
    }

    static func line(_ result: VectorCheckResult) -> String {
        switch result.outcome {
        case .passed: return "ok \(result.name) (\(result.detail))"
        case .failed: return "FAIL \(result.name): \(result.detail)"
        case .malformed: return "MALFORMED \(result.name): \(result.detail)"
        }
    }
}
