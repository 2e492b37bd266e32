import GoshuinFormat

/// A recovery slice packet (`Spec/recovery-par2.md` §3.5): the exponent, then one slice of recovery data.
/// The data stays in its file: a reader keeps where it is (``RecoverySliceLocation``), never its bytes.
enum RecoverySlicePacket {
    /// The largest slice a reader accepts, in bytes (its packet is read in strips, never whole).
    static let maximumSliceSize: UInt64 = 1 << 40
    /// The longest body: the exponent and the largest slice.
    static let maximumBodyLength = 4 + Int(maximumSliceSize)
    /// The highest exponent a reader accepts: par2cmdline's are 16-bit.
    static let maximumExponent: UInt32 = 65_535

    /// The packet's length for slices of `sliceSize` bytes.
    static func length(sliceSize: UInt64) -> UInt64 { UInt64(PacketHeader.byteCount + 4) + sliceSize }

    /// The header and exponent of the packet whose data hashed to `hash` (the MD5 that
    /// ``startHash(setID:exponent:)`` began, fed the data).
    static func prefix(setID: RecoverySetID, exponent: UInt32, sliceSize: UInt64, hash: [UInt8]) -> [UInt8] {
        let header = PacketHeader(
            length: length(sliceSize: sliceSize), packetHash: hash, setID: setID, type: .recoverySlice)
        var bytes = header.encode()
        bytes.appendLittleEndian(exponent)
        return bytes
    }

    /// The packet hash of a recovery slice, begun: the set ID, the type and the exponent; the data follows.
    static func startHash(setID: RecoverySetID, exponent: UInt32) throws -> MD5Hasher {
        let hasher = try MD5Hasher()
        var start = setID.bytes + PacketType.recoverySlice.bytes
        start.appendLittleEndian(exponent)
        try hasher.update(start[...])
        return hasher
    }
}

/// Where a verified recovery slice's data lies.
struct RecoverySliceLocation: Equatable, Sendable {
    /// The index of the recovery file, in the reader's list.
    let file: Int
    /// The offset of the first data byte in that file.
    let dataOffset: UInt64
    /// The exponent.
    let exponent: UInt32
}
