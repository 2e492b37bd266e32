internal import CSystem
internal import Glibc

/// Open descriptors: reading, writing, positions, syncing, status, locks, extended attributes.
extension SystemCall {
    static func open(_ path: String, _ options: OpenOptions, permissions: UInt32) throws(Errno) -> Int32 {
        try retryOnInterrupt(.open) { Glibc.open(path, options.rawValue | O_CLOEXEC, mode_t(permissions)) }
    }

    static func open(
        _ name: String, in directory: Int32, _ options: OpenOptions, permissions: UInt32
    ) throws(Errno) -> Int32 {
        try retryOnInterrupt(.open) {
            openat(directory, name, options.rawValue | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
        }
    }

    /// Closes `descriptor`; never retried, because on Linux the descriptor is released even on `EINTR`.
    static func close(_ descriptor: Int32) throws(Errno) {
        if Glibc.close(descriptor) == -1, Glibc.errno != EINTR { throw Errno.current }
    }

    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = transferLimit(.read, buffer.count)
        return try retryOnInterrupt(.read) { Glibc.read(descriptor, base, count) }
    }

    static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64
    ) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = transferLimit(.read, buffer.count)
        return try retryOnInterrupt(.read) { pread(descriptor, base, count, off_t(offset)) }
    }

    static func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = transferLimit(.write, buffer.count)
        return try retryOnInterrupt(.write) { Glibc.write(descriptor, base, count) }
    }

    static func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, atOffset offset: Int64) throws(Errno)
        -> Int
    {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = transferLimit(.write, buffer.count)
        return try retryOnInterrupt(.write) { pwrite(descriptor, base, count, off_t(offset)) }
    }

    /// The position of `descriptor`; `nil` for one that cannot seek.
    static func position(_ descriptor: Int32) -> Int64? {
        let offset = lseek(descriptor, 0, SEEK_CUR)
        return offset < 0 ? nil : Int64(offset)
    }

    static func seek(_ descriptor: Int32, to offset: Int64) throws(Errno) {
        _ = try retryOnInterrupt { lseek(descriptor, off_t(offset), SEEK_SET) }
    }

    static func sync(_ descriptor: Int32) throws(Errno) {
        _ = try retryOnInterrupt(.sync) { fsync(descriptor) }
    }

    /// Starts writing `count` bytes at `offset` of `descriptor` back to its storage, without waiting
    /// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`): a later `fsync` then waits only for what is left. Only a
    /// hint: a file system that has nothing to write back (tmpfs) or refuses it is no failure.
    static func startWriteback(_ descriptor: Int32, offset: Int64, count: Int) {
        _ = goshuin_start_writeback(descriptor, Int(offset), count)
    }

    static func status(_ descriptor: Int32) throws(Errno) -> FileStatus {
        var info = stat()
        _ = try retryOnInterrupt { fstat(descriptor, &info) }
        return FileStatus(info)
    }

    /// An exclusive `flock(2)` without waiting; false when another open file holds one.
    static func lockExclusively(_ descriptor: Int32) throws(Errno) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) == -1 {
            let error = Errno.current
            if error.rawValue == EWOULDBLOCK { return false }
            if error != .interrupted { throw error }
        }
        return true
    }

    /// Whether a process holds a POSIX record lock (`fcntl(2)`, classic or open-file) that would keep this
    /// one from locking the whole file for writing.
    static func hasRecordLock(_ descriptor: Int32) throws(Errno) -> Bool {
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        _ = try retryOnInterrupt { fcntl(descriptor, F_GETLK, &probe) }
        return probe.l_type != Int16(F_UNLCK)
    }

    /// Sets the extended attribute `name` of the open file `descriptor` to `value`.
    static func setAttribute(_ descriptor: Int32, _ name: String, _ value: [UInt8]) throws(Errno) {
        _ = try retryOnInterrupt { value.withUnsafeBytes { fsetxattr(descriptor, name, $0.baseAddress, $0.count, 0) } }
    }

    /// The extended attribute `name` of the open file `descriptor`, at most `maximumLength` bytes; `nil`
    /// when the file has none of that name (or a longer one), or its file system keeps none.
    static func attribute(_ descriptor: Int32, _ name: String, maximumLength: Int) -> [UInt8]? {
        var value = [UInt8](repeating: 0, count: maximumLength)
        let count = value.withUnsafeMutableBytes { fgetxattr(descriptor, name, $0.baseAddress, $0.count) }
        return count < 0 ? nil : Array(value[0..<count])
    }

    /// Removes the extended attribute `name` from the open file `descriptor`, if it has one.
    static func removeAttribute(_ descriptor: Int32, _ name: String) { _ = fremovexattr(descriptor, name) }

    /// Sets the access and modification times of the open file `descriptor` to `seconds` since 1970.
    static func setTimes(_ descriptor: Int32, seconds: Int) throws(Errno) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        _ = try retryOnInterrupt { futimens(descriptor, &times) }
    }

    /// Sets the size of the open regular file `descriptor`: bytes added read as zeros.
    static func setSize(_ descriptor: Int32, _ size: Int64) throws(Errno) {
        _ = try retryOnInterrupt { ftruncate(descriptor, off_t(size)) }
    }

    /// Sets the permission bits of the open file or folder `descriptor`.
    static func setPermissions(_ descriptor: Int32, _ permissions: UInt32) throws(Errno) {
        _ = try retryOnInterrupt { fchmod(descriptor, mode_t(permissions)) }
    }

    /// Sets the owner and group of the open file `descriptor` (`fchown(2)`).
    static func setOwner(_ descriptor: Int32, owner: UInt32, group: UInt32) throws(Errno) {
        _ = try retryOnInterrupt { fchown(descriptor, uid_t(owner), gid_t(group)) }
    }

    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    static func isOpen(_ descriptor: Int32) -> Bool { fcntl(descriptor, F_GETFD) != -1 }

    /// Waits up to `milliseconds` for `descriptor` to have something to read (or its end, or an error the
    /// read will report); false when the time ran out or a signal came first.
    static func waitForInput(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let result = poll(&entry, 1, milliseconds)
        return result > 0 || (result == -1 && Glibc.errno != EINTR)
    }

    /// `count`, or fewer bytes where a debug build's ``FaultInjection`` shortens this transfer.
    @inline(__always)
    private static func transferLimit(_ kind: FaultInjection.Call, _ count: Int) -> Int {
        #if GOSHUIN_FAULT_INJECTION
            return FaultInjection.transferLimit(kind, count)
        #else
            return count
        #endif
    }
}
