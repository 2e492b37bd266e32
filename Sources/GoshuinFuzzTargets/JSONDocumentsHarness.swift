import GoshuinFormat
import GoshuinVectors

extension FuzzHarness {
    /// `StrictJSONParser.parse` and `KnownAnswerVector.parse` on the same bytes. Accepted JSON is valid UTF-8
    /// with no duplicate key and bounded nesting, and its compact and pretty serializations parse back to a value
    /// that serializes to the same bytes. A parsed vector was accepted JSON, has the fields and ranges of
    /// `Spec/vectors-v1.md` §2 (and §5 for container version 2), and its own JSON parses back to the same vector;
    /// a refused one is `malformed_vector`.
    @_spi(Fuzzing) public static let jsonDocuments = FuzzHarness(name: "json-documents") { input in
        JSONDocumentsHarness.check(input)
    }
}

/// The checks of ``FuzzHarness/jsonDocuments``.
enum JSONDocumentsHarness {
    /// The messages' prefix.
    static let invariants = InvariantCheck(harness: "json-documents")
    /// The vector name checked against the `name` member when the document has none.
    static let fallbackVectorName = "fuzz-vector"

    /// Parses the input as JSON and as a vector, and checks both.
    static func check(_ input: [UInt8]) {
        let document: JSONValue?
        do {
            document = try StrictJSONParser.parse(input)
        } catch {
            invariants.require(
                (0...input.count).contains(error.offset), "error offset \(error.offset) is outside the input")
            document = nil
        }
        if let document { checkAccepted(document, input: input) }
        checkVectorParsing(input, document: document)
    }

    static func checkAccepted(_ document: JSONValue, input: [UInt8]) {
        invariants.require(String(validating: input, as: UTF8.self) != nil, "accepted a text that is not UTF-8")
        invariants.require(deepestNesting(of: document) <= StrictJSONParser.maximumDepth, "accepted nesting too deep")
        invariants.require(!hasDuplicateKeys(document), "accepted an object with a key twice")
        // Bytes, not `==`: Swift compares strings by canonical equivalence, a serialization must keep every scalar.
        let compact = Array(document.serialized().utf8)
        let reparsed = parseSerialization(compact, of: "compact")
        invariants.require(reparsed == document, "the compact serialization parses to another value")
        invariants.require(Array(reparsed.serialized().utf8) == compact, "serialize ∘ parse ∘ serialize changes bytes")
        let pretty = parseSerialization(Array(document.prettySerialized().utf8), of: "pretty")
        invariants.require(
            Array(pretty.serialized().utf8) == compact, "the pretty serialization parses to another value")
    }

    static func parseSerialization(_ text: [UInt8], of style: String) -> JSONValue {
        do {
            return try StrictJSONParser.parse(text)
        } catch {
            invariants.fail("the \(style) serialization of accepted JSON is refused: \(error)")
        }
    }

    static func checkVectorParsing(_ input: [UInt8], document: JSONValue?) {
        let name = vectorName(in: document)
        let vector: KnownAnswerVector
        do {
            vector = try KnownAnswerVector.parse(input, expectedName: name)
        } catch let error as MalformedVector {
            invariants.require(!error.problems.isEmpty, "a refused vector names no problem")
            return
        } catch {
            invariants.fail("vector parsing threw \(error), not the malformed vector's problems")
        }
        invariants.require(document != nil, "a vector was parsed from text the JSON parser refuses")
        invariants.require(vector.name == name, "the vector is named \(vector.name), not \(name)")
        checkFields(of: vector)
        let text = Array(vector.jsonValue().serialized().utf8)
        do {
            let again = try KnownAnswerVector.parse(text, expectedName: vector.name)
            invariants.require(
                Array(again.jsonValue().serialized().utf8) == text, "a vector's own JSON parses to another vector")
        } catch {
            invariants.fail("a parsed vector's own JSON is refused: \(error)")
        }
    }

    /// The reading codes a version 2 vector may expect (`Spec/vectors-v1.md` §5.2, `Spec/container-v2.md` §12).
    static let versionTwoReadingCodes: Set<String> = [
        "short_header", "bad_magic", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range",
        "too_many_chunks", "truncated", "auth_failed", "chunk_damaged",
    ]

    /// The ranges and lengths of `Spec/vectors-v1.md` §2, and for `containerVersion: 2` those of §5.1–§5.2,
    /// restated.
    static func checkFields(of vector: KnownAnswerVector) {
        invariants.require((1_000...2_000_000).contains(vector.iterations), "iterations out of range")
        invariants.require((1_024...67_108_864).contains(vector.chunkSize), "chunkSize out of range")
        invariants.require(vector.salt.count == 16, "salt length")
        invariants.require(
            vector.key.count == 32 && vector.plaintextSha256.count == 32 && vector.fileSha256.count == 32,
            "key or hash length")
        invariants.require(vector.plaintextLength < 1 << 53, "plaintextLength above 2^53 − 1")
        if case .bytes(let bytes) = vector.plaintext {
            invariants.require(
                bytes.count == vector.plaintextLength && bytes.count <= 4_096, "inline plaintext length")
        }
        let codes: Set<String>
        let chunkCodes: Set<String>
        switch vector.containerVersion {
        case .v1:
            invariants.require(vector.nonceBase.count == 8, "a version 1 vector's nonce base length")
            invariants.require(
                vector.payloadSalt.isEmpty && vector.headerKey.isEmpty && vector.payloadKey.isEmpty
                    && vector.fileSize == nil,
                "a version 1 vector with a key of version 2 (§5.1: forbidden)")
            invariants.require(vector.plaintextLength >= 1, "a version 1 vector of an empty payload")
            codes = ContainerReaderRestatement.readingErrorCodes
            chunkCodes = ["chunk_damaged", "chunk_length_invalid"]
        case .v2:
            invariants.require(vector.nonceBase.isEmpty, "a version 2 vector with a nonce base (§5.1: forbidden)")
            invariants.require(
                vector.payloadSalt.count == 16 && vector.headerKey.count == 32 && vector.payloadKey.count == 32,
                "a version 2 vector's payload salt or derived key lengths")
            invariants.require(
                vector.fileSize.map { $0 < 1 << 53 && vector.expect != .success } ?? true,
                "a version 2 vector's fileSize on a success vector or above 2^53 − 1 (§5.4)")
            codes = versionTwoReadingCodes
            chunkCodes = ["chunk_damaged"]
        }
        switch vector.expect {
        case .success:
            invariants.require(vector.releasedLength == nil && vector.releasedSha256 == nil, "success with released")
            invariants.require(vector.chunkIndex == nil, "success with chunkIndex")
        case .failure(let code):
            invariants.require(codes.contains(code.rawValue), "expect \(code.rawValue)")
            invariants.require(
                vector.releasedLength != nil && vector.releasedSha256?.count == 32, "failure without released")
            invariants.require(
                (vector.chunkIndex != nil) == chunkCodes.contains(code.rawValue),
                "chunkIndex \(vector.chunkIndex == nil ? "missing" : "present") with \(code.rawValue)")
            invariants.require(vector.chunkIndex.map { $0 < 1 << 32 } ?? true, "chunkIndex of 2^32 or more")
        }
    }

    /// The document's `name` member when it is a string, so the fuzzer gets past the name check.
    static func vectorName(in document: JSONValue?) -> String {
        guard case .object(let members) = document,
            let member = members.first(where: { $0.key == "name" }), case .string(let name) = member.value
        else { return fallbackVectorName }
        return name
    }

    /// How many containers enclose the deepest value (0 for a document without a non-empty container): the
    /// parser's depth, at most `maximumDepth`.
    static func deepestNesting(of value: JSONValue) -> Int {
        switch value {
        case .object(let members): return members.map { 1 + deepestNesting(of: $0.value) }.max() ?? 0
        case .array(let elements): return elements.map { 1 + deepestNesting(of: $0) }.max() ?? 0
        default: return 0
        }
    }

    /// Whether an object anywhere holds two keys with the same scalars.
    static func hasDuplicateKeys(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let members):
            let keys = Set(members.map { Array($0.key.unicodeScalars.map(\.value)) })
            return keys.count != members.count || members.contains { hasDuplicateKeys($0.value) }
        case .array(let elements): return elements.contains { hasDuplicateKeys($0) }
        default: return false
        }
    }
}
