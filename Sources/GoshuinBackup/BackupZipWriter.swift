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

/// Writes a checked folder (``BackupFolder``) as its backup ZIP in one pass over its files, as laid out
/// before a byte was written: records.csv, the photos by name, manifest.json last.
///
/// A stored entry's CRC-32 is in its local header, before its data (a backup has no data descriptors), so
/// each photo's CRC must be known before its data is written: a photo of up to ``lookAheadLimit`` bytes is
/// read once into memory (hashed as it arrives) and then written; a larger one is read twice, once for its
/// CRC and again as it is written, and the two CRCs must agree (`Spec/decisions/0015`). Every file is opened
/// without following a link and judged on what was opened, against what the folder check found: one that
/// was swapped, or changed its size or time, since, or while it was read, is refused, and nothing is sealed.
struct BackupZipWriter {
    /// The largest photo read once into memory.
    static let lookAheadLimit = 16 << 20

    let folder: BackupFolder
    /// Hashes the files' data as the sink's observer sees it.
    let digests: EntryDigests

    init(folder: BackupFolder) {
        self.folder = folder
        digests = EntryDigests(folder.layout, hashing: folder.filesReadAsWritten)
    }

    /// Writes the ZIP into `sink`, whose observer is ``digests``; returns the manifest it holds.
    func write(into sink: ZipSink) throws -> Manifest {
        let layout = folder.layout
        var crcs: [UInt32] = []
        var lookAhead: AllocatedBytes?
        let records: Manifest.FileEntry
        switch folder.records.content {
        case .inMemory(let stored, let crc, let sha256):
            try sink.write(layout.entries[0].localHeader(crc32: crc))
            try sink.write(stored)
            crcs.append(crc)
            records = Manifest.FileEntry(
                name: Manifest.recordsName, size: layout.entries[0].uncompressedSize, sha256: sha256)
        case .streamed:
            crcs.append(try writeFile(layout.entries[0], into: sink, lookAhead: &lookAhead))
            records = Manifest.FileEntry(
                name: Manifest.recordsName, size: layout.entries[0].uncompressedSize, sha256: [])
        }
        for entry in layout.entries.dropFirst().dropLast() {
            crcs.append(try writeFile(entry, into: sink, lookAhead: &lookAhead))
        }
        lookAhead = nil
        // Every file's bytes are written; their digests, computed as they went by, are complete once the
        // observer has caught up.
        try sink.waitForObserver()
        let manifest = try Manifest(
            createdAt: folder.createdAt, records: try digests.entry(records, at: 0),
            photos: try layout.entries.indices.dropFirst().dropLast().map { index in
                try digests.entry(
                    Manifest.FileEntry(
                        name: layout.entries[index].name, size: layout.entries[index].uncompressedSize, sha256: []),
                    at: index)
            })
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

    /// Writes the file `entry` names, stored, with its local header first; returns its CRC. (Its SHA-256 is
    /// the observer's: ``EntryDigests``.)
    private func writeFile(_ entry: ZipEntryLayout, into sink: ZipSink, lookAhead: inout AllocatedBytes?) throws
        -> UInt32
    {
        let file = try folder.openChecked(entry.name)
        return try file.closeAfter {
            let size = entry.uncompressedSize
            var crc = CRC32()
            if size <= UInt64(Self.lookAheadLimit) {
                if lookAhead == nil { lookAhead = try AllocatedBytes(count: Self.lookAheadLimit, wipesOnRelease: true) }
                guard let buffer = lookAhead else { preconditionFailure("allocated above") }
                let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<Int(size)])
                let received = try describingFailure("cannot read \(DisplayText.quoted(entry.name))") {
                    try file.readFully(into: bytes)
                }
                try folder.requireUnchanged(entry.name, file, read: UInt64(received))
                crc.update(UnsafeRawBufferPointer(bytes))
                try sink.write(entry.localHeader(crc32: crc.value))
                try sink.write(UnsafeRawBufferPointer(bytes))
            } else {
                // Too large to hold: its CRC first, from a read that moves nothing, then the data as it is
                // written, whose CRC must be the same.
                let first = try Self.crc(of: file, count: size, name: entry.name)
                try sink.write(entry.localHeader(crc32: first))
                let received = try sink.append(readingFrom: file, count: size) { crc.update($0) }
                try folder.requireUnchanged(entry.name, file, read: received)
                guard crc.value == first else { throw folder.changed(entry.name, "its content changed as it was read") }
            }
            return crc.value
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
