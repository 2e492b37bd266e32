/// The choices a writer makes: the format version, the iteration count, the chunk size, and — for
/// known-answer vectors only — fixed salts and nonce base.
public struct SealParameters: Sendable {
    /// The format version to write.
    public var version: FormatVersion
    /// PBKDF2 iterations, within ``Header/iterationRange``.
    public var iterations: UInt32
    /// Plaintext bytes per chunk, within ``Header/chunkSizeRange``.
    public var chunkSize: UInt32
    /// A fixed 16-byte PBKDF2 salt. Leave `nil`: a fresh one comes from the CSPRNG. Fixed values are for
    /// known-answer vectors only.
    package var fixedSalt: [UInt8]?
    /// A fixed 8-byte version 1 nonce base. Leave `nil`: a fresh one comes from the CSPRNG. Reusing a nonce
    /// base under the same key breaks AES-GCM; fixed values are for known-answer vectors only.
    package var fixedNonceBase: [UInt8]?
    /// A fixed 16-byte version 2 payload salt. Leave `nil`: a fresh one comes from the CSPRNG. Reusing both
    /// salts under one passphrase reuses nonces under one key (`Spec/container-v2.md` §10.1); fixed values
    /// are for known-answer vectors only.
    package var fixedPayloadSalt: [UInt8]?

    /// Parameters with the defaults of `Spec/container-v1.md` §6 unless given, and format version 1 (the
    /// one the app reads today) unless another is asked for; they are checked against the bounds when a
    /// header is drafted with them.
    public init(
        iterations: UInt32 = Header.defaultIterations, chunkSize: UInt32 = Header.defaultChunkSize,
        version: FormatVersion = .v1
    ) {
        self.version = version
        self.iterations = iterations
        self.chunkSize = chunkSize
    }

    /// Version 1 parameters with a fixed salt and nonce base, for known-answer vectors only.
    package init(iterations: UInt32, chunkSize: UInt32, fixedSalt: [UInt8]?, fixedNonceBase: [UInt8]?) {
        self.init(iterations: iterations, chunkSize: chunkSize, version: .v1)
        self.fixedSalt = fixedSalt
        self.fixedNonceBase = fixedNonceBase
    }

    /// Version 2 parameters with fixed salts, for known-answer vectors only.
    package init(iterations: UInt32, chunkSize: UInt32, fixedSalt: [UInt8]?, fixedPayloadSalt: [UInt8]?) {
        self.init(iterations: iterations, chunkSize: chunkSize, version: .v2)
        self.fixedSalt = fixedSalt
        self.fixedPayloadSalt = fixedPayloadSalt
    }

    /// Throws the error sealing would give for these iterations and chunk size: `iterations_out_of_range` or
    /// `chunk_size_out_of_range`.
    package func validate() throws { try Header.checkBounds(iterations: iterations, chunkSize: chunkSize) }

    /// The header of a new `.goshuin` file at `outputPath`, for a payload of `plaintextLength` bytes (`nil`:
    /// a stream whose length is learnt at its end, version 2 only), with fresh random salts: the
    /// destination and the parameters checked, before any passphrase. Complete it with
    /// ``HeaderDraft/key(with:progress:)``, then write the file with ``KeyedHeader/seal(progress:_:)``.
    ///
    /// - Parameter replaceExisting: replace an existing `outputPath` (a regular file only); otherwise it is
    ///   `output_exists`.
    /// - Throws: `output_exists`, or `io` for a folder that cannot be opened; then the bounds' codes,
    ///   `empty_payload` for an empty version 1 payload, `too_many_chunks`, or `invalid_argument` for
    ///   version 1 without a length.
    public func draft(sealingTo outputPath: String, plaintextLength: UInt64? = nil, replaceExisting: Bool = false)
        throws -> HeaderDraft
    {
        try AtomicOutput.checkDestination(outputPath, replaceExisting: replaceExisting)
        var draft = try draft(plaintextLength: plaintextLength)
        draft.destination = SealDestination(path: outputPath, replaceExisting: replaceExisting)
        return draft
    }

    /// The header for a payload of `plaintextLength` bytes (`nil`: a stream of unknown length, version 2
    /// only), with fresh random salts unless fixed ones were given; complete once keyed
    /// (``HeaderDraft/key(with:progress:)``).
    ///
    /// - Throws: the bounds' codes, `empty_payload` for an empty version 1 payload, `too_many_chunks`, or
    ///   `invalid_argument` for a fixed salt of the wrong length or version 1 without a length.
    package func draft(plaintextLength: UInt64?) throws -> HeaderDraft {
        try validate()
        let salt = try fixedSalt ?? secureRandomBytes(count: Header.saltLength)
        switch version {
        case .v1:
            guard let plaintextLength else {
                throw GoshuinError(.invalidArgument, "format version 1 needs the payload's length before sealing")
            }
            let header = try Header(
                kdfIterations: iterations, salt: salt,
                nonceBase: try fixedNonceBase ?? secureRandomBytes(count: Header.nonceBaseLength),
                chunkSize: chunkSize, plaintextLength: plaintextLength)
            return HeaderDraft(v1: header)
        case .v2:
            let fields = HeaderFieldsV2(
                kdfIterations: iterations, kdfSalt: salt,
                payloadSalt: try fixedPayloadSalt ?? secureRandomBytes(count: Header.saltLength),
                chunkSize: chunkSize, headerMac: [UInt8](repeating: 0, count: HMACSHA256.length))
            // Validated now with a placeholder MAC: the bounds, the salts and the record count.
            if let plaintextLength { _ = try Header(validating: fields, plaintextLength: plaintextLength) }
            try fields.validate()
            return HeaderDraft(v2: fields, plaintextLength: plaintextLength)
        }
    }
}
