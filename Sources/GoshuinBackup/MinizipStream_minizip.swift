internal import CMinizip
import GoshuinFormat

/// The file minizip writes a ZIP into, through its custom I/O (`zlib_filefunc64_def`): positioned writes
/// into an open descriptor, never a path minizip opens itself. (Reading never goes through minizip:
/// `Spec/decisions/0009`.)
///
/// minizip reports failures as return codes; the underlying ``GoshuinError`` is kept in ``failure`` so
/// the caller can rethrow the real cause.
final class MinizipStream {
    private let output: FileDescriptor
    private var position: UInt64 = 0
    private var size: UInt64 = 0
    /// The first error behind a failed callback.
    private(set) var failure: GoshuinError?

    /// A write-only stream into the empty file open at `output`.
    init(writing output: FileDescriptor) {
        self.output = output
    }

    private func write(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard failure == nil, let offset = Int64(exactly: position) else { return 0 }
        do {
            try output.writeAll(buffer, atOffset: offset)
        } catch {
            failure = error.goshuinError("cannot write the ZIP")
            return 0
        }
        position += UInt64(buffer.count)
        size = max(size, position)
        return buffer.count
    }

    private func seek(_ offset: UInt64, origin: Int32) -> Int {
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

    /// The callback table for minizip; valid while this stream is alive.
    func functions() -> zlib_filefunc64_def {
        var table = zlib_filefunc64_def()
        table.opaque = Unmanaged.passUnretained(self).toOpaque()
        table.zopen64_file = { opaque, _, _ in opaque }
        table.zread_file = { _, _, _, _ in 0 }
        table.zwrite_file = { opaque, _, buffer, size in
            guard let opaque, let buffer else { return 0 }
            let stream = Unmanaged<MinizipStream>.fromOpaque(opaque).takeUnretainedValue()
            return uLong(stream.write(UnsafeRawBufferPointer(start: buffer, count: Int(size))))
        }
        table.ztell64_file = { opaque, _ in
            guard let opaque else { return 0 }
            return Unmanaged<MinizipStream>.fromOpaque(opaque).takeUnretainedValue().position
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
