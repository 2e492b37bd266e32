/// A strict JSON parser (RFC 8259) for untrusted input: rejects duplicate keys, invalid UTF-8, unescaped
/// control characters, trailing content and nesting deeper than a limit.
package struct StrictJSONParser {
    /// The deepest nesting accepted.
    package static let maximumDepth = 32

    private let bytes: [UInt8]
    private var position = 0
    /// For a caller reading value by value: whether the container just opened has had no member yet.
    private var atFirstMember = false

    /// Parses one JSON document; throws a description of the first problem.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = StrictJSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected content after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: - Reading a document of a known shape, value by value

    /// A reader of one document that its caller walks value by value, for a document of a known shape
    /// (`manifest.json`): the caller refuses a wrong shape at the first value that has it, so a hostile
    /// document never becomes a tree of millions of values. Syntax and UTF-8 are checked as strictly as by
    /// ``parse(_:)``; duplicate keys are the caller's to refuse (it knows its keys).
    package static func reader(_ bytes: [UInt8]) -> StrictJSONParser {
        var reader = StrictJSONParser(bytes: bytes)
        reader.skipWhitespace()
        return reader
    }

    /// The kind of the next value, without reading it; `nil` at the end or before a byte no value starts
    /// with.
    package var nextValueKind: JSONValueKind? {
        switch current {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case .some(let byte) where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39): return .number
        default: return nil
        }
    }

    /// Reads a whole value that is not an object or an array (checked with ``nextValueKind`` first).
    package mutating func readScalar() throws(JSONSyntaxError) -> JSONValue {
        guard nextValueKind != .object, nextValueKind != .array else {
            throw error("expected a string, number or literal")
        }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        return value
    }

    /// Reads the `{` of an object.
    package mutating func beginObject() throws(JSONSyntaxError) {
        try expect("{")
        skipWhitespace()
        atFirstMember = true
    }

    /// The next key of the object being read, its `:` read; `nil` once its `}` is read.
    package mutating func nextKey() throws(JSONSyntaxError) -> String? {
        guard try nextMember(closing: "}") else { return nil }
        guard current == UInt8(ascii: "\"") else { throw error("expected a key") }
        let key = try parseString()
        skipWhitespace()
        try expect(":")
        skipWhitespace()
        return key
    }

    /// Reads the `[` of an array.
    package mutating func beginArray() throws(JSONSyntaxError) {
        try expect("[")
        skipWhitespace()
        atFirstMember = true
    }

    /// Whether the array being read has another element (its `,` read); false once its `]` is read.
    package mutating func nextElement() throws(JSONSyntaxError) -> Bool { try nextMember(closing: "]") }

    /// Reads the `,` before a member, or the `closing` bracket (false); the first member has no `,`. One
    /// flag serves every level: a container is opened only as a member of its parent, after which the
    /// parent is past its first member.
    private mutating func nextMember(closing: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        defer { atFirstMember = false }
        if current == UInt8(closing.value) {
            position += 1
            skipWhitespace()
            return false
        }
        if !atFirstMember {
            try expect(",")
            skipWhitespace()
        }
        return true
    }

    /// Checks that nothing but whitespace follows the document.
    package func finish() throws(JSONSyntaxError) {
        guard position == bytes.count else { throw error("unexpected content after the value") }
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: position)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ literal: String) throws(JSONSyntaxError) {
        for byte in literal.utf8 {
            guard current == byte else { throw error("expected \(literal)") }
            position += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        switch current {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case .some(let byte) where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39):
            return try parseNumber()
        default: throw error("expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        var seen = Set<String>()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try parseString()
            guard seen.insert(key).inserted else { throw error("duplicate key \(DisplayText.quoted(key))") }
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            members.append((key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect("}")
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect("]")
            return .array(elements)
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, first >= 0x30, first <= 0x39 else { throw error("bad number") }
        if first == 0x30 {
            position += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard try skipRequiredDigits() else { throw error("bad number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard try skipRequiredDigits() else { throw error("bad number") }
        }
        return .number(String(decoding: bytes[start..<position], as: UTF8.self))
    }

    private mutating func skipDigits() {
        while let byte = current, byte >= 0x30, byte <= 0x39 { position += 1 }
    }

    private mutating func skipRequiredDigits() throws(JSONSyntaxError) -> Bool {
        let start = position
        skipDigits()
        return position > start
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ end: Int) throws(JSONSyntaxError) {
            guard runStart < end else { return }
            guard let text = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw JSONSyntaxError(reason: "invalid UTF-8 in a string", offset: runStart)
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try flushRun(position)
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flushRun(position)
                position += 1
                scalars.append(try parseEscape())
                runStart = position
            case 0..<0x20:
                throw error("control character in a string")
            default:
                position += 1
            }
        }
    }

    private mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHexQuad()
            if (0xD800..<0xDC00).contains(first) {
                guard current == UInt8(ascii: "\\") else { throw error("lone surrogate") }
                position += 1
                guard current == UInt8(ascii: "u") else { throw error("lone surrogate") }
                position += 1
                let second = try parseHexQuad()
                guard (0xDC00..<0xE000).contains(second) else { throw error("lone surrogate") }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw error("bad escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("lone surrogate") }
            return scalar
        default: throw error("bad escape")
        }
    }

    private mutating func parseHexQuad() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("bad \\u escape") }
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("bad \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}

/// What kind of value comes next in a document read value by value.
package enum JSONValueKind: Sendable {
    case object, array, string, number, bool, null
}

/// Why a JSON text was refused, and where.
package struct JSONSyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What is wrong.
    package let reason: String
    /// The byte offset where it was noticed.
    package let offset: Int

    /// `reason at byte offset`.
    package var description: String { "\(reason) at byte \(offset)" }
}
