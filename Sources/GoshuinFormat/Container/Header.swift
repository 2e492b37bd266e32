/// A validated header of either version, with the payload length it describes: version 1's is stored in
/// it (`Spec/container-v1.md` §2), version 2's is implied by the file's size or known to the writer
/// (`Spec/container-v2.md` §2–3). Its fields are known to satisfy their bounds, with 1 … 2^32 chunks.
///
/// Every way to make one validates the fields once (``ContainerStructure`` for a file, ``SealParameters``
/// for sealing), so ``encode()`` always writes a header a reader accepts. A version 2 header's MAC is
/// verified only when the container is unlocked (``LockedContainer/unlock(with:progress:)``).
public struct Header: Equatable, Sendable {
    /// The size in bytes of a version 1 header, and the bytes every version's first checks need.
    package static let byteCount = 45
    /// The magic bytes `GSHN`.
    package static let magic: [UInt8] = Array("GSHN".utf8)
    /// The salts' size in bytes.
    package static let saltLength = 16
    /// Version 1's nonce base's size in bytes.
    package static let nonceBaseLength = 8
    /// The accepted `kdfIterations`.
    public static let iterationRange: ClosedRange<UInt32> = 1_000...2_000_000
    /// The accepted `chunkSize`.
    public static let chunkSizeRange: ClosedRange<UInt32> = 1_024...67_108_864
    /// The most chunks a file may have: the chunk index is a u32.
    package static let maximumChunkCount: UInt64 = 1 << 32
    /// The iteration count used when sealing unless another is asked for.
    public static let defaultIterations: UInt32 = 600_000
    /// The chunk size used when sealing unless another is asked for (4 MiB).
    public static let defaultChunkSize: UInt32 = 4 * 1_048_576

    /// The fields of one version.
    package enum Fields: Equatable, Sendable {
        /// A version 1 header: its payload length is one of its fields.
        case v1(HeaderFields)
        /// A version 2 header and the payload length the file's size implies (or the writer's).
        case v2(HeaderFieldsV2, plaintextLength: UInt64)
    }

    /// The fields, as stored and validated.
    package let fields: Fields

    /// The format version.
    public var version: FormatVersion {
        switch fields {
        case .v1: return .v1
        case .v2: return .v2
        }
    }
    /// PBKDF2 iterations.
    public var kdfIterations: UInt32 {
        switch fields {
        case .v1(let fields): return fields.kdfIterations
        case .v2(let fields, _): return fields.kdfIterations
        }
    }
    /// The 16-byte PBKDF2 salt (`kdfSalt` in version 2).
    package var salt: [UInt8] {
        switch fields {
        case .v1(let fields): return fields.salt
        case .v2(let fields, _): return fields.kdfSalt
        }
    }
    /// Version 1's 8-byte prefix of every chunk's nonce; empty in version 2.
    package var nonceBase: [UInt8] {
        guard case .v1(let fields) = fields else { return [] }
        return fields.nonceBase
    }
    /// Version 2's 16-byte HKDF salt; empty in version 1.
    package var payloadSalt: [UInt8] {
        guard case .v2(let fields, _) = fields else { return [] }
        return fields.payloadSalt
    }
    /// Version 2's 32-byte header MAC; empty in version 1.
    package var headerMac: [UInt8] {
        guard case .v2(let fields, _) = fields else { return [] }
        return fields.headerMac
    }
    /// Plaintext bytes per chunk (the last chunk may hold fewer).
    public var chunkSize: UInt32 {
        switch fields {
        case .v1(let fields): return fields.chunkSize
        case .v2(let fields, _): return fields.chunkSize
        }
    }
    /// The payload's length: version 1's field; in version 2 implied by the file's size, and confirmed when
    /// the final chunk authenticates.
    public var plaintextLength: UInt64 {
        switch fields {
        case .v1(let fields): return fields.plaintextLength
        case .v2(_, let length): return length
        }
    }
    /// The number of chunks.
    public var chunkCount: UInt64 { layout.chunkCount }
    /// The size of the whole file.
    public var fileSize: UInt64 { layout.expectedFileSize }
    /// The header's size in bytes.
    package var byteCount: Int { version.headerLength }

    /// A version 1 header from `fields`, checked: checks 2–7 of `Spec/container-v1.md` §7, and the salt and
    /// nonce base lengths (`invalid_argument`).
    package init(validating fields: HeaderFields) throws {
        guard fields.salt.count == Self.saltLength, fields.nonceBase.count == Self.nonceBaseLength else {
            throw GoshuinError(.invalidArgument, "the salt is 16 bytes and the nonce base 8")
        }
        try fields.validate()
        self.fields = .v1(fields)
    }

    /// A version 2 header from `fields` for a payload of `plaintextLength` bytes: checks 5–6 of
    /// `Spec/container-v2.md` §7, and at most 2^32 records (`too_many_chunks`).
    package init(validating fields: HeaderFieldsV2, plaintextLength: UInt64) throws {
        try fields.validate()
        let records = plaintextLength / UInt64(fields.chunkSize) + 1
        guard records <= Self.maximumChunkCount else {
            throw GoshuinError(
                .tooManyChunks,
                "a payload of \(plaintextLength) bytes needs \(records) records of \(fields.chunkSize) bytes; the"
                    + " record index allows at most 2^32")
        }
        self.fields = .v2(fields, plaintextLength: plaintextLength)
    }

    /// A version 1 header for sealing, checked against the bounds.
    ///
    /// - Throws: `iterations_out_of_range`, `chunk_size_out_of_range`, `empty_payload`, `too_many_chunks`,
    ///   or `invalid_argument` for a salt or nonce base of the wrong length.
    package init(
        kdfIterations: UInt32, salt: [UInt8], nonceBase: [UInt8], chunkSize: UInt32, plaintextLength: UInt64
    ) throws {
        try self.init(
            validating: HeaderFields(
                magic: Self.magic, version: FormatVersion.v1.rawValue, kdfIterations: kdfIterations, salt: salt,
                nonceBase: nonceBase, chunkSize: chunkSize, plaintextLength: plaintextLength))
    }

    /// Decodes and validates a version 1 header from the first 45 bytes of `bytes` (checks 1–7 of
    /// `Spec/container-v1.md` §7); a version 2 header needs the file's size: ``decode(_:fileSize:)``.
    ///
    /// Extra bytes after the header are ignored. Throws the first failing check's error.
    package static func decode(_ bytes: some Collection<UInt8>) throws -> Header {
        guard let fields = HeaderFields(parsing: bytes) else {
            throw GoshuinError(.shortHeader, "the file has \(bytes.count) bytes, fewer than the 45-byte header")
        }
        return try Header(validating: fields)
    }

    /// Decodes and validates the header of a file of `fileSize` bytes that starts with `bytes` (77 bytes, or
    /// the whole file when it is shorter), either version, with every check that needs no key and no byte
    /// past the header: checks 1–8 of either version's §7.
    public static func decode(_ bytes: some Collection<UInt8>, fileSize: UInt64) throws -> Header {
        try ContainerStructure.validate(headerBytes: bytes, fileSize: fileSize)
    }

    /// The header's bytes (45 or 77), which are also every chunk's additional authenticated data.
    package func encode() -> [UInt8] {
        switch fields {
        case .v1(let fields): return fields.encode()
        case .v2(let fields, _): return fields.encode()
        }
    }

    /// The layout this header implies.
    package var layout: ContainerLayout {
        ContainerLayout(
            geometry: ChunkGeometry(version: version, chunkSize: chunkSize), plaintextLength: plaintextLength)
    }

    /// Throws `iterations_out_of_range` or `chunk_size_out_of_range` for values outside the bounds both
    /// versions share.
    package static func checkBounds(iterations: UInt32, chunkSize: UInt32) throws {
        guard iterationRange.contains(iterations) else {
            throw GoshuinError(
                .iterationsOutOfRange,
                "the key derivation asks for \(iterations) iterations; the format allows 1,000 to 2,000,000")
        }
        guard chunkSizeRange.contains(chunkSize) else {
            throw GoshuinError(
                .chunkSizeOutOfRange,
                "the chunk size is \(chunkSize) bytes; the format allows 1,024 to 67,108,864 (64 MiB)")
        }
    }
}
