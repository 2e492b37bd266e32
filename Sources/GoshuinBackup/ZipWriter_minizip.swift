internal import CMinizip
import GoshuinFormat

/// Writes a backup ZIP with minizip through custom I/O into an empty file: no extra fields, no comments,
/// Unix mode 0644, the fixed timestamp 1980-01-01 00:00, so the same files always give the same bytes.
final class ZipWriter {
    private let stream: MinizipStream
    private let handle: zipFile
    private var closed = false

    /// Starts a ZIP in the empty file open for writing at `output`.
    init(_ output: FileDescriptor) throws {
        stream = MinizipStream(writing: output)
        var functions = stream.functions()
        guard let handle = zipOpen2_64("payload.zip", APPEND_STATUS_CREATE, nil, &functions) else {
            throw stream.failure ?? GoshuinError(.io, "minizip cannot start a ZIP")
        }
        self.handle = handle
    }

    deinit {
        if !closed { zipClose(handle, nil) }
    }

    /// Adds an entry named `name` whose data `write` produces by calling its argument; deflated or stored.
    func addEntry(
        _ name: String, size: UInt64, deflate: Bool, _ produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        var info = zip_fileinfo()
        info.tmz_date = tm_zip(tm_sec: 0, tm_min: 0, tm_hour: 0, tm_mday: 1, tm_mon: 0, tm_year: 1980)
        info.external_fa = uLong(0o100644) << 16
        let unixVersionMadeBy: uLong = 3 << 8 | 20
        let needsZip64: Int32 = size >= 0xFFFF_FFFF ? 1 : 0
        let opened = zipOpenNewFileInZip4_64(
            handle, name, &info, nil, 0, nil, 0, nil, deflate ? Z_DEFLATED : 0,
            deflate ? Z_DEFAULT_COMPRESSION : 0, 0, -MAX_WBITS, DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY, nil, 0,
            unixVersionMadeBy, 0, needsZip64)
        guard opened == ZIP_OK else { throw failure("cannot add \(name)") }
        try produce { bytes in
            // Pieces are a copy buffer or the manifest (at most 16 MiB): a u32 count always holds them.
            guard let count = UInt32(exactly: bytes.count),
                zipWriteInFileInZip(handle, bytes.baseAddress, count) == ZIP_OK
            else { throw failure("cannot write \(name)") }
        }
        guard zipCloseFileInZip(handle) == ZIP_OK else { throw failure("cannot finish \(name)") }
    }

    /// Writes the central directory and the end records.
    func finish() throws {
        closed = true
        guard zipClose(handle, nil) == ZIP_OK else { throw failure("cannot finish the ZIP") }
    }

    private func failure(_ what: String) -> GoshuinError {
        stream.failure ?? GoshuinError(.io, "minizip \(what)")
    }
}
