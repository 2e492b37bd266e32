internal import COpenSSL

/// PBKDF2-HMAC-SHA256 (RFC 8018) through OpenSSL's `PKCS5_PBKDF2_HMAC`.
///
/// No bounds are applied here beyond what fits OpenSSL's `int` parameters: the container's iteration
/// bounds are the header's business, and the Wycheproof vectors run outside them on purpose.
package enum PBKDF2 {
    /// Derives `length` bytes from `password` and `salt` with `iterations` rounds.
    package static func deriveSHA256(
        password: UnsafeRawBufferPointer, salt: [UInt8], iterations: UInt32, length: Int
    ) throws -> SecretBytes {
        guard iterations >= 1, let iterationCount = Int32(exactly: iterations),
            let passwordLength = Int32(exactly: password.count), let saltLength = Int32(exactly: salt.count),
            let outputLength = Int32(exactly: length), length >= 1
        else {
            throw GoshuinError(.invalidArgument, "PBKDF2 parameters out of range")
        }
        return try SecretBytes(count: length) { output in
            let returnCode = salt.withUnsafeBufferPointer { saltBuffer in
                PKCS5_PBKDF2_HMAC(
                    password.baseAddress?.assumingMemoryBound(to: CChar.self), passwordLength,
                    saltBuffer.baseAddress, saltLength, iterationCount, EVP_sha256(), outputLength,
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
            try requireOpenSSLSuccess(returnCode, "PKCS5_PBKDF2_HMAC")
        }
    }
}
