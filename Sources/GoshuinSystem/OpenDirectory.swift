/// A directory opened once, with every name inside it reached through its descriptor (`openat(2)` and
/// its relatives), never through a path again. Whoever renames the directory, or swaps a name in it for a
/// symbolic link, cannot redirect what is created, written or removed: links are never followed.
package final class OpenDirectory {
    /// The directory's descriptor, closed with this object.
    package let descriptor: FileDescriptor

    /// Opens the directory at `path` (following links in the path, as a user's `cd` would).
    package init(path: String) throws(Errno) {
        descriptor = try FileDescriptor.open(path, .directory)
    }

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    deinit { try? descriptor.close() }

    /// Opens `name` in this directory with `options`, never following a link.
    package func openFile(_ name: String, _ options: OpenOptions, permissions: UInt32 = 0o600) throws(Errno)
        -> FileDescriptor
    {
        FileDescriptor(
            rawValue: try SystemCall.open(name, in: descriptor.rawValue, options, permissions: permissions))
    }

    /// Opens the directory `name` in this one, refusing a symbolic link.
    package func openDirectory(_ name: String) throws(Errno) -> OpenDirectory {
        OpenDirectory(descriptor: try openFile(name, .directory))
    }

    /// Creates the directory `name`.
    package func makeDirectory(_ name: String, permissions: UInt32) throws(Errno) {
        try SystemCall.makeDirectory(name, in: descriptor.rawValue, permissions: permissions)
    }

    /// What `name` is, without following a link; `nil` when nothing has that name.
    package func status(of name: String) throws(Errno) -> FileStatus? {
        try SystemCall.status(of: name, in: descriptor.rawValue)
    }

    /// The directory's own `fstat(2)` information.
    package func status() throws(Errno) -> FileStatus { try descriptor.status() }

    /// Removes the file (or link) `name`.
    package func removeFile(_ name: String) throws(Errno) {
        try SystemCall.remove(name, in: descriptor.rawValue, isDirectory: false)
    }

    /// Removes the empty directory `name`.
    package func removeDirectory(_ name: String) throws(Errno) {
        try SystemCall.remove(name, in: descriptor.rawValue, isDirectory: true)
    }

    /// Renames `name` to `newName`, both in this directory (`renameat(2)`: an empty directory or a file at
    /// `newName` is replaced).
    package func rename(_ name: String, to newName: String) throws(Errno) {
        try SystemCall.rename(name, to: newName, in: descriptor.rawValue)
    }

    /// Gives the file `name` a second name `newName` in this directory (`linkat(2)`); fails if `newName`
    /// exists.
    package func link(_ name: String, to newName: String) throws(Errno) {
        try SystemCall.link(name, to: newName, in: descriptor.rawValue)
    }

    /// The raw names in the directory, without `.` and `..`, in no particular order.
    package func names() throws(Errno) -> [[UInt8]] { try SystemCall.names(in: descriptor.rawValue) }

    /// Whether `name` is still the file or folder `identity` (not swapped meanwhile).
    package func stillNames(_ identity: FileIdentity, _ name: String) -> Bool {
        (try? status(of: name))??.identity == identity
    }

    /// Flushes the directory's entries to storage, making renames and creations in it durable.
    package func sync() throws(Errno) { try descriptor.sync() }
}
