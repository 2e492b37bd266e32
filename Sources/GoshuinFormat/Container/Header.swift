/// The 45-byte v1 header (`Spec/container-v1.md` §2), validated.
///
/// A `Header` value always satisfies the bounds of §2.1, a non-empty payload and at most 2^32 chunks:
/// both ``init(kdfIterations:salt:nonceBase:chunkSize:plaintextLength:)`` and ``decode(_:)`` refuse
/// anything else, so ``encode()`` always writes a header a reader accepts.
package struct Header: Equatable, Sendable {
    /// The header's size in bytes.
    package static let byteCount = 45
    /// The magic bytes `GSHN`.
    package static let magic: [UInt8] = Array("GSHN".utf8)
    /// The version this toolkit reads and writes.
    package static let version: UInt8 = 1
    /// The salt's size in bytes.
    package static let saltLength = 16
    /// The nonce base's size in bytes.
    package static let nonceBaseLength = 8
    /// The accepted `kdfIterations`.
    package static let iterationRange: ClosedRange<UInt32> = 1_000...2_000_000
    /// The accepted `chunkSize`.
    package static let chunkSizeRange: ClosedRange<UInt32> = 1_024...67_108_864
    /// The most chunks a file may have: the chunk index is a u32.
    package static let maximumChunkCount: UInt64 = 1 << 32
    /// The iteration count used when sealing unless another is asked for.
    package static let defaultIterations: UInt32 = 600_000
    /// The chunk size used when sealing unless another is asked for (4 MiB).
    package static let defaultChunkSize: UInt32 = 4 * 1_048_576

    /// PBKDF2 iterations.
    package let kdfIterations: UInt32
    /// The 16-byte PBKDF2 salt.
    package let salt: [UInt8]
    /// The 8-byte prefix of every chunk's nonce.
    package let nonceBase: [UInt8]
    /// Plaintext bytes per chunk (the last chunk may hold fewer).
    package let chunkSize: UInt32
    /// The payload's length.
    package let plaintextLength: UInt64

    /// A header for sealing, checked against the bounds.
    ///
    /// - Throws: `iterations_out_of_range`, `chunk_size_out_of_range`, `empty_payload`, `too_many_chunks`,
    ///   or `invalid_argument` for a salt or nonce base of the wrong length.
    package init(
        kdfIterations: UInt32, salt: [UInt8], nonceBase: [UInt8], chunkSize: UInt32, plaintextLength: UInt64
    ) throws {
        guard salt.count == Self.saltLength, nonceBase.count == Self.nonceBaseLength else {
            throw GoshuinError(.invalidArgument, "the salt is 16 bytes and the nonce base 8")
        }
        let fields = HeaderFields(
            magic: Self.magic, version: Self.version, kdfIterations: kdfIterations, salt: salt, nonceBase: nonceBase,
            chunkSize: chunkSize, plaintextLength: plaintextLength)
        try fields.validate()
        self.kdfIterations = kdfIterations
        self.salt = salt
        self.nonceBase = nonceBase
        self.chunkSize = chunkSize
        self.plaintextLength = plaintextLength
    }

    /// Decodes and validates the first 45 bytes of `bytes` (checks 1–7 of `Spec/container-v1.md` §7).
    ///
    /// Extra bytes after the header are ignored. Throws the first failing check's error.
    package static func decode(_ bytes: some Collection<UInt8>) throws -> Header {
        guard let fields = HeaderFields(parsing: bytes) else {
            throw GoshuinError(.shortHeader, "the file has \(bytes.count) bytes, fewer than the 45-byte header")
        }
        try fields.validate()
        return try Header(
            kdfIterations: fields.kdfIterations, salt: fields.salt, nonceBase: fields.nonceBase,
            chunkSize: fields.chunkSize, plaintextLength: fields.plaintextLength)
    }

    /// The 45 bytes of the header, which are also every chunk's additional authenticated data.
    package func encode() -> [UInt8] {
        HeaderFields(
            magic: Self.magic, version: Self.version, kdfIterations: kdfIterations, salt: salt, nonceBase: nonceBase,
            chunkSize: chunkSize, plaintextLength: plaintextLength
        ).encode()
    }

    /// The layout this header implies.
    package var layout: ContainerLayout {
        ContainerLayout(chunkSize: chunkSize, plaintextLength: plaintextLength)
    }
}
