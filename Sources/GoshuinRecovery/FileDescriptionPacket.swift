import GoshuinFormat

/// A file description packet (`Spec/recovery-par2.md` §3.3): one file's ID, the MD5 of the whole file and
/// of its first 16 KiB, its length and its name (bytes, padded with zeros to a multiple of 4).
struct FileDescriptionPacket: Equatable, Sendable {
    /// The longest name a reader accepts, in bytes.
    static let maximumNameLength = 65_536
    /// The longest body.
    static let maximumBodyLength = 56 + maximumNameLength
    /// How many bytes the 16 KiB hash covers.
    static let hash16kLength = 16_384

    /// The file's ID, which must be MD5(hash16k ‖ length ‖ name).
    let fileID: RecoveryFileID
    /// The MD5 of the whole file.
    let fileHash: [UInt8]
    /// The MD5 of its first 16 KiB (of the whole file when shorter).
    let hash16k: [UInt8]
    /// Its length in bytes.
    let length: UInt64
    /// Its name as stored, without the padding: a name relative to the set's folder.
    let name: [UInt8]

    /// A description whose file ID is computed from the other fields.
    init(fileHash: [UInt8], hash16k: [UInt8], length: UInt64, name: [UInt8]) throws {
        self.fileID = try RecoveryFileID(hash16k: hash16k, length: length, name: name)
        self.fileHash = fileHash
        self.hash16k = hash16k
        self.length = length
        self.name = name
    }

    /// The packet from its body; `nil` when it is malformed: shorter than its fields, a name longer than
    /// ``maximumNameLength``, or a file ID that is not the MD5 of the others (a packet made for another file).
    init?(body: ArraySlice<UInt8>) throws {
        var cursor = ByteCursor(body)
        guard body.count <= Self.maximumBodyLength, let fileID = cursor.bytes(16), let fileHash = cursor.bytes(16),
            let hash16k = cursor.bytes(16), let length = cursor.littleEndian(UInt64.self)
        else { return nil }
        let name = PacketEncoding.withoutTrailingZeros(cursor.remaining)
        guard !name.isEmpty, try RecoveryFileID(hash16k: hash16k, length: length, name: name).bytes == fileID else {
            return nil
        }
        self.fileID = RecoveryFileID(fileID)
        self.fileHash = fileHash
        self.hash16k = hash16k
        self.length = length
        self.name = name
    }

    /// The body's bytes.
    var body: [UInt8] {
        var bytes = fileID.bytes + fileHash + hash16k
        bytes.appendLittleEndian(length)
        return bytes + PacketEncoding.paddedToFour(name)
    }

    /// The number of slices of `sliceSize` bytes the file is cut into; `nil` past `limit`.
    func sliceCount(sliceSize: UInt64, limit: Int) -> Int? {
        guard sliceSize > 0 else { return nil }
        let count = length / sliceSize + (length % sliceSize == 0 ? 0 : 1)
        return count <= UInt64(limit) ? Int(count) : nil
    }
}
