import GoshuinFormat

/// Where a backup ZIP's bytes go as they are made: the sealer (``StreamingSealer``), or a plain file.
protocol ZipSink: AnyObject {
    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Appends `count` bytes read from `file` at its position, handing each piece to `observe`; returns how
    /// many bytes the file gave, fewer at its end.
    func append(readingFrom file: FileDescriptor, count: UInt64, observe: (UnsafeRawBufferPointer) throws -> Void)
        throws -> UInt64
    /// Waits until the payload's observer has seen every byte written so far.
    func waitForObserver() throws
}

extension StreamingSealer: ZipSink {}

extension ZipSink {
    /// Appends `bytes`.
    func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }
}

/// A plain file as a sink: the backup's ZIP itself, as it would be sealed; the observer sees each piece as
/// it is written.
final class FileZipSink: ZipSink {
    private let output: FileDescriptor
    private let observer: PayloadObserver
    private let buffer: AllocatedBytes
    private var offset: UInt64 = 0

    init(_ output: FileDescriptor, observer: PayloadObserver) throws {
        self.output = output
        self.observer = observer
        buffer = try AllocatedBytes(count: FileDescriptor.copyBufferSize, wipesOnRelease: true)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try observer.observe(bytes, at: offset)
        try describingFailure("cannot write the ZIP") { try output.writeAll(bytes) }
        offset += UInt64(bytes.count)
    }

    func waitForObserver() {}

    func append(readingFrom file: FileDescriptor, count: UInt64, observe: (UnsafeRawBufferPointer) throws -> Void)
        throws -> UInt64
    {
        var done: UInt64 = 0
        while done < count {
            try Interruption.check()
            let wanted = Int(min(UInt64(buffer.bytes.count), count - done))
            let received = try describingFailure("cannot read the input") {
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<wanted]))
            }
            if received == 0 { break }
            let piece = UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<received])
            try observe(piece)
            try write(piece)
            done += UInt64(received)
        }
        return done
    }
}

/// What a backup ZIP is written from: its layout (every name, size and time, known before a byte is
/// written), records.csv, its `createdAt`, and the data of each other entry. A checked folder
/// (``BackupFolder``, `seal FOLDER`) or the intact entries of a damaged backup (``BackupRescue``, `rescue`):
/// one writer, so that the same entries give the same ZIP whichever it is.
protocol BackupZipContents {
    /// Where every entry lies: records.csv first, the photos, manifest.json last
    /// (``BackupZipLayout/backup(records:photos:createdAt:)``).
    var layout: BackupZipLayout { get }
    /// records.csv: held in memory, or written by ``writeStoredEntry(at:into:lookAhead:)`` like a photo.
    var records: RecordsPlan { get }
    /// The manifest's `createdAt`.
    var createdAt: String { get }
    /// The layout's indices of the entries whose SHA-256 the sink's observer computes as they are written
    /// (``EntryDigests``); the others' comes from ``writeStoredEntry(at:into:lookAhead:)``.
    var entriesHashedAsWritten: [Int] { get }
    /// Writes the stored entry at `index` of the layout into `sink`, its local header (with its CRC-32) then
    /// its data, exactly its declared size; returns its CRC-32 and, unless the observer computes it, its SHA-256.
    /// `lookAhead` is a buffer kept for every entry, made when first needed.
    func writeStoredEntry(at index: Int, into sink: ZipSink, lookAhead: inout AllocatedBytes?) throws -> (
        crc32: UInt32, sha256: [UInt8]?
    )
}

/// Writes a backup ZIP in one pass, as laid out before a byte was written (``BackupZipContents``):
/// records.csv, the photos by name, manifest.json last, then the central directory and the end records.
///
/// A stored entry's CRC-32 is in its local header, before its data (a backup has no data descriptors), so
/// each entry's CRC must be known before its data is written: a folder's photo of up to
/// ``BackupZipWriter/lookAheadLimit`` bytes is read once into memory (hashed as it arrives) and then written;
/// a larger one is read twice, once for its CRC and again as it is written, and the two CRCs must agree
/// (`Spec/decisions/0015`). Every file is opened without following a link and judged on what was opened,
/// against what the folder check found: one that was swapped, or changed its size or time, since, or while it
/// was read, is refused, and nothing is sealed.
struct BackupZipWriter {
    /// The largest photo read once into memory.
    static let lookAheadLimit = 16 << 20

    let contents: any BackupZipContents
    /// Hashes the entries' data as the sink's observer sees it.
    let digests: EntryDigests

    init(_ contents: any BackupZipContents) {
        self.contents = contents
        digests = EntryDigests(contents.layout, hashing: contents.entriesHashedAsWritten)
    }

    /// Writes the ZIP into `sink`, whose observer is ``digests``; returns the manifest it holds.
    func write(into sink: ZipSink) throws -> Manifest {
        let layout = contents.layout
        var crcs: [UInt32] = []
        var lookAhead: AllocatedBytes?
        var known: [Int: [UInt8]] = [:]
        switch contents.records.content {
        case .inMemory(let stored, let crc, let sha256):
            try sink.write(layout.entries[0].localHeader(crc32: crc))
            try sink.write(stored)
            crcs.append(crc)
            known[0] = sha256
        case .streamed:
            let written = try contents.writeStoredEntry(at: 0, into: sink, lookAhead: &lookAhead)
            crcs.append(written.crc32)
            known[0] = written.sha256
        }
        for index in layout.entries.indices.dropFirst().dropLast() {
            let written = try contents.writeStoredEntry(at: index, into: sink, lookAhead: &lookAhead)
            crcs.append(written.crc32)
            known[index] = written.sha256
        }
        lookAhead = nil
        // Every file's bytes are written; their digests, computed as they went by, are complete once the
        // observer has caught up. (A sink without an observer has nothing to wait for.)
        if !contents.entriesHashedAsWritten.isEmpty { try sink.waitForObserver() }
        let files = try layout.entries.indices.dropLast().map { index in
            try digests.entry(
                Manifest.FileEntry(
                    name: layout.entries[index].name, size: layout.entries[index].uncompressedSize,
                    sha256: known[index] ?? []),
                at: index)
        }
        let manifest = try Manifest(createdAt: contents.createdAt, records: files[0], photos: Array(files.dropFirst()))
        let manifestBytes = manifest.encode()
        guard let manifestEntry = layout.entries.last, UInt64(manifestBytes.count) == manifestEntry.uncompressedSize
        else { throw GoshuinError(.io, "the manifest came out another size than its layout; nothing was sealed") }
        let manifestCRC = CRC32.of(manifestBytes)
        try sink.write(manifestEntry.localHeader(crc32: manifestCRC))
        try sink.write(manifestBytes)
        crcs.append(manifestCRC)
        try sink.write(layout.centralDirectoryAndEnd(crcs: crcs))
        return manifest
    }
}

extension BackupFolder: BackupZipContents {
    var entriesHashedAsWritten: [Int] { filesReadAsWritten }

    /// Writes the file the entry at `index` names, stored, with its local header first; returns its CRC (its
    /// SHA-256 is the observer's: ``EntryDigests``).
    func writeStoredEntry(at index: Int, into sink: ZipSink, lookAhead: inout AllocatedBytes?) throws -> (
        crc32: UInt32, sha256: [UInt8]?
    ) {
        let entry = layout.entries[index]
        let file = try openChecked(entry.name)
        return try file.closeAfter {
            let size = entry.uncompressedSize
            var crc = CRC32()
            if size <= UInt64(BackupZipWriter.lookAheadLimit) {
                if lookAhead == nil {
                    lookAhead = try AllocatedBytes(count: BackupZipWriter.lookAheadLimit, wipesOnRelease: true)
                }
                guard let buffer = lookAhead else { preconditionFailure("allocated above") }
                let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<Int(size)])
                let received = try describingFailure("cannot read \(DisplayText.quoted(entry.name))") {
                    try file.readFully(into: bytes)
                }
                try requireUnchanged(entry.name, file, read: UInt64(received))
                crc.update(UnsafeRawBufferPointer(bytes))
                try sink.write(entry.localHeader(crc32: crc.value))
                try sink.write(UnsafeRawBufferPointer(bytes))
            } else {
                // Too large to hold: its CRC first, from a read that moves nothing, then the data as it is
                // written, whose CRC must be the same.
                let first = try Self.crc(of: file, count: size, name: entry.name)
                try sink.write(entry.localHeader(crc32: first))
                let received = try sink.append(readingFrom: file, count: size) { crc.update($0) }
                try requireUnchanged(entry.name, file, read: received)
                guard crc.value == first else { throw changed(entry.name, "its content changed as it was read") }
            }
            return (crc.value, nil)
        }
    }

    /// The CRC-32 of the first `count` bytes of `file`, read with positioned reads.
    private static func crc(of file: FileDescriptor, count: UInt64, name: String) throws -> UInt32 {
        let buffer = try AllocatedBytes(count: FileDescriptor.copyBufferSize, wipesOnRelease: true)
        var crc = CRC32()
        var offset: UInt64 = 0
        while offset < count {
            try Interruption.check()
            let wanted = Int(min(UInt64(buffer.bytes.count), count - offset))
            let received = try describingFailure("cannot read \(DisplayText.quoted(name))") {
                try file.readFully(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<wanted]), atOffset: Int64(offset))
            }
            guard received > 0 else { break }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<received]))
            offset += UInt64(received)
        }
        return crc.value
    }
}

/// The SHA-256 of each file's data in a backup ZIP, computed as the payload goes by (a
/// ``PayloadObserver``, on a thread of its own when sealing): the layout says where each entry's data is.
final class EntryDigests: PayloadObserver, @unchecked Sendable {
    // @unchecked: written by the observing thread alone, read by the writer after ``ZipSink/waitForObserver()``.
    private let ranges: [(entry: Int, range: Range<UInt64>)]
    private var next = 0
    private var hasher: SHA256Hasher?
    private var digests: [Int: [UInt8]] = [:]

    /// Digests for the entries at `indices` of `layout`, all of them stored.
    init(_ layout: BackupZipLayout, hashing indices: [Int]) {
        ranges = indices.map { index in
            let entry = layout.entries[index]
            let start = entry.localHeaderOffset + UInt64(entry.localHeaderLength)
            return (index, start..<start + entry.uncompressedSize)
        }
    }

    func observe(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var position = offset
        let end = offset + UInt64(bytes.count)
        while next < ranges.count {
            let range = ranges[next].range
            // An empty entry's data starts and ends where the bytes end: it is complete too.
            if range.lowerBound > end || (range.lowerBound == end && !range.isEmpty) { return }
            let start = max(position, range.lowerBound)
            let stop = min(end, range.upperBound)
            if start < stop {
                if hasher == nil { hasher = try SHA256Hasher() }
                try hasher?.update(
                    UnsafeRawBufferPointer(rebasing: bytes[Int(start - offset)..<Int(stop - offset)]))
            }
            guard stop == range.upperBound else { return }
            // This entry's data is complete (an empty one too).
            digests[ranges[next].entry] = try (hasher ?? SHA256Hasher()).finalize()
            hasher = nil
            next += 1
            position = stop
        }
    }

    /// `entry` with the digest of the entry at `index`, or with `entry`'s own when it was not hashed here.
    func entry(_ entry: Manifest.FileEntry, at index: Int) throws -> Manifest.FileEntry {
        if !entry.sha256.isEmpty { return entry }
        guard let digest = digests[index] else {
            throw GoshuinError(.io, "\(DisplayText.quoted(entry.name)) was not seen whole as it was sealed")
        }
        return Manifest.FileEntry(name: entry.name, size: entry.size, sha256: digest)
    }
}
