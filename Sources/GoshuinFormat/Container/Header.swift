/// The 45-byte v1 header (`Spec/container-v1.md` §2), validated: its ``HeaderFields`` as stored, known to
/// satisfy the bounds of §2.1, a non-empty payload and at most 2^32 chunks.
///
/// Every way to make one validates the fields once (``decode(_:)`` for a file, ``SealParameters`` for
/// sealing), so ``encode()`` always writes a header a reader accepts.
public struct Header: Equatable, Sendable {
    /// The header's size in bytes.
    public static let byteCount = 45
    /// The magic bytes `GSHN`.
    package static let magic: [UInt8] = Array("GSHN".utf8)
    /// The version this toolkit reads and writes.
    package static let version: UInt8 = 1
    /// The salt's size in bytes.
    package static let saltLength = 16
    /// The nonce base's size in bytes.
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

    /// The fields, as stored and validated.
    package let fields: HeaderFields

    /// PBKDF2 iterations.
    public var kdfIterations: UInt32 { fields.kdfIterations }
    /// The 16-byte PBKDF2 salt.
    public var salt: [UInt8] { fields.salt }
    /// The 8-byte prefix of every chunk's nonce.
    public var nonceBase: [UInt8] { fields.nonceBase }
    /// Plaintext bytes per chunk (the last chunk may hold fewer).
    public var chunkSize: UInt32 { fields.chunkSize }
    /// The payload's length.
    public var plaintextLength: UInt64 { fields.plaintextLength }
    /// The number of chunks.
    public var chunkCount: UInt64 { layout.chunkCount }
    /// The size of the whole file: `45 + 20·chunkCount + plaintextLength`.
    public var fileSize: UInt64 { layout.expectedFileSize }

    /// A header from `fields`, checked: checks 2–7 of `Spec/container-v1.md` §7, and the salt and nonce base
    /// lengths (`invalid_argument`).
    package init(validating fields: HeaderFields) throws {
        guard fields.salt.count == Self.saltLength, fields.nonceBase.count == Self.nonceBaseLength else {
            throw GoshuinError(.invalidArgument, "the salt is 16 bytes and the nonce base 8")
        }
        try fields.validate()
        self.fields = fields
    }

    /// A header for sealing, checked against the bounds.
    ///
    /// - Throws: `iterations_out_of_range`, `chunk_size_out_of_range`, `empty_payload`, `too_many_chunks`,
    ///   or `invalid_argument` for a salt or nonce base of the wrong length.
    package init(
        kdfIterations: UInt32, salt: [UInt8], nonceBase: [UInt8], chunkSize: UInt32, plaintextLength: UInt64
    ) throws {
        try self.init(
            validating: HeaderFields(
                magic: Self.magic, version: Self.version, kdfIterations: kdfIterations, salt: salt,
                nonceBase: nonceBase,
                chunkSize: chunkSize, plaintextLength: plaintextLength))
    }

    /// Decodes and validates the first 45 bytes of `bytes` (checks 1–7 of `Spec/container-v1.md` §7).
    ///
    /// Extra bytes after the header are ignored. Throws the first failing check's error.
    public static func decode(_ bytes: some Collection<UInt8>) throws -> Header {
        guard let fields = HeaderFields(parsing: bytes) else {
            throw GoshuinError(.shortHeader, "the file has \(bytes.count) bytes, fewer than the 45-byte header")
        }
        return try Header(validating: fields)
    }

    /// The 45 bytes of the header, which are also every chunk's additional authenticated data.
    public func encode() -> [UInt8] { fields.encode() }

    /// The layout this header implies.
    package var layout: ContainerLayout {
        ContainerLayout(chunkSize: chunkSize, plaintextLength: plaintextLength)
    }
}
