/// One entry of a backup ZIP as its structure scan found it.
public struct ZipEntry: Equatable, Sendable {
    /// The entry's name (safe: see ``EntryName/isSafeEntryName(_:)``).
    public let name: String
    /// 0 (stored) or 8 (deflate).
    public let method: UInt16
    /// The declared CRC-32 of the uncompressed data.
    public let crc32: UInt32
    /// The declared size of the stored data.
    public let compressedSize: UInt64
    /// The declared size of the data once inflated.
    public let uncompressedSize: UInt64
    /// The offset of the entry's local header.
    public let localHeaderOffset: UInt64
    /// The offset of the entry's record in the central directory.
    public let centralRecordOffset: UInt64
    /// The entry's position in the central directory.
    public let index: Int
}

/// The result of a strict structure scan: every entry, in central-directory order.
public struct ZipDirectory: Equatable, Sendable {
    /// The entries.
    public let entries: [ZipEntry]
    /// Where the central directory starts.
    public let centralDirectoryOffset: UInt64

    /// The sum of the declared uncompressed sizes.
    public var totalUncompressedSize: UInt64 { entries.reduce(0) { $0 + $1.uncompressedSize } }

    /// The entry named `name`.
    public func entry(named name: String) -> ZipEntry? { entries.first { $0.name == name } }
}
