import Foundation

/// A scenario of the tool's behaviour pinned as a transcript (`Tests/ToolTranscripts/*.txt`): the commands a
/// person runs, each followed by exactly what it printed and its exit status, so that a change of wording is
/// one reviewed diff of these files. The format, read by ``parse(_:name:)``:
///
/// ```text
/// # What the scenario shows (comments, kept as they are).
/// env GOSHUIN_PASSPHRASE=correct horse battery staple
///
/// $ goshuin-tool seal notes.txt -o notes.goshuin --iterations 1000
/// 2> sealed notes.txt into notes.goshuin, 62 bytes
/// [exit 0]
/// exists notes.goshuin
///
/// -- notes.txt --
/// a few notes
/// ```
///
/// - `$ [NAME=VALUE…] goshuin-tool ARGUMENTS [< FILE]`: a command, run as ``ToolRunner/run`` runs the built
///   tool (its own session, no terminal, only the scenario's environment and PATH), its words quoted as in a
///   shell (`'…'`, `"…"`, `\`, and `$'…'` with `\e`, `\a`, `\n`, `\r`, `\t`, `\xHH` below 80), `< FILE` its
///   standard input. Its block follows: `1> ` a line of standard output, `2> ` one of standard error (`t> ` for
///   a command on a terminal, where both are one screen; a space at the end of a line shown as `␠`), a line
///   without a line end at the end of its stream followed by `\ no newline`, then `[exit N]`. These lines are
///   what ``render(results:)`` writes back.
/// - Set-up and checks, each on a line of its own (paths relative to the scenario's folder, words quoted as
///   in a command): `env NAME=VALUE` (the rest of the line as it is) and `unenv NAME` (for the commands after
///   it), `mkdir PATH`, `fill PATH COUNT` (COUNT bytes that never repeat and do not compress, the same every
///   run), `flip PATH OFFSET` (one bit of the byte at OFFSET, from the end when negative),
///   `zero PATH OFFSET COUNT`, `truncate PATH SIZE` (SIZE bytes, `-N` for N fewer, `+N` for N zero bytes more,
///   `N%` of its size), `hex PATH DIGITS` (those bytes), `cp FROM TO`, `mv FROM TO`, `rm PATH`,
///   `repo-file FROM TO` (a file of this
///   repository), `replace PATH OLD NEW` (in its text), `touch PATH TIME`, `mkfifo PATH`,
///   `symlink TARGET PATH`, `leftover PATH [NAME]` (a byte marked as the toolkit's temporary of NAME, dated
///   2000: a killed run's), `exists PATH…` and `! exists PATH…`, `cmp A B` (the same
///   bytes), `sub /REGEX/TEXT/` (in every line of output after it: what varies from run to run, such as a
///   random salt), `tty ANSWER…` (the next command runs on a pseudo-terminal that answers each passphrase
///   prompt with the next answer; `$'\x03'` types Ctrl-C there).
/// - `-- PATH --` after the script: a file made before the first line runs, holding the lines up to the next
///   such line (as in Go's txtar archives).
///
/// Every file the scenario makes is dated 2026-11-29T12:00:00Z unless `touch` says otherwise, so that a
/// backup's date is the same every run. The scenario's folder is shown as `$WORK`.
struct Transcript {
    /// The file's name, for messages.
    let name: String
    /// The script's lines, each with what it is.
    var items: [Item]
    /// The files made before the script runs, with their text as written in the file.
    var files: [(path: String, contents: String)]
    /// The text from the first `-- PATH --` line to the end, as it is.
    var archive: String

    /// One line of the script (with a command, its expected block).
    enum Item {
        /// A comment, a blank line or a set-up line: kept as it is.
        case text(line: Int, String)
        /// A set-up or check line.
        case directive(line: Int, String, [String])
        /// A command and the block written after it.
        case command(Command)
    }

    /// A command line and what it is expected to print.
    struct Command {
        let line: Int
        let source: String
        let environment: [String: String]
        let arguments: [String]
        let standardInput: String?
        /// The block as written: `1>`, `2>`, `t>` and `\ no newline` lines, then `[exit N]`.
        var expected: [String]
    }

    /// The date of every file a scenario makes: what a backup of them is dated.
    static let fileDate = Date(timeIntervalSince1970: 1_795_953_600)  // 2026-11-29T12:00:00Z

    /// A transcript's syntax error.
    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the transcript `text`.
    static func parse(_ text: String, name: String) throws -> Transcript {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        let archiveStart = lines.firstIndex(where: isFileMarker) ?? lines.count
        var items: [Item] = []
        var index = 0
        while index < archiveStart {
            let line = lines[index]
            let number = index + 1
            index += 1
            if line.isEmpty || line.hasPrefix("#") {
                items.append(.text(line: number, line))
            } else if line.hasPrefix("$ ") {
                var block: [String] = []
                while index < archiveStart, isBlockLine(lines[index]) {
                    block.append(lines[index])
                    index += 1
                }
                items.append(.command(try command(line, number: number, block: block, in: name)))
            } else if isBlockLine(line) {
                throw SyntaxError(description: "\(name):\(number): output with no command before it")
            } else {
                // `env` and `sub` take the rest of the line as it is.
                let first = String(line.prefix { $0 != " " })
                let words = ["env", "sub"].contains(first) ? [first] : try ShellWords.split(line)
                let verb = first == "!" ? (words.dropFirst().first ?? "") : first
                guard directives.contains(verb) else {
                    throw SyntaxError(description: "\(name):\(number): unknown line \(line.debugDescription)")
                }
                items.append(.directive(line: number, line, words))
            }
        }
        var files: [(String, String)] = []
        var current: (name: String, lines: [String])?
        for line in lines[archiveStart...] {
            if isFileMarker(line) {
                if let done = current { files.append((done.name, done.lines.map { $0 + "\n" }.joined())) }
                current = (String(line.dropFirst(3).dropLast(3)), [])
            } else {
                current?.lines.append(line)
            }
        }
        if let done = current { files.append((done.name, done.lines.map { $0 + "\n" }.joined())) }
        let archive = lines[archiveStart...].map { $0 + "\n" }.joined()
        return Transcript(name: name, items: items, files: files, archive: archive)
    }

    static let directives: Set<String> = [
        "env", "unenv", "mkdir", "fill", "flip", "zero", "truncate", "cp", "mv", "rm", "repo-file", "touch",
        "hex", "mkfifo", "symlink", "replace", "leftover", "exists", "cmp", "sub", "tty",
    ]

    static func isFileMarker(_ line: String) -> Bool {
        line.hasPrefix("-- ") && line.hasSuffix(" --") && line.count > 6
    }

    static func isBlockLine(_ line: String) -> Bool {
        ["1>", "2>", "t>"].contains(String(line.prefix(2))) || line.hasPrefix("[exit ") || line == "\\ no newline"
    }

    private static func command(_ line: String, number: Int, block: [String], in name: String) throws -> Command {
        var words = try ShellWords.split(String(line.dropFirst(2)))
        var environment: [String: String] = [:]
        while let first = words.first, let equals = first.firstIndex(of: "="),
            first[..<equals].allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" })
        {
            environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
            words.removeFirst()
        }
        guard words.first == "goshuin-tool" else {
            throw SyntaxError(description: "\(name):\(number): a command runs goshuin-tool")
        }
        words.removeFirst()
        var standardInput: String?
        if words.count >= 2, words[words.count - 2] == ShellWords.inputRedirection {
            standardInput = words.removeLast()
            words.removeLast()
        }
        return Command(
            line: number, source: line, environment: environment, arguments: words, standardInput: standardInput,
            expected: block)
    }

    /// The transcript's text with each command's block replaced by `results`' (by command line number).
    func render(results: [Int: [String]]) -> String {
        var text = ""
        for item in items {
            switch item {
            case .text(_, let line), .directive(_, let line, _):
                text += line + "\n"
            case .command(let command):
                text += command.source + "\n"
                for line in results[command.line] ?? command.expected { text += line + "\n" }
            }
        }
        return text + archive
    }

    /// What a command printed, as its block: each stream's lines with their prefix, then the exit status.
    static func block(status: Int32, streams: [(prefix: String, text: String)]) -> [String] {
        var lines: [String] = []
        for (prefix, text) in streams where !text.isEmpty {
            var parts = text.components(separatedBy: "\n")
            let ended = parts.last == ""
            if ended { parts.removeLast() }
            for part in parts { lines.append(part.isEmpty ? prefix : prefix + " " + visibleTrailingSpaces(part)) }
            if !ended { lines.append("\\ no newline") }
        }
        return lines + ["[exit \(status)]"]
    }

    /// `line` with each space at its end shown as `␠` (U+2420), which no editor strips: a prompt ends in one.
    static func visibleTrailingSpaces(_ line: String) -> String {
        let spaces = line.reversed().prefix { $0 == " " }.count
        return String(line.dropLast(spaces)) + String(repeating: "\u{2420}", count: spaces)
    }

    /// `text` as a reader of the transcript sees it: the scenario's folder as `$WORK`, control characters as
    /// their pictures (U+2400…, so that an escape is never taken for the tool's own `\x1b`), and each `sub`.
    static func normalized(_ text: String, folder: String, substitutions: [(Regex<AnyRegexOutput>, String)]) -> String {
        var text = text.replacingOccurrences(of: folder, with: "$WORK")
        text = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar.value {
                    case 0x0A: return scalar
                    case 0..<0x20: return Unicode.Scalar(0x2400 + scalar.value) ?? scalar
                    case 0x7F: return "\u{2421}"
                    default: return scalar
                    }
                }))
        for (pattern, replacement) in substitutions {
            text = text.replacing(pattern, with: replacement)
        }
        return text
    }

    /// What a terminal shows of `raw`: a line end as `\n`, a line cleared and redrawn (`\r` and `ESC [K`, as
    /// the progress line does) as what was drawn last, so that timing never changes a transcript.
    static func screen(_ raw: String) -> String {
        var lines: [String] = []
        var line = ""
        var scalars = raw.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\r" where scalars.first == "\n":
                continue
            case "\r" where scalars.starts(with: "\u{1B}[K".unicodeScalars):
                scalars = scalars.dropFirst(3)
                line = ""
            case "\n":
                lines.append(line)
                line = ""
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        return lines.map { $0 + "\n" }.joined() + line
    }
}

/// Words of a line, split and unquoted as a POSIX shell does for the few forms transcripts use.
enum ShellWords {
    /// The word `<` standing alone (unquoted), which the split gives as this marker.
    static let inputRedirection = "\u{0}<"

    static func split(_ line: String) throws -> [String] {
        var words: [String] = []
        var word: String?
        var characters = line[...]
        func append(_ character: Character) { word = (word ?? "") + String(character) }
        while let character = characters.popFirst() {
            switch character {
            case " ", "\t":
                if let done = word { words.append(done) }
                word = nil
            case "<" where word == nil && (characters.first == " " || characters.isEmpty):
                words.append(inputRedirection)
            case "\\":
                guard let next = characters.popFirst() else { throw syntax(line) }
                append(next)
            case "'":
                guard let end = characters.firstIndex(of: "'") else { throw syntax(line) }
                word = (word ?? "") + characters[..<end]
                characters = characters[characters.index(after: end)...]
            case "$" where characters.first == "'":
                characters = characters.dropFirst()
                word = (word ?? "") + (try ansiQuoted(&characters, line: line))
            case "\"":
                word = word ?? ""
                while true {
                    guard let next = characters.popFirst() else { throw syntax(line) }
                    if next == "\"" { break }
                    if next == "\\", let escaped = characters.first, "\"\\$`".contains(escaped) {
                        append(escaped)
                        characters = characters.dropFirst()
                    } else {
                        append(next)
                    }
                }
            default:
                append(character)
            }
        }
        if let done = word { words.append(done) }
        return words
    }

    /// The text of a `$'…'` word after its opening quote, with its escapes; `characters` is left after the
    /// closing quote.
    private static func ansiQuoted(_ characters: inout Substring, line: String) throws -> String {
        var text = ""
        while true {
            guard let next = characters.popFirst() else { throw syntax(line) }
            if next == "'" { return text }
            guard next == "\\" else {
                text.append(next)
                continue
            }
            guard let escape = characters.popFirst() else { throw syntax(line) }
            switch escape {
            case "e": text += "\u{1B}"
            case "a": text += "\u{07}"
            case "n": text += "\n"
            case "r": text += "\r"
            case "t": text += "\t"
            case "x":
                let digits = characters.prefix(2)
                guard digits.count == 2, let value = UInt8(digits, radix: 16), value < 0x80 else { throw syntax(line) }
                characters = characters.dropFirst(2)
                text.unicodeScalars.append(Unicode.Scalar(value))
            default: text.append(escape)
            }
        }
    }

    private static func syntax(_ line: String) -> Transcript.SyntaxError {
        Transcript.SyntaxError(description: "unbalanced quoting in \(line.debugDescription)")
    }
}
