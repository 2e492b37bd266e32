import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The Wycheproof AES-GCM (256-bit key, 96-bit IV, 128-bit tag) and PBKDF2-HMAC-SHA256 vectors against the
/// crypto layer (KnownAnswer/wycheproof, Apache-2.0, see its README).
@Suite struct WycheproofTests {
    static let directory = Fixtures.packageRoot + "/KnownAnswer/wycheproof/"

    static func load(_ name: String) throws -> [(key: String, value: JSONValue)] {
        let bytes = Fixtures.readBytes(directory + name)
        #expect(!bytes.isEmpty, "missing \(name)")
        guard case .object(let members) = try StrictJSONParser.parse(bytes) else { return [] }
        return members
    }

    static func tests(in document: [(key: String, value: JSONValue)], groupFilter: ([String: JSONValue]) -> Bool)
        -> [[String: JSONValue]]
    {
        guard case .array(let groups)? = document.first(where: { $0.key == "testGroups" })?.value else { return [] }
        var result: [[String: JSONValue]] = []
        for case .object(let groupMembers) in groups {
            let group = Dictionary(uniqueKeysWithValues: groupMembers.map { ($0.key, $0.value) })
            guard groupFilter(group), case .array(let tests)? = group["tests"] else { continue }
            for case .object(let testMembers) in tests {
                result.append(Dictionary(uniqueKeysWithValues: testMembers.map { ($0.key, $0.value) }))
            }
        }
        return result
    }

    static func hex(_ test: [String: JSONValue], _ key: String) -> [UInt8] {
        guard case .string(let text)? = test[key], let bytes = Hex.decode(text) else { return [] }
        return bytes
    }

    static func string(_ test: [String: JSONValue], _ key: String) -> String {
        guard case .string(let text)? = test[key] else { return "" }
        return text
    }

    @Test func aesGCM256() throws {
        let tests = Self.tests(in: try Self.load("aes_gcm_test.json")) { group in
            group["keySize"]?.integerValue == 256 && group["ivSize"]?.integerValue == 96
                && group["tagSize"]?.integerValue == 128
        }
        #expect(tests.count == 66)
        for test in tests {
            let identifier = test["tcId"]?.integerValue ?? -1
            let cipher = try AES256GCM(key: SecretBytes(copying: Self.hex(test, "key")))
            let message = Self.hex(test, "msg")
            let expectedCiphertext = Self.hex(test, "ct")
            let tag = Self.hex(test, "tag")
            let nonce = Self.hex(test, "iv")
            let aad = Self.hex(test, "aad")
            let valid = Self.string(test, "result") == "valid"
            let opened = try cipher.open(expectedCiphertext, tag: tag, nonce: nonce, additionalData: aad)
            #expect((opened != nil) == valid, "tcId \(identifier)")
            if valid {
                #expect(opened == message, "tcId \(identifier)")
                let sealed = try cipher.seal(message, nonce: nonce, additionalData: aad)
                #expect(sealed.ciphertext == expectedCiphertext && sealed.tag == tag, "tcId \(identifier)")
            }
        }
    }

    @Test func pbkdf2HMACSHA256() throws {
        let tests = Self.tests(in: try Self.load("pbkdf2_hmacsha256_test.json")) { _ in true }
        #expect(tests.count == 60)
        for test in tests {
            let identifier = test["tcId"]?.integerValue ?? -1
            let password = Self.hex(test, "password")
            let expected = Self.hex(test, "dk")
            let iterations = UInt32(test["iterationCount"]?.integerValue ?? 0)
            let derived = try password.withUnsafeBytes { passwordBytes in
                try PBKDF2.deriveSHA256(
                    password: passwordBytes, salt: Self.hex(test, "salt"), iterations: iterations,
                    length: expected.count)
            }
            #expect(derived.exposedBytes == expected, "tcId \(identifier)")
            let fast = try password.withUnsafeBytes { passwordBytes in
                try FastPBKDF2.deriveSHA256(
                    password: passwordBytes, salt: Self.hex(test, "salt"), iterations: iterations,
                    length: expected.count)
            }
            #expect(fast.exposedBytes == expected, "fast PBKDF2, tcId \(identifier)")
        }
    }

    @Test func fastPBKDF2MatchesOpenSSLOnRandomInputs() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<60 {
            let password = (0..<Int.random(in: 0...150, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let salt = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let iterations = UInt32.random(in: 1...3_000, using: &generator)
            let length = [1, 16, 31, 32, 33, 64, 100][round % 7]
            let (reference, fast) = try password.withUnsafeBytes { bytes in
                (
                    try PBKDF2.deriveSHA256(password: bytes, salt: salt, iterations: iterations, length: length),
                    try FastPBKDF2.deriveSHA256(password: bytes, salt: salt, iterations: iterations, length: length)
                )
            }
            #expect(
                reference.exposedBytes == fast.exposedBytes,
                "password \(Hex.encode(password)) salt \(Hex.encode(salt)) c=\(iterations)")
        }
    }
}
