import GoshuinFormat

extension KnownAnswerVector {
    private static let requiredKeys: Set<String> = [
        "format", "version", "name", "comment", "expect", "iterations", "salt", "nonceBase", "chunkSize", "key",
        "plaintextLength", "plaintextSha256", "file", "fileSha256",
    ]
    private static let optionalKeys: Set<String> = [
        "chunkIndex", "passphrase", "passphraseHex", "plaintextHex", "plaintextFile", "releasedLength",
        "releasedSha256",
    ]

    /// Parses a vector file strictly (`Spec/vectors-v1.md` §2): exactly the allowed keys, each with its
    /// type, range and hex length; `expectedName` is the JSON file's name without `.json`.
    ///
    /// - Throws: `malformed_vector` naming the first problem.
    package static func parse(_ bytes: [UInt8], expectedName: String) throws -> KnownAnswerVector {
        guard let vector = try parseIfVector(bytes, expectedName: expectedName) else {
            throw GoshuinError.malformedVector("not a vector: the document is not an object with a \"format\" member")
        }
        return vector
    }

    /// Like ``parse(_:expectedName:)``, but `nil` for JSON that is not a vector at all: a document that is
    /// not an object, or an object without a `format` member (a `package.json` beside the vectors).
    package static func parseIfVector(_ bytes: [UInt8], expectedName: String) throws -> KnownAnswerVector? {
        let document: JSONValue
        do {
            document = try StrictJSONParser.parse(bytes)
        } catch {
            throw GoshuinError.malformedVector("not valid JSON: \(error)")
        }
        guard case .object(let memberList) = document, memberList.contains(where: { $0.key == "format" }) else {
            return nil
        }
        var members: [String: JSONValue] = [:]
        for member in memberList { members[member.key] = member.value }
        if let unknown = members.keys.sorted().first(where: { !requiredKeys.contains($0) && !optionalKeys.contains($0) }
        ) {
            throw GoshuinError.malformedVector("unknown key \(DisplayText.quoted(unknown))")
        }
        if let missing = requiredKeys.sorted().first(where: { members[$0] == nil }) {
            throw GoshuinError.malformedVector("missing key \"\(missing)\"")
        }
        let fields = FieldReader(members: members)
        guard try fields.string("format") == formatName else {
            throw GoshuinError.malformedVector("format is not \(formatName)")
        }
        guard try fields.integer("version", in: 1...1) == formatVersion else {
            throw GoshuinError.malformedVector("unknown version")
        }
        let name = try fields.string("name")
        guard isValidName(name) else {
            throw GoshuinError.malformedVector(
                "name \(DisplayText.quoted(name)) is not a vector name: [a-z0-9][a-z0-9._-]{0,99}")
        }
        guard name == expectedName else {
            throw GoshuinError.malformedVector(
                "name \(DisplayText.quoted(name)) is not the file's name without .json,"
                    + " \(DisplayText.quoted(expectedName))")
        }
        let expect = try parseExpectation(try fields.string("expect"))
        let chunkIndex = try fields.optionalInteger("chunkIndex", in: 0...Int64(UInt32.max)).map { UInt64($0) }
        let namesAChunk = expect == .failure(.chunkDamaged) || expect == .failure(.chunkLengthInvalid)
        if chunkIndex != nil, !namesAChunk {
            throw GoshuinError.malformedVector("chunkIndex goes only with chunk_damaged or chunk_length_invalid")
        }
        if chunkIndex == nil, namesAChunk {
            throw GoshuinError.malformedVector(
                "a \(try fields.string("expect")) vector needs chunkIndex, the chunk at fault")
        }
        let (passphraseBytes, passphraseAsHex) = try parsePassphrase(fields)
        let plaintext = try parsePlaintext(fields)
        let plaintextLength = UInt64(try fields.integer("plaintextLength", in: 0...(1 << 53) - 1))
        if case .bytes(let bytes) = plaintext, UInt64(bytes.count) != plaintextLength {
            throw GoshuinError.malformedVector(
                "plaintextHex has \(bytes.count) bytes but plaintextLength says \(plaintextLength)")
        }
        let file = try fields.string("file")
        guard isValidFileName(file) else {
            throw GoshuinError.malformedVector("file \(DisplayText.quoted(file)) is not a plain file name")
        }
        let released = try parseReleased(fields, expect: expect)
        return KnownAnswerVector(
            name: name, comment: try fields.string("comment"), expect: expect, chunkIndex: chunkIndex,
            passphraseBytes: passphraseBytes, passphraseAsHex: passphraseAsHex,
            iterations: UInt32(
                try fields.integer(
                    "iterations", in: Int64(Header.iterationRange.lowerBound)...Int64(Header.iterationRange.upperBound))
            ),
            salt: try fields.hex("salt", count: Header.saltLength),
            nonceBase: try fields.hex("nonceBase", count: Header.nonceBaseLength),
            chunkSize: UInt32(
                try fields.integer(
                    "chunkSize", in: Int64(Header.chunkSizeRange.lowerBound)...Int64(Header.chunkSizeRange.upperBound))),
            key: try fields.hex("key", count: AES256GCM.keyLength), plaintext: plaintext,
            plaintextLength: plaintextLength, plaintextSha256: try fields.hex("plaintextSha256", count: 32),
            file: file, fileSha256: try fields.hex("fileSha256", count: 32), releasedLength: released?.length,
            releasedSha256: released?.sha256)
    }

    private static func parseExpectation(_ text: String) throws -> Expectation {
        if text == "success" { return .success }
        guard let code = GoshuinError.Code(rawValue: text), code.isContainerReadingCode else {
            throw GoshuinError.malformedVector(
                "expect \(DisplayText.quoted(text)) is neither success nor a reading error code of container-v1.md §7")
        }
        return .failure(code)
    }

    private static func parsePassphrase(_ fields: FieldReader) throws -> ([UInt8], Bool) {
        switch (fields.has("passphrase"), fields.has("passphraseHex")) {
        case (true, false): return (Array(try fields.string("passphrase").utf8), false)
        case (false, true):
            guard let bytes = Hex.decode(try fields.string("passphraseHex")) else {
                throw GoshuinError.malformedVector("passphraseHex is not lower-case hex")
            }
            return (bytes, true)
        default: throw GoshuinError.malformedVector("exactly one of passphrase and passphraseHex is required")
        }
    }

    private static func parsePlaintext(_ fields: FieldReader) throws -> PlaintextSource {
        switch (fields.has("plaintextHex"), fields.has("plaintextFile")) {
        case (true, false):
            guard let bytes = Hex.decode(try fields.string("plaintextHex")), bytes.count <= maximumInlinePlaintext
            else {
                throw GoshuinError.malformedVector(
                    "plaintextHex is not lower-case hex of at most \(maximumInlinePlaintext) bytes")
            }
            return .bytes(bytes)
        case (false, true):
            let name = try fields.string("plaintextFile")
            guard isValidFileName(name) else {
                throw GoshuinError.malformedVector("plaintextFile \(DisplayText.quoted(name)) is not a plain file name")
            }
            return .file(name)
        default: throw GoshuinError.malformedVector("exactly one of plaintextHex and plaintextFile is required")
        }
    }

    private static func parseReleased(_ fields: FieldReader, expect: Expectation) throws -> (
        length: UInt64, sha256: [UInt8]
    )? {
        let hasLength = fields.has("releasedLength")
        let hasHash = fields.has("releasedSha256")
        if expect == .success {
            guard !hasLength, !hasHash else {
                throw GoshuinError.malformedVector("a success vector has no released plaintext")
            }
            return nil
        }
        guard hasLength, hasHash else {
            throw GoshuinError.malformedVector("a failure vector needs releasedLength and releasedSha256")
        }
        return (
            UInt64(try fields.integer("releasedLength", in: 0...(1 << 53) - 1)),
            try fields.hex("releasedSha256", count: 32)
        )
    }
}

extension GoshuinError.Code {
    /// Whether a reader of `.goshuin` files can fail with this code (`Spec/container-v1.md` §7).
    package var isContainerReadingCode: Bool {
        switch self {
        case .shortHeader, .badMagic, .unsupportedVersion, .iterationsOutOfRange, .chunkSizeOutOfRange,
            .emptyPayload, .tooManyChunks, .truncated, .trailingData, .chunkLengthInvalid, .authFailed,
            .chunkDamaged:
            return true
        default: return false
        }
    }
}

/// Typed access to a vector's members, throwing `malformed_vector` on a wrong type.
private struct FieldReader {
    let members: [String: JSONValue]

    func has(_ key: String) -> Bool { members[key] != nil }

    func string(_ key: String) throws -> String {
        guard case .string(let value) = members[key] else {
            throw GoshuinError.malformedVector("\(key) is not a string")
        }
        return value
    }

    func integer(_ key: String, in range: ClosedRange<Int64>) throws -> Int64 {
        guard let value = members[key]?.integerValue, range.contains(value) else {
            throw GoshuinError.malformedVector("\(key) is not an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws -> Int64? {
        has(key) ? try integer(key, in: range) : nil
    }

    func hex(_ key: String, count: Int) throws -> [UInt8] {
        guard let bytes = Hex.decode(try string(key)), bytes.count == count else {
            throw GoshuinError.malformedVector("\(key) is not \(count) bytes of lower-case hex")
        }
        return bytes
    }
}
