/// The choices a writer makes: iteration count, chunk size, and — for known-answer vectors only — a fixed
/// salt and nonce base.
package struct SealParameters: Sendable {
    /// PBKDF2 iterations, 1,000 … 2,000,000.
    package var iterations: UInt32
    /// Plaintext bytes per chunk, 1,024 … 67,108,864.
    package var chunkSize: UInt32
    /// A fixed 16-byte salt. Leave `nil`: a fresh one comes from the CSPRNG. Fixed values are for
    /// known-answer vectors only.
    package var fixedSalt: [UInt8]?
    /// A fixed 8-byte nonce base. Leave `nil`: a fresh one comes from the CSPRNG. Reusing a nonce base
    /// under the same key breaks AES-GCM; fixed values are for known-answer vectors only.
    package var fixedNonceBase: [UInt8]?

    /// Parameters with the defaults of `Spec/container-v1.md` §6 unless given.
    package init(
        iterations: UInt32 = Header.defaultIterations, chunkSize: UInt32 = Header.defaultChunkSize,
        fixedSalt: [UInt8]? = nil, fixedNonceBase: [UInt8]? = nil
    ) {
        self.iterations = iterations
        self.chunkSize = chunkSize
        self.fixedSalt = fixedSalt
        self.fixedNonceBase = fixedNonceBase
    }

    /// The header for a payload of `plaintextLength` bytes, with fresh random salt and nonce base unless
    /// fixed ones were given.
    package func makeHeader(plaintextLength: UInt64) throws -> Header {
        let salt = try fixedSalt ?? secureRandomBytes(count: Header.saltLength)
        let nonceBase = try fixedNonceBase ?? secureRandomBytes(count: Header.nonceBaseLength)
        return try Header(
            kdfIterations: iterations, salt: salt, nonceBase: nonceBase, chunkSize: chunkSize,
            plaintextLength: plaintextLength)
    }
}
