internal import CZlib
import GoshuinFormat

/// zlib's raw inflate (RFC 1951, no zlib or gzip wrapper) for one entry's data, fed in pieces.
///
/// The data must end exactly where the entry's compressed size says: a stream that ends early (bytes
/// follow its final block) or runs past the end (no final block) is `entry_corrupt`.
final class RawInflater {
    private var stream = z_stream()

    /// Starts a raw inflate.
    init() throws {
        let status = inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw status == Z_MEM_ERROR
                ? GoshuinError(.outOfMemory, "zlib cannot allocate its inflate state")
                : GoshuinError(.io, "zlib cannot start inflating (status \(status))")
        }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates `input`, the next piece of the compressed data, handing every piece of output to `emit`.
    ///
    /// - Parameter isLast: whether `input` ends the entry's compressed data.
    /// - Returns: whether the deflate stream ended (its final block). With `isLast`, it must have.
    /// - Throws: `entry_corrupt` naming `name` for broken data, data after the final block, or data that
    ///   stops before it; whatever `emit` throws.
    func inflate(
        _ input: UnsafeRawBufferPointer, isLast: Bool, into output: UnsafeMutableRawBufferPointer, name: String,
        emit: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        while true {
            stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(output.count)
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            let produced = output.count - Int(stream.avail_out)
            if produced > 0 { try emit(UnsafeRawBufferPointer(rebasing: output[0..<produced])) }
            switch status {
            case Z_STREAM_END:
                guard stream.avail_in == 0, isLast else {
                    throw GoshuinError.entryCorrupt("\(name)'s deflate data ends before its declared compressed size")
                }
                return
            case Z_OK where stream.avail_in > 0 || stream.avail_out == 0:
                continue
            case Z_OK,
                Z_BUF_ERROR where stream.avail_in == 0:
                // Every byte of this piece is consumed and no more output is pending.
                guard !isLast else {
                    throw GoshuinError.entryCorrupt("\(name)'s deflate data is cut: it has no final block")
                }
                return
            case Z_MEM_ERROR:
                throw GoshuinError(.outOfMemory, "zlib ran out of memory inflating \(name)")
            default:
                throw GoshuinError.entryCorrupt("\(name) has broken compressed data")
            }
        }
    }
}
