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
        let length = UInt64(ZipEndRecord.fixedLength)
        guard size >= length, let tail = try source.readExactly(at: size - length, count: ZipEndRecord.fixedLength)
        else { throw GoshuinError.zipMalformed("too short to be a ZIP") }
        var cursor = ByteCursor(tail)
        guard let end = ZipEndRecord(&cursor), end.commentLength == 0 else {
            throw GoshuinError.zipMalformed(
                "what the file holds does not end like a ZIP: it holds a single file, not a backup (or a ZIP with a"
                    + " comment, or with data after it)")
        }
        let endOffset = size - length
        guard end.hasFieldAtLimit else {
            guard end.diskNumber == 0, end.directoryDisk == 0, end.entriesOnDisk == end.entries else {
                throw GoshuinError.zipMalformed("multi-disk ZIPs are not backups")
            }
            guard UInt64(end.directoryOffset) + UInt64(end.directorySize) == endOffset else {
                throw GoshuinError.zipMalformed("the central directory does not end where the end record starts")
            }
            return EndRecords(
                entryCount: UInt64(end.entries), directoryOffset: UInt64(end.directoryOffset), directoryEnd: endOffset)
        }
        let zip64 = try readZip64EndRecords(source, classicEndOffset: endOffset)
        // A field of the end record that is not at its limit must agree with the ZIP64 record (whose disk
        // numbers are 0 and whose two counts are equal).
        let limit16 = ZipRecord.limit16
        let limit32 = ZipRecord.limit32
        guard end.diskNumber == limit16 || end.diskNumber == 0,
            end.directoryDisk == limit16 || end.directoryDisk == 0,
            end.entriesOnDisk == limit16 || UInt64(end.entriesOnDisk) == zip64.entryCount,
            end.entries == limit16 || UInt64(end.entries) == zip64.entryCount,
            end.directoryOffset == limit32 || UInt64(end.directoryOffset) == zip64.directoryOffset,
            end.directorySize == limit32 || UInt64(end.directorySize) == zip64.directoryEnd - zip64.directoryOffset
        else { throw GoshuinError.zipMalformed("the end record and the ZIP64 end record disagree") }
        return zip64
    }

    private static func readZip64EndRecords(_ source: RandomAccessSource, classicEndOffset: UInt64) throws
        -> EndRecords
    {
        // The 56-byte ZIP64 end record, then the 20-byte locator, then the classic record: nothing between.
        let recordLength = UInt64(Zip64EndRecord.fixedLength)
        let locatorLength = UInt64(Zip64Locator.fixedLength)
        guard classicEndOffset >= recordLength + locatorLength,
            let locatorBytes = try source.readExactly(
                at: classicEndOffset - locatorLength, count: Zip64Locator.fixedLength)
        else { throw GoshuinError.zipMalformed("the ZIP64 end records are missing") }
        var locatorCursor = ByteCursor(locatorBytes)
        guard let locator = Zip64Locator(&locatorCursor), locator.directoryDisk == 0, locator.totalDisks == 1,
            locator.recordOffset == classicEndOffset - locatorLength - recordLength,
            let recordBytes = try source.readExactly(at: locator.recordOffset, count: Zip64EndRecord.fixedLength)
        else { throw GoshuinError.zipMalformed("the ZIP64 locator is invalid") }
        var recordCursor = ByteCursor(recordBytes)
        guard let record = Zip64EndRecord(&recordCursor), record.recordSize == Zip64EndRecord.statedSize else {
            throw GoshuinError.zipMalformed("the ZIP64 end record is invalid or has extensible data")
        }
        // One disk: both disk numbers 0, and as many entries on this disk as in all.
        guard record.diskNumber == 0, record.directoryDisk == 0, record.entriesOnDisk == record.entries else {
            throw GoshuinError.zipMalformed("the ZIP64 end record is invalid")
        }
        let (directoryEnd, overflow) = record.directoryOffset.addingReportingOverflow(record.directorySize)
        guard !overflow, directoryEnd == locator.recordOffset else {
            throw GoshuinError.zipMalformed("the central directory does not end where the ZIP64 end record starts")
        }
        return EndRecords(
            entryCount: record.entries, directoryOffset: record.directoryOffset, directoryEnd: locator.recordOffset)
    }

    private static func readCentralRecord(
        _ source: RandomAccessSource, at offset: UInt64, index: Int, directoryEnd: UInt64
    ) throws -> (record: ZipEntry, next: UInt64) {
        let fixedLength = UInt64(ZipCentralRecord.fixedLength)
        guard offset + fixedLength <= directoryEnd,
            let fixed = try source.readExactly(at: offset, count: ZipCentralRecord.fixedLength)
        else { throw GoshuinError.zipMalformed("central directory record \(index) is cut") }
        var cursor = ByteCursor(fixed)
        guard let record = ZipCentralRecord(&cursor) else {
            throw GoshuinError.zipMalformed("central directory record \(index) is invalid")
        }
        let nameLength = Int(record.nameLength)
        let extraLength = Int(record.extraLength)
        let variableLength = nameLength + extraLength + Int(record.commentLength)
        guard offset + fixedLength + UInt64(variableLength) <= directoryEnd,
            let variable = try source.readExactly(at: offset + fixedLength, count: variableLength)
        else { throw GoshuinError.zipMalformed("central directory record \(index) is cut") }
        let nameBytes = Array(variable[0..<nameLength])
        guard EntryName.isSafeEntryName(nameBytes) else {
            throw GoshuinError(
                .unsafeEntryName,
                "entry \(index) has the name \(DisplayText.quoted(bytes: nameBytes)); names are 1–255 of A–Z a–z 0–9 . _ - and not . or .."
            )
        }
        let name = String(decoding: nameBytes, as: UTF8.self)
        try checkEntryKind(
            name: name, flags: record.flags, method: record.method, madeBy: record.versionMadeBy,
            attributes: record.externalAttributes)
        var sizes = (
            compressed: UInt64(record.compressedSize), uncompressed: UInt64(record.uncompressedSize),
            offset: UInt64(record.localHeaderOffset)
        )
        let extra = try ZipExtraFields(variable[nameLength..<nameLength + extraLength], name: name)
        try readZip64Values(extra, into: &sizes, name: name)
        guard record.diskNumberStart == 0 else { throw GoshuinError.zipMalformed("\(name) is on another disk") }
        try checkDeclaredSizes(
            name: name, method: record.method, compressed: sizes.compressed, uncompressed: sizes.uncompressed)
        let entry = ZipEntry(
            name: name, method: record.method, crc32: record.crc32, compressedSize: sizes.compressed,
            uncompressedSize: sizes.uncompressed, localHeaderOffset: sizes.offset, centralRecordOffset: offset,
            index: index,
            modificationTime: extra.modificationTime.map { Int($0) }
                ?? modificationTime(dosTime: record.modificationTime, dosDate: record.modificationDate))
        return (entry, offset + fixedLength + UInt64(variableLength))
    }

    /// The time DOS fields say, except 1980-01-01 00:00, the earliest, which says nothing (the toolkit's
    /// first writer gave it to every entry).
    private static func modificationTime(dosTime: UInt16, dosDate: UInt16) -> Int? {
        guard (dosTime, dosDate) != DOSTime.earliest else { return nil }
        return DOSTime.decode(time: dosTime, date: dosDate)
    }

    /// Refuses encryption, data descriptors, methods other than stored and deflate, directories, links and
    /// any other non-regular Unix mode.
    private static func checkEntryKind(
        name: String, flags: UInt16, method: UInt16, madeBy: UInt16, attributes: UInt32
    ) throws {
        if !ZipFlags(rawValue: flags).isDisjoint(with: .encryption) {
            throw GoshuinError(
                .unsupportedEntry, "\(name) is encrypted; backups are encrypted as a whole, never by entry")
        }
        if ZipFlags(rawValue: flags).contains(.dataDescriptor) {
            throw GoshuinError(.unsupportedEntry, "\(name) uses a data descriptor, which backups do not use")
        }
        guard method == 0 || method == 8 else {
            throw GoshuinError(
                .unsupportedEntry, "\(name) uses compression method \(method); only stored and deflate are read")
        }
        if attributes & 0x10 != 0 {
            throw GoshuinError(.unsupportedEntry, "\(name) is a directory entry")
        }
        if madeBy >> 8 == ZipRecord.unixHost {
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
    private static func readZip64Values(
        _ extra: ZipExtraFields, into sizes: inout (compressed: UInt64, uncompressed: UInt64, offset: UInt64),
        name: String
    ) throws {
        var field = extra.zip64
        func value(_ current: UInt64) throws -> UInt64 {
            guard current == UInt64(ZipRecord.limit32) else { return current }
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
            let fixed = try source.readExactly(at: entry.localHeaderOffset, count: ZipLocalHeader.fixedLength)
        else { throw GoshuinError.zipMalformed("\(entry.name)'s local header is outside the file") }
        var cursor = ByteCursor(fixed)
        guard let header = ZipLocalHeader(&cursor) else {
            throw GoshuinError.zipMalformed("\(entry.name)'s local header is invalid")
        }
        let nameOffset = entry.localHeaderOffset + UInt64(ZipLocalHeader.fixedLength)
        guard let localName = try source.readExactly(at: nameOffset, count: Int(header.nameLength)),
            localName.elementsEqual(entry.name.utf8)
        else {
            throw GoshuinError.zipMalformed(
                "\(entry.name)'s local header names another file than the central directory")
        }
        guard
            let extra = try source.readExactly(
                at: nameOffset + UInt64(header.nameLength), count: Int(header.extraLength))
        else { throw GoshuinError.zipMalformed("\(entry.name)'s local extra field is cut") }
        var zip64Values = try ZipExtraFields(extra[...], name: entry.name).zip64
        let limit = ZipRecord.limit32
        let usesZip64 = header.compressedSize == limit || header.uncompressedSize == limit
        // Where the local header defers to its ZIP64 field, that field holds exactly both sizes
        // (APPNOTE 4.5.3).
        let zip64Agrees =
            !usesZip64
            || (zip64Values?.littleEndian(UInt64.self) == entry.uncompressedSize
                && zip64Values?.littleEndian(UInt64.self) == entry.compressedSize
                && zip64Values?.isAtEnd == true)
        guard header.method == entry.method, ZipFlags(rawValue: header.flags).isDisjoint(with: .refused),
            header.crc32 == entry.crc32,
            header.compressedSize == limit || UInt64(header.compressedSize) == entry.compressedSize,
            header.uncompressedSize == limit || UInt64(header.uncompressedSize) == entry.uncompressedSize, zip64Agrees
        else {
            throw GoshuinError.zipMalformed("\(entry.name)'s local header disagrees with the central directory")
        }
        let dataOffset = nameOffset + UInt64(header.nameLength) + UInt64(header.extraLength)
        let (end, overflow) = dataOffset.addingReportingOverflow(entry.compressedSize)
        guard !overflow, end <= directoryOffset else {
            throw GoshuinError.zipMalformed("\(entry.name)'s data runs into the central directory")
        }
        return dataOffset
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
