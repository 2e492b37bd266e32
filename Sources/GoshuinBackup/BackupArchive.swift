import GoshuinFormat

/// A backup ZIP opened for reading over any ``RandomAccessSource`` (the decrypting reader, so the
/// decrypted ZIP never touches the disk): its end records and central directory scanned strictly, then each
/// entry's data read at the offset its checked local header gives, inflated with zlib and checked for size
/// and CRC-32 as it streams.
///
/// Nothing else parses the ZIP's headers: the scan alone decides where each entry is and how large it is
/// (`Spec/decisions/0009`). The checks run in the order of `Spec/backup-v1.md` §4: the end records and the
/// central directory when this is made; the manifest (``readManifest()``) and its binding
/// (``checkBinding(_:)``); then every entry in file order with the tiling (``readEveryEntry(checkedAgainst:_:)``).
package final class BackupArchive {
    /// The scanned entries.
    package let directory: ZipDirectory
    private let source: RandomAccessSource
    /// The size of the pieces read from the source and inflated into.
    static let pieceSize = 1 << 20
    /// The buffer deflated data is inflated into, made once for every entry read.
    private var inflated: AllocatedBytes?

    /// Scans the end records and the central directory of `source`
    /// (``ZipStructureScanner/scanCentralDirectory(_:)``): this touches only the end of the ZIP.
    package init(_ source: RandomAccessSource) throws {
        self.source = source
        directory = try ZipStructureScanner.scanCentralDirectory(source)
    }

    /// Reads every entry in file order, checking that the local headers and data tile the ZIP exactly
    /// (``ZipTiling``) and each entry against the manifest (size, CRC-32, SHA-256).
    ///
    /// `handle` gets each entry and a function that streams it into a sink; it calls that function once
    /// (an entry it does not read is read and checked anyway). The bytes reach the sink before the checks at
    /// the end of the entry: keep nothing until this returns.
    package func readEveryEntry(
        checkedAgainst manifest: Manifest,
        _ handle: (ZipEntry, _ read: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> Void
    ) throws {
        try lendEveryEntry(checkedAgainst: manifest) { entry, lend in
            try withoutActuallyEscaping(lend) { lend in
                try handle(entry) { sink in
                    try withoutActuallyEscaping(sink) { sink in try lend { try sink($0.bytes) } }
                }
            }
        }
    }

    /// Reads every entry as ``readEveryEntry(checkedAgainst:_:)`` does, lending the sink the bytes in the
    /// source's own buffers (the decrypted chunks of a backup): a sink may borrow them
    /// (``BufferLoan/borrow()``) to write them on another thread. Each stored entry's CRC-32 and SHA-256
    /// are computed on threads of their own (``EntryHashingThreads``) while this one reads on; an entry's fault is
    /// thrown at the latest when this returns, and always the first in file order.
    package func lendEveryEntry(
        checkedAgainst manifest: Manifest,
        _ handle: (ZipEntry, _ read: ((LentBytes) throws -> Void) throws -> Void) throws -> Void
    ) throws {
        let digests = try EntryHashingThreads(threadCount: Self.digestThreadCount)
        do {
            var tiling = ZipTiling(directory)
            for entry in directory.entriesInFileOrder {
                let dataOffset = try tiling.check(entry, in: source)
                var wasRead = false
                func read(into sink: (LentBytes) throws -> Void) throws {
                    wasRead = true
                    try lend(entry, dataOffset: dataOffset, checkedAgainst: manifest, digests: digests, into: sink)
                }
                try handle(entry, read)
                if !wasRead { try read { _ in } }
            }
            try tiling.finish()
            try digests.drain()
        } catch {
            // An entry before the one that failed here may have failed on a hashing thread: it comes first.
            try digests.drain()
            throw error
        }
    }

    /// The threads that hash entries: two, so that hashing, decrypting and writing share both cores.
    static let digestThreadCount = 2

    /// Streams `entry`'s data at `dataOffset` to `sink` as lent pieces. A stored entry is counted here and
    /// hashed by `digests`; a deflated one (the manifest, records.csv: small) is inflated and checked here,
    /// each piece lent during the call only.
    private func lend(
        _ entry: ZipEntry, dataOffset: UInt64, checkedAgainst manifest: Manifest, digests: EntryHashingThreads,
        into sink: (LentBytes) throws -> Void
    ) throws {
        guard entry.method == 0 else {
            if inflated == nil { inflated = try AllocatedBytes(count: Self.pieceSize, wipesOnRelease: true) }
            guard let output = inflated else { preconditionFailure("allocated above") }
            let loan = BufferLoan(output)
            try read(entry, dataOffset: dataOffset, checkedAgainst: manifest) { bytes in
                try sink(LentBytes(bytes, in: loan))
                // The inflater writes into the buffer again once this returns.
                loan.waitUntilReturned()
            }
            return
        }
        var size = EntrySize(entry)
        try digests.begin(entry, expectedSHA256: manifest.file(named: entry.name)?.sha256)
        let whole = try source.forEachLentPiece(at: dataOffset, count: entry.compressedSize) { piece in
            try Interruption.check()
            try size.add(piece.bytes.count)
            digests.add(piece)
            try sink(piece)
        }
        guard whole else { throw GoshuinError.zipMalformed("\(entry.name)'s data runs past the end of the file") }
        try size.finish()
        digests.end()
    }

    /// Streams `entry`'s data to `sink`, checking that exactly the declared size arrives with the declared
    /// CRC-32; returns the data's SHA-256.
    ///
    /// - Throws: `entry_corrupt` for a size or CRC lie, broken deflate data or bytes after it, or whatever
    ///   the source or `sink` throws.
    ///
    /// The entry's local header is checked first; the tiling of the other entries is not (see
    /// ``readEveryEntry(checkedAgainst:_:)``).
    @discardableResult
    package func read(_ entry: ZipEntry, into sink: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
        let dataOffset = try ZipStructureScanner.checkLocalHeader(
            source, entry, directoryOffset: directory.centralDirectoryOffset)
        return try read(entry, dataOffset: dataOffset, into: sink)
    }

    /// Streams the data of `entry`, which starts at `dataOffset`, to `sink`; returns its SHA-256.
    private func read(_ entry: ZipEntry, dataOffset: UInt64, into sink: (UnsafeRawBufferPointer) throws -> Void)
        throws -> [UInt8]
    {
        try Self.readData(of: entry, at: dataOffset, from: source, inflating: &inflated, into: sink)
    }

    /// Streams the `compressedSize` bytes of `entry`'s data at `dataOffset` of `source` to `sink`, inflated
    /// when deflated (into `inflating`, a buffer made once for many entries), checking that exactly the
    /// declared size arrives with the declared CRC-32; returns the data's SHA-256.
    ///
    /// - Throws: `entry_corrupt` for a size or CRC lie, broken deflate data or bytes after it; `zip_malformed`
    ///   when the source ends first; whatever the source or `sink` throws.
    static func readData(
        of entry: ZipEntry, at dataOffset: UInt64, from source: RandomAccessSource,
        inflating buffer: inout AllocatedBytes?,
        into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> [UInt8] {
        let check = try EntryCheck(entry)
        var inflating: (inflater: RawInflater, output: AllocatedBytes)?
        if entry.method != 0 {
            if buffer == nil { buffer = try AllocatedBytes(count: pieceSize, wipesOnRelease: true) }
            if let output = buffer { inflating = (try RawInflater(), output) }
        }
        var remaining = entry.compressedSize
        func emit(_ bytes: UnsafeRawBufferPointer) throws {
            try check.add(bytes)
            try sink(bytes)
        }
        // The data as the source lends it: the decrypted chunks themselves, for a backup.
        let whole = try source.forEachPiece(at: dataOffset, count: entry.compressedSize) { piece in
            try Interruption.check()
            remaining -= UInt64(piece.count)
            if let (inflater, output) = inflating {
                try inflater.inflate(piece, isLast: remaining == 0, into: output.bytes, name: entry.name, emit: emit)
            } else {
                try emit(piece)
            }
        }
        guard whole else { throw GoshuinError.zipMalformed("\(entry.name)'s data runs past the end of the file") }
        if entry.compressedSize == 0, let (inflater, output) = inflating {
            // Deflate data of no bytes has no final block.
            try inflater.inflate(
                UnsafeRawBufferPointer(start: nil, count: 0), isLast: true, into: output.bytes, name: entry.name,
                emit: emit)
        }
        return try check.finish()
    }

    /// Reads `entry` for a salvage (`Spec/backup-v1.md` §4.2, directory mode): its local header checked, its
    /// data ending exactly at `spanEnd` (where the next entry starts), then its data checked against the
    /// manifest as ``read(_:checkedAgainst:into:)`` does.
    package func readForSalvage(
        _ entry: ZipEntry, spanEnd: UInt64, checkedAgainst manifest: Manifest,
        into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let dataOffset = try ZipStructureScanner.checkLocalHeader(
            source, entry, directoryOffset: directory.centralDirectoryOffset)
        guard dataOffset + entry.compressedSize == spanEnd else {
            throw GoshuinError.zipMalformed("\(entry.name)'s data does not end where the next entry starts")
        }
        try read(entry, dataOffset: dataOffset, checkedAgainst: manifest, into: sink)
    }

    /// Reads `entry` like ``read(_:into:)`` and, for a file the manifest lists, checks its SHA-256 against
    /// the manifest's (`manifest_mismatch`). The bytes reach `sink` as they stream, before the check.
    package func read(
        _ entry: ZipEntry, checkedAgainst manifest: Manifest, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let dataOffset = try ZipStructureScanner.checkLocalHeader(
            source, entry, directoryOffset: directory.centralDirectoryOffset)
        try read(entry, dataOffset: dataOffset, checkedAgainst: manifest, into: sink)
    }

    private func read(
        _ entry: ZipEntry, dataOffset: UInt64, checkedAgainst manifest: Manifest,
        into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let digest = try read(entry, dataOffset: dataOffset, into: sink)
        if let listed = manifest.file(named: entry.name), listed.sha256 != digest {
            throw GoshuinError.manifestMismatch("\(entry.name) does not have the SHA-256 the manifest lists")
        }
    }

    /// Reads and parses `manifest.json`.
    package func readManifest() throws -> Manifest {
        guard let entry = directory.entry(named: Manifest.fileName) else {
            throw GoshuinError.manifestMismatch("the ZIP holds no manifest.json: it is a ZIP, not a backup")
        }
        // The scan bounded the declared size (16 MiB); the read checks that no more arrives.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(entry.uncompressedSize))
        try read(entry) { bytes += $0 }
        return try Manifest.parse(bytes)
    }

    /// Checks the entries against the manifest by name and size: exactly `manifest.json` and the listed
    /// files, nothing missing, nothing extra. (Hashes are checked when the data is read.)
    package func checkBinding(_ manifest: Manifest) throws {
        for entry in directory.entries where entry.name != Manifest.fileName {
            guard let file = manifest.file(named: entry.name) else {
                throw GoshuinError.manifestMismatch("\(entry.name) is in the ZIP but not in the manifest")
            }
            guard file.size == entry.uncompressedSize else {
                throw GoshuinError(
                    .manifestMismatch,
                    "\(entry.name) declares \(entry.uncompressedSize) bytes; the manifest says \(file.size)")
            }
        }
        for file in manifest.listedFiles where directory.entry(named: file.name) == nil {
            throw GoshuinError.manifestMismatch("\(file.name) is in the manifest but not in the ZIP")
        }
    }
}

/// What an entry's data must add up to: the declared size, never more at any moment, and the declared
/// CRC-32; the SHA-256 for the manifest.
final class EntryCheck {
    private let entry: ZipEntry
    private var size: EntrySize
    private let digest: EntryDigest

    init(_ entry: ZipEntry) throws {
        self.entry = entry
        size = EntrySize(entry)
        digest = try EntryDigest()
    }

    func add(_ bytes: UnsafeRawBufferPointer) throws {
        try size.add(bytes.count)
        try digest.add(bytes)
    }

    func finish() throws -> [UInt8] {
        try size.finish()
        return try digest.finish(checking: entry)
    }
}

/// An entry's size as its data arrives: never more than declared at any moment, exactly that at the end.
struct EntrySize {
    private let entry: ZipEntry
    private var total: UInt64 = 0

    init(_ entry: ZipEntry) { self.entry = entry }

    mutating func add(_ count: Int) throws {
        total += UInt64(count)
        guard total <= entry.uncompressedSize else {
            throw GoshuinError(
                .entryCorrupt, "\(entry.name) holds more than the \(entry.uncompressedSize) bytes it declares")
        }
    }

    func finish() throws {
        guard total == entry.uncompressedSize else {
            throw GoshuinError(
                .entryCorrupt, "\(entry.name) holds \(total) bytes, not the \(entry.uncompressedSize) it declares")
        }
    }
}

/// An entry's CRC-32, checked against its ZIP record, and its SHA-256, for the manifest.
final class EntryDigest {
    private let hasher: SHA256Hasher
    private var checksum = CRC32()

    init() throws { hasher = try SHA256Hasher() }

    func add(_ bytes: UnsafeRawBufferPointer) throws {
        checksum.update(bytes)
        try hasher.update(bytes)
    }

    /// The SHA-256, once the CRC-32 matched `entry`'s.
    func finish(checking entry: ZipEntry) throws -> [UInt8] {
        guard checksum.value == entry.crc32 else {
            throw GoshuinError.entryCorrupt("\(entry.name) fails its CRC-32")
        }
        return try hasher.finalize()
    }
}
