import COpenSSL

/// A streaming SHA-256 hash (OpenSSL EVP).
package final class SHA256Hasher {
    private let context: OpaquePointer

    /// Starts a new hash.
    package init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        // Cannot fail for a built-in digest with a fresh context.
        _ = EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the hash.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    /// Adds bytes to the hash.
    package func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything added; the hasher must not be used afterwards.
    package func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return digest
    }

    /// The SHA-256 of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
