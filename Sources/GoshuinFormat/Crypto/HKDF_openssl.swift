internal import COpenSSL

/// HKDF-SHA256 (RFC 5869, extract then expand) through OpenSSL's `EVP_KDF` "HKDF".
package enum HKDFSHA256 {
    /// The most bytes HKDF-SHA256 can give: 255 blocks of 32.
    package static let maximumLength = 255 * 32

    /// `length` bytes of HKDF-SHA256 of the input keying material `key`, with `salt` and `info`.
    package static func derive(key: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8], length: Int) throws
        -> SecretBytes
    {
        guard (1...maximumLength).contains(length) else {
            throw GoshuinError(.invalidArgument, "HKDF-SHA256 gives 1 to \(maximumLength) bytes, not \(length)")
        }
        return try SecretBytes(count: length) { output in
            let result = salt.withUnsafeBufferPointer { saltBytes in
                info.withUnsafeBufferPointer { infoBytes in
                    goshuin_hkdf_sha256(
                        key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, saltBytes.baseAddress,
                        saltBytes.count, infoBytes.baseAddress, infoBytes.count,
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self), length)
                }
            }
            try requireOpenSSLSuccess(result, "EVP_KDF_derive (HKDF-SHA256)")
        }
    }

    /// HKDF-SHA256 of the key `key`, with `salt` and `info`.
    package static func derive(key: SecretBytes, salt: [UInt8], info: [UInt8], length: Int) throws -> SecretBytes {
        try key.withUnsafeBytes { try derive(key: $0, salt: salt, info: info, length: length) }
    }
}
