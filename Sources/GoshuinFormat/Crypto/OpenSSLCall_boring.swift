import COpenSSL

/// The one place an OpenSSL return code is judged: OpenSSL's EVP and RAND calls return 1 on success.
/// The OpenSSL error queue is cleared so that a failure does not leak into a later call's report.
@inline(__always)
func requireOpenSSLSuccess(_ returnCode: Int32, _ operation: StaticString) throws {
    guard returnCode == 1 else {
        ERR_clear_error()
        throw GoshuinError(.io, "OpenSSL failed in \(operation)")
    }
}

/// Overwrites memory with zeros in a way the compiler cannot elide (`OPENSSL_cleanse`).
@inline(__always)
func secureZero(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    OPENSSL_cleanse(base, buffer.count)
}
