internal import COpenSSL

/// A streaming SHA-256 hash (OpenSSL EVP); every call's return code is checked.
package final class SHA256Hasher {
    private let context: OpaquePointer

    /// Starts a new hash.
    package init() throws {
        guard let context = EVP_MD_CTX_new() else { throw openSSLFailure("EVP_MD_CTX_new") }
        self.context = context
        try requireOpenSSLSuccess(EVP_DigestInit_ex(context, EVP_sha256(), nil), "EVP_DigestInit_ex")
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the hash.
    package func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        try requireOpenSSLSuccess(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count), "EVP_DigestUpdate")
    }

    /// Adds bytes to the hash.
    package func update(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try update($0) }
    }

    /// The 32-byte digest of everything added; the hasher must not be used afterwards.
    package func finalize() throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let returnCode = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        try requireOpenSSLSuccess(returnCode, "EVP_DigestFinal_ex")
        return digest
    }

    /// The SHA-256 of `bytes`.
    package static func hash(_ bytes: [UInt8]) throws -> [UInt8] {
        let hasher = try SHA256Hasher()
        try hasher.update(bytes)
        return try hasher.finalize()
    }
}
