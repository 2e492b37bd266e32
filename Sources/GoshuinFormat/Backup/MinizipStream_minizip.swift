import CMinizip

/// A seekable byte stream minizip reads or writes through its custom I/O (`zlib_filefunc64_def`): the
/// decrypted payload or a file, never a path minizip opens itself.
///
/// minizip reports failures as return codes; the underlying ``GoshuinError`` is kept in ``failure`` so
/// the caller can rethrow the real cause.
final class MinizipStream {
    private let source: RandomAccessSource?
    private let output: FileDescriptor?
    private var position: UInt64 = 0
    private var writtenSize: UInt64 = 0
    /// The first error behind a failed callback.
    private(set) var failure: GoshuinError?

    /// A read-only stream over `source`.
    init(reading source: RandomAccessSource) {
        self.source = source
        output = nil
    }

    /// A write-only stream into the empty file open at `output`.
    init(writing output: FileDescriptor) {
        source = nil
        self.output = output
    }

    private var size: UInt64 { source?.size ?? writtenSize }

    func record(_ error: Error) {
        if failure == nil {
            failure = error as? GoshuinError ?? GoshuinError(.io, "\(error)")
        }
    }

    fileprivate func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let source else { return 0 }
        do {
            let count = try source.read(at: position, into: buffer)
            position += UInt64(count)
            return count
        } catch {
            record(error)
            return 0
        }
    }

    fileprivate func write(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard let output, let offset = Int64(exactly: position) else { return 0 }
        do {
            var done = 0
            while done < buffer.count {
                let count = try pwriteAll(
                    output, UnsafeRawBufferPointer(rebasing: buffer[done...]), offset + Int64(done))
                done += count
            }
            position += UInt64(buffer.count)
            writtenSize = max(writtenSize, position)
            return buffer.count
        } catch {
            record(error)
            return 0
        }
    }

    private func pwriteAll(_ descriptor: FileDescriptor, _ buffer: UnsafeRawBufferPointer, _ offset: Int64) throws
        -> Int
    {
        try descriptor.seek(to: offset)
        do {
            try descriptor.writeAll(buffer)
        } catch {
            throw error.goshuinError("cannot write the ZIP")
        }
        return buffer.count
    }

    fileprivate func seek(_ offset: UInt64, origin: Int32) -> Int {
        let base: UInt64
        switch origin {
        case ZLIB_FILEFUNC_SEEK_SET: base = 0
        case ZLIB_FILEFUNC_SEEK_CUR: base = position
        case ZLIB_FILEFUNC_SEEK_END: base = size
        default: return -1
        }
        // A negative relative offset arrives as a wrapped unsigned value, so the sum wraps back.
        let target = base &+ offset
        guard target <= size else { return -1 }
        position = target
        return 0
    }

    fileprivate var tell: UInt64 { position }

    /// The callback table for minizip; valid while this stream is alive.
    func functions() -> zlib_filefunc64_def {
        var table = zlib_filefunc64_def()
        table.opaque = Unmanaged.passUnretained(self).toOpaque()
        table.zopen64_file = { opaque, _, _ in opaque }
        table.zread_file = { opaque, _, buffer, size in
            guard let opaque, let buffer else { return 0 }
            let stream = Unmanaged<MinizipStream>.fromOpaque(opaque).takeUnretainedValue()
            return uLong(stream.read(UnsafeMutableRawBufferPointer(start: buffer, count: Int(size))))
        }
        table.zwrite_file = { opaque, _, buffer, size in
            guard let opaque, let buffer else { return 0 }
            let stream = Unmanaged<MinizipStream>.fromOpaque(opaque).takeUnretainedValue()
            return uLong(stream.write(UnsafeRawBufferPointer(start: buffer, count: Int(size))))
        }
        table.ztell64_file = { opaque, _ in
            guard let opaque else { return 0 }
            return Unmanaged<MinizipStream>.fromOpaque(opaque).takeUnretainedValue().tell
        }
        table.zseek64_file = { opaque, _, offset, origin in
            guard let opaque else { return -1 }
            return Unmanaged<MinizipStream>.fromOpaque(opaque).takeUnretainedValue().seek(offset, origin: origin)
        }
        table.zclose_file = { _, _ in 0 }
        table.zerror_file = { opaque, _ in
            guard let opaque else { return 1 }
            return Unmanaged<MinizipStream>.fromOpaque(opaque).takeUnretainedValue().failure == nil ? 0 : 1
        }
        return table
    }
}
