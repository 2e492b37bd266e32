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

    /// Opens `path` (following links in it) with `options`; the descriptor is closed on `exec`.
    package static func open(_ path: String, _ options: OpenOptions, permissions: UInt32 = 0o600) throws(Errno)
        -> FileDescriptor
    {
        FileDescriptor(rawValue: try SystemCall.open(path, options, permissions: permissions))
    }

    /// Opens an existing file for reading.
    package static func openForReading(_ path: String) throws(Errno) -> FileDescriptor {
        try open(path, .readOnly)
    }

    /// Opens `path` for reading without waiting on a named pipe (`O_NONBLOCK`): for inputs read only when
    /// they turn out to be regular files.
    package static func openWithoutWaiting(_ path: String) throws(Errno) -> FileDescriptor {
        try open(path, [.readOnly, .nonBlocking])
    }

    /// Closes the descriptor.
    package func close() throws(Errno) { try SystemCall.close(rawValue) }

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
        try SystemCall.read(rawValue, into: buffer)
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
        while filled < buffer.count {
            let count = try SystemCall.read(
                rawValue, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]),
                atOffset: offset + Int64(filled))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Writes every byte of `buffer`, looping over short writes.
    package func writeAll(_ buffer: UnsafeRawBufferPointer) throws(Errno) {
        var written = 0
        while written < buffer.count {
            written += try SystemCall.write(rawValue, UnsafeRawBufferPointer(rebasing: buffer[written...]))
        }
    }

    /// Writes every byte of `buffer` at `offset`, without moving the position (`pwrite`).
    package func writeAll(_ buffer: UnsafeRawBufferPointer, atOffset offset: Int64) throws(Errno) {
        var written = 0
        while written < buffer.count {
            written += try SystemCall.write(
                rawValue, UnsafeRawBufferPointer(rebasing: buffer[written...]), atOffset: offset + Int64(written))
        }
    }

    /// Writes every byte of `bytes`.
    package func writeAll(_ bytes: [UInt8]) throws(Errno) {
        let result: Result<Void, Errno> = bytes.withUnsafeBytes { buffer in
            Result { () throws(Errno) in try writeAll(buffer) }
        }
        try result.get()
    }

    /// The current position; `nil` for a descriptor that cannot seek.
    package func position() -> Int64? { SystemCall.position(rawValue) }

    /// Moves the position to `offset` from the start.
    package func seek(to offset: Int64) throws(Errno) { try SystemCall.seek(rawValue, to: offset) }

    /// The `fstat(2)` information of the descriptor.
    package func status() throws(Errno) -> FileStatus { try SystemCall.status(rawValue) }

    /// The size in bytes, for a regular file; `nil` for a pipe, terminal or other stream.
    package func regularFileSize() throws(Errno) -> Int64? {
        let status = try status()
        return status.kind == .regular ? status.size : nil
    }

    /// The device and inode, which identify the file whatever path reached it.
    package func fileIdentity() throws(Errno) -> FileIdentity { try status().identity }

    /// Whether the descriptor refers to a terminal.
    package var isTerminal: Bool { SystemCall.isTerminal(rawValue) }

    /// Whether the descriptor is open in this process.
    package var isOpen: Bool { SystemCall.isOpen(rawValue) }

    /// Takes an exclusive advisory lock (`flock(2)`) without waiting; returns false when another open
    /// file holds one. The lock lasts while any descriptor of this open file does.
    package func lockExclusively() throws(Errno) -> Bool { try SystemCall.lockExclusively(rawValue) }

    /// Sets the file's access and modification times to `seconds` since 1970 (`futimens(2)`).
    package func setModificationTime(_ seconds: Int) throws(Errno) {
        try SystemCall.setTimes(rawValue, seconds: seconds)
    }

    /// Sets the size of the regular file (`ftruncate(2)`): bytes added read as zeros.
    package func setSize(_ size: Int64) throws(Errno) { try SystemCall.setSize(rawValue, size) }

    /// Sets the file's permission bits (`fchmod(2)`).
    package func setPermissions(_ permissions: UInt32) throws(Errno) {
        try SystemCall.setPermissions(rawValue, permissions)
    }

    /// Sets the file's owner and group (`fchown(2)`): only root may give a file away; an owner may give it
    /// to a group of its own.
    package func setOwner(_ owner: UInt32, group: UInt32) throws(Errno) {
        try SystemCall.setOwner(rawValue, owner: owner, group: group)
    }

    /// Flushes the file's data and metadata to storage (`fsync(2)`).
    package func sync() throws(Errno) { try SystemCall.sync(rawValue) }

    /// Starts writing the `count` bytes at `offset` back to storage without waiting for them, so that the
    /// ``sync()`` that follows is short; a hint, never a failure.
    package func startWriteback(offset: Int64, count: Int) {
        SystemCall.startWriteback(rawValue, offset: offset, count: count)
    }
}
