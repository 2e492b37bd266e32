internal import CZlib
import GoshuinFormat

/// zlib's raw deflate (RFC 1951, no wrapper) of bytes in memory, at zlib's default level: for records.csv,
/// whose deflated size the ZIP's layout needs before a byte of it is written.
enum RawDeflate {
    /// The deflated form of `input`.
    static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        let started = deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        guard started == Z_OK else {
            throw started == Z_MEM_ERROR
                ? GoshuinError(.outOfMemory, "zlib cannot allocate its deflate state")
                : GoshuinError(.io, "zlib cannot start deflating (status \(started))")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let status = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(target.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw GoshuinError(.io, "zlib cannot deflate (status \(status))") }
        return Array(output[0..<Int(stream.total_out)])
    }
}
