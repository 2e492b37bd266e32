import Foundation
import GoshuinFormat

/// Another implementation's sealer, written here from `Spec/container-v1.md` and `container-v2.md` alone
/// (with the toolkit's primitives: PBKDF2, HKDF, HMAC, AES-GCM), which can make each mistake outside
/// implementers make, one at a time; and the known-answer vector such an implementation writes for its own
/// file, believing it right.
struct ThirdPartySealer {
    /// The mistakes, one at a time.
    enum Mistake: String, CaseIterable {
        /// None: the spec's construction.
        case none
        /// The chunk index little-endian in the nonce.
        case nonceIndexLittleEndian
        /// Version 2: the last record sealed with f = 00.
        case finalFlagMissing
        /// Version 2: every record sealed with f = 01.
        case finalFlagOnEveryRecord
        /// Version 2: a payload of whole chunks ends with its last full record flagged, no empty final record.
        case emptyFinalRecordLeftOut
        /// No additional data.
        case additionalDataMissing
        /// Version 2: header bytes 0 … 44 as the additional data.
        case additionalDataWithoutHeaderMac
    }

    var version: FormatVersion
    var mistake = Mistake.none
    var passphrase: [UInt8] = Array("their passphrase".utf8)
    var iterations: UInt32 = 1_000
    var chunkSize: UInt32 = 1_024
    var salt = [UInt8](repeating: 0x51, count: 16)
    var nonceBase = [UInt8](repeating: 0x4E, count: 8)
    var payloadSalt = [UInt8](repeating: 0x50, count: 16)

    private static func u32be(_ value: UInt64) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt64($0))) }
    }

    private var passphraseKey: SecretBytes {
        get throws {
            try KeyDerivation.deriveKey(passphrase: Passphrase(bytes: passphrase), salt: salt, iterations: iterations)
        }
    }

    private func index(_ value: UInt64) -> [UInt8] {
        mistake == .nonceIndexLittleEndian ? Self.u32be(value).reversed() : Self.u32be(value)
    }

    /// The sealed file, with the mistake.
    func seal(_ plaintext: [UInt8]) throws -> [UInt8] {
        let chunks = stride(from: 0, to: plaintext.count, by: Int(chunkSize)).map {
            Array(plaintext[$0..<min($0 + Int(chunkSize), plaintext.count)])
        }
        switch version {
        case .v1:
            let header =
                Array("GSHN".utf8) + [1] + Self.u32be(UInt64(iterations)) + salt + nonceBase
                + Self.u32be(UInt64(chunkSize))
                + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(plaintext.count) >> (56 - 8 * UInt64($0))) }
            let cipher = try AES256GCM(key: passphraseKey)
            var file = header
            for (number, chunk) in chunks.enumerated() {
                let sealed = try cipher.seal(
                    chunk, nonce: nonceBase + index(UInt64(number)),
                    additionalData: mistake == .additionalDataMissing ? [] : header)
                file += Self.u32be(UInt64(chunk.count + 16)) + sealed.ciphertext + sealed.tag
            }
            return file
        case .v2:
            let described =
                Array("GSHN".utf8) + [2] + Self.u32be(UInt64(iterations)) + salt + payloadSalt
                + Self.u32be(UInt64(chunkSize))
            let keys = try derivedKeys()
            let header = described + (try HMACSHA256.authenticate(described, key: keys.header).exposedBytes)
            var records = chunks
            // The last record holds fewer than chunkSize bytes: 0 when the payload is whole chunks.
            if plaintext.count % Int(chunkSize) == 0, mistake != .emptyFinalRecordLeftOut || plaintext.isEmpty {
                records.append([])
            }
            let cipher = try AES256GCM(key: keys.payload)
            var file = header
            for (number, record) in records.enumerated() {
                let isLast = number == records.count - 1
                let flag: UInt8 =
                    switch mistake {
                    case .finalFlagMissing: 0
                    case .finalFlagOnEveryRecord: 1
                    default: isLast ? 1 : 0
                    }
                let additionalData =
                    switch mistake {
                    case .additionalDataMissing: [UInt8]()
                    case .additionalDataWithoutHeaderMac: described
                    default: header
                    }
                let sealed = try cipher.seal(
                    record, nonce: [UInt8](repeating: 0, count: 7) + index(UInt64(number)) + [flag],
                    additionalData: additionalData)
                file += sealed.ciphertext + sealed.tag
            }
            return file
        }
    }

    private func derivedKeys() throws -> (header: SecretBytes, payload: SecretBytes) {
        let key = try passphraseKey
        return (
            try HKDFSHA256.derive(key: key, salt: payloadSalt, info: Array("goshuin/v2/header-mac".utf8), length: 32),
            try HKDFSHA256.derive(key: key, salt: payloadSalt, info: Array("goshuin/v2/payload".utf8), length: 32)
        )
    }

    /// Writes `NAME.json` and `NAME.goshuin` into `directory`: a success vector of `plaintext`, sealed with
    /// the mistake, as the implementation that makes it would write it (its keys right, its file its own).
    func writeSuccessVector(_ name: String, plaintext: [UInt8], to directory: String) throws {
        let file = try seal(plaintext)
        try Data(file).write(to: URL(fileURLWithPath: directory + "/\(name).goshuin"))
        var members: [String: Any] = [
            "format": "goshuin-known-answer", "version": 1, "name": name,
            "comment": "made by another implementation (\(mistake.rawValue))", "expect": "success",
            "iterations": Int(iterations), "salt": Hex.encode(salt), "chunkSize": Int(chunkSize),
            "key": Hex.encode(try passphraseKey.exposedBytes), "plaintextHex": Hex.encode(plaintext),
            "plaintextLength": plaintext.count, "plaintextSha256": Hex.encode(try SHA256Hasher.hash(plaintext)),
            "file": "\(name).goshuin", "fileSha256": Hex.encode(try SHA256Hasher.hash(file)),
        ]
        if let text = String(validating: passphrase, as: UTF8.self) {
            members["passphrase"] = text
        } else {
            members["passphraseHex"] = Hex.encode(passphrase)
        }
        switch version {
        case .v1: members["nonceBase"] = Hex.encode(nonceBase)
        case .v2:
            let keys = try derivedKeys()
            members["containerVersion"] = 2
            members["payloadSalt"] = Hex.encode(payloadSalt)
            members["headerKey"] = Hex.encode(keys.header.exposedBytes)
            members["payloadKey"] = Hex.encode(keys.payload.exposedBytes)
        }
        let json = try JSONSerialization.data(
            withJSONObject: members, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        try json.write(to: URL(fileURLWithPath: directory + "/\(name).json"))
    }
}
