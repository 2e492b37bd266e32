internal import CSystem
internal import Glibc

/// The one place the toolkit's libraries call the C library: every system call they make, with Swift types
/// in and out. Another platform is this file and the module maps.
///
/// Calls that can fail throw the `errno` as an ``Errno``; those that can be cut short by a signal are
/// retried on `EINTR` unless a stop was requested (``Interruption``).
enum SystemCall {
    /// The current thread's `errno`.
    static var errno: Int32 { Glibc.errno }

    /// The system's text for an `errno` value.
    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The longest name in a directory, in bytes.
    static let maximumNameLength = Int(NAME_MAX)

    // MARK: - Descriptors

    static func open(_ path: String, _ options: OpenOptions, permissions: UInt32) throws(Errno) -> Int32 {
        try retryOnInterrupt { Glibc.open(path, options.rawValue | O_CLOEXEC, mode_t(permissions)) }
    }

    static func open(
        _ name: String, in directory: Int32, _ options: OpenOptions, permissions: UInt32
    ) throws(Errno) -> Int32 {
        try retryOnInterrupt {
            openat(directory, name, options.rawValue | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
        }
    }

    /// Closes `descriptor`; never retried, because on Linux the descriptor is released even on `EINTR`.
    static func close(_ descriptor: Int32) throws(Errno) {
        if Glibc.close(descriptor) == -1, Glibc.errno != EINTR { throw Errno.current }
    }

    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try retryOnInterrupt { Glibc.read(descriptor, base, buffer.count) }
    }

    static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64
    ) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try retryOnInterrupt { pread(descriptor, base, buffer.count, off_t(offset)) }
    }

    static func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try retryOnInterrupt { Glibc.write(descriptor, base, buffer.count) }
    }

    static func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, atOffset offset: Int64) throws(Errno)
        -> Int
    {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try retryOnInterrupt { pwrite(descriptor, base, buffer.count, off_t(offset)) }
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
        _ = try retryOnInterrupt { fsync(descriptor) }
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

    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    static func isOpen(_ descriptor: Int32) -> Bool { fcntl(descriptor, F_GETFD) != -1 }

    /// Waits up to `milliseconds` for `descriptor` to have something to read (or its end, or an error the
    /// read will report); false when the time ran out or a signal came first.
    static func waitForInput(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let result = poll(&entry, 1, milliseconds)
        return result > 0 || (result == -1 && Glibc.errno != EINTR)
    }

    // MARK: - Names in a directory descriptor

    /// What `name` in `directory` is, without following a link; `nil` when nothing has that name.
    static func status(of name: String, in directory: Int32) throws(Errno) -> FileStatus? {
        var info = stat()
        if fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return FileStatus(info) }
        let error = Errno.current
        if error == .noSuchFile { return nil }
        throw error
    }

    static func makeDirectory(_ name: String, in directory: Int32, permissions: UInt32) throws(Errno) {
        _ = try retryOnInterrupt { mkdirat(directory, name, mode_t(permissions)) }
    }

    static func remove(_ name: String, in directory: Int32, isDirectory: Bool) throws(Errno) {
        _ = try retryOnInterrupt { unlinkat(directory, name, isDirectory ? AT_REMOVEDIR : 0) }
    }

    static func rename(_ name: String, to newName: String, in directory: Int32) throws(Errno) {
        _ = try retryOnInterrupt { renameat(directory, name, directory, newName) }
    }

    static func link(_ name: String, to newName: String, in directory: Int32) throws(Errno) {
        _ = try retryOnInterrupt { linkat(directory, name, directory, newName, 0) }
    }

    /// The raw names in `directory`, without `.` and `..`, in no particular order.
    static func names(in directory: Int32) throws(Errno) -> [[UInt8]] {
        let copy = try retryOnInterrupt { fcntl(directory, F_DUPFD_CLOEXEC, 0) }
        guard let stream = fdopendir(copy) else {
            let error = Errno.current
            Glibc.close(copy)
            throw error
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [[UInt8]] = []
        while true {
            // readdir returns NULL both at the end and on an error; only errno tells them apart.
            Glibc.errno = 0
            guard let entry = readdir(stream) else {
                if Glibc.errno != 0 { throw Errno.current }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
    }

    // MARK: - Paths

    /// What is at `path`, following links unless `followingLinks` is false; `nil` with the error when
    /// nothing can be examined there.
    static func status(ofPath path: String, followingLinks: Bool) -> Result<FileStatus, Errno> {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        return result == 0 ? .success(FileStatus(info)) : .failure(Errno.current)
    }

    /// Whether this process may create files in the directory at `path`.
    static func canWrite(inDirectory path: String) -> Errno? {
        access(path, W_OK) == 0 ? nil : Errno.current
    }

    /// The bytes an unprivileged user can still write on the file system holding `path`.
    static func availableSpace(at path: String) throws(Errno) -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw Errno.current }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// The bytes an unprivileged user can still write on the file system holding the open `descriptor`.
    static func availableSpace(_ descriptor: Int32) throws(Errno) -> UInt64 {
        var info = statvfs()
        _ = try retryOnInterrupt { fstatvfs(descriptor, &info) }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// A new private file made from `template` (ending in `XXXXXX`) and unlinked at once.
    static func makeUnlinkedFile(template: String) throws(Errno) -> Int32 {
        var bytes = Array(template.utf8CString)
        let descriptor = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard descriptor >= 0 else { throw Errno.current }
        bytes.withUnsafeBufferPointer { buffer in
            if let path = buffer.baseAddress { _ = unlink(path) }
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }

    /// A new private directory made from `template` (ending in `XXXXXX`); returns its path.
    static func makeTemporaryDirectory(template: String) throws(Errno) -> String {
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let created else { throw Errno.current }
        return created
    }

    static func removeFile(atPath path: String) { _ = unlink(path) }

    static func makeDirectory(atPath path: String, permissions: UInt32) throws(Errno) {
        _ = try retryOnInterrupt { mkdir(path, mode_t(permissions)) }
    }

    static func removeEmptyDirectory(atPath path: String) { _ = rmdir(path) }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`, the same bits on every Linux architecture Swift runs on),
    /// which the Glibc module does not export.
    static let anonymousFileOptions = OpenOptions(rawValue: 0o20_000_000 | O_DIRECTORY | O_RDWR)

    /// The `errno` values by which a file system says it has no `O_TMPFILE`.
    static func meansNoAnonymousFiles(_ error: Errno) -> Bool {
        [EOPNOTSUPP, EISDIR, EINVAL].contains(error.rawValue)
    }

    // MARK: - Process

    /// The raw bytes of the environment variable `name`; `nil` when it is not set.
    static func environment(_ name: String) -> UnsafeRawBufferPointer? {
        guard let value = getenv(name) else { return nil }
        return UnsafeRawBufferPointer(start: value, count: strlen(value))
    }

    static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// Where the symbolic link at `path` points; `nil` when it is not one or cannot be read.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { readlink(path, $0, bytes.count) }
            } ?? -1
        }
        guard count > 0, count < buffer.count else { return nil }
        return String(validating: buffer[0..<count], as: UTF8.self)
    }

    /// Seconds since 1970.
    static var now: Int { Int(time(nil)) }

    /// `seconds` since 1970 in UTC: year, month 1–12, day, hour, minute, second.
    static func utcDate(_ seconds: Int) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return (
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
            Int(parts.tm_min), Int(parts.tm_sec)
        )
    }

    static var onlineProcessorCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    // MARK: - Memory

    /// The size of a page of memory.
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// `count` bytes (at least one) aligned to 16, or `nil` when the system refuses.
    static func allocate(_ count: Int) -> UnsafeMutableRawPointer? {
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, 16, max(count, 1)) == 0 else { return nil }
        return pointer
    }

    static func free(_ pointer: UnsafeMutableRawPointer?) { Glibc.free(pointer) }

    /// `count` bytes (a multiple of the page size) of private anonymous memory, zeroed; `nil` when refused.
    static func mapAnonymous(_ count: Int) -> UnsafeMutableRawPointer? {
        let pointer = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        return pointer == MAP_FAILED ? nil : pointer
    }

    static func unmap(_ pointer: UnsafeMutableRawPointer, _ count: Int) { _ = munmap(pointer, count) }

    /// Leaves the pages out of core dumps (`MADV_DONTDUMP`); false when the system refuses.
    @discardableResult
    static func excludeFromCoreDumps(_ pointer: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        madvise(pointer, count, MADV_DONTDUMP) == 0
    }

    // MARK: - Threads

    /// An opaque running thread, to be joined.
    struct Thread { fileprivate let raw: pthread_t }

    /// Starts `body` on a new thread with a stack of `stackSize` bytes; `nil` when the system refuses.
    static func startThread(stackSize: Int, _ body: @escaping () -> Void) -> Thread? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(ThreadBody(body))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, context.toOpaque())
        guard started == 0 else {
            context.release()
            return nil
        }
        return Thread(raw: thread)
    }

    /// Waits for `thread` to return.
    static func join(_ thread: Thread) { pthread_join(thread.raw, nil) }

    private final class ThreadBody {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    // MARK: - Locks

    /// A mutex and a condition variable, allocated once and never moved (pthread objects must not be).
    struct Condition: @unchecked Sendable {
        // @unchecked: the pthread objects are made for use from several threads.
        fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>
        fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>
    }

    static func makeCondition() -> Condition {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        return Condition(mutex: mutex, condition: condition)
    }

    static func destroy(_ condition: Condition) {
        pthread_cond_destroy(condition.condition)
        pthread_mutex_destroy(condition.mutex)
        condition.condition.deallocate()
        condition.mutex.deallocate()
    }

    static func lock(_ condition: Condition) { pthread_mutex_lock(condition.mutex) }
    static func unlock(_ condition: Condition) { pthread_mutex_unlock(condition.mutex) }
    /// Waits for a broadcast, the mutex released meanwhile and held again on return.
    static func wait(_ condition: Condition) { pthread_cond_wait(condition.condition, condition.mutex) }
    static func broadcast(_ condition: Condition) { pthread_cond_broadcast(condition.condition) }

    // MARK: - Signals

    /// A signal handler: only async-signal-safe work, on no state but atomics and values set before.
    typealias SignalHandler = @convention(c) (Int32) -> Void

    /// The signals the toolkit handles.
    enum Signal {
        static let interrupt = SIGINT
        static let terminate = SIGTERM
        static let hangUp = SIGHUP
        static let quit = SIGQUIT
        static let terminalStop = SIGTSTP
        static let backgroundRead = SIGTTIN
        static let backgroundWrite = SIGTTOU
        static let brokenPipe = SIGPIPE
        static let fileSizeLimit = SIGXFSZ
        /// The signals of a crash: an abort, a trap, a bad memory access or instruction.
        static let crashes = [SIGABRT, SIGTRAP, SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGSYS]
    }

    /// A signal's action as it was, to be put back with ``restoreSignalAction(_:_:)``.
    struct SignalAction { fileprivate var raw: sigaction }

    /// Makes `handler` handle `number`, with `blocking` blocked while it runs and without `SA_RESTART` (a
    /// blocked read returns `EINTR`); returns the action before.
    @discardableResult
    static func handleSignal(_ number: Int32, with handler: SignalHandler, blocking: [Int32] = []) -> SignalAction {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        for other in blocking { sigaddset(&action.sa_mask, other) }
        action.sa_flags = 0
        var previous = sigaction()
        sigaction(number, &action, &previous)
        return SignalAction(raw: previous)
    }

    /// Puts back an action ``handleSignal(_:with:blocking:)`` or ``currentSignalAction(_:)`` returned
    /// (async-signal-safe).
    static func restoreSignalAction(_ number: Int32, _ action: SignalAction) {
        var raw = action.raw
        sigaction(number, &raw, nil)
    }

    /// The action `number` has now.
    static func currentSignalAction(_ number: Int32) -> SignalAction {
        var current = sigaction()
        sigaction(number, nil, &current)
        return SignalAction(raw: current)
    }

    /// Unblocks `number` for this thread (async-signal-safe, no allocation).
    static func unblockSignal(_ number: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Gives `number` its default action again (async-signal-safe).
    static func defaultSignalAction(_ number: Int32) { signal(number, SIG_DFL) }

    /// Ignores `number`.
    static func ignoreSignal(_ number: Int32) { signal(number, SIG_IGN) }

    /// Unblocks `numbers` for this thread (async-signal-safe): a parent may hand down a mask blocking them.
    static func unblockSignals(_ numbers: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Sends `number` to this process (async-signal-safe).
    static func raiseSignal(_ number: Int32) { _ = raise(number) }

    // MARK: - The process

    /// Keeps this process from writing a core dump and from being read by another process of its user
    /// (`PR_SET_DUMPABLE` 0, and `RLIMIT_CORE` 0 for the file systems' dumps); false when either was refused.
    @discardableResult
    static func forbidCoreDumps() -> Bool {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        let limited = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0
        return goshuin_set_dumpable(0) == 0 && limited
    }

    /// Whether this process may dump core (`PR_GET_DUMPABLE`).
    static var isDumpable: Bool { goshuin_get_dumpable() == 1 }

    /// The soft limit on the size of a core dump this process may write.
    static var coreDumpSizeLimit: UInt64 {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        return UInt64(limit.rlim_cur)
    }

    // MARK: - Terminals

    /// A terminal's settings (`termios`), as read or to be applied.
    struct TerminalSettings {
        fileprivate var raw: termios

        /// These settings with echo off, newlines still echoed.
        var withoutEcho: TerminalSettings {
            var silent = raw
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            return TerminalSettings(raw: silent)
        }

        /// Whether typed characters are echoed.
        var echoes: Bool { raw.c_lflag & tcflag_t(ECHO) != 0 }
    }

    /// The settings of the terminal `descriptor`; `nil` when it is not a terminal.
    static func terminalSettings(_ descriptor: Int32) -> TerminalSettings? {
        var raw = termios()
        return tcgetattr(descriptor, &raw) == 0 ? TerminalSettings(raw: raw) : nil
    }

    /// Applies `settings` to the terminal `descriptor` at once, or, with `discardingInput`, once output is
    /// written and with what was typed but not read discarded (async-signal-safe).
    static func applyTerminalSettings(_ descriptor: Int32, _ settings: TerminalSettings, discardingInput: Bool) {
        var raw = settings.raw
        tcsetattr(descriptor, discardingInput ? TCSAFLUSH : TCSANOW, &raw)
    }

    /// Writes `bytes` to `descriptor` once, ignoring the result (async-signal-safe).
    static func writeOnce(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        _ = Glibc.write(descriptor, base, bytes.count)
    }

    /// Points `descriptor` at `/dev/null`.
    static func pointAtNullDevice(_ descriptor: Int32) {
        let null = Glibc.open("/dev/null", O_RDWR)
        guard null >= 0, null != descriptor else { return }
        dup2(null, descriptor)
        Glibc.close(null)
    }

    static func exit(_ status: Int32) -> Never { Glibc.exit(status) }

    /// The columns of the terminal `descriptor` refers to; `nil` when it is not a terminal.
    static func terminalColumns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        // TIOCGWINSZ (0x5413) is not exported by the Glibc module.
        guard isatty(descriptor) == 1, ioctl(descriptor, 0x5413, &size) == 0 else { return nil }
        return Int(size.ws_col)
    }

    // MARK: - Errors

    /// Runs a system call, retrying while it fails with `EINTR`; throws the `errno` of any other failure.
    @inline(__always)
    private static func retryOnInterrupt<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
        while true {
            let result = call()
            if result != -1 { return result }
            let error = Errno.current
            // A signal that asked the operation to stop ends the call instead of restarting it.
            if error != .interrupted || Interruption.isRequested { throw error }
        }
    }
}

/// Flags of `open(2)`.
package struct OpenOptions: OptionSet, Sendable {
    /// The raw flags.
    package let rawValue: Int32
    /// Makes options from raw flags.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `O_RDONLY`.
    package static let readOnly = OpenOptions([])
    /// `O_WRONLY`.
    package static let writeOnly = OpenOptions(rawValue: O_WRONLY)
    /// `O_RDWR`.
    package static let readWrite = OpenOptions(rawValue: O_RDWR)
    /// `O_CREAT`.
    package static let create = OpenOptions(rawValue: O_CREAT)
    /// `O_EXCL`.
    package static let exclusive = OpenOptions(rawValue: O_EXCL)
    /// `O_DIRECTORY`: only a directory opens.
    package static let directory = OpenOptions(rawValue: O_DIRECTORY)
    /// `O_NONBLOCK`: a named pipe does not block the open.
    package static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
}

extension FileStatus {
    fileprivate init(_ info: stat) {
        self.init(
            kind: FileKind(typeBits: UInt32(info.st_mode) & UInt32(S_IFMT)), size: Int64(info.st_size),
            identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)), owner: UInt32(info.st_uid),
            permissions: UInt32(info.st_mode) & 0o7777, modified: Int(info.st_mtim.tv_sec),
            modifiedNanoseconds: Int(info.st_mtim.tv_nsec),
            statusChanged: Int(info.st_ctim.tv_sec) * 1_000_000_000 + Int(info.st_ctim.tv_nsec))
    }
}

extension FileKind {
    fileprivate init(typeBits: UInt32) {
        switch typeBits {
        case UInt32(S_IFREG): self = .regular
        case UInt32(S_IFDIR): self = .directory
        case UInt32(S_IFLNK): self = .symbolicLink
        case UInt32(S_IFCHR): self = .characterDevice
        case UInt32(S_IFBLK): self = .blockDevice
        case UInt32(S_IFIFO): self = .namedPipe
        case UInt32(S_IFSOCK): self = .socket
        default: self = .other
        }
    }
}

extension Errno {
    /// The current thread's `errno`.
    package static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// `ENOENT`.
    package static let noSuchFile = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// `EINTR`.
    package static let interrupted = Errno(rawValue: EINTR)
    /// `ELOOP`: what opening a symbolic link without following it gives.
    package static let tooManyLinks = Errno(rawValue: ELOOP)
    /// `ENOMEM`.
    package static let outOfMemory = Errno(rawValue: ENOMEM)
    /// `EPIPE`: the reading end of a pipe was closed (SIGPIPE is ignored, so a write says so instead).
    package static let brokenPipe = Errno(rawValue: EPIPE)

    /// Whether the error means the destination cannot hold more: the file system or the user's quota is
    /// full, or the file reached the largest size the file system or the process's limit allows.
    package var isNoSpace: Bool { rawValue == ENOSPC || rawValue == EDQUOT || rawValue == EFBIG }

    /// Whether a file system refused a hard link because it has none (then a checked rename is used).
    package var meansNoHardLinks: Bool { [EPERM, EOPNOTSUPP, EXDEV, EMLINK].contains(rawValue) }
}
