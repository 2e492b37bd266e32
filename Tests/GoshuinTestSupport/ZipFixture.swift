import GoshuinFormat

/// Builds ZIP files byte by byte, including the malformed ones real writers never make, for the archive
/// attack tests.
package struct ZipFixture {
    package struct Entry {
        package var name: [UInt8]
        /// The bytes stored in the archive (already deflated for method 8).
        package var data: [UInt8]
        package var method: UInt16 = 0
        package var flags: UInt16 = 0
        package var crc: UInt32
        package var compressedSize: UInt32
        package var uncompressedSize: UInt32
        package var madeBy: UInt16 = 3 << 8 | 20
        package var externalAttributes: UInt32 = 0o100644 << 16
        /// A different name for the local header, for the mismatch attack.
        package var localName: [UInt8]?

        package init(_ name: String, _ data: [UInt8]) {
            self.init(nameBytes: Array(name.utf8), data)
        }

        package init(nameBytes: [UInt8], _ data: [UInt8]) {
            name = nameBytes
            self.data = data
            crc = ZipFixture.crc32(data)
            compressedSize = UInt32(data.count)
            uncompressedSize = UInt32(data.count)
        }
    }

    package var entries: [Entry]
    package var prepended: [UInt8] = []
    package var appended: [UInt8] = []
    /// Overrides of a central record's local-header offset, by entry index.
    package var offsetOverrides: [Int: UInt32] = [:]
    /// Entries whose local header and data are not written (they point into another entry's data).
    package var omitLocal: Set<Int> = []
    /// The order of the central directory's records, by entry index (the file order when `nil`).
    package var centralOrder: [Int]?

    package init(entries: [Entry]) { self.entries = entries }

    package static func localHeader(_ entry: Entry) -> [UInt8] {
        let name = entry.localName ?? entry.name
        var bytes: [UInt8] = []
        bytes.le32(0x0403_4B50)
        bytes.le16(20)
        bytes += commonFields(entry, nameLength: name.count)
        bytes.le16(0)
        return bytes + name
    }

    /// Flags, method, time, date, CRC, sizes and name length: the fields both headers share.
    package static func commonFields(_ entry: Entry, nameLength: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.le16(entry.flags)
        bytes.le16(entry.method)
        bytes.le16(0)
        bytes.le16(0x21)
        bytes.le32(entry.crc)
        bytes.le32(entry.compressedSize)
        bytes.le32(entry.uncompressedSize)
        bytes.le16(UInt16(nameLength))
        return bytes
    }

    package func build() -> [UInt8] {
        var bytes = prepended
        var offsets: [UInt32] = []
        for (index, entry) in entries.enumerated() {
            offsets.append(UInt32(bytes.count))
            if !omitLocal.contains(index) { bytes += Self.localHeader(entry) + entry.data }
        }
        let directoryOffset = bytes.count
        for index in centralOrder ?? Array(entries.indices) {
            let entry = entries[index]
            bytes.le32(0x0201_4B50)
            bytes.le16(entry.madeBy)
            bytes.le16(20)
            bytes += Self.commonFields(entry, nameLength: entry.name.count)
            bytes += [0, 0, 0, 0, 0, 0, 0, 0]
            bytes.le32(entry.externalAttributes)
            bytes.le32(offsetOverrides[index] ?? offsets[index])
            bytes += entry.name
        }
        let directorySize = bytes.count - directoryOffset
        if entries.count > 0xFFFE {
            let zip64RecordOffset = bytes.count
            bytes.le32(0x0606_4B50)
            bytes.le64(44)
            bytes.le16(45)
            bytes.le16(45)
            bytes.le32(0)
            bytes.le32(0)
            bytes.le64(UInt64(entries.count))
            bytes.le64(UInt64(entries.count))
            bytes.le64(UInt64(directorySize))
            bytes.le64(UInt64(directoryOffset))
            bytes.le32(0x0706_4B50)
            bytes.le32(0)
            bytes.le64(UInt64(zip64RecordOffset))
            bytes.le32(1)
        }
        bytes.le32(0x0605_4B50)
        bytes += [0, 0, 0, 0]
        let count = UInt16(min(entries.count, 0xFFFF))
        bytes.le16(count)
        bytes.le16(count)
        bytes.le32(UInt32(directorySize))
        bytes.le32(UInt32(directoryOffset))
        bytes.le16(0)
        return bytes + appended
    }

    /// Where each entry's local header is in what ``build()`` makes (an omitted one: where it would be).
    package static func localOffsets(of fixture: ZipFixture) -> [UInt32] {
        var offset = fixture.prepended.count
        return fixture.entries.enumerated().map { index, entry in
            defer { if !fixture.omitLocal.contains(index) { offset += localHeader(entry).count + entry.data.count } }
            return UInt32(offset)
        }
    }

    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A valid backup: records, photos and a manifest describing them.
    package static func backup(
        records: [UInt8] = Array("id,text\n1,hello\n".utf8),
        photos: [(String, [UInt8])] = [("IMG_0001.jpg", [0xFF, 0xD8, 0xFF, 1, 2, 3])],
        manifestText: String? = nil
    ) -> ZipFixture {
        let manifest = manifestText ?? Self.manifestJSON(records: records, photos: photos)
        var entries = [Entry("records.csv", records)]
        entries += photos.map { Entry($0.0, $0.1) }
        entries.append(Entry("manifest.json", Array(manifest.utf8)))
        return ZipFixture(entries: entries)
    }

    package static func manifestJSON(records: [UInt8], photos: [(String, [UInt8])], extra: String = "") -> String {
        func file(_ name: String, _ data: [UInt8]) -> String {
            "{\"name\":\"\(name)\",\"size\":\(data.count),\"sha256\":\"\(Hex.encode((try? SHA256Hasher.hash(data)) ?? []))\"}"
        }
        let photoList = photos.map { file($0.0, $0.1) }.joined(separator: ",")
        return "{\"format\":\"goshuin-backup\",\"version\":1,\"createdAt\":\"2026-11-29T12:00:00Z\",\(extra)"
            + "\"records\":\(file("records.csv", records)),\"photos\":[\(photoList)]}"
    }
}

extension Array where Element == UInt8 {
    package mutating func le16(_ value: UInt16) { append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8)]) }
    package mutating func le32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    package mutating func le64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
