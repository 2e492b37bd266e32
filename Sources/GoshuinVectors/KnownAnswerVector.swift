import GoshuinFormat

/// One known-answer vector (`Spec/vectors-v1.md`): the parameters of a seal, the file, and what opening
/// it must give.
package struct KnownAnswerVector: Sendable {
    /// What opening the file must give.
    package enum Expectation: Equatable, Sendable {
        /// The file opens and yields the plaintext.
        case success
        /// Opening fails with this code.
        case failure(GoshuinError.Code)
    }

    /// Where the sealed plaintext is.
    package enum PlaintextSource: Equatable, Sendable {
        /// Given inline.
        case bytes([UInt8])
        /// In a file beside the vector.
        case file(String)
    }

    /// The value of the `format` key.
    package static let formatName = "goshuin-known-answer"
    /// The value of the `version` key.
    package static let formatVersion: Int64 = 1
    /// The longest plaintext given inline, in bytes (twice as many hex digits).
    package static let maximumInlinePlaintext = 4_096
    /// The longest vector name.
    package static let maximumNameLength = 100
    /// The longest file name a vector names: a vector name and `.plaintext`.
    package static let maximumFileNameLength = maximumNameLength + ".plaintext".count

    /// The vector's name, also its file name without `.json`.
    package var name: String
    /// What the vector tests.
    package var comment: String
    /// What opening must give.
    package var expect: Expectation
    /// The chunk at fault, for `chunk_damaged` and `chunk_length_invalid`, when the vector states it.
    package var chunkIndex: UInt64?
    /// The opening passphrase's bytes.
    package var passphraseBytes: [UInt8]
    /// Whether the passphrase is written as `passphraseHex` rather than `passphrase`.
    package var passphraseAsHex: Bool
    /// The sealing iteration count.
    package var iterations: UInt32
    /// The sealing salt.
    package var salt: [UInt8]
    /// The container version the sealing parameters are for (`containerVersion`, absent = 1).
    package var containerVersion: FormatVersion = .v1
    /// The sealing nonce base (version 1; empty in version 2).
    package var nonceBase: [UInt8]
    /// The sealing payload salt (version 2; empty in version 1).
    package var payloadSalt: [UInt8] = []
    /// Version 2's K_header, HKDF-SHA256 of ``key`` (empty in version 1).
    package var headerKey: [UInt8] = []
    /// Version 2's K_payload, HKDF-SHA256 of ``key`` (empty in version 1).
    package var payloadKey: [UInt8] = []
    /// Version 2 failure vectors: the size of the file to open, ``file``'s bytes then zeros
    /// (`Spec/vectors-v1.md` §5.4).
    package var fileSize: UInt64?
    /// The sealing chunk size.
    package var chunkSize: UInt32
    /// PBKDF2-HMAC-SHA256 of the passphrase, salt and iterations.
    package var key: [UInt8]
    /// The sealed plaintext.
    package var plaintext: PlaintextSource
    /// Its length.
    package var plaintextLength: UInt64
    /// Its SHA-256.
    package var plaintextSha256: [UInt8]
    /// The `.goshuin` file's name.
    package var file: String
    /// Its SHA-256.
    package var fileSha256: [UInt8]
    /// For a failure: bytes a streaming reader releases before failing.
    package var releasedLength: UInt64?
    /// For a failure: their SHA-256.
    package var releasedSha256: [UInt8]?

    /// A vector with every field given.
    package init(
        name: String, comment: String, expect: Expectation, chunkIndex: UInt64?, passphraseBytes: [UInt8],
        passphraseAsHex: Bool, iterations: UInt32, salt: [UInt8], nonceBase: [UInt8], chunkSize: UInt32,
        key: [UInt8], plaintext: PlaintextSource, plaintextLength: UInt64, plaintextSha256: [UInt8], file: String,
        fileSha256: [UInt8], releasedLength: UInt64?, releasedSha256: [UInt8]?
    ) {
        self.name = name
        self.comment = comment
        self.expect = expect
        self.chunkIndex = chunkIndex
        self.passphraseBytes = passphraseBytes
        self.passphraseAsHex = passphraseAsHex
        self.iterations = iterations
        self.salt = salt
        self.nonceBase = nonceBase
        self.chunkSize = chunkSize
        self.key = key
        self.plaintext = plaintext
        self.plaintextLength = plaintextLength
        self.plaintextSha256 = plaintextSha256
        self.file = file
        self.fileSha256 = fileSha256
        self.releasedLength = releasedLength
        self.releasedSha256 = releasedSha256
    }

    /// Whether `name` is an acceptable vector name: `[a-z0-9][a-z0-9._-]{0,99}` without `..`, so that
    /// `NAME.goshuin` and `NAME.plaintext` are acceptable file names (``isValidFileName(_:)``).
    package static func isValidName(_ name: String) -> Bool {
        matchesNamePattern(name, maximumLength: maximumNameLength)
    }

    /// Whether `name` may be a file named by a vector: `[a-z0-9][a-z0-9._-]{0,109}` without `..` (room for
    /// `NAME.plaintext`), so a plain name in the vector's folder: no `/`, and never `.` or `..`.
    package static func isValidFileName(_ name: String) -> Bool {
        matchesNamePattern(name, maximumLength: maximumFileNameLength)
    }

    private static func matchesNamePattern(_ name: String, maximumLength: Int) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...maximumLength).contains(bytes.count), isLowerAlphanumeric(bytes[0]), !name.contains("..") else {
            return false
        }
        return bytes.allSatisfy {
            isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: "_")
        }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The vector as JSON, keys in the order of the spec's table.
    package func jsonValue() -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("format", .string(Self.formatName)),
            ("version", .integer(Self.formatVersion)),
        ]
        if containerVersion == .v2 { members.append(("containerVersion", .integer(2))) }
        members += [
            ("name", .string(name)),
            ("comment", .string(comment)),
        ]
        switch expect {
        case .success: members.append(("expect", .string("success")))
        case .failure(let code): members.append(("expect", .string(code.rawValue)))
        }
        if let chunkIndex { members.append(("chunkIndex", .integer(chunkIndex))) }
        if passphraseAsHex {
            members.append(("passphraseHex", .string(Hex.encode(passphraseBytes))))
        } else {
            members.append(("passphrase", .string(String(decoding: passphraseBytes, as: UTF8.self))))
        }
        members += [("iterations", .integer(iterations)), ("salt", .string(Hex.encode(salt)))]
        switch containerVersion {
        case .v1:
            members += [
                ("nonceBase", .string(Hex.encode(nonceBase))), ("chunkSize", .integer(chunkSize)),
                ("key", .string(Hex.encode(key))),
            ]
        case .v2:
            members += [
                ("payloadSalt", .string(Hex.encode(payloadSalt))), ("chunkSize", .integer(chunkSize)),
                ("key", .string(Hex.encode(key))), ("headerKey", .string(Hex.encode(headerKey))),
                ("payloadKey", .string(Hex.encode(payloadKey))),
            ]
        }
        switch plaintext {
        case .bytes(let bytes): members.append(("plaintextHex", .string(Hex.encode(bytes))))
        case .file(let name): members.append(("plaintextFile", .string(name)))
        }
        members += [
            ("plaintextLength", .integer(plaintextLength)),
            ("plaintextSha256", .string(Hex.encode(plaintextSha256))),
            ("file", .string(file)),
            ("fileSha256", .string(Hex.encode(fileSha256))),
        ]
        if let fileSize { members.append(("fileSize", .integer(fileSize))) }
        if let releasedLength, let releasedSha256 {
            members.append(("releasedLength", .integer(releasedLength)))
            members.append(("releasedSha256", .string(Hex.encode(releasedSha256))))
        }
        return .object(members)
    }
}
