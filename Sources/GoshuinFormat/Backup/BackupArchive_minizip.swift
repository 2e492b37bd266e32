import CMinizip

/// A backup ZIP opened for reading: structure scanned strictly first, then minizip inflates entries
/// through custom I/O over any ``RandomAccessSource`` (the decrypting reader, so the decrypted ZIP never
/// touches the disk).
///
/// Entries are reached by their central-directory position (`unzGoToFilePos64`), never by name lookup.
public final class BackupArchive {
    /// The scanned entries.
    public let directory: ZipDirectory
    private let source: RandomAccessSource
    private let layoutChecked: Bool
    private let stream: MinizipStream
    private let handle: unzFile

    /// Scans `source` (``ZipStructureScanner/scan(_:)``) and opens it with minizip.
    ///
    /// With `checkingLayout` false only the end records and the central directory are scanned, which
    /// touches only the end of the ZIP (listing a backup); each entry's local header is then checked
    /// when the entry is read. Extraction keeps the full scan.
    public init(_ source: RandomAccessSource, checkingLayout: Bool = true) throws {
        self.source = source
        layoutChecked = checkingLayout
        directory =
            checkingLayout
            ? try ZipStructureScanner.scan(source) : try ZipStructureScanner.scanCentralDirectory(source)
        stream = MinizipStream(reading: source)
        var functions = stream.functions()
        guard let handle = unzOpen2_64("payload.zip", &functions) else {
            throw stream.failure ?? ZipStructureScanner.malformed("minizip cannot read the ZIP's central directory")
        }
        self.handle = handle
    }

    deinit { unzClose(handle) }

    /// Streams `entry`'s data to `sink`, checking that exactly the declared size arrives with the declared
    /// CRC-32; returns the data's SHA-256.
    ///
    /// - Throws: `entry_corrupt` for a size or CRC lie or broken deflate data, or whatever the source or
    ///   `sink` throws.
    @discardableResult
    public func read(_ entry: ZipEntry, into sink: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
        if !layoutChecked {
            _ = try ZipStructureScanner.checkLocalHeader(
                source, entry, directoryOffset: directory.centralDirectoryOffset)
        }
        try moveTo(entry)
        guard unzOpenCurrentFile(handle) == UNZ_OK else { throw failure(entry, "cannot be opened") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        let hasher = SHA256Hasher()
        var checksum = crc32(0, nil, 0)
        var total: UInt64 = 0
        var closed = false
        defer { if !closed { unzCloseCurrentFile(handle) } }
        while true {
            try Interruption.check()
            let count = unzReadCurrentFile(handle, buffer.baseAddress, UInt32(buffer.count))
            if count < 0 { throw failure(entry, "has broken compressed data") }
            if count == 0 { break }
            total += UInt64(count)
            guard total <= entry.uncompressedSize else { throw failure(entry, "holds more than its declared size") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<Int(count)])
            checksum = crc32(checksum, chunk.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(count))
            hasher.update(chunk)
            try sink(chunk)
        }
        closed = true
        let closing = unzCloseCurrentFile(handle)
        guard total == entry.uncompressedSize else {
            throw failure(entry, "holds \(total) bytes, not the \(entry.uncompressedSize) it declares")
        }
        guard UInt32(checksum) == entry.crc32, closing == UNZ_OK else { throw failure(entry, "fails its CRC-32") }
        return hasher.finalize()
    }

    /// Reads `entry` like ``read(_:into:)`` and, for a file the manifest lists, checks its SHA-256 against
    /// the manifest's (`manifest_mismatch`). The bytes reach `sink` as they stream, before the check.
    public func read(
        _ entry: ZipEntry, checkedAgainst manifest: Manifest, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let digest = try read(entry, into: sink)
        if let listed = manifest.listedFiles.first(where: { $0.name == entry.name }), listed.sha256 != digest {
            throw GoshuinError(.manifestMismatch, "\(entry.name) does not have the SHA-256 the manifest lists")
        }
    }

    /// Reads and parses `manifest.json`.
    public func readManifest() throws -> Manifest {
        guard let entry = directory.entry(named: Manifest.fileName) else {
            throw GoshuinError(.manifestMismatch, "the backup has no manifest.json")
        }
        var bytes: [UInt8] = []
        try read(entry) { bytes += $0 }
        return try Manifest.parse(bytes)
    }

    /// Checks the entries against the manifest by name and size: exactly `manifest.json` and the listed
    /// files, nothing missing, nothing extra. (Hashes are checked when the data is read.)
    public func checkBinding(_ manifest: Manifest) throws {
        let listed = Dictionary(uniqueKeysWithValues: manifest.listedFiles.map { ($0.name, $0) })
        for entry in directory.entries where entry.name != Manifest.fileName {
            guard let file = listed[entry.name] else {
                throw GoshuinError(.manifestMismatch, "\(entry.name) is in the ZIP but not in the manifest")
            }
            guard file.size == entry.uncompressedSize else {
                throw GoshuinError(
                    .manifestMismatch,
                    "\(entry.name) declares \(entry.uncompressedSize) bytes; the manifest says \(file.size)")
            }
        }
        for file in manifest.listedFiles where directory.entry(named: file.name) == nil {
            throw GoshuinError(.manifestMismatch, "\(file.name) is in the manifest but not in the ZIP")
        }
    }

    /// Positions minizip on `entry` by its central-directory record and checks minizip read the same
    /// record the scan did.
    private func moveTo(_ entry: ZipEntry) throws {
        var position = unz64_file_pos(
            pos_in_zip_directory: entry.centralRecordOffset, num_of_file: UInt64(entry.index))
        guard unzGoToFilePos64(handle, &position) == UNZ_OK else { throw failure(entry, "cannot be found") }
        var info = unz_file_info64()
        var name = [CChar](repeating: 0, count: EntryName.maximumLength + 1)
        guard unzGetCurrentFileInfo64(handle, &info, &name, uLong(name.count), nil, 0, nil, 0) == UNZ_OK,
            String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == entry.name,
            info.compressed_size == entry.compressedSize, info.uncompressed_size == entry.uncompressedSize,
            UInt32(info.crc) == entry.crc32, UInt16(info.compression_method) == entry.method
        else { throw failure(entry, "is read differently by minizip than by the structure scan") }
    }

    private func failure(_ entry: ZipEntry, _ problem: String) -> GoshuinError {
        stream.failure ?? GoshuinError(.entryCorrupt, "\(entry.name) \(problem)")
    }
}
