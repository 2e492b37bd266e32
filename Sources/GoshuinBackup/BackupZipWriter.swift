import GoshuinFormat

/// Where a backup ZIP's bytes go as they are made: the sealer (``StreamingSealer``), or a plain file.
protocol ZipSink: AnyObject {
    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Appends `count` bytes read from `file` at its position, handing each piece to `observe`; returns how
    /// many bytes the file gave, fewer at its end.
    func append(readingFrom file: FileDescriptor, count: UInt64, observe: (UnsafeRawBufferPointer) throws -> Void)
        throws -> UInt64
}

extension StreamingSealer: ZipSink {}

extension ZipSink {
    /// Appends `bytes`.
    func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }
}

/// A plain file as a sink: the backup's ZIP itself, as it would be sealed.
final class FileZipSink: ZipSink {
    private let output: FileDescriptor
    private let buffer: AllocatedBytes

    init(_ output: FileDescriptor) throws {
        self.output = output
        buffer = try AllocatedBytes(count: FileDescriptor.copyBufferSize, wipesOnRelease: true)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try describingFailure("cannot write the ZIP") { try output.writeAll(bytes) }
    }

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

    /// Writes the ZIP into `sink`; returns the manifest it holds.
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
            let written = try writeFile(layout.entries[0], into: sink, lookAhead: &lookAhead)
            crcs.append(written.crc)
            records = written.entry
        }
        var photos: [Manifest.FileEntry] = []
        photos.reserveCapacity(folder.scan.photoNames.count)
        for entry in layout.entries.dropFirst().dropLast() {
            let written = try writeFile(entry, into: sink, lookAhead: &lookAhead)
            crcs.append(written.crc)
            photos.append(written.entry)
        }
        lookAhead = nil
        let manifest = try Manifest(createdAt: folder.createdAt, records: records, photos: photos)
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

    /// Writes the file `entry` names, stored, with its local header first; returns its CRC and its
    /// manifest entry.
    private func writeFile(_ entry: ZipEntryLayout, into sink: ZipSink, lookAhead: inout AllocatedBytes?) throws -> (
        crc: UInt32, entry: Manifest.FileEntry
    ) {
        let file = try folder.openChecked(entry.name)
        return try file.closeAfter {
            let size = entry.uncompressedSize
            let hasher = try SHA256Hasher()
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
                try hasher.update(UnsafeRawBufferPointer(bytes))
                try sink.write(entry.localHeader(crc32: crc.value))
                try sink.write(UnsafeRawBufferPointer(bytes))
            } else {
                // Too large to hold: its CRC first, from a read that moves nothing, then the data as it is
                // written, whose CRC must be the same.
                let first = try Self.crc(of: file, count: size, name: entry.name)
                try sink.write(entry.localHeader(crc32: first))
                let received = try sink.append(readingFrom: file, count: size) { piece in
                    crc.update(piece)
                    try hasher.update(piece)
                }
                try folder.requireUnchanged(entry.name, file, read: received)
                guard crc.value == first else { throw folder.changed(entry.name, "its content changed as it was read") }
            }
            return (crc.value, Manifest.FileEntry(name: entry.name, size: size, sha256: try hasher.finalize()))
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
