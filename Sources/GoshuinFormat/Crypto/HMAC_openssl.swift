internal import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL's one-shot `HMAC`, and the constant-time comparison of two
/// MACs (`CRYPTO_memcmp`).
package enum HMACSHA256 {
    /// The MAC's length in bytes.
    package static let length = 32

    /// HMAC-SHA256 of `message` under `key`.
    package static func authenticate(_ message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws
        -> SecretBytes
    {
        guard let keyLength = Int32(exactly: key.count) else {
            throw GoshuinError(.invalidArgument, "an HMAC key longer than OpenSSL takes")
        }
        // A key of no bytes still needs an address (RFC 5869's empty salt): OpenSSL reads nothing from it.
        let spare: [UInt8] = [0]
        return try spare.withUnsafeBytes { spareBytes in
            try SecretBytes(count: length) { output in
                var written: UInt32 = 0
                let result = HMAC(
                    EVP_sha256(), key.baseAddress ?? spareBytes.baseAddress, keyLength,
                    message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written)
                guard result != nil, written == UInt32(length) else { throw openSSLFailure("HMAC") }
            }
        }
    }

    /// HMAC-SHA256 of `message` under `key`.
    package static func authenticate(_ message: [UInt8], key: SecretBytes) throws -> SecretBytes {
        try message.withUnsafeBytes { bytes in try key.withUnsafeBytes { try authenticate(bytes, key: $0) } }
    }

    /// Whether `one` and `other` are equal, in a time that depends on their length alone.
    package static func constantTimeEqual(_ one: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        guard one.count == other.count else { return false }
        guard let first = one.baseAddress, let second = other.baseAddress else { return true }
        return CRYPTO_memcmp(first, second, one.count) == 0
    }
}
