/// A JSON value as the strict parser reads it: objects keep their keys in order and never hold a key
/// twice; numbers keep their text.
package enum JSONValue: Equatable, Sendable {
    /// An object, its members in document order.
    case object([(key: String, value: JSONValue)])
    /// An array.
    case array([JSONValue])
    /// A string.
    case string(String)
    /// A number, as written.
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// Compares structurally, members in order.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let left), .object(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let left), .array(let right)): return left == right
        case (.string(let left), .string(let right)): return left == right
        case (.number(let left), .number(let right)): return left == right
        case (.bool(let left), .bool(let right)): return left == right
        case (.null, .null): return true
        default: return false
        }
    }

    /// An integer number value.
    package static func integer<Value: BinaryInteger>(_ value: Value) -> JSONValue { .number(String(value)) }

    /// The integer this number holds, when it is written as a plain integer (no fraction, no exponent, no
    /// leading zero) within ±(2^53 − 1).
    package var integerValue: Int64? {
        guard case .number(let text) = self else { return nil }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            digits == "0" || !digits.hasPrefix("0"), let value = Int64(text),
            value.magnitude <= (1 << 53) - 1
        else { return nil }
        return value
    }

    /// The compact JSON text, members in their order.
    package func serialized() -> String {
        var output = ""
        write(to: &output, indent: nil, level: 0)
        return output
    }

    /// Human-readable JSON text, two spaces an indentation level, members in their order.
    package func prettySerialized() -> String {
        var output = ""
        write(to: &output, indent: "  ", level: 0)
        return output + "\n"
    }

    private func write(to output: inout String, indent: String?, level: Int) {
        let newline = indent == nil ? "" : "\n"
        let pad = { (level: Int) in indent.map { String(repeating: $0, count: level) } ?? "" }
        switch self {
        case .object(let members):
            guard !members.isEmpty else { return output += "{}" }
            output += "{" + newline
            for (position, member) in members.enumerated() {
                output += pad(level + 1) + Self.quoted(member.key) + (indent == nil ? ":" : ": ")
                member.value.write(to: &output, indent: indent, level: level + 1)
                output += (position < members.count - 1 ? "," : "") + newline
            }
            output += pad(level) + "}"
        case .array(let elements):
            guard !elements.isEmpty else { return output += "[]" }
            output += "[" + newline
            for (position, element) in elements.enumerated() {
                output += pad(level + 1)
                element.write(to: &output, indent: indent, level: level + 1)
                output += (position < elements.count - 1 ? "," : "") + newline
            }
            output += pad(level) + "]"
        case .string(let text): output += Self.quoted(text)
        case .number(let text): output += text
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        }
    }

    /// A scalar beyond the Basic Multilingual Plane as its two `\\uXXXX` surrogate escapes.
    private static func surrogates(_ scalar: Unicode.Scalar) -> String {
        let value = scalar.value - 0x10000
        return [0xD800 + (value >> 10), 0xDC00 + (value & 0x3FF)].map { "\\u" + String($0, radix: 16) }.joined()
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            // RFC 8259 requires escaping below 0x20; DEL, the C1 controls, the format characters and the line
            // separators are escaped too, so that the output is safe on a terminal (DisplayText's rule).
            case _ where DisplayText.isInvisibleOrMoving(scalar):
                let hex = String(scalar.value, radix: 16)
                output +=
                    scalar.value > 0xFFFF
                    ? Self.surrogates(scalar) : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
