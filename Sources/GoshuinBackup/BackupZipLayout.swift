import GoshuinFormat

/// One entry of a backup ZIP as the writer lays it out: its headers' bytes follow from these fields and the
/// CRC-32, so every offset and size of the ZIP is known before a byte is written (`Spec/backup-v1.md` §5).
struct ZipEntryLayout: Equatable {
    let name: String
    /// 0 (stored) or 8 (deflate).
    let method: UInt16
    let compressedSize: UInt64
    let uncompressedSize: UInt64
    /// Seconds since 1970 (UTC), `nil` when unknown.
    let modificationTime: Int?
    let localHeaderOffset: UInt64

    /// Whether a size does not fit its 32-bit field: the local header then defers both to a ZIP64 field.
    var hasZip64Sizes: Bool {
        compressedSize >= UInt64(ZipRecord.limit32) || uncompressedSize >= UInt64(ZipRecord.limit32)
    }

    /// The central record's values that do not fit their 32-bit fields, in the ZIP64 field's order.
    var zip64CentralValues: [UInt64] {
        [uncompressedSize, compressedSize, localHeaderOffset].filter { $0 >= UInt64(ZipRecord.limit32) }
    }

    /// The modification time for the extended timestamp field: a u32 that Info-ZIP reads as signed, so up
    /// to 2038; `nil` outside it (the DOS fields alone then say when).
    var timestamp: UInt32? {
        modificationTime.flatMap { (0...Int(Int32.max)).contains($0) ? UInt32($0) : nil }
    }

    private var dos: (time: UInt16, date: UInt16) { modificationTime.map(DOSTime.encode) ?? DOSTime.earliest }

    private var versionNeeded: UInt16 {
        hasZip64Sizes || !zip64CentralValues.isEmpty ? ZipRecord.versionNeededWithZip64 : ZipRecord.versionNeeded
    }

    private var timestampFieldLength: Int {
        timestamp == nil ? 0 : ZipExtraFields.fieldHeaderLength + ZipExtraFields.extendedTimestampLength
    }

    var localHeaderLength: Int {
        let zip64 = hasZip64Sizes ? ZipExtraFields.fieldHeaderLength + 16 : 0
        return ZipLocalHeader.fixedLength + name.utf8.count + zip64 + timestampFieldLength
    }

    var centralRecordLength: Int {
        let values = zip64CentralValues.count
        let zip64 = values == 0 ? 0 : ZipExtraFields.fieldHeaderLength + 8 * values
        return ZipCentralRecord.fixedLength + name.utf8.count + zip64 + timestampFieldLength
    }

    /// Where the entry's data ends: where the next entry (or the central directory) starts.
    var end: UInt64 { localHeaderOffset + UInt64(localHeaderLength) + compressedSize }

    /// The local header, its name and its extra field.
    func localHeader(crc32: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(localHeaderLength)
        let limit = ZipRecord.limit32
        ZipLocalHeader(
            versionNeeded: versionNeeded, flags: 0, method: method, modificationTime: dos.time,
            modificationDate: dos.date, crc32: crc32,
            compressedSize: hasZip64Sizes ? limit : UInt32(compressedSize),
            uncompressedSize: hasZip64Sizes ? limit : UInt32(uncompressedSize),
            nameLength: UInt16(name.utf8.count),
            extraLength: UInt16(localHeaderLength - ZipLocalHeader.fixedLength - name.utf8.count)
        ).encode(into: &bytes)
        bytes += name.utf8
        if hasZip64Sizes { ZipExtraFields.encodeZip64([uncompressedSize, compressedSize], into: &bytes) }
        if let timestamp { ZipExtraFields.encodeExtendedTimestamp(timestamp, into: &bytes) }
        return bytes
    }

    /// The central directory record, its name and its extra field.
    func centralRecord(crc32: UInt32, into bytes: inout [UInt8]) {
        let limit = UInt64(ZipRecord.limit32)
        func field(_ value: UInt64) -> UInt32 { value >= limit ? ZipRecord.limit32 : UInt32(value) }
        ZipCentralRecord(
            versionMadeBy: ZipRecord.versionMadeBy, versionNeeded: versionNeeded, flags: 0, method: method,
            modificationTime: dos.time, modificationDate: dos.date, crc32: crc32,
            compressedSize: field(compressedSize), uncompressedSize: field(uncompressedSize),
            nameLength: UInt16(name.utf8.count),
            extraLength: UInt16(centralRecordLength - ZipCentralRecord.fixedLength - name.utf8.count),
            commentLength: 0, diskNumberStart: 0, internalAttributes: 0,
            externalAttributes: ZipRecord.regularFileAttributes, localHeaderOffset: field(localHeaderOffset)
        ).encode(into: &bytes)
        bytes += name.utf8
        if !zip64CentralValues.isEmpty { ZipExtraFields.encodeZip64(zip64CentralValues, into: &bytes) }
        if let timestamp { ZipExtraFields.encodeExtendedTimestamp(timestamp, into: &bytes) }
    }
}

/// Where every part of a backup ZIP lies, computed from the entries' names, methods, sizes and times alone:
/// the local headers and data in order, then the central directory, then, when an offset or a size does not
/// fit 32 bits, the ZIP64 end record and locator, then the end record. No comment, no data descriptor.
struct BackupZipLayout: Equatable {
    /// What the writer needs to know of an entry before its data.
    struct Entry {
        let name: String
        let method: UInt16
        let compressedSize: UInt64
        let uncompressedSize: UInt64
        let modificationTime: Int?
    }

    let entries: [ZipEntryLayout]
    let centralDirectoryOffset: UInt64
    let centralDirectorySize: UInt64

    init(_ planned: [Entry]) {
        var offset: UInt64 = 0
        var entries: [ZipEntryLayout] = []
        for entry in planned {
            let layout = ZipEntryLayout(
                name: entry.name, method: entry.method, compressedSize: entry.compressedSize,
                uncompressedSize: entry.uncompressedSize, modificationTime: entry.modificationTime,
                localHeaderOffset: offset)
            entries.append(layout)
            offset = layout.end
        }
        self.entries = entries
        centralDirectoryOffset = offset
        centralDirectorySize = entries.reduce(0) { $0 + UInt64($1.centralRecordLength) }
    }

    /// Whether the end record needs the ZIP64 end records: a field of it does not fit.
    var needsZip64End: Bool {
        centralDirectoryOffset >= UInt64(ZipRecord.limit32) || centralDirectorySize >= UInt64(ZipRecord.limit32)
            || entries.count >= Int(ZipRecord.limit16)
    }

    /// The size of the whole ZIP.
    var size: UInt64 {
        let zip64End = needsZip64End ? UInt64(Zip64EndRecord.fixedLength + Zip64Locator.fixedLength) : 0
        return centralDirectoryOffset + centralDirectorySize + zip64End + UInt64(ZipEndRecord.fixedLength)
    }

    /// The central directory and the end records, for entries with the CRCs `crcs`.
    func centralDirectoryAndEnd(crcs: [UInt32]) -> [UInt8] {
        precondition(crcs.count == entries.count, "one CRC an entry")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(size - centralDirectoryOffset))
        for (entry, crc) in zip(entries, crcs) { entry.centralRecord(crc32: crc, into: &bytes) }
        let count = UInt64(entries.count)
        if needsZip64End {
            Zip64EndRecord(
                versionMadeBy: ZipRecord.versionMadeBy, versionNeeded: ZipRecord.versionNeededWithZip64, diskNumber: 0,
                directoryDisk: 0, entriesOnDisk: count, entries: count, directorySize: centralDirectorySize,
                directoryOffset: centralDirectoryOffset
            ).encode(into: &bytes)
            Zip64Locator(
                directoryDisk: 0, recordOffset: centralDirectoryOffset + centralDirectorySize, totalDisks: 1
            ).encode(into: &bytes)
        }
        func field32(_ value: UInt64) -> UInt32 {
            value >= UInt64(ZipRecord.limit32) ? ZipRecord.limit32 : UInt32(value)
        }
        let entryField = count >= UInt64(ZipRecord.limit16) ? ZipRecord.limit16 : UInt16(count)
        ZipEndRecord(
            diskNumber: 0, directoryDisk: 0, entriesOnDisk: entryField, entries: entryField,
            directorySize: field32(centralDirectorySize), directoryOffset: field32(centralDirectoryOffset),
            commentLength: 0
        ).encode(into: &bytes)
        return bytes
    }
}

extension BackupZipLayout {
    /// The layout of a backup ZIP as the toolkit writes it (`Spec/backup-v1.md` §5): `records`, then `photos`
    /// in byte order of their names, then `manifest.json`, stored, dated `createdAt`, whose length is known
    /// before any digest (every field of the manifest has its final width). Every writer of a backup lays it
    /// out here, so that the same entries always give the same ZIP.
    ///
    /// - Throws: `manifest_invalid` for names, sizes or a time a manifest cannot hold.
    static func backup(records: Entry, photos: [Entry], createdAt: String) throws -> BackupZipLayout {
        let photos = photos.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let manifestLength = try Manifest(
            createdAt: createdAt,
            records: Manifest.FileEntry(name: records.name, size: records.uncompressedSize, sha256: unknownDigest),
            photos: photos.map { Manifest.FileEntry(name: $0.name, size: $0.uncompressedSize, sha256: unknownDigest) }
        ).encode().count
        let manifest = Entry(
            name: Manifest.fileName, method: 0, compressedSize: UInt64(manifestLength),
            uncompressedSize: UInt64(manifestLength), modificationTime: seconds(of: createdAt))
        return BackupZipLayout([records] + photos + [manifest])
    }

    /// The digest written in the manifest's place holder: every digest has its width.
    private static let unknownDigest = [UInt8](repeating: 0, count: 32)

    /// The seconds since 1970 of a `createdAt` timestamp.
    static func seconds(of timestamp: String) -> Int? {
        let digits = Array(timestamp.utf8)
        func number(_ range: Range<Int>) -> Int {
            digits[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        guard Manifest.isTimestamp(timestamp) else { return nil }
        return DOSTime.daysSince1970(year: number(0..<4), month: number(5..<7), day: number(8..<10)) * 86_400
            + number(11..<13) * 3_600 + number(14..<16) * 60 + number(17..<19)
    }
}
