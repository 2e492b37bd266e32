import GoshuinFormat

/// The records a backup ZIP is made of (PKWARE's APPNOTE 6.3.10 §4.3, §4.5), one struct each with named
/// fields and its size, read by the strict scan (``ZipStructureScanner``) and written by the writer
/// (``BackupZipWriter``): every field is spelled once, in one order, for both.
///
/// Parsing reads the fixed part from a ``ByteCursor`` and returns `nil` when the bytes are cut or the
/// signature differs; what the fields must say is the scan's business.
enum ZipRecord {
    /// The value of a 32-bit size or offset field, and of the 16-bit counts, that sends a reader to the
    /// ZIP64 records.
    static let limit32: UInt32 = 0xFFFF_FFFF
    /// The 16-bit field at its limit.
    static let limit16: UInt16 = 0xFFFF
    /// The host of "version made by" for Unix: its high byte.
    static let unixHost: UInt16 = 3
    /// "Version needed" for a stored or deflated entry (2.0) and for one with ZIP64 fields (4.5).
    static let versionNeeded: UInt16 = 20
    static let versionNeededWithZip64: UInt16 = 45
    /// "Version made by" as this toolkit writes it: Unix, APPNOTE 6.3.
    static let versionMadeBy: UInt16 = unixHost << 8 | 63
    /// A regular file's Unix mode, 0644, in the high half of the external attributes.
    static let regularFileAttributes: UInt32 = 0o100644 << 16
}

/// The general purpose bit flags of a local header and a central record (§4.4.4) that a backup's reader
/// judges: every other bit is ignored.
struct ZipFlags: OptionSet, Equatable {
    let rawValue: UInt16

    /// Bit 0: the entry is encrypted.
    static let encrypted = ZipFlags(rawValue: 1 << 0)
    /// Bit 3: the sizes and CRC-32 follow the data, in a data descriptor.
    static let dataDescriptor = ZipFlags(rawValue: 1 << 3)
    /// Bit 6: strong encryption.
    static let strongEncryption = ZipFlags(rawValue: 1 << 6)

    /// Either kind of encryption: a backup is encrypted as a whole, never by entry.
    static let encryption: ZipFlags = [.encrypted, .strongEncryption]
    /// What no entry of a backup has (`Spec/backup-v1.md` §4): encryption and a data descriptor.
    static let refused: ZipFlags = [.encryption, .dataDescriptor]

    /// The flags `value` holds.
    init(rawValue value: UInt16) { rawValue = value }
}

extension ZipRecord {
    /// A record's signature as the four bytes that start it.
    static func signatureBytes(_ signature: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: signature >> ($0 * 8)) }
    }

    /// Whether `bytes` start with `signature`.
    static func starts(_ bytes: some Collection<UInt8>, with signature: UInt32) -> Bool {
        bytes.starts(with: signatureBytes(signature))
    }
}

/// A local file header (§4.3.7): 30 bytes, then the name and the extra field.
struct ZipLocalHeader: Equatable {
    static let signature: UInt32 = 0x0403_4B50
    static let fixedLength = 30

    var versionNeeded: UInt16
    var flags: UInt16
    var method: UInt16
    var modificationTime: UInt16
    var modificationDate: UInt16
    var crc32: UInt32
    var compressedSize: UInt32
    var uncompressedSize: UInt32
    var nameLength: UInt16
    var extraLength: UInt16

    func encode(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(Self.signature)
        for field in [versionNeeded, flags, method, modificationTime, modificationDate] {
            bytes.appendLittleEndian(field)
        }
        for field in [crc32, compressedSize, uncompressedSize] { bytes.appendLittleEndian(field) }
        bytes.appendLittleEndian(nameLength)
        bytes.appendLittleEndian(extraLength)
    }
}

extension ZipLocalHeader {
    /// The fixed part at the cursor; `nil` when cut or not a local header.
    init?(_ cursor: inout ByteCursor) {
        guard cursor.littleEndian(UInt32.self) == Self.signature, let versionNeeded = cursor.littleEndian(UInt16.self),
            let flags = cursor.littleEndian(UInt16.self), let method = cursor.littleEndian(UInt16.self),
            let time = cursor.littleEndian(UInt16.self), let date = cursor.littleEndian(UInt16.self),
            let crc32 = cursor.littleEndian(UInt32.self), let compressedSize = cursor.littleEndian(UInt32.self),
            let uncompressedSize = cursor.littleEndian(UInt32.self), let nameLength = cursor.littleEndian(UInt16.self),
            let extraLength = cursor.littleEndian(UInt16.self)
        else { return nil }
        self.init(
            versionNeeded: versionNeeded, flags: flags, method: method, modificationTime: time, modificationDate: date,
            crc32: crc32, compressedSize: compressedSize, uncompressedSize: uncompressedSize, nameLength: nameLength,
            extraLength: extraLength)
    }
}

/// A central directory record (§4.3.12): 46 bytes, then the name, the extra field and the comment.
struct ZipCentralRecord: Equatable {
    static let signature: UInt32 = 0x0201_4B50
    static let fixedLength = 46

    var versionMadeBy: UInt16
    var versionNeeded: UInt16
    var flags: UInt16
    var method: UInt16
    var modificationTime: UInt16
    var modificationDate: UInt16
    var crc32: UInt32
    var compressedSize: UInt32
    var uncompressedSize: UInt32
    var nameLength: UInt16
    var extraLength: UInt16
    var commentLength: UInt16
    var diskNumberStart: UInt16
    var internalAttributes: UInt16
    var externalAttributes: UInt32
    var localHeaderOffset: UInt32

    func encode(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(Self.signature)
        for field in [versionMadeBy, versionNeeded, flags, method, modificationTime, modificationDate] {
            bytes.appendLittleEndian(field)
        }
        for field in [crc32, compressedSize, uncompressedSize] { bytes.appendLittleEndian(field) }
        for field in [nameLength, extraLength, commentLength, diskNumberStart, internalAttributes] {
            bytes.appendLittleEndian(field)
        }
        bytes.appendLittleEndian(externalAttributes)
        bytes.appendLittleEndian(localHeaderOffset)
    }
}

extension ZipCentralRecord {
    /// The fixed part at the cursor; `nil` when cut or not a central record.
    init?(_ cursor: inout ByteCursor) {
        guard cursor.littleEndian(UInt32.self) == Self.signature, let madeBy = cursor.littleEndian(UInt16.self),
            let needed = cursor.littleEndian(UInt16.self), let flags = cursor.littleEndian(UInt16.self),
            let method = cursor.littleEndian(UInt16.self), let time = cursor.littleEndian(UInt16.self),
            let date = cursor.littleEndian(UInt16.self), let crc32 = cursor.littleEndian(UInt32.self),
            let compressedSize = cursor.littleEndian(UInt32.self),
            let uncompressedSize = cursor.littleEndian(UInt32.self), let nameLength = cursor.littleEndian(UInt16.self),
            let extraLength = cursor.littleEndian(UInt16.self), let commentLength = cursor.littleEndian(UInt16.self),
            let diskNumberStart = cursor.littleEndian(UInt16.self),
            let internalAttributes = cursor.littleEndian(UInt16.self),
            let externalAttributes = cursor.littleEndian(UInt32.self),
            let localHeaderOffset = cursor.littleEndian(UInt32.self)
        else { return nil }
        self.init(
            versionMadeBy: madeBy, versionNeeded: needed, flags: flags, method: method, modificationTime: time,
            modificationDate: date, crc32: crc32, compressedSize: compressedSize, uncompressedSize: uncompressedSize,
            nameLength: nameLength, extraLength: extraLength, commentLength: commentLength,
            diskNumberStart: diskNumberStart, internalAttributes: internalAttributes,
            externalAttributes: externalAttributes, localHeaderOffset: localHeaderOffset)
    }
}

/// The end of central directory record (§4.3.16): 22 bytes, then the comment (a backup has none).
struct ZipEndRecord: Equatable {
    static let signature: UInt32 = 0x0605_4B50
    static let fixedLength = 22

    var diskNumber: UInt16
    var directoryDisk: UInt16
    var entriesOnDisk: UInt16
    var entries: UInt16
    var directorySize: UInt32
    var directoryOffset: UInt32
    var commentLength: UInt16

    /// Whether a field is at its limit: the ZIP64 end records then hold its value.
    var hasFieldAtLimit: Bool {
        [diskNumber, directoryDisk, entriesOnDisk, entries].contains(ZipRecord.limit16)
            || directorySize == ZipRecord.limit32 || directoryOffset == ZipRecord.limit32
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(Self.signature)
        for field in [diskNumber, directoryDisk, entriesOnDisk, entries] { bytes.appendLittleEndian(field) }
        bytes.appendLittleEndian(directorySize)
        bytes.appendLittleEndian(directoryOffset)
        bytes.appendLittleEndian(commentLength)
    }
}

extension ZipEndRecord {
    /// Whether `bytes` are exactly an end record without a comment: what ends a backup's ZIP.
    static func isCommentlessEnd(_ bytes: [UInt8]) -> Bool {
        var cursor = ByteCursor(bytes)
        return bytes.count == fixedLength && ZipEndRecord(&cursor)?.commentLength == 0
    }

    /// The record at the cursor; `nil` when cut or not an end record.
    init?(_ cursor: inout ByteCursor) {
        guard cursor.littleEndian(UInt32.self) == Self.signature, let disk = cursor.littleEndian(UInt16.self),
            let directoryDisk = cursor.littleEndian(UInt16.self), let entriesOnDisk = cursor.littleEndian(UInt16.self),
            let entries = cursor.littleEndian(UInt16.self), let directorySize = cursor.littleEndian(UInt32.self),
            let directoryOffset = cursor.littleEndian(UInt32.self), let commentLength = cursor.littleEndian(UInt16.self)
        else { return nil }
        self.init(
            diskNumber: disk, directoryDisk: directoryDisk, entriesOnDisk: entriesOnDisk, entries: entries,
            directorySize: directorySize, directoryOffset: directoryOffset, commentLength: commentLength)
    }
}

/// The ZIP64 end of central directory record (§4.3.14), without extensible data: 56 bytes.
struct Zip64EndRecord: Equatable {
    static let signature: UInt32 = 0x0606_4B50
    static let fixedLength = 56
    /// The size the record states: what follows its size field.
    static let statedSize: UInt64 = 44

    var recordSize: UInt64 = statedSize
    var versionMadeBy: UInt16
    var versionNeeded: UInt16
    var diskNumber: UInt32
    var directoryDisk: UInt32
    var entriesOnDisk: UInt64
    var entries: UInt64
    var directorySize: UInt64
    var directoryOffset: UInt64

    func encode(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(Self.signature)
        bytes.appendLittleEndian(recordSize)
        bytes.appendLittleEndian(versionMadeBy)
        bytes.appendLittleEndian(versionNeeded)
        bytes.appendLittleEndian(diskNumber)
        bytes.appendLittleEndian(directoryDisk)
        for field in [entriesOnDisk, entries, directorySize, directoryOffset] { bytes.appendLittleEndian(field) }
    }
}

extension Zip64EndRecord {
    /// The record at the cursor; `nil` when cut or not a ZIP64 end record.
    init?(_ cursor: inout ByteCursor) {
        guard cursor.littleEndian(UInt32.self) == Self.signature, let size = cursor.littleEndian(UInt64.self),
            let madeBy = cursor.littleEndian(UInt16.self), let needed = cursor.littleEndian(UInt16.self),
            let disk = cursor.littleEndian(UInt32.self), let directoryDisk = cursor.littleEndian(UInt32.self),
            let entriesOnDisk = cursor.littleEndian(UInt64.self), let entries = cursor.littleEndian(UInt64.self),
            let directorySize = cursor.littleEndian(UInt64.self), let directoryOffset = cursor.littleEndian(UInt64.self)
        else { return nil }
        self.init(
            recordSize: size, versionMadeBy: madeBy, versionNeeded: needed, diskNumber: disk,
            directoryDisk: directoryDisk, entriesOnDisk: entriesOnDisk, entries: entries, directorySize: directorySize,
            directoryOffset: directoryOffset)
    }
}

/// The ZIP64 end of central directory locator (§4.3.15): 20 bytes.
struct Zip64Locator: Equatable {
    static let signature: UInt32 = 0x0706_4B50
    static let fixedLength = 20

    var directoryDisk: UInt32
    var recordOffset: UInt64
    var totalDisks: UInt32

    func encode(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(Self.signature)
        bytes.appendLittleEndian(directoryDisk)
        bytes.appendLittleEndian(recordOffset)
        bytes.appendLittleEndian(totalDisks)
    }
}

extension Zip64Locator {
    /// The locator at the cursor; `nil` when cut or not a locator.
    init?(_ cursor: inout ByteCursor) {
        guard cursor.littleEndian(UInt32.self) == Self.signature, let disk = cursor.littleEndian(UInt32.self),
            let offset = cursor.littleEndian(UInt64.self), let total = cursor.littleEndian(UInt32.self)
        else { return nil }
        self.init(directoryDisk: disk, recordOffset: offset, totalDisks: total)
    }
}

/// The extra fields of a header (§4.5): `(identifier u16, length u16, data)` tiling the extra area.
struct ZipExtraFields {
    /// The ZIP64 extended information field (§4.5.3).
    static let zip64Identifier: UInt16 = 0x0001
    /// Info-ZIP's extended timestamp field ("UT"): a flags byte, then the times its bits name, each a u32
    /// of seconds since 1970 UTC; a central directory's copy holds the modification time only.
    static let extendedTimestampIdentifier: UInt16 = 0x5455
    /// Bytes of an extended timestamp field holding the modification time: flags and the u32.
    static let extendedTimestampLength = 5
    /// Bytes before a field's data: identifier and length.
    static let fieldHeaderLength = 4

    /// The ZIP64 field's values, `nil` when there is none.
    private(set) var zip64: ByteCursor?
    /// The modification time of a well-formed extended timestamp field with one, `nil` otherwise.
    private(set) var modificationTime: UInt32?

    /// The fields of `extra`, which must tile it exactly, with at most one ZIP64 field.
    ///
    /// - Throws: `zip_malformed` naming `name`.
    init(_ extra: ArraySlice<UInt8>, name: String) throws {
        var reader = ByteCursor(extra)
        while !reader.isAtEnd {
            guard let identifier = reader.littleEndian(UInt16.self), let length = reader.littleEndian(UInt16.self),
                var field = reader.cursor(over: Int(length))
            else { throw GoshuinError.zipMalformed("\(name) has a malformed extra field") }
            switch identifier {
            case Self.zip64Identifier:
                guard zip64 == nil else { throw GoshuinError.zipMalformed("\(name) has two ZIP64 extra fields") }
                zip64 = field
            case Self.extendedTimestampIdentifier:
                if let flags = field.littleEndian(UInt8.self), flags & 1 != 0 {
                    modificationTime = field.littleEndian(UInt32.self)
                }
            default:
                break
            }
        }
    }

    /// The ZIP64 field with `values`, each 8 bytes.
    static func encodeZip64(_ values: [UInt64], into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(zip64Identifier)
        bytes.appendLittleEndian(UInt16(8 * values.count))
        for value in values { bytes.appendLittleEndian(value) }
    }

    /// The extended timestamp field holding the modification time `seconds`.
    static func encodeExtendedTimestamp(_ seconds: UInt32, into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(extendedTimestampIdentifier)
        bytes.appendLittleEndian(UInt16(extendedTimestampLength))
        bytes.append(1)
        bytes.appendLittleEndian(seconds)
    }
}

extension [UInt8] {
    /// Appends `value` as little-endian bytes.
    mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        for shift in stride(from: 0, to: Value.bitWidth, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
