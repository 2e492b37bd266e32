/// Text that came from a file or the command line, made safe to show on a terminal: one function for
/// every such string the toolkit prints or puts in a message.
///
/// A crafted name could otherwise move the cursor, clear the line and print a fake result, set the
/// window title or the clipboard (OSC 52), or reorder what a person reads (bidirectional overrides).
/// Escaped: C0 controls and DEL as `\xNN`; C1 controls, every Unicode format character (category Cf: the
/// bidirectional controls, zero-width spaces and joiners, U+2060, U+FEFF, the tags) and the line and
/// paragraph separators (Zl, Zp) as `\u{NNNN}`: characters a person cannot see or that move what they
/// read; and bytes that are not valid UTF-8 as `\xNN`. Everything else, other scripts included, is shown
/// as it is.
package enum DisplayText {
    /// The most characters shown of one quoted string; a longer one ends with `…`.
    package static let quotedCharacterLimit = 300

    /// `text` with every character a terminal would act on escaped: for a whole line of output.
    package static func escaped(_ text: String) -> String {
        render(text.utf8, quoting: false, limit: .max)
    }

    /// `bytes` decoded as UTF-8 where they are valid, with every other byte and every character a terminal
    /// would act on escaped.
    package static func escaped(bytes: some Collection<UInt8>) -> String {
        render(bytes, quoting: false, limit: .max)
    }

    /// `"text"`, escaped as ``escaped(_:)``, with `"` and `\` escaped too and cut after
    /// ``quotedCharacterLimit`` characters: for a name inside a sentence.
    package static func quoted(_ text: String) -> String {
        "\"" + render(text.utf8, quoting: true, limit: quotedCharacterLimit) + "\""
    }

    /// `"bytes"`, decoded and escaped as ``escaped(bytes:)``, otherwise as ``quoted(_:)``.
    package static func quoted(bytes: some Collection<UInt8>) -> String {
        "\"" + render(bytes, quoting: true, limit: quotedCharacterLimit) + "\""
    }

    private static func render(_ bytes: some Collection<UInt8>, quoting: Bool, limit: Int) -> String {
        var output = ""
        var pending = Array(bytes)[...]
        var shown = 0
        while let first = pending.first {
            guard shown < limit else {
                output += "…"
                break
            }
            shown += 1
            var decoder = UTF8()
            var iterator = pending.makeIterator()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else {
                output += "\\x" + hex(UInt32(first), digits: 2)
                pending = pending.dropFirst()
                continue
            }
            pending = pending.dropFirst(UTF8.width(scalar))
            switch scalar.value {
            case 0..<0x20, 0x7F:
                output += "\\x" + hex(scalar.value, digits: 2)
            case _ where isInvisibleOrMoving(scalar):
                output += "\\u{" + hex(scalar.value, digits: 4) + "}"
            case 0x22 where quoting:
                output += "\\\""
            case 0x5C where quoting:
                output += "\\\\"
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// Whether a terminal would show `scalar` as nothing or let it change what surrounds it: a C0 or C1
    /// control, DEL, a format character (Cf), a line or paragraph separator (Zl, Zp).
    package static func isInvisibleOrMoving(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
