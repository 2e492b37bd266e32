import GoshuinFormat

/// RFC 5869's HKDF-SHA256 test cases (`KnownAnswer/rfc5869/hkdf-sha256.json`, `Spec/vectors-v1.md` §5.5),
/// checked against the HKDF version 2 keys are derived with: `prk` = HMAC-SHA256(`salt`, `ikm`) and `okm` =
/// HKDF-SHA256(`ikm`, `salt`, `info`, `length`).
enum HKDFCases {
    /// The subfolder and the file a vector folder may hold them in.
    static let folderName = "rfc5869"
    static let fileName = "hkdf-sha256.json"
    /// The name they are listed under among the vectors.
    static let resultName = folderName + "/" + fileName

    /// The result for the cases in `folder`'s `rfc5869/hkdf-sha256.json`, `nil` when it has none.
    static func check(in folder: VectorFolder) -> VectorCheckResult? {
        guard let subfolder = folder.subfolder(folderName), (try? subfolder.names())?.contains(fileName) == true
        else { return nil }
        var problems: [VectorProblem] = []
        var count = 0
        do {
            let file = try subfolder.openRegularFile(fileName)
            let bytes = try file.closeAfter {
                try FileSystem.readAll(file, maximumSize: VectorChecker.maximumVectorFileSize, name: fileName)
            }
            guard case .object(let members) = try StrictJSONParser.parse(bytes),
                case .array(let tests)? = members.first(where: { $0.key == "tests" })?.value, !tests.isEmpty
            else { throw malformed("an object with a non-empty \"tests\" array") }
            for test in tests {
                try check(test, problems: &problems)
                count += 1
            }
        } catch let problem as VectorProblem {
            return VectorCheckResult(
                name: resultName, outcome: .malformed, detail: problem.description, problems: [problem], computed: nil)
        } catch {
            let problem = malformed("a readable JSON file (\(error))")
            return VectorCheckResult(
                name: resultName, outcome: .malformed, detail: problem.description, problems: [problem], computed: nil)
        }
        return VectorCheckResult(
            name: resultName, outcome: problems.isEmpty ? .passed : .failed,
            detail: problems.first?.description ?? "RFC 5869's \(count) HKDF-SHA256 cases: PRK and OKM agree",
            problems: problems, computed: nil)
    }

    /// Checks one case, recording each disagreement.
    private static func check(_ test: JSONValue, problems: inout [VectorProblem]) throws {
        guard case .object(let list) = test else { throw malformed("every test an object") }
        let members = Dictionary(list.map { ($0.key, $0.value) }) { first, _ in first }
        func hex(_ key: String) throws -> [UInt8] {
            guard case .string(let text)? = members[key], let bytes = Hex.decode(text) else {
                throw malformed("\"\(key)\" as lower-case hex in every test")
            }
            return bytes
        }
        let (ikm, salt, info, prk, okm) = (
            try hex("ikm"), try hex("salt"), try hex("info"), try hex("prk"), try hex("okm")
        )
        guard let length = members["length"]?.integerValue, length == okm.count, let id = members["tcId"]?.integerValue
        else { throw malformed("\"tcId\", and \"length\" equal to the bytes of \"okm\", in every test") }
        let computedPRK = try ikm.withUnsafeBytes { ikmBytes in
            try salt.withUnsafeBytes { try HMACSHA256.authenticate(ikmBytes, key: $0) }
        }.exposedBytes
        let computedOKM = try ikm.withUnsafeBytes {
            try HKDFSHA256.derive(key: $0, salt: salt, info: info, length: okm.count)
        }.exposedBytes
        if computedPRK != prk {
            problems.append(
                VectorProblem(
                    check: "test \(id): prk (HMAC-SHA256 of ikm under salt)", expected: Hex.encode(prk),
                    computed: Hex.encode(computedPRK)))
        }
        if computedOKM != okm {
            problems.append(
                VectorProblem(
                    check: "test \(id): okm (HKDF-SHA256)", expected: Hex.encode(okm), computed: Hex.encode(computedOKM)
                ))
        }
    }

    private static func malformed(_ expected: String) -> VectorProblem {
        VectorProblem(check: "the document", expected: expected, computed: "otherwise")
    }
}
