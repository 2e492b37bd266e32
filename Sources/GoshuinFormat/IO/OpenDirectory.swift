import Glibc

/// A directory opened once, with every name inside it reached through its descriptor (`openat(2)` and
/// its relatives), never through a path again. Whoever renames the directory, or swaps a name in it for a
/// symbolic link, cannot redirect what is created, written or removed: links are never followed.
package final class OpenDirectory {
    /// The directory's descriptor, closed with this object.
    package let descriptor: FileDescriptor

    /// Opens the directory at `path` (following links in the path, as a user's `cd` would).
    package init(path: String) throws(Errno) {
        descriptor = try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY)
    }

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    deinit { try? descriptor.close() }

    /// Opens `name` in this directory with `open(2)` flags; `O_NOFOLLOW` and `O_CLOEXEC` are always added.
    package func openFile(_ name: String, _ flags: Int32, permissions: mode_t = 0o600) throws(Errno) -> FileDescriptor {
        let raw = try retryOnInterrupt {
            openat(descriptor.rawValue, name, flags | O_NOFOLLOW | O_CLOEXEC, permissions)
        }
        return FileDescriptor(rawValue: raw)
    }

    /// Opens the directory `name` in this one, refusing a symbolic link.
    package func openDirectory(_ name: String) throws(Errno) -> OpenDirectory {
        OpenDirectory(descriptor: try openFile(name, O_RDONLY | O_DIRECTORY))
    }

    /// Creates the directory `name`.
    package func makeDirectory(_ name: String, permissions: mode_t) throws(Errno) {
        _ = try retryOnInterrupt { mkdirat(descriptor.rawValue, name, permissions) }
    }

    /// What `name` is, without following a link; `nil` when nothing has that name.
    package func status(of name: String) throws(Errno) -> stat? {
        var info = stat()
        if fstatat(descriptor.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
        let error = Errno.current
        if error == .noSuchFile { return nil }
        throw error
    }

    /// The directory's own `fstat(2)` information.
    package func status() throws(Errno) -> stat { try descriptor.status() }

    /// Removes the file (or link) `name`.
    package func removeFile(_ name: String) throws(Errno) {
        _ = try retryOnInterrupt { unlinkat(descriptor.rawValue, name, 0) }
    }

    /// Removes the empty directory `name`.
    package func removeDirectory(_ name: String) throws(Errno) {
        _ = try retryOnInterrupt { unlinkat(descriptor.rawValue, name, AT_REMOVEDIR) }
    }

    /// Renames `name` to `newName`, both in this directory (`renameat(2)`: an empty directory or a file at
    /// `newName` is replaced).
    package func rename(_ name: String, to newName: String) throws(Errno) {
        _ = try retryOnInterrupt { renameat(descriptor.rawValue, name, descriptor.rawValue, newName) }
    }

    /// The raw names in the directory, without `.` and `..`, in no particular order.
    package func names() throws(Errno) -> [[UInt8]] {
        let copy = try retryOnInterrupt { fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0) }
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
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw Errno.current }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
    }

    /// Flushes the directory's entries to storage, making renames and creations in it durable.
    package func sync() throws(Errno) { try descriptor.sync() }
}
