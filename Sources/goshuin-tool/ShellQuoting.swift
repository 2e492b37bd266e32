import GoshuinFormat

/// Words as a POSIX shell (bash, zsh, dash) reads them back: what the tool prints as a command to run next,
/// so that pasting it runs that command on that file and nothing else, whatever the file is called
/// (`x;touch PWNED;.goshuin`, `My Backup.goshuin`, `-n.goshuin`).
enum ShellQuoting {
    /// The characters a word may hold and still need no quotes.
    private static let plain = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+=,-".unicodeScalars)

    /// `words` as one command line.
    static func command(_ words: [String]) -> String { words.map(quoted).joined(separator: " ") }

    /// `word` as the shell reads it back: as it is when every character is plain; in single quotes otherwise;
    /// in `$'…'` with escapes when it holds a character a terminal would act on or a person could not see (so
    /// the line is safe to show, and still names the file exactly).
    static func quoted(_ word: String) -> String {
        guard !word.isEmpty else { return "''" }
        if word.unicodeScalars.allSatisfy({ plain.contains($0) }) { return word }
        guard word.unicodeScalars.contains(where: { DisplayText.isInvisibleOrMoving($0) }) else {
            return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        }
        var escaped = "$'"
        for scalar in word.unicodeScalars {
            switch scalar {
            case "'": escaped += "\\'"
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x80 && DisplayText.isInvisibleOrMoving(scalar):
                escaped += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            case _ where DisplayText.isInvisibleOrMoving(scalar) && scalar.value > 0xFFFF:
                escaped += "\\U" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 8)
            case _ where DisplayText.isInvisibleOrMoving(scalar):
                escaped += "\\u" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "'"
    }

    /// `path` as an argument that cannot be taken for an option: `./-n.goshuin` for `-n.goshuin`.
    static func argument(_ path: String) -> String { path.hasPrefix("-") && path != "-" ? "./" + path : path }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
