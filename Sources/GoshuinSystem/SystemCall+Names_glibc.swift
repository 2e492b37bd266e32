internal import Glibc

/// Names in a directory reached by its descriptor, and paths.
extension SystemCall {
    /// What `name` in `directory` is, without following a link; `nil` when nothing has that name.
    static func status(of name: String, in directory: Int32) throws(Errno) -> FileStatus? {
        var info = stat()
        if fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return FileStatus(info) }
        let error = Errno.current
        if error == .noSuchFile { return nil }
        throw error
    }

    static func makeDirectory(_ name: String, in directory: Int32, permissions: UInt32) throws(Errno) {
        _ = try retryOnInterrupt(.makeDirectory) { mkdirat(directory, name, mode_t(permissions)) }
    }

    static func remove(_ name: String, in directory: Int32, isDirectory: Bool) throws(Errno) {
        _ = try retryOnInterrupt(.remove) { unlinkat(directory, name, isDirectory ? AT_REMOVEDIR : 0) }
    }

    static func rename(_ name: String, to newName: String, in directory: Int32) throws(Errno) {
        _ = try retryOnInterrupt(.rename) { renameat(directory, name, directory, newName) }
    }

    static func link(_ name: String, to newName: String, in directory: Int32) throws(Errno) {
        _ = try retryOnInterrupt(.link) { linkat(directory, name, directory, newName, 0) }
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
}
