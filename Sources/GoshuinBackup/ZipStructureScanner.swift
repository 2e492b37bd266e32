import GoshuinFormat

/// A strict scan of a ZIP's structure on its raw bytes (`Spec/backup-v1.md` §4): the one parser that
/// decides where every entry is and how large it is. Entry data is then read at the offsets it verified
/// (``BackupArchive``), never through another parser's reading of the headers (`Spec/decisions/0009`).
///
/// The scan reads the end records, the central directory and each local header; it never reads entry data.
package enum ZipStructureScanner {
    /// The most entries a backup may hold.
    package static let maximumEntryCount = 50_000
    /// The largest ratio of inflated to deflated size accepted for one entry.
    package static let maximumCompressionRatio: UInt64 = 200

    private static let endRecordSignature: UInt32 = 0x0605_4B50
    private static let zip64EndRecordSignature: UInt32 = 0x0606_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let centralRecordSignature: UInt32 = 0x0201_4B50
    private static let localHeaderSignature: UInt32 = 0x0403_4B50

    /// Scans `source` and returns its entries; throws the first rule broken: the end records and the
    /// central directory (``scanCentralDirectory(_:)``), then every local header in file order
    /// (``ZipTiling``). Entry data is not read.
    package static func scan(_ source: RandomAccessSource) throws -> ZipDirectory {
        let directory = try scanCentralDirectory(source)
        var tiling = ZipTiling(directory)
        for entry in directory.entriesInFileOrder { _ = try tiling.check(entry, in: source) }
        try tiling.finish()
        return directory
    }

    /// The end records and the central directory only, every rule that concerns them checked; local
    /// headers and the layout of the data are not read (see ``scan(_:)``), so this touches only the end
    /// of the ZIP.
    package static func scanCentralDirectory(_ source: RandomAccessSource) throws -> ZipDirectory {
        let end = try readEndRecords(source)
        guard end.entryCount <= UInt64(maximumEntryCount) else {
            throw GoshuinError(
                .zipLimitExceeded, "the ZIP declares \(end.entryCount) entries; a backup holds at most 50,000")
        }
        var entries: [ZipEntry] = []
        var exactNames = Set<String>()
        var foldedNames = Set<String>()
        var position = end.directoryOffset
        for index in 0..<Int(end.entryCount) {
            let entry = try readCentralRecord(source, at: position, index: index, directoryEnd: end.directoryEnd)
            guard exactNames.insert(entry.record.name).inserted,
                foldedNames.insert(EntryName.foldedCase(entry.record.name)).inserted
            else {
                throw GoshuinError(
                    .duplicateEntry,
                    "the name \(DisplayText.quoted(entry.record.name)) appears twice (names are compared case-folded)")
            }
            entries.append(entry.record)
            position = entry.next
        }
        guard position == end.directoryEnd else {
            throw GoshuinError.zipMalformed("the central directory's size does not match its records")
        }
        return ZipDirectory(entries: entries, centralDirectoryOffset: end.directoryOffset)
    }

    private struct EndRecords {
        let entryCount: UInt64
        let directoryOffset: UInt64
        /// Where the central directory must end: the start of the (ZIP64) end records.
        let directoryEnd: UInt64
    }

    /// Reads the end-of-central-directory record, which must be the file's last 22 bytes (no comment), and
    /// the ZIP64 records when, and only when, one of its fields is at its limit.
    ///
    /// A comment is refused: ZIP readers such as minizip take the last end signature in the final 64 KiB, so a
    /// comment holding a second record would make them read other offsets than the ones this scan checked.
    private static func readEndRecords(_ source: RandomAccessSource) throws -> EndRecords {
        let size = source.size
        guard size >= 22, let tail = try source.readExactly(at: size - 22, count: 22) else {
            throw GoshuinError.zipMalformed("too short to be a ZIP")
        }
        var signature = ByteCursor(tail[...])
        guard signature.littleEndian(UInt32.self) == endRecordSignature, tail[20] == 0, tail[21] == 0 else {
            throw GoshuinError.zipMalformed(
                "what the file holds does not end like a ZIP: it holds a single file, not a backup (or a ZIP with a"
                    + " comment, or with data after it)")
        }
        var record = ByteCursor(tail[4...])
        guard let disk = record.littleEndian(UInt16.self), let directoryDisk = record.littleEndian(UInt16.self),
            let entriesOnDisk = record.littleEndian(UInt16.self),
            let entries = record.littleEndian(UInt16.self), let directorySize = record.littleEndian(UInt32.self),
            let directoryOffset = record.littleEndian(UInt32.self)
        else { throw GoshuinError.zipMalformed("the end record is cut") }
        let endOffset = size - 22
        let atLimit =
            [disk, directoryDisk, entriesOnDisk, entries].contains(0xFFFF)
            || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF
        guard atLimit else {
            guard disk == 0, directoryDisk == 0, entriesOnDisk == entries else {
                throw GoshuinError.zipMalformed("multi-disk ZIPs are not backups")
            }
            guard UInt64(directoryOffset) + UInt64(directorySize) == endOffset else {
                throw GoshuinError.zipMalformed("the central directory does not end where the end record starts")
            }
            return EndRecords(
                entryCount: UInt64(entries), directoryOffset: UInt64(directoryOffset), directoryEnd: endOffset)
        }
        let zip64 = try readZip64EndRecords(source, classicEndOffset: endOffset)
        // A field of the end record that is not at its limit must agree with the ZIP64 record (whose disk
        // numbers are 0 and whose two counts are equal).
        guard disk == 0xFFFF || disk == 0, directoryDisk == 0xFFFF || directoryDisk == 0,
            entriesOnDisk == 0xFFFF || UInt64(entriesOnDisk) == zip64.entryCount,
            entries == 0xFFFF || UInt64(entries) == zip64.entryCount,
            directoryOffset == 0xFFFF_FFFF || UInt64(directoryOffset) == zip64.directoryOffset,
            directorySize == 0xFFFF_FFFF || UInt64(directorySize) == zip64.directoryEnd - zip64.directoryOffset
        else { throw GoshuinError.zipMalformed("the end record and the ZIP64 end record disagree") }
        return zip64
    }

    private static func readZip64EndRecords(_ source: RandomAccessSource, classicEndOffset: UInt64) throws
        -> EndRecords
    {
        // The 56-byte ZIP64 end record, then the 20-byte locator, then the classic record: nothing between.
        guard classicEndOffset >= 76, let locatorBytes = try source.readExactly(at: classicEndOffset - 20, count: 20)
        else { throw GoshuinError.zipMalformed("the ZIP64 end records are missing") }
        var locator = ByteCursor(locatorBytes[...])
        guard locator.littleEndian(UInt32.self) == zip64LocatorSignature, locator.littleEndian(UInt32.self) == 0,
            let recordOffset = locator.littleEndian(UInt64.self),
            locator.littleEndian(UInt32.self) == 1, recordOffset == classicEndOffset - 76,
            let recordBytes = try source.readExactly(at: recordOffset, count: 56)
        else { throw GoshuinError.zipMalformed("the ZIP64 locator is invalid") }
        var record = ByteCursor(recordBytes[...])
        guard record.littleEndian(UInt32.self) == zip64EndRecordSignature,
            let recordSize = record.littleEndian(UInt64.self), recordSize == 44
        else {
            throw GoshuinError.zipMalformed("the ZIP64 end record is invalid or has extensible data")
        }
        record.skip(4)
        // One disk: both disk numbers 0, and as many entries on this disk as in all.
        guard record.littleEndian(UInt32.self) == 0, record.littleEndian(UInt32.self) == 0,
            let entriesOnDisk = record.littleEndian(UInt64.self),
            let entries = record.littleEndian(UInt64.self), entriesOnDisk == entries,
            let directorySize = record.littleEndian(UInt64.self),
            let directoryOffset = record.littleEndian(UInt64.self)
        else { throw GoshuinError.zipMalformed("the ZIP64 end record is invalid") }
        let (directoryEnd, overflow) = directoryOffset.addingReportingOverflow(directorySize)
        guard !overflow, directoryEnd == recordOffset else {
            throw GoshuinError.zipMalformed("the central directory does not end where the ZIP64 end record starts")
        }
        return EndRecords(entryCount: entries, directoryOffset: directoryOffset, directoryEnd: recordOffset)
    }

    private static func readCentralRecord(
        _ source: RandomAccessSource, at offset: UInt64, index: Int, directoryEnd: UInt64
    ) throws -> (record: ZipEntry, next: UInt64) {
        guard offset + 46 <= directoryEnd, let fixed = try source.readExactly(at: offset, count: 46) else {
            throw GoshuinError.zipMalformed("central directory record \(index) is cut")
        }
        var reader = ByteCursor(fixed[...])
        guard reader.littleEndian(UInt32.self) == centralRecordSignature, let madeBy = reader.littleEndian(UInt16.self),
            reader.littleEndian(UInt16.self) != nil,
            let flags = reader.littleEndian(UInt16.self), let method = reader.littleEndian(UInt16.self),
            reader.littleEndian(UInt32.self) != nil,
            let crc = reader.littleEndian(UInt32.self),
            let compressed32 = reader.littleEndian(UInt32.self), let uncompressed32 = reader.littleEndian(UInt32.self),
            let nameLength = reader.littleEndian(UInt16.self),
            let extraLength = reader.littleEndian(UInt16.self), let commentLength = reader.littleEndian(UInt16.self),
            let startDisk = reader.littleEndian(UInt16.self),
            reader.littleEndian(UInt16.self) != nil, let externalAttributes = reader.littleEndian(UInt32.self),
            let localOffset32 = reader.littleEndian(UInt32.self)
        else { throw GoshuinError.zipMalformed("central directory record \(index) is invalid") }
        let variableLength = Int(nameLength) + Int(extraLength) + Int(commentLength)
        guard offset + 46 + UInt64(variableLength) <= directoryEnd,
            let variable = try source.readExactly(at: offset + 46, count: variableLength)
        else { throw GoshuinError.zipMalformed("central directory record \(index) is cut") }
        let nameBytes = Array(variable[0..<Int(nameLength)])
        guard EntryName.isSafeEntryName(nameBytes) else {
            throw GoshuinError(
                .unsafeEntryName,
                "entry \(index) has the name \(DisplayText.quoted(bytes: nameBytes)); names are 1–255 of A–Z a–z 0–9 . _ - and not . or .."
            )
        }
        let name = String(decoding: nameBytes, as: UTF8.self)
        try checkEntryKind(name: name, flags: flags, method: method, madeBy: madeBy, attributes: externalAttributes)
        var sizes = (
            compressed: UInt64(compressed32), uncompressed: UInt64(uncompressed32), offset: UInt64(localOffset32)
        )
        try readZip64Extra(variable[Int(nameLength)..<Int(nameLength) + Int(extraLength)], into: &sizes, name: name)
        guard startDisk == 0 else { throw GoshuinError.zipMalformed("\(name) is on another disk") }
        try checkDeclaredSizes(
            name: name, method: method, compressed: sizes.compressed, uncompressed: sizes.uncompressed)
        let entry = ZipEntry(
            name: name, method: method, crc32: crc, compressedSize: sizes.compressed,
            uncompressedSize: sizes.uncompressed, localHeaderOffset: sizes.offset, centralRecordOffset: offset,
            index: index)
        return (entry, offset + 46 + UInt64(variableLength))
    }

    /// Refuses encryption, data descriptors, methods other than stored and deflate, directories, links and
    /// any other non-regular Unix mode.
    private static func checkEntryKind(
        name: String, flags: UInt16, method: UInt16, madeBy: UInt16, attributes: UInt32
    ) throws {
        if flags & 0x0041 != 0 {
            throw GoshuinError(
                .unsupportedEntry, "\(name) is encrypted; backups are encrypted as a whole, never by entry")
        }
        if flags & 0x0008 != 0 {
            throw GoshuinError(.unsupportedEntry, "\(name) uses a data descriptor, which backups do not use")
        }
        guard method == 0 || method == 8 else {
            throw GoshuinError(
                .unsupportedEntry, "\(name) uses compression method \(method); only stored and deflate are read")
        }
        if attributes & 0x10 != 0 {
            throw GoshuinError(.unsupportedEntry, "\(name) is a directory entry")
        }
        let unixHost: UInt16 = 3
        if madeBy >> 8 == unixHost {
            let fileType = (attributes >> 16) & 0o170000
            guard fileType == 0 || fileType == 0o100000 else {
                throw GoshuinError(
                    .unsupportedEntry, "\(name) is not a regular file (Unix type \(String(fileType, radix: 8)))")
            }
        }
    }

    /// Takes the 64-bit sizes and offset from the ZIP64 extra field where the 32-bit fields are at their
    /// limit, in the order uncompressed, compressed, offset: the field holds exactly those values, and a
    /// field at its limit without its value is refused.
    private static func readZip64Extra(
        _ extra: ArraySlice<UInt8>, into sizes: inout (compressed: UInt64, uncompressed: UInt64, offset: UInt64),
        name: String
    ) throws {
        var field = try zip64Field(extra, name: name)
        func value(_ current: UInt64) throws -> UInt64 {
            guard current == 0xFFFF_FFFF else { return current }
            guard let value = field?.littleEndian(UInt64.self) else {
                throw GoshuinError.zipMalformed("\(name) lacks a ZIP64 value it needs")
            }
            return value
        }
        sizes.uncompressed = try value(sizes.uncompressed)
        sizes.compressed = try value(sizes.compressed)
        sizes.offset = try value(sizes.offset)
        guard field?.isAtEnd ?? true else {
            throw GoshuinError.zipMalformed("\(name)'s ZIP64 extra field holds more than the values at their limit")
        }
    }

    private static func checkDeclaredSizes(name: String, method: UInt16, compressed: UInt64, uncompressed: UInt64)
        throws
    {
        if name == Manifest.fileName, uncompressed > UInt64(Manifest.maximumSize) {
            throw GoshuinError(.zipLimitExceeded, "manifest.json declares \(uncompressed) bytes; at most 16 MiB")
        }
        if method == 0 {
            guard compressed == uncompressed else {
                throw GoshuinError.zipMalformed("\(name) is stored but its two declared sizes differ")
            }
        } else {
            let (limit, overflow) = compressed.multipliedReportingOverflow(by: maximumCompressionRatio)
            guard overflow || uncompressed <= limit else {
                throw GoshuinError(
                    .zipLimitExceeded,
                    "\(name) would inflate \(compressed) bytes to \(uncompressed): more than 200 times (a ZIP bomb?)")
            }
        }
    }

    /// Checks an entry's local header against its central record, and that its data ends before the central
    /// directory; returns where its data starts.
    package static func checkLocalHeader(_ source: RandomAccessSource, _ entry: ZipEntry, directoryOffset: UInt64)
        throws -> UInt64
    {
        guard entry.localHeaderOffset <= directoryOffset,
            let fixed = try source.readExactly(at: entry.localHeaderOffset, count: 30)
        else { throw GoshuinError.zipMalformed("\(entry.name)'s local header is outside the file") }
        var reader = ByteCursor(fixed[...])
        guard reader.littleEndian(UInt32.self) == localHeaderSignature, reader.littleEndian(UInt16.self) != nil,
            let flags = reader.littleEndian(UInt16.self),
            let method = reader.littleEndian(UInt16.self), reader.littleEndian(UInt32.self) != nil,
            let crc = reader.littleEndian(UInt32.self),
            let compressed = reader.littleEndian(UInt32.self), let uncompressed = reader.littleEndian(UInt32.self),
            let nameLength = reader.littleEndian(UInt16.self),
            let extraLength = reader.littleEndian(UInt16.self)
        else { throw GoshuinError.zipMalformed("\(entry.name)'s local header is invalid") }
        guard let localName = try source.readExactly(at: entry.localHeaderOffset + 30, count: Int(nameLength)),
            localName.elementsEqual(entry.name.utf8)
        else {
            throw GoshuinError.zipMalformed(
                "\(entry.name)'s local header names another file than the central directory")
        }
        guard
            let extra = try source.readExactly(
                at: entry.localHeaderOffset + 30 + UInt64(nameLength), count: Int(extraLength))
        else { throw GoshuinError.zipMalformed("\(entry.name)'s local extra field is cut") }
        var zip64Values = try zip64Field(extra[...], name: entry.name)
        let usesZip64 = compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF
        // Where the local header defers to its ZIP64 field, that field holds exactly both sizes
        // (APPNOTE 4.5.3).
        let zip64Agrees =
            !usesZip64
            || (zip64Values?.littleEndian(UInt64.self) == entry.uncompressedSize
                && zip64Values?.littleEndian(UInt64.self) == entry.compressedSize
                && zip64Values?.isAtEnd == true)
        guard method == entry.method, flags & 0x0049 == 0, crc == entry.crc32,
            compressed == 0xFFFF_FFFF || UInt64(compressed) == entry.compressedSize,
            uncompressed == 0xFFFF_FFFF || UInt64(uncompressed) == entry.uncompressedSize, zip64Agrees
        else {
            throw GoshuinError.zipMalformed("\(entry.name)'s local header disagrees with the central directory")
        }
        let dataOffset = entry.localHeaderOffset + 30 + UInt64(nameLength) + UInt64(extraLength)
        let (end, overflow) = dataOffset.addingReportingOverflow(entry.compressedSize)
        guard !overflow, end <= directoryOffset else {
            throw GoshuinError.zipMalformed("\(entry.name)'s data runs into the central directory")
        }
        return dataOffset
    }

    /// The values of the ZIP64 extra field (identifier 1) among `extra`'s fields, `nil` when there is none.
    /// The fields must tile `extra` exactly, and there is at most one ZIP64 field.
    private static func zip64Field(_ extra: ArraySlice<UInt8>, name: String) throws -> ByteCursor? {
        var reader = ByteCursor(extra)
        var zip64Values: ByteCursor?
        while !reader.isAtEnd {
            guard let identifier = reader.littleEndian(UInt16.self), let length = reader.littleEndian(UInt16.self),
                let field = reader.cursor(over: Int(length))
            else { throw GoshuinError.zipMalformed("\(name) has a malformed extra field") }
            guard identifier == 0x0001 else { continue }
            guard zip64Values == nil else { throw GoshuinError.zipMalformed("\(name) has two ZIP64 extra fields") }
            zip64Values = field
        }
        return zip64Values
    }
}

/// The exact tiling of a ZIP's local headers and data before its central directory, checked entry by
/// entry in file order: the first entry at offset 0, each next one where the one before it ends, no gap,
/// no overlap (the overlapping-entry ZIP bomb), the last one ending where the central directory starts,
/// and each local header agreeing with its central record.
struct ZipTiling {
    private let directoryOffset: UInt64
    private var expectedStart: UInt64 = 0

    /// A tiling of `directory`'s entries, to be checked in ``ZipDirectory/entriesInFileOrder``.
    init(_ directory: ZipDirectory) {
        directoryOffset = directory.centralDirectoryOffset
    }

    /// Checks that `entry`, the next in file order, starts where the last one ended, and its local header;
    /// returns where its data starts.
    mutating func check(_ entry: ZipEntry, in source: RandomAccessSource) throws -> UInt64 {
        if entry.localHeaderOffset != expectedStart {
            throw GoshuinError.zipMalformed(
                expectedStart == 0
                    ? "\(entry.localHeaderOffset) bytes come before the first entry"
                    : entry.localHeaderOffset < expectedStart
                        ? "\(entry.name) overlaps the entry before it" : "unaccounted bytes before \(entry.name)")
        }
        let dataOffset = try ZipStructureScanner.checkLocalHeader(source, entry, directoryOffset: directoryOffset)
        expectedStart = dataOffset + entry.compressedSize
        return dataOffset
    }

    /// Checks that the last entry ended where the central directory starts.
    func finish() throws {
        guard expectedStart == directoryOffset else {
            throw GoshuinError.zipMalformed("unaccounted bytes before the central directory")
        }
    }
}
