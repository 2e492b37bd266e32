import GoshuinFormat
import GoshuinVectors

extension FuzzHarness {
    /// `StrictJSONParser.parse` and `KnownAnswerVector.parse` on the same bytes. Accepted JSON is valid UTF-8
    /// with no duplicate key and bounded nesting, and its compact and pretty serializations parse back to a value
    /// that serializes to the same bytes. A parsed vector was accepted JSON, and its own JSON parses back to the
    /// same vector; a refused one is `malformed_vector`.
    @_spi(Fuzzing) public static let jsonDocuments = FuzzHarness(name: "json-documents") { input in
        JSONDocumentsHarness.check(input)
    }
}

enum JSONDocumentsHarness {
    static let invariants = InvariantCheck(harness: "json-documents")
    /// The vector name checked against the `name` member when the document has none.
    static let fallbackVectorName = "fuzz-vector"

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

    /// The ranges and lengths of `Spec/vectors-v1.md` §2, restated.
    static func checkFields(of vector: KnownAnswerVector) {
        invariants.require((1_000...2_000_000).contains(vector.iterations), "iterations out of range")
        invariants.require((1_024...67_108_864).contains(vector.chunkSize), "chunkSize out of range")
        invariants.require(vector.salt.count == 16 && vector.nonceBase.count == 8, "salt or nonce base length")
        invariants.require(
            vector.key.count == 32 && vector.plaintextSha256.count == 32 && vector.fileSha256.count == 32,
            "key or hash length")
        invariants.require(vector.plaintextLength < 1 << 53, "plaintextLength above 2^53 − 1")
        if case .bytes(let bytes) = vector.plaintext {
            invariants.require(
                bytes.count == vector.plaintextLength && bytes.count <= 4_096, "inline plaintext length")
        }
        switch vector.expect {
        case .success:
            invariants.require(vector.releasedLength == nil && vector.releasedSha256 == nil, "success with released")
            invariants.require(vector.chunkIndex == nil, "success with chunkIndex")
        case .failure(let code):
            invariants.require(
                ContainerSpecRestatement.readingErrorCodes.contains(code.rawValue), "expect \(code.rawValue)")
            invariants.require(
                vector.releasedLength != nil && vector.releasedSha256?.count == 32, "failure without released")
            invariants.require(
                vector.chunkIndex == nil || code.rawValue == "chunk_damaged" || code.rawValue == "chunk_length_invalid",
                "chunkIndex with \(code.rawValue)")
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
