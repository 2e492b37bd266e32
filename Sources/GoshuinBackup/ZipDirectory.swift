import GoshuinFormat

/// One entry of a backup ZIP as its structure scan found it.
public struct ZipEntry: Equatable, Sendable {
    /// The entry's name (safe: see ``EntryName/isSafeEntryName(_:)``).
    public let name: String
    /// 0 (stored) or 8 (deflate).
    public let method: UInt16
    /// The declared CRC-32 of the uncompressed data.
    package let crc32: UInt32
    /// The declared size of the stored data.
    public let compressedSize: UInt64
    /// The declared size of the data once inflated.
    public let uncompressedSize: UInt64
    /// The offset of the entry's local header.
    package let localHeaderOffset: UInt64
    /// The offset of the entry's record in the central directory.
    package let centralRecordOffset: UInt64
    /// The entry's position in the central directory.
    package let index: Int
    /// When the file was last modified, in seconds since 1970 (UTC), from the extended timestamp field or
    /// the DOS fields; `nil` when the entry says nothing of it.
    package let modificationTime: Int?
}

/// The result of a strict structure scan: every entry, in central-directory order, found by name in
/// constant time.
package struct ZipDirectory: Equatable, Sendable {
    /// The entries, in central-directory order.
    package let entries: [ZipEntry]
    /// Where the central directory starts.
    package let centralDirectoryOffset: UInt64
    /// The sum of the declared uncompressed sizes.
    package let totalUncompressedSize: UInt64
    private let indexByName: [String: Int]

    /// A directory of `entries`, whose names are unique.
    init(entries: [ZipEntry], centralDirectoryOffset: UInt64) {
        self.entries = entries
        self.centralDirectoryOffset = centralDirectoryOffset
        // Each size is below 2^64 and there are at most 50,000: the sum saturates rather than trapping.
        totalUncompressedSize = entries.reduce(0) { total, entry in
            let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
            return overflow ? .max : sum
        }
        indexByName = Dictionary(entries.map { ($0.name, $0.index) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entry named `name`.
    package func entry(named name: String) -> ZipEntry? { indexByName[name].map { entries[$0] } }

    /// The entries in the order their data lies in the file, which is the order that reads each part of
    /// the file once, whatever order the central directory lists them in; entries that claim the same
    /// offset in central-directory order.
    package var entriesInFileOrder: [ZipEntry] {
        entries.sorted { ($0.localHeaderOffset, $0.index) < ($1.localHeaderOffset, $1.index) }
    }

    /// Compares the entries and the central directory's offset.
    package static func == (lhs: ZipDirectory, rhs: ZipDirectory) -> Bool {
        lhs.entries == rhs.entries && lhs.centralDirectoryOffset == rhs.centralDirectoryOffset
    }
}
