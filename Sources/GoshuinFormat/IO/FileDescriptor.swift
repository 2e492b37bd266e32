import Glibc

/// An open file descriptor and the few operations the toolkit needs on it.
///
/// The value does not own the descriptor: close it with ``close()`` or use ``closeAfter(_:)``. Every call
/// retries on `EINTR`; failures are thrown as ``Errno``.
package struct FileDescriptor: Hashable, Sendable {
    /// The raw descriptor.
    package let rawValue: Int32

    /// Wraps a raw descriptor.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Standard input.
    package static let standardInput = FileDescriptor(rawValue: 0)
    /// Standard output.
    package static let standardOutput = FileDescriptor(rawValue: 1)
    /// Standard error.
    package static let standardError = FileDescriptor(rawValue: 2)

    /// Opens `path` with `open(2)` flags; `O_CLOEXEC` is always added.
    package static func open(_ path: String, _ flags: Int32, permissions: mode_t = 0o600) throws(Errno)
        -> FileDescriptor
    {
        let raw = try retryOnInterrupt { Glibc.open(path, flags | O_CLOEXEC, permissions) }
        return FileDescriptor(rawValue: raw)
    }

    /// Opens an existing file for reading.
    package static func openForReading(_ path: String) throws(Errno) -> FileDescriptor {
        try open(path, O_RDONLY)
    }

    /// Closes the descriptor.
    package func close() throws(Errno) {
        // close(2) must not be retried on EINTR on Linux: the descriptor is already released.
        if Glibc.close(rawValue) == -1 {
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }

    /// Runs `body`, then closes the descriptor whatever happened; an error from `body` wins over one from
    /// closing.
    @discardableResult
    package func closeAfter<Result>(_ body: () throws -> Result) throws -> Result {
        let result: Result
        do {
            result = try body()
        } catch {
            try? close()
            throw error
        }
        try close()
        return result
    }

    /// Reads up to `buffer.count` bytes at the current position; returns how many were read (0 at end of file).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        guard buffer.count > 0, let base = buffer.baseAddress else { return 0 }
        return try retryOnInterrupt { Glibc.read(rawValue, base, buffer.count) }
    }

    /// Reads until `buffer` is full or the end of file; returns how many bytes were read.
    package func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Reads until `buffer` is full or the end of file, starting at `offset`, without moving the position.
    package func readFully(into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64) throws(Errno) -> Int {
        var filled = 0
        while filled < buffer.count, let base = buffer.baseAddress {
            let count = try retryOnInterrupt {
                Glibc.pread(rawValue, base + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Writes every byte of `buffer`, looping over short writes.
    package func writeAll(_ buffer: UnsafeRawBufferPointer) throws(Errno) {
        var written = 0
        while written < buffer.count, let base = buffer.baseAddress {
            let alreadyWritten = written
            let count = try retryOnInterrupt {
                Glibc.write(rawValue, base + alreadyWritten, buffer.count - alreadyWritten)
            }
            written += count
        }
    }

    /// Writes every byte of `buffer` at `offset`, without moving the position (`pwrite`).
    package func writeAll(_ buffer: UnsafeRawBufferPointer, atOffset offset: Int64) throws(Errno) {
        var written = 0
        while written < buffer.count, let base = buffer.baseAddress {
            let alreadyWritten = written
            let count = try retryOnInterrupt {
                Glibc.pwrite(
                    rawValue, base + alreadyWritten, buffer.count - alreadyWritten,
                    off_t(offset) + off_t(alreadyWritten))
            }
            written += count
        }
    }

    /// Writes every byte of `bytes`.
    package func writeAll(_ bytes: [UInt8]) throws(Errno) {
        let result: Result<Void, Errno> = bytes.withUnsafeBytes { buffer in
            Result { () throws(Errno) in try writeAll(buffer) }
        }
        try result.get()
    }

    /// The `fstat(2)` information of the descriptor.
    package func status() throws(Errno) -> stat {
        var info = stat()
        _ = try retryOnInterrupt { fstat(rawValue, &info) }
        return info
    }

    /// The size in bytes, for a regular file; `nil` for a pipe, terminal or other stream.
    package func regularFileSize() throws(Errno) -> Int64? {
        let info = try status()
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Whether the descriptor refers to a terminal.
    package var isTerminal: Bool { isatty(rawValue) == 1 }

    /// Whether the descriptor is open in this process.
    package var isOpen: Bool { fcntl(rawValue, F_GETFD) != -1 }

    /// Takes an exclusive advisory lock (`flock(2)`) without waiting; returns false when another open
    /// file holds one. The lock lasts while any descriptor of this open file does.
    package func lockExclusively() throws(Errno) -> Bool {
        while flock(rawValue, LOCK_EX | LOCK_NB) == -1 {
            let error = Errno.current
            if error.rawValue == EWOULDBLOCK { return false }
            if error != .interrupted { throw error }
        }
        return true
    }

    /// Flushes the file's data and metadata to storage (`fsync(2)`).
    package func sync() throws(Errno) {
        _ = try retryOnInterrupt { fsync(rawValue) }
    }

    /// The device and inode, which identify the file whatever path reached it.
    package func fileIdentity() throws(Errno) -> FileIdentity {
        FileIdentity(try status())
    }
}

/// A file's device and inode numbers: two paths name the same file when these are equal.
package struct FileIdentity: Hashable, Sendable {
    /// `st_dev`.
    package let device: UInt64
    /// `st_ino`.
    package let inode: UInt64

    /// The identity of the file at `path`, following symbolic links; `nil` when it does not exist.
    package static func of(path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    /// The identity `info` describes.
    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
