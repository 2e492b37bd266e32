import GoshuinFormat

/// The 64-byte header every PAR 2.0 packet starts with (`Spec/recovery-par2.md` §3.1): the magic, the
/// length of the whole packet, the MD5 of everything after the hash field, the recovery set's ID and the
/// packet's type. All integers are little-endian.
struct PacketHeader: Equatable, Sendable {
    /// `PAR2\0PKT`.
    static let magic: [UInt8] = Array("PAR2".utf8) + [0] + Array("PKT".utf8)
    /// The header's size in bytes.
    static let byteCount = 64
    /// Where the bytes the packet hash covers start: the recovery set ID.
    static let hashedStart = 32

    /// The length of the whole packet, header included: a multiple of 4, at least 64.
    let length: UInt64
    /// The MD5 of the packet's bytes from ``hashedStart`` to its end.
    let packetHash: [UInt8]
    /// The recovery set this packet belongs to.
    let setID: RecoverySetID
    /// The packet's type, as stored.
    let typeBytes: [UInt8]

    /// The type, when it is one of the core types.
    var type: PacketType? { PacketType(typeBytes) }

    /// The length of the body, after the header.
    var bodyLength: UInt64 { length - UInt64(Self.byteCount) }

    /// A header read from the first 64 bytes of `cursor`: `nil` when they are not a packet header (the magic
    /// differs, or the length is below 64 or not a multiple of 4).
    init?(parsing cursor: inout ByteCursor) {
        guard let magic = cursor.bytes(8), magic == Self.magic, let length = cursor.littleEndian(UInt64.self),
            let packetHash = cursor.bytes(16), let setID = cursor.bytes(16), let typeBytes = cursor.bytes(16),
            length >= UInt64(Self.byteCount), length % 4 == 0
        else { return nil }
        self.length = length
        self.packetHash = packetHash
        self.setID = RecoverySetID(setID)
        self.typeBytes = typeBytes
    }

    /// A header with its fields.
    init(length: UInt64, packetHash: [UInt8], setID: RecoverySetID, type: PacketType) {
        self.length = length
        self.packetHash = packetHash
        self.setID = setID
        self.typeBytes = type.bytes
    }

    /// The 64 bytes.
    func encode() -> [UInt8] {
        var bytes = Self.magic
        bytes.appendLittleEndian(length)
        bytes += packetHash + setID.bytes + typeBytes
        return bytes
    }
}

/// The ID of a recovery set: the MD5 of its main packet's body.
struct RecoverySetID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes.
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Lower-case hex.
    var description: String { Hex.encode(bytes) }
}

/// The ID of a file in a recovery set: MD5(MD5 of its first 16 KiB ‖ its length ‖ its name).
struct RecoveryFileID: Hashable, Comparable, Sendable {
    /// The 16 bytes.
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The ID of the file with these properties.
    init(hash16k: [UInt8], length: UInt64, name: [UInt8]) throws {
        var input = hash16k
        input.appendLittleEndian(length)
        input += name
        bytes = try MD5Hasher.hash(input[...])
    }

    /// par2cmdline orders file IDs as 16-byte little-endian numbers (its `MD5Hash::operator<` compares from the
    /// last byte), and the main packet lists them in that order.
    static func < (lhs: RecoveryFileID, rhs: RecoveryFileID) -> Bool {
        for index in stride(from: 15, through: 0, by: -1) where lhs.bytes[index] != rhs.bytes[index] {
            return lhs.bytes[index] < rhs.bytes[index]
        }
        return false
    }
}

/// The core packet types of PAR 2.0, whose 16-byte type fields start with `PAR 2.0\0`.
enum PacketType: CaseIterable, Sendable {
    /// `PAR 2.0\0Main\0\0\0\0`: the slice size and the files.
    case main
    /// `PAR 2.0\0FileDesc`: one file's name, length and MD5s.
    case fileDescription
    /// `PAR 2.0\0IFSC\0\0\0\0`: one file's slice checksums.
    case sliceChecksums
    /// `PAR 2.0\0RecvSlic`: one recovery slice.
    case recoverySlice
    /// `PAR 2.0\0Creator\0`: the program that wrote the file.
    case creator

    /// The 16 bytes of the type field.
    var bytes: [UInt8] {
        let name: String
        switch self {
        case .main: name = "Main"
        case .fileDescription: name = "FileDesc"
        case .sliceChecksums: name = "IFSC"
        case .recoverySlice: name = "RecvSlic"
        case .creator: name = "Creator"
        }
        let bytes = Array("PAR 2.0".utf8) + [0] + Array(name.utf8)
        return bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
    }

    /// The type whose field is `bytes`, if it is a core type.
    init?(_ bytes: [UInt8]) {
        guard let type = Self.allCases.first(where: { $0.bytes == bytes }) else { return nil }
        self = type
    }

    /// The longest packet of this type a reader accepts, header included (`Spec/recovery-par2.md` §6): the
    /// bounds are checked before a byte of the body is read. A recovery slice's bound is its slice size's.
    var maximumLength: UInt64 {
        switch self {
        case .main: return UInt64(PacketHeader.byteCount + MainPacket.maximumBodyLength)
        case .fileDescription: return UInt64(PacketHeader.byteCount + FileDescriptionPacket.maximumBodyLength)
        case .sliceChecksums: return UInt64(PacketHeader.byteCount + SliceChecksumPacket.maximumBodyLength)
        case .recoverySlice: return UInt64(PacketHeader.byteCount + RecoverySlicePacket.maximumBodyLength)
        case .creator: return UInt64(PacketHeader.byteCount + CreatorPacket.maximumBodyLength)
        }
    }
}

/// The one way a packet's bytes are made: the header with the packet hash over the set ID, the type and the
/// body, then the body.
enum PacketEncoding {
    /// The whole packet of `type` in set `setID` with `body` (a multiple of 4 bytes).
    static func packet(_ type: PacketType, setID: RecoverySetID, body: [UInt8]) throws -> [UInt8] {
        precondition(body.count % 4 == 0, "a packet body is a multiple of 4 bytes")
        let hasher = try MD5Hasher()
        try hasher.update(setID.bytes[...])
        try hasher.update(type.bytes[...])
        try hasher.update(body[...])
        let header = PacketHeader(
            length: UInt64(PacketHeader.byteCount + body.count), packetHash: try hasher.finalize(), setID: setID,
            type: type)
        return header.encode() + body
    }

    /// `bytes` followed by zeros up to a multiple of 4.
    static func paddedToFour(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    /// `bytes` without its trailing zeros (a name or a client padded to a multiple of 4).
    static func withoutTrailingZeros(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0 { end -= 1 }
        return Array(bytes[bytes.startIndex..<end])
    }
}

extension Array where Element == UInt8 {
    /// Appends `value`, least significant byte first.
    mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        for shift in stride(from: 0, to: Value.bitWidth, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
