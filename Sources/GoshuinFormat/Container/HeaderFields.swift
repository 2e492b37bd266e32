/// The fields of a 45-byte version 1 header as stored, not necessarily valid: what `inspect` shows, and what a
/// ``Header`` holds once they passed ``validate()``.
package struct HeaderFields: Equatable, Sendable {
    /// Bytes 0–3, `GSHN` in a valid file.
    package let magic: [UInt8]
    /// Byte 4.
    package let version: UInt8
    /// Bytes 5–8, big-endian.
    package let kdfIterations: UInt32
    /// Bytes 9–24.
    package let salt: [UInt8]
    /// Bytes 25–32.
    package let nonceBase: [UInt8]
    /// Bytes 33–36, big-endian.
    package let chunkSize: UInt32
    /// Bytes 37–44, big-endian.
    package let plaintextLength: UInt64

    /// Fields as given; nothing is checked.
    package init(
        magic: [UInt8], version: UInt8, kdfIterations: UInt32, salt: [UInt8], nonceBase: [UInt8], chunkSize: UInt32,
        plaintextLength: UInt64
    ) {
        self.magic = magic
        self.version = version
        self.kdfIterations = kdfIterations
        self.salt = salt
        self.nonceBase = nonceBase
        self.chunkSize = chunkSize
        self.plaintextLength = plaintextLength
    }

    /// Reads the fields from the first 45 bytes; `nil` when there are fewer.
    package init?(parsing bytes: some Collection<UInt8>) {
        var cursor = ByteCursor(Array(bytes.prefix(Header.byteCount)))
        guard let magic = cursor.bytes(4), let version = cursor.bigEndian(UInt8.self),
            let kdfIterations = cursor.bigEndian(UInt32.self), let salt = cursor.bytes(Header.saltLength),
            let nonceBase = cursor.bytes(Header.nonceBaseLength), let chunkSize = cursor.bigEndian(UInt32.self),
            let plaintextLength = cursor.bigEndian(UInt64.self)
        else { return nil }
        self.init(
            magic: magic, version: version, kdfIterations: kdfIterations, salt: salt, nonceBase: nonceBase,
            chunkSize: chunkSize, plaintextLength: plaintextLength)
    }

    /// The 45 bytes, big-endian.
    package func encode() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Header.byteCount)
        bytes += magic
        bytes.append(version)
        bytes.appendBigEndian(kdfIterations)
        bytes += salt
        bytes += nonceBase
        bytes.appendBigEndian(chunkSize)
        bytes.appendBigEndian(plaintextLength)
        return bytes
    }

    /// The chunk count these fields imply, computed without overflow; `nil` for an empty payload or a zero
    /// chunk size.
    package var chunkCount: UInt64? {
        guard plaintextLength > 0, chunkSize > 0 else { return nil }
        return (plaintextLength - 1) / UInt64(chunkSize) + 1
    }

    /// Checks 2–7 of `Spec/container-v1.md` §7, in that order; throws the first that fails (a reader of both
    /// versions dispatched on the version byte before: ``ContainerStructure``).
    package func validate() throws {
        guard magic == Header.magic else {
            throw GoshuinError(.badMagic, "the file does not start with GSHN: it is not a .goshuin file")
        }
        guard version == FormatVersion.v1.rawValue else {
            throw GoshuinError.unsupportedVersion(version)
        }
        try Header.checkBounds(iterations: kdfIterations, chunkSize: chunkSize)
        guard let chunkCount else {
            throw GoshuinError(
                .emptyPayload, "the payload is empty; v1 cannot authenticate an empty payload, so it is refused")
        }
        guard chunkCount <= Header.maximumChunkCount else {
            throw GoshuinError(
                .tooManyChunks, "the header implies \(chunkCount) chunks; the chunk index allows at most 2^32")
        }
    }
}

extension [UInt8] {
    /// Appends `value` as big-endian bytes.
    mutating func appendBigEndian<Value: FixedWidthInteger>(_ value: Value) {
        let size = Value.bitWidth / 8
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
