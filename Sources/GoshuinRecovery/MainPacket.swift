import GoshuinFormat

/// The main packet (`Spec/recovery-par2.md` §3.2): the slice size, how many of the files listed are
/// recoverable, and the file IDs, recoverable ones first, each group sorted. The recovery set ID is the MD5
/// of this body.
struct MainPacket: Equatable, Sendable {
    /// The most file IDs a main packet may list (par2cmdline's bound too).
    static let maximumFileCount = 32_768
    /// The longest body: the slice size, the count and the most file IDs.
    static let maximumBodyLength = 12 + 16 * maximumFileCount

    /// The size of every slice in bytes: a multiple of 4, not 0.
    let sliceSize: UInt64
    /// The files whose slices the recovery data covers, in the order of their slices.
    let recoverableFiles: [RecoveryFileID]
    /// Files listed but not covered by the recovery data.
    let otherFiles: [RecoveryFileID]

    /// A main packet with its fields.
    init(sliceSize: UInt64, recoverableFiles: [RecoveryFileID], otherFiles: [RecoveryFileID] = []) {
        self.sliceSize = sliceSize
        self.recoverableFiles = recoverableFiles
        self.otherFiles = otherFiles
    }

    /// The packet from its body; `nil` when it is malformed: a slice size of 0 or not a multiple of 4, a
    /// body that is not a whole number of file IDs, more recoverable files than IDs.
    init?(body: ArraySlice<UInt8>) {
        var cursor = ByteCursor(body)
        guard body.count <= Self.maximumBodyLength, let sliceSize = cursor.littleEndian(UInt64.self),
            let recoverableCount = cursor.littleEndian(UInt32.self), sliceSize > 0, sliceSize % 4 == 0,
            cursor.remaining.count % 16 == 0, Int(recoverableCount) <= cursor.remaining.count / 16
        else { return nil }
        var identifiers: [RecoveryFileID] = []
        while let identifier = cursor.bytes(16) { identifiers.append(RecoveryFileID(identifier)) }
        self.sliceSize = sliceSize
        recoverableFiles = Array(identifiers[0..<Int(recoverableCount)])
        otherFiles = Array(identifiers[Int(recoverableCount)...])
    }

    /// The length of the body of a main packet listing `fileCount` files.
    static func bodyLength(fileCount: Int) -> Int { 12 + 16 * fileCount }

    /// The body's bytes.
    var body: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(sliceSize)
        bytes.appendLittleEndian(UInt32(recoverableFiles.count))
        for file in recoverableFiles + otherFiles { bytes += file.bytes }
        return bytes
    }

    /// The ID of the set this packet makes: the MD5 of its body.
    func setID() throws -> RecoverySetID { RecoverySetID(try MD5Hasher.hash(body[...])) }

    /// The whole packet.
    func encode() throws -> [UInt8] { try PacketEncoding.packet(.main, setID: setID(), body: body) }
}
