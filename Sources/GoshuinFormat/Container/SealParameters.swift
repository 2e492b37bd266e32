/// The choices a writer makes: iteration count, chunk size, and — for known-answer vectors only — a fixed
/// salt and nonce base.
public struct SealParameters: Sendable {
    /// PBKDF2 iterations, within ``Header/iterationRange``.
    public var iterations: UInt32
    /// Plaintext bytes per chunk, within ``Header/chunkSizeRange``.
    public var chunkSize: UInt32
    /// A fixed 16-byte salt. Leave `nil`: a fresh one comes from the CSPRNG. Fixed values are for
    /// known-answer vectors only.
    package var fixedSalt: [UInt8]?
    /// A fixed 8-byte nonce base. Leave `nil`: a fresh one comes from the CSPRNG. Reusing a nonce base
    /// under the same key breaks AES-GCM; fixed values are for known-answer vectors only.
    package var fixedNonceBase: [UInt8]?

    /// Parameters with the defaults of `Spec/container-v1.md` §6 unless given; they are checked against the
    /// bounds when a file is sealed with them.
    public init(iterations: UInt32 = Header.defaultIterations, chunkSize: UInt32 = Header.defaultChunkSize) {
        self.iterations = iterations
        self.chunkSize = chunkSize
    }

    /// Parameters with a fixed salt and nonce base, for known-answer vectors only.
    package init(iterations: UInt32, chunkSize: UInt32, fixedSalt: [UInt8]?, fixedNonceBase: [UInt8]?) {
        self.init(iterations: iterations, chunkSize: chunkSize)
        self.fixedSalt = fixedSalt
        self.fixedNonceBase = fixedNonceBase
    }

    /// Throws the error sealing would give for these iterations and chunk size: `iterations_out_of_range` or
    /// `chunk_size_out_of_range`.
    package func validate() throws {
        try HeaderFields(
            magic: Header.magic, version: Header.version, kdfIterations: iterations,
            salt: [UInt8](repeating: 0, count: Header.saltLength),
            nonceBase: [UInt8](repeating: 0, count: Header.nonceBaseLength), chunkSize: chunkSize, plaintextLength: 1
        ).validate()
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
