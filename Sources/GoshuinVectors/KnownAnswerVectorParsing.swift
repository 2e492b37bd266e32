import GoshuinFormat

extension KnownAnswerVector {
    private static let requiredKeys: [String] = [
        "format", "version", "name", "comment", "expect", "iterations", "salt", "chunkSize", "key",
        "plaintextLength", "plaintextSha256", "file", "fileSha256",
    ]
    /// The keys each container version requires (§2, §5.1).
    private static let versionKeys: [FormatVersion: [String]] = [
        .v1: ["nonceBase"], .v2: ["payloadSalt", "headerKey", "payloadKey"],
    ]
    private static let optionalKeys: Set<String> = [
        "containerVersion", "chunkIndex", "passphrase", "passphraseHex", "plaintextHex", "plaintextFile",
        "releasedLength", "releasedSha256", "fileSize",
    ]

    /// Parses a vector file strictly (`Spec/vectors-v1.md` §2): exactly the allowed keys, each with its
    /// type, range and hex length; `expectedName` is the JSON file's name without `.json`.
    ///
    /// - Throws: ``MalformedVector`` listing every problem found, not only the first.
    package static func parse(_ bytes: [UInt8], expectedName: String) throws -> KnownAnswerVector {
        guard let vector = try parseIfVector(bytes, expectedName: expectedName) else {
            throw MalformedVector([
                VectorProblem(
                    check: "the document", expected: "an object with a \"format\" member", computed: "none")
            ])
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
            let looksSealed = bytes.starts(with: Header.magic)
            throw MalformedVector([
                VectorProblem(
                    check: "the document", expected: "JSON (RFC 8259, UTF-8, no duplicate key)",
                    computed: looksSealed ? "a .goshuin file (it starts with GSHN), not a vector's JSON" : "\(error)")
            ])
        }
        guard case .object(let memberList) = document, memberList.contains(where: { $0.key == "format" }) else {
            return nil
        }
        var fields = FieldReader(members: Dictionary(memberList.map { ($0.key, $0.value) }) { first, _ in first })
        let containerVersion =
            fields.has("containerVersion")
            ? fields.integer("containerVersion", in: 1...2).flatMap { FormatVersion(rawValue: UInt8($0)) } : .v1
        let allVersionKeys = Set(versionKeys.values.joined())
        for unknown in fields.members.keys.sorted()
        where !requiredKeys.contains(unknown) && !optionalKeys.contains(unknown) && !allVersionKeys.contains(unknown) {
            fields.report(unknown, expected: "no such key (Spec/vectors-v1.md §2)", found: "present")
        }
        for missing in requiredKeys where !fields.has(missing) {
            fields.report(missing, expected: "present (required)", found: "missing")
        }
        if let containerVersion {
            let own = versionKeys[containerVersion] ?? []
            for key in own where !fields.has(key) {
                fields.report(
                    key, expected: "present (required in container version \(containerVersion.rawValue))",
                    found: "missing")
            }
            for key in allVersionKeys.subtracting(own).sorted() where fields.has(key) {
                fields.report(
                    key, expected: "absent (forbidden in container version \(containerVersion.rawValue))",
                    found: "present")
            }
            if containerVersion == .v1, fields.has("fileSize") {
                fields.report(
                    "fileSize", expected: "absent (container version 2 failure vectors only)", found: "present")
            }
        }
        if let format = fields.string("format"), format != formatName {
            fields.report("format", expected: DisplayText.quoted(formatName), found: DisplayText.quoted(format))
        }
        _ = fields.integer("version", in: formatVersion...formatVersion)
        let name = fields.string("name")
        if let name {
            if !isValidName(name) {
                fields.report(
                    "name", expected: "a vector name: [a-z0-9][a-z0-9._-]{0,99} without \"..\"",
                    found: DisplayText.quoted(name))
            } else if name != expectedName {
                fields.report(
                    "name", expected: "the file's name without .json, \(DisplayText.quoted(expectedName))",
                    found: DisplayText.quoted(name))
            }
        }
        let expectText = fields.string("expect")
        let expect = expectText.flatMap { text in
            parseExpectation(text, version: containerVersion ?? .v1, fields: &fields)
        }
        let chunkIndex = fields.has("chunkIndex") ? fields.integer("chunkIndex", in: 0...Int64(UInt32.max)) : nil
        if let expect {
            let namesAChunk = expect == .failure(.chunkDamaged) || expect == .failure(.chunkLengthInvalid)
            if fields.has("chunkIndex"), !namesAChunk {
                fields.report(
                    "chunkIndex", expected: "only with chunk_damaged or chunk_length_invalid", found: "present")
            }
            if !fields.has("chunkIndex"), namesAChunk {
                fields.report(
                    "chunkIndex",
                    expected:
                        "with \(expectText ?? ""): the chunk at fault (a \(expectText ?? "") vector needs chunkIndex)",
                    found: "missing")
            }
        }
        let passphrase = parsePassphrase(&fields)
        let plaintext = parsePlaintext(&fields)
        let plaintextLength = fields.integer("plaintextLength", in: 0...(1 << 53) - 1).map { UInt64($0) }
        if plaintextLength == 0, containerVersion != .v2 {
            fields.report(
                "plaintextLength", expected: "at least 1 (only container version 2 seals an empty payload)",
                found: "0")
        }
        if case .bytes(let bytes) = plaintext, let plaintextLength, UInt64(bytes.count) != plaintextLength {
            fields.report(
                "plaintextHex", expected: "\(plaintextLength) bytes, as plaintextLength says",
                found: "\(bytes.count) bytes")
        }
        let file = fields.string("file")
        if let file, !isValidFileName(file) {
            fields.report("file", expected: Self.fileNameRule, found: DisplayText.quoted(file))
        }
        let released = expect.flatMap { parseReleased(&fields, expect: $0) }
        let iterations = fields.integer(
            "iterations", in: Int64(Header.iterationRange.lowerBound)...Int64(Header.iterationRange.upperBound))
        let salt = fields.hex("salt", count: Header.saltLength)
        let nonceBase = fields.has("nonceBase") ? fields.hex("nonceBase", count: Header.nonceBaseLength) : []
        let payloadSalt = fields.has("payloadSalt") ? fields.hex("payloadSalt", count: Header.saltLength) : []
        let headerKey = fields.has("headerKey") ? fields.hex("headerKey", count: AES256GCM.keyLength) : []
        let payloadKey = fields.has("payloadKey") ? fields.hex("payloadKey", count: AES256GCM.keyLength) : []
        let fileSize = fields.has("fileSize") ? fields.integer("fileSize", in: 1...(1 << 53) - 1) : nil
        if fields.has("fileSize"), expect == .success {
            fields.report("fileSize", expected: "absent: a success vector re-seals to its file", found: "present")
        }
        let chunkSize = fields.integer(
            "chunkSize", in: Int64(Header.chunkSizeRange.lowerBound)...Int64(Header.chunkSizeRange.upperBound))
        let key = fields.hex("key", count: AES256GCM.keyLength)
        let plaintextSha256 = fields.hex("plaintextSha256", count: 32)
        let fileSha256 = fields.hex("fileSha256", count: 32)
        let comment = fields.string("comment")
        guard fields.problems.isEmpty, let containerVersion, let name, let comment, let expect, let passphrase,
            let plaintext, let plaintextLength, let file, let iterations, let salt, let nonceBase, let payloadSalt,
            let headerKey, let payloadKey, let chunkSize, let key, let plaintextSha256, let fileSha256
        else { throw MalformedVector(fields.problems) }
        var vector = KnownAnswerVector(
            name: name, comment: comment, expect: expect, chunkIndex: chunkIndex.map { UInt64($0) },
            passphraseBytes: passphrase.bytes, passphraseAsHex: passphrase.asHex, iterations: UInt32(iterations),
            salt: salt, nonceBase: nonceBase, chunkSize: UInt32(chunkSize), key: key, plaintext: plaintext,
            plaintextLength: plaintextLength, plaintextSha256: plaintextSha256, file: file, fileSha256: fileSha256,
            releasedLength: released?.length, releasedSha256: released?.sha256)
        vector.containerVersion = containerVersion
        vector.payloadSalt = payloadSalt
        vector.headerKey = headerKey
        vector.payloadKey = payloadKey
        vector.fileSize = fileSize.map { UInt64($0) }
        return vector
    }

    private static let fileNameRule =
        "a plain file name in the same folder: [a-z0-9][a-z0-9._-]{0,\(maximumFileNameLength - 1)} without \"..\""

    private static func parseExpectation(_ text: String, version: FormatVersion, fields: inout FieldReader)
        -> Expectation?
    {
        if text == "success" { return .success }
        guard let code = GoshuinError.Code.containerReadingCodes.first(where: { $0.rawValue == text }) else {
            fields.report(
                "expect", expected: "success or a reading error code of container-v1.md §7",
                found: DisplayText.quoted(text))
            return nil
        }
        if version == .v2, !code.isContainerV2ReadingCode {
            fields.report(
                "expect", expected: "success or one of the nine reading codes of container-v2.md §12",
                found: DisplayText.quoted(text))
            return nil
        }
        return .failure(code)
    }

    private static func parsePassphrase(_ fields: inout FieldReader) -> (bytes: [UInt8], asHex: Bool)? {
        switch (fields.has("passphrase"), fields.has("passphraseHex")) {
        case (true, false): return fields.string("passphrase").map { (Array($0.utf8), false) }
        case (false, true):
            guard let text = fields.string("passphraseHex") else { return nil }
            guard let bytes = Hex.decode(text) else {
                fields.report("passphraseHex", expected: "lower-case hex", found: DisplayText.quoted(text))
                return nil
            }
            return (bytes, true)
        default:
            fields.report(
                "passphrase", expected: "exactly one of passphrase and passphraseHex",
                found: fields.has("passphrase") ? "both" : "neither")
            return nil
        }
    }

    private static func parsePlaintext(_ fields: inout FieldReader) -> PlaintextSource? {
        switch (fields.has("plaintextHex"), fields.has("plaintextFile")) {
        case (true, false):
            guard let text = fields.string("plaintextHex") else { return nil }
            guard let bytes = Hex.decode(text), bytes.count <= maximumInlinePlaintext else {
                fields.report(
                    "plaintextHex",
                    expected:
                        "lower-case hex of at most \(maximumInlinePlaintext) plaintext bytes"
                        + " (\(2 * maximumInlinePlaintext) hex digits); a longer plaintext goes in plaintextFile",
                    found: Hex.decode(text).map { "\($0.count) bytes" } ?? "\(text.utf8.count) characters, not hex")
                return nil
            }
            return .bytes(bytes)
        case (false, true):
            guard let name = fields.string("plaintextFile") else { return nil }
            guard isValidFileName(name) else {
                fields.report("plaintextFile", expected: Self.fileNameRule, found: DisplayText.quoted(name))
                return nil
            }
            return .file(name)
        default:
            fields.report(
                "plaintextHex", expected: "exactly one of plaintextHex and plaintextFile",
                found: fields.has("plaintextHex") ? "both" : "neither")
            return nil
        }
    }

    private static func parseReleased(_ fields: inout FieldReader, expect: Expectation) -> (
        length: UInt64, sha256: [UInt8]
    )? {
        let hasLength = fields.has("releasedLength")
        let hasHash = fields.has("releasedSha256")
        if expect == .success {
            if hasLength || hasHash {
                fields.report(
                    hasLength ? "releasedLength" : "releasedSha256",
                    expected: "absent: a success vector has no released plaintext", found: "present")
            }
            return nil
        }
        for (key, present) in [("releasedLength", hasLength), ("releasedSha256", hasHash)] where !present {
            fields.report(
                key, expected: "present: a failure vector says what an in-order reader released", found: "missing")
        }
        guard hasLength, hasHash else { return nil }
        let length = fields.integer("releasedLength", in: 0...(1 << 53) - 1)
        let sha256 = fields.hex("releasedSha256", count: 32)
        guard let length, let sha256 else { return nil }
        return (UInt64(length), sha256)
    }
}

/// A vector file that does not follow `Spec/vectors-v1.md` §2: every problem found in it.
package struct MalformedVector: Error {
    /// Each problem: the key, what the format asks, what the file holds.
    package let problems: [VectorProblem]

    init(_ problems: [VectorProblem]) { self.problems = problems }
}

extension GoshuinError.Code {
    /// Whether a reader can fail with this code on a version 2 seal (`Spec/container-v2.md` §12).
    package var isContainerV2ReadingCode: Bool {
        isContainerReadingCode && ![.emptyPayload, .trailingData, .chunkLengthInvalid].contains(self)
    }
}

/// Typed access to a vector's members, recording a problem for each member of the wrong type or range.
private struct FieldReader {
    let members: [String: JSONValue]
    private(set) var problems: [VectorProblem] = []

    init(members: [String: JSONValue]) { self.members = members }

    func has(_ key: String) -> Bool { members[key] != nil }

    /// Records that `key` breaks its rule, once per key.
    mutating func report(_ key: String, expected: String, found: String) {
        let check = "key \(DisplayText.quoted(key))"
        guard !problems.contains(where: { $0.check == check }) else { return }
        problems.append(VectorProblem(check: check, expected: expected, computed: found))
    }

    /// The member as the file holds it, for a problem: cut to a line.
    private func shown(_ key: String) -> String {
        guard let value = members[key] else { return "missing" }
        let text = value.serialized()
        return DisplayText.escaped(text.count > 80 ? String(text.prefix(80)) + "…" : text)
    }

    mutating func string(_ key: String) -> String? {
        guard has(key) else { return nil }
        guard case .string(let value) = members[key] else {
            report(key, expected: "a string", found: shown(key))
            return nil
        }
        return value
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int64>) -> Int64? {
        guard has(key) else { return nil }
        guard let value = members[key]?.integerValue, range.contains(value) else {
            report(
                key, expected: "an integer from \(range.lowerBound) to \(range.upperBound), digits only",
                found: shown(key))
            return nil
        }
        return value
    }

    mutating func hex(_ key: String, count: Int) -> [UInt8]? {
        guard let text = string(key) else { return nil }
        guard let bytes = Hex.decode(text), bytes.count == count else {
            report(key, expected: "\(count) bytes of lower-case hex (\(2 * count) digits)", found: shown(key))
            return nil
        }
        return bytes
    }
}
