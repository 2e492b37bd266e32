internal import COpenSSL

/// A streaming MD5 hash (OpenSSL EVP), for PAR 2.0 recovery sets, whose packets, slices and files are
/// identified by MD5 (`Spec/recovery-par2.md`). Not for anything that needs a secure hash: MD5 is broken
/// for collisions. Every call's return code is checked.
package final class MD5Hasher {
    /// The digest's size in bytes.
    package static let digestLength = 16

    private let context: OpaquePointer

    /// Starts a new hash.
    package init() throws {
        guard let context = EVP_MD_CTX_new() else { throw openSSLFailure("EVP_MD_CTX_new") }
        self.context = context
        do {
            try requireOpenSSLSuccess(EVP_DigestInit_ex(context, EVP_md5(), nil), "EVP_DigestInit_ex")
        } catch {
            EVP_MD_CTX_free(context)
            throw error
        }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the hash.
    package func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        try requireOpenSSLSuccess(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count), "EVP_DigestUpdate")
    }

    /// Adds bytes to the hash.
    package func update(_ bytes: ArraySlice<UInt8>) throws {
        try bytes.withUnsafeBytes { try update($0) }
    }

    /// The 16-byte digest of everything added; the hasher must not be used afterwards.
    package func finalize() throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Self.digestLength)
        var length: UInt32 = 0
        let returnCode = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        try requireOpenSSLSuccess(returnCode, "EVP_DigestFinal_ex")
        return digest
    }

    /// The MD5 of `bytes`, this hasher started again for it: one hasher for many short messages (a set file's
    /// packets) rather than one each.
    package func digest(of bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        try requireOpenSSLSuccess(EVP_DigestInit_ex(context, EVP_md5(), nil), "EVP_DigestInit_ex")
        try update(bytes)
        return try finalize()
    }

    /// The MD5 of `bytes`.
    package static func hash(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
        let hasher = try MD5Hasher()
        try hasher.update(bytes)
        return try hasher.finalize()
    }
}
