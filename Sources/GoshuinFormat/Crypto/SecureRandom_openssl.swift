internal import COpenSSL

/// Bytes from OpenSSL's CSPRNG (`RAND_bytes`), seeded by the operating system.
package func secureRandomBytes(count: Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    guard count > 0 else { return bytes }
    let returnCode = bytes.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32($0.count)) }
    try requireOpenSSLSuccess(returnCode, "RAND_bytes")
    return bytes
}
