import Foundation
import Testing

/// Every scenario of `Tests/ToolTranscripts/` run through the built tool, each a test case of its own: a
/// mismatch shows the unified diff from the file to what the tool printed. With
/// `GOSHUIN_UPDATE_TRANSCRIPTS=1`, the files are rewritten from what the tool printed instead, so that a
/// change of wording is one diff to review (`git diff Tests/ToolTranscripts`).
@Suite struct TranscriptTests {
    static let folder = ToolRunner.packageRoot + "/Tests/ToolTranscripts"
    static let updating = ProcessInfo.processInfo.environment["GOSHUIN_UPDATE_TRANSCRIPTS"] == "1"

    /// A scenario file, named for the test case.
    struct Scenario: CustomTestStringConvertible, Sendable {
        let name: String
        var path: String { TranscriptTests.folder + "/" + name }
        var testDescription: String { name }
    }

    static var scenarios: [Scenario] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted().map(Scenario.init)
    }

    @Test func thereIsAScenarioForEveryCommandAndEnoughOfThem() throws {
        #expect(Self.scenarios.count >= 20, "\(Self.scenarios.map(\.name))")
        var run = Set<String>()
        for scenario in Self.scenarios {
            let transcript = try Transcript.parse(String(contentsOfFile: scenario.path, encoding: .utf8), name: "")
            for case .command(let command) in transcript.items {
                run.insert(command.arguments.first ?? "")
            }
        }
        for command in HelpTests.commands + ["help"] {
            #expect(run.contains(command), "no transcript runs \(command)")
        }
    }

    @Test(arguments: scenarios)
    func theToolDoesWhatItsTranscriptSays(_ scenario: Scenario) throws {
        let text = try String(contentsOfFile: scenario.path, encoding: .utf8)
        let transcript = try Transcript.parse(text, name: scenario.name)
        let actual = try TranscriptRun(transcript).run()
        guard actual != text else { return }
        if Self.updating {
            try actual.write(toFile: scenario.path, atomically: true, encoding: .utf8)
            return
        }
        let diff = UnifiedDiff.text(
            from: text, to: actual, names: ("Tests/ToolTranscripts/" + scenario.name, "what the tool printed"))
        Issue.record(
            "\(scenario.name) differs from what the tool printed (GOSHUIN_UPDATE_TRANSCRIPTS=1 rewrites it):\n\(diff)")
    }

    /// Issue 34, item 17: people are told of parts of the file; "slice" is the word of `--json`, the spec and
    /// the man page's details (`Spec/glossary.md`). No line the tool prints for a person, in any scenario (its
    /// help included), says it; a JSON document on standard output may.
    @Test func noLineAPersonReadsSaysSlice() throws {
        var found: [String] = []
        for scenario in Self.scenarios {
            let transcript = try Transcript.parse(String(contentsOfFile: scenario.path, encoding: .utf8), name: "")
            for case .command(let command) in transcript.items {
                for line in command.expected where ["1> ", "2> ", "t> "].contains(where: line.hasPrefix) {
                    let text = line.dropFirst(3)
                    if text.hasPrefix("{") || text.hasPrefix("[") { continue }
                    if text.lowercased().contains("slice") { found.append("\(scenario.name): \(line)") }
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func theFormatReadsItsOwnOutput() throws {
        let text = """
            # a comment
            env GOSHUIN_PASSPHRASE='two words'

            $ X=1 goshuin-tool open - -o "a b" $'\\e]0;x\\a' < in.goshuin
            1> out
            1>
            2> err
            \\ no newline
            [exit 65]
            ! exists 'a b'
            -- in.goshuin --
            line

            """
        let transcript = try Transcript.parse(text, name: "example")
        #expect(transcript.render(results: [:]) == text)
        let commands = transcript.items.compactMap { item -> Transcript.Command? in
            if case .command(let command) = item { return command }
            return nil
        }
        let command = try #require(commands.first)
        #expect(command.arguments == ["open", "-", "-o", "a b", "\u{1B}]0;x\u{07}"])
        #expect(command.environment == ["X": "1"] && command.standardInput == "in.goshuin")
        #expect(command.expected == ["1> out", "1>", "2> err", "\\ no newline", "[exit 65]"])
        #expect(transcript.files.map(\.path) == ["in.goshuin"] && transcript.files.first?.contents == "line\n")
        #expect(
            Transcript.block(status: 65, streams: [("1>", "out\n\n"), ("2>", "err")])
                == ["1> out", "1>", "2> err", "\\ no newline", "[exit 65]"])
        #expect(Transcript.screen("Passphrase: \r\n\r\u{1B}[Kderiving…\r\u{1B}[Kdone\r\n") == "Passphrase: \ndone\n")
    }
}

/// One run of a transcript in a scratch folder of its own: its files made, its lines run in order.
struct TranscriptRun {
    let transcript: Transcript
    let directory = Scratch()
    private var environment: [String: String] = [:]
    private var substitutions: [(Regex<AnyRegexOutput>, String)] = []
    private var answers: [String]?

    init(_ transcript: Transcript) {
        self.transcript = transcript
    }

    /// Runs every line and returns the transcript as the tool printed it. A check that fails, or a set-up line
    /// that cannot be done, is recorded as an issue naming its line.
    func run() throws -> String {
        var state = self
        for (path, contents) in transcript.files {
            try state.make(path, Array(contents.utf8))
        }
        var results: [Int: [String]] = [:]
        for item in transcript.items {
            switch item {
            case .text: break
            case .directive(let line, let source, let words):
                do {
                    try state.perform(words, line: source)
                } catch {
                    Issue.record("\(transcript.name):\(line): \(source): \(error)")
                }
            case .command(let command):
                results[command.line] = try state.execute(command)
            }
        }
        return transcript.render(results: results)
    }

    private func path(_ relative: String) -> String {
        relative.hasPrefix("/") ? relative : directory.path + "/" + relative
    }

    private func make(_ relative: String, _ bytes: [UInt8]) throws {
        let target = path(relative)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: target, contents: Data(bytes)) else {
            throw Failure("cannot write \(relative)")
        }
        try FileManager.default.setAttributes([.modificationDate: Transcript.fileDate], ofItemAtPath: target)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func bytes(_ relative: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path(relative)) else {
            throw Failure("cannot read \(relative)")
        }
        return [UInt8](data)
    }

    /// An offset into `count` bytes: from the end when negative.
    private func offset(_ text: String, in count: Int) throws -> Int {
        guard let value = Int(text) else { throw Failure("not a number: \(text)") }
        let offset = value < 0 ? count + value : value
        guard (0..<count).contains(offset) else { throw Failure("offset \(text) outside \(count) bytes") }
        return offset
    }

    private mutating func perform(_ words: [String], line: String) throws {
        let manager = FileManager.default
        let arguments = Array(words.dropFirst())
        func expect(_ count: Int) throws {
            guard arguments.count == count else { throw Failure("\(words[0]) takes \(count) arguments") }
        }
        switch words[0] {
        case "env":
            // The rest of the line, as it is: `env GOSHUIN_PASSPHRASE=correct horse battery staple`.
            let assignment = line.dropFirst("env ".count)
            guard let equals = assignment.firstIndex(of: "=") else { throw Failure("env NAME=VALUE") }
            environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        case "unenv":
            try expect(1)
            environment[arguments[0]] = nil
        case "mkdir":
            try expect(1)
            try manager.createDirectory(atPath: path(arguments[0]), withIntermediateDirectories: true)
        case "fill":
            try expect(2)
            guard let count = Int(arguments[1]) else { throw Failure("fill PATH COUNT") }
            try make(arguments[0], Self.noise(count, seed: arguments[0]))
        case "flip":
            try expect(2)
            var content = try bytes(arguments[0])
            content[try offset(arguments[1], in: content.count)] ^= 0x40
            try make(arguments[0], content)
        case "zero":
            try expect(3)
            var content = try bytes(arguments[0])
            let start = try offset(arguments[1], in: content.count)
            guard let count = Int(arguments[2]), start + count <= content.count else { throw Failure("zero range") }
            content.replaceSubrange(start..<(start + count), with: [UInt8](repeating: 0, count: count))
            try make(arguments[0], content)
        case "truncate":
            try expect(2)
            let content = try bytes(arguments[0])
            let size: Int
            if arguments[1].hasSuffix("%"), let percent = Int(arguments[1].dropLast()) {
                size = content.count * percent / 100
            } else if let value = Int(arguments[1]) {
                size = value < 0 || arguments[1].hasPrefix("+") ? content.count + value : value
            } else {
                throw Failure("truncate PATH SIZE")
            }
            guard size >= 0 else { throw Failure("truncate to \(size)") }
            try make(
                arguments[0], Array(content.prefix(size)) + [UInt8](repeating: 0, count: max(0, size - content.count)))
        case "cp":
            try expect(2)
            try make(arguments[1], try bytes(arguments[0]))
        case "mv":
            try expect(2)
            try manager.moveItem(atPath: path(arguments[0]), toPath: path(arguments[1]))
        case "rm":
            try expect(1)
            try manager.removeItem(atPath: path(arguments[0]))
        case "repo-file":
            try expect(2)
            try make(arguments[1], try bytes(ToolRunner.packageRoot + "/" + arguments[0]))
        case "touch":
            try expect(2)
            guard let date = ISO8601DateFormatter().date(from: arguments[1]) else { throw Failure("touch PATH TIME") }
            try manager.setAttributes([.modificationDate: date], ofItemAtPath: path(arguments[0]))
        case "symlink":
            try expect(2)
            try manager.createSymbolicLink(atPath: path(arguments[1]), withDestinationPath: arguments[0])
        case "replace":
            try expect(3)
            let text = String(decoding: try bytes(arguments[0]), as: UTF8.self)
            guard text.contains(arguments[1]) else { throw Failure("\(arguments[0]) holds no \(arguments[1])") }
            try make(arguments[0], Array(text.replacingOccurrences(of: arguments[1], with: arguments[2]).utf8))
        case "leftover":
            guard (1...2).contains(arguments.count) else { throw Failure("leftover PATH [MARKED-NAME]") }
            try make(arguments[0], [7])
            try Self.markAsTemporary(path(arguments[0]), name: arguments.dropFirst().first ?? arguments[0])
            try manager.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 946_684_800)], ofItemAtPath: path(arguments[0]))
        case "hex":
            try expect(2)
            try make(arguments[0], try HexDigits.bytes(arguments[1]))
        case "mkfifo":
            try expect(1)
            guard mkfifo(path(arguments[0]), 0o600) == 0 else { throw Failure("mkfifo \(arguments[0])") }
        case "exists":
            for name in arguments where !manager.fileExists(atPath: path(name)) {
                throw Failure("\(name) does not exist; the folder holds \(listing())")
            }
        case "!" where words.dropFirst().first == "exists":
            for name in arguments.dropFirst() where manager.fileExists(atPath: path(name)) {
                throw Failure("\(name) exists")
            }
        case "cmp":
            try expect(2)
            guard try bytes(arguments[0]) == bytes(arguments[1]) else {
                throw Failure("\(arguments[0]) and \(arguments[1]) differ")
            }
        case "sub":
            let parts = line.dropFirst("sub ".count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0].isEmpty, parts[3].isEmpty else { throw Failure("sub /REGEX/TEXT/") }
            substitutions.append((try Regex(String(parts[1])), String(parts[2])))
        case "tty":
            answers = arguments
        default:
            throw Failure("unknown line")
        }
    }

    /// Every name under the scenario's folder, for a failed `exists`.
    private func listing() -> [String] {
        (FileManager.default.subpaths(atPath: directory.path) ?? []).sorted()
    }

    /// Runs `command` and returns its block.
    private mutating func execute(_ command: Transcript.Command) throws -> [String] {
        let environment = self.environment.merging(command.environment) { _, new in new }
        let normalize = { [directory, substitutions] (text: String) in
            Transcript.normalized(text, folder: directory.path, substitutions: substitutions)
        }
        if let answers {
            self.answers = nil
            let result = try ToolRunner.runOnTerminal(
                command.arguments, in: directory.path, answers: answers, environment: environment,
                standardInput: command.standardInput)
            return Transcript.block(
                status: result.status, streams: [("t>", normalize(Transcript.screen(result.screen)))])
        }
        let input = try command.standardInput.map { try bytes($0) } ?? []
        let result = try ToolRunner.run(command.arguments, in: directory.path, stdin: input, environment: environment)
        return Transcript.block(
            status: result.status, streams: [("1>", normalize(result.stdout)), ("2>", normalize(result.stderr))])
    }

    /// Marks the file at `path` as the toolkit's temporary for `name`, as a run marks the ones it makes
    /// (`user.goshuin-toolkit.temporary`), by the C library's `setxattr`, which Glibc's Swift module does not
    /// export.
    static func markAsTemporary(_ path: String, name: String) throws {
        typealias SetExtendedAttribute =
            @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
        guard let symbol = dlsym(nil, "setxattr") else { throw Failure("no setxattr") }
        let setExtendedAttribute = unsafeBitCast(symbol, to: SetExtendedAttribute.self)
        let value = Array(name.utf8)
        let status = value.withUnsafeBytes {
            setExtendedAttribute(path, "user.goshuin-toolkit.temporary", $0.baseAddress, $0.count, 0)
        }
        guard status == 0 else { throw Failure("cannot mark \(path) (extended attributes: errno \(errno))") }
    }

    /// `count` bytes that do not repeat or compress, the same for the same `seed` every run (xorshift).
    static func noise(_ count: Int, seed: String) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for byte in seed.utf8 { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}

/// Bytes written as hexadecimal digits, for a `hex` line.
enum HexDigits {
    static func bytes(_ text: String) throws -> [UInt8] {
        let digits = Array(text)
        guard digits.count.isMultiple(of: 2) else { throw TranscriptRun.Failure("an odd number of hex digits") }
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
                throw TranscriptRun.Failure("not hex: \(text)")
            }
            return byte
        }
    }
}

/// A unified diff of two texts, by lines (a longest common subsequence, after the common head and tail).
enum UnifiedDiff {
    static func text(from old: String, to new: String, names: (String, String), context: Int = 3) -> String {
        let a = old.components(separatedBy: "\n")
        let b = new.components(separatedBy: "\n")
        var head = 0
        while head < a.count, head < b.count, a[head] == b[head] { head += 1 }
        var tail = 0
        while tail < a.count - head, tail < b.count - head, a[a.count - 1 - tail] == b[b.count - 1 - tail] {
            tail += 1
        }
        let middleA = Array(a[head..<(a.count - tail)])
        let middleB = Array(b[head..<(b.count - tail)])
        // The edit script of the middles: (" ", "-", "+") with each line.
        var lengths = [[Int]](
            repeating: [Int](repeating: 0, count: middleB.count + 1), count: middleA.count + 1)
        for i in stride(from: middleA.count - 1, through: 0, by: -1) {
            for j in stride(from: middleB.count - 1, through: 0, by: -1) {
                lengths[i][j] =
                    middleA[i] == middleB[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var script: [(Character, String, Int, Int)] = []  // kind, line, index in a, index in b
        for index in 0..<head { script.append((" ", a[index], index, index)) }
        var (i, j) = (0, 0)
        while i < middleA.count || j < middleB.count {
            if i < middleA.count, j < middleB.count, middleA[i] == middleB[j] {
                script.append((" ", middleA[i], head + i, head + j))
                (i, j) = (i + 1, j + 1)
            } else if j < middleB.count, i == middleA.count || lengths[i][j + 1] >= lengths[i + 1][j] {
                script.append(("+", middleB[j], head + i, head + j))
                j += 1
            } else {
                script.append(("-", middleA[i], head + i, head + j))
                i += 1
            }
        }
        for index in 0..<tail {
            script.append((" ", a[a.count - tail + index], a.count - tail + index, b.count - tail + index))
        }
        // Hunks: the changes with `context` lines around them.
        var text = "--- \(names.0)\n+++ \(names.1)\n"
        let changed = script.indices.filter { script[$0].0 != " " }
        var start = 0
        while start < changed.count {
            var end = start
            while end + 1 < changed.count, changed[end + 1] - changed[end] <= 2 * context + 1 { end += 1 }
            let first = max(0, changed[start] - context)
            let last = min(script.count - 1, changed[end] + context)
            let lines = script[first...last]
            let oldCount = lines.filter { $0.0 != "+" }.count
            let newCount = lines.filter { $0.0 != "-" }.count
            let (oldStart, newStart) = (lines.first.map { $0.2 + 1 } ?? 0, lines.first.map { $0.3 + 1 } ?? 0)
            text += "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n"
            for line in lines { text += "\(line.0)\(line.1)\n" }
            start = end + 1
        }
        return text
    }
}
