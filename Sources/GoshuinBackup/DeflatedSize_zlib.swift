internal import CMinizip
import GoshuinFormat

/// How many bytes zlib's raw deflate, with the ZIP writer's settings, makes of a file: so that the packer
/// stores an entry whose deflated form the reader would refuse as a possible ZIP bomb (more than
/// ``ZipStructureScanner/maximumCompressionRatio`` times smaller), instead of writing a backup it cannot read.
enum DeflatedSize {
    /// The deflated size of the regular file open at `file`, read with positioned reads (its position is
    /// not moved) through `buffer`.
    static func of(_ file: FileDescriptor, name: String, buffer: AllocatedBytes) throws -> UInt64 {
        var stream = z_stream()
        let started = deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        guard started == Z_OK else {
            throw started == Z_MEM_ERROR
                ? GoshuinError(.outOfMemory, "zlib cannot allocate its deflate state")
                : GoshuinError(.io, "zlib cannot start deflating (status \(started))")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var total: UInt64 = 0
        var offset: Int64 = 0
        while true {
            try Interruption.check()
            let received = try describingFailure("cannot read \(DisplayText.quoted(name))") {
                try file.readFully(into: buffer.bytes, atOffset: offset)
            }
            offset += Int64(received)
            let flush = received == 0 ? Z_FINISH : Z_NO_FLUSH
            stream.next_in = buffer.bytes.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(received)
            var status = Z_OK
            repeat {
                status = output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = deflate(&stream, flush)
                    total += UInt64(out.count - Int(stream.avail_out))
                    return status
                }
            } while stream.avail_out == 0 && status == Z_OK
            if status == Z_STREAM_END { return total }
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw GoshuinError(.io, "zlib cannot deflate \(DisplayText.quoted(name)) (status \(status))")
            }
        }
    }
}
