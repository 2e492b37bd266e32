import GoshuinFormat

/// An input file slice checksum packet, "IFSC" (`Spec/recovery-par2.md` §3.4): a file's ID, then the MD5
/// and the CRC-32 of each of its slices, the last one zero-padded to the slice size.
struct SliceChecksumPacket: Equatable, Sendable {
    /// The longest body: a file ID and the checksums of the most slices a set may have.
    static let maximumBodyLength = 16 + 20 * InputSliceConstants.maximumCount

    /// One slice's checksums.
    struct Checksum: Equatable, Sendable {
        /// The MD5 of the slice.
        let md5: [UInt8]
        /// Its CRC-32.
        let crc32: UInt32
    }

    /// The file whose slices these are.
    let fileID: RecoveryFileID
    /// One per slice, in order.
    let checksums: [Checksum]

    /// A packet with its fields.
    init(fileID: RecoveryFileID, checksums: [Checksum]) {
        self.fileID = fileID
        self.checksums = checksums
    }

    /// The packet from its body; `nil` when it is not a file ID followed by whole checksums.
    init?(body: ArraySlice<UInt8>) {
        var cursor = ByteCursor(body)
        guard body.count <= Self.maximumBodyLength, let fileID = cursor.bytes(16), cursor.remaining.count % 20 == 0
        else { return nil }
        var checksums: [Checksum] = []
        checksums.reserveCapacity(cursor.remaining.count / 20)
        while let md5 = cursor.bytes(16), let crc32 = cursor.littleEndian(UInt32.self) {
            checksums.append(Checksum(md5: md5, crc32: crc32))
        }
        self.fileID = RecoveryFileID(fileID)
        self.checksums = checksums
    }

    /// The body's bytes.
    var body: [UInt8] {
        var bytes = fileID.bytes
        bytes.reserveCapacity(16 + 20 * checksums.count)
        for checksum in checksums {
            bytes += checksum.md5
            bytes.appendLittleEndian(checksum.crc32)
        }
        return bytes
    }
}
