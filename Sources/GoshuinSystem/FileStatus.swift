/// What `stat(2)` says about a file, in the terms the toolkit uses.
package struct FileStatus: Sendable {
    /// What kind of file it is.
    package let kind: FileKind
    /// The size in bytes (of a regular file).
    package let size: Int64
    /// The device and inode.
    package let identity: FileIdentity
    /// The owner's user ID.
    package let owner: UInt32
    /// The owner's group ID.
    package let group: UInt32
    /// The permission bits (`0o7777`).
    package let permissions: UInt32
    /// The last modification, in seconds since 1970.
    package let modified: Int
    /// The nanoseconds of the last modification past ``modified``: two writes in one second differ here.
    package let modifiedNanoseconds: Int
    /// The last change of the file's status (`st_ctim`), in nanoseconds since 1970: every write, and every
    /// change of its modification time (`touch -r`, `cp -p`, `rsync -t`), moves it, and nobody but the
    /// kernel can set it back.
    package let statusChanged: Int

    /// A status with every field given.
    package init(
        kind: FileKind, size: Int64, identity: FileIdentity, owner: UInt32, group: UInt32 = 0, permissions: UInt32,
        modified: Int, modifiedNanoseconds: Int = 0, statusChanged: Int = 0
    ) {
        self.kind = kind
        self.size = size
        self.identity = identity
        self.owner = owner
        self.group = group
        self.permissions = permissions
        self.modified = modified
        self.modifiedNanoseconds = modifiedNanoseconds
        self.statusChanged = statusChanged
    }

    /// Whether `other` is this file with the same content as far as `stat` can tell: the same file, size,
    /// modification instant and status change (a file rewritten and its modification time put back, or
    /// deleted and made again under the same inode number, has a later one).
    package func isUnchanged(comparedTo other: FileStatus) -> Bool {
        identity == other.identity && size == other.size && modified == other.modified
            && modifiedNanoseconds == other.modifiedNanoseconds && statusChanged == other.statusChanged
    }
}

/// What kind of file a name or a descriptor refers to.
package enum FileKind: Sendable, CustomStringConvertible {
    case regular, directory, symbolicLink, characterDevice, blockDevice, namedPipe, socket, other

    /// The kind in words for messages: `a regular file`, `a folder`, …
    package var description: String {
        switch self {
        case .regular: return "a regular file"
        case .directory: return "a folder"
        case .symbolicLink: return "a symbolic link"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .namedPipe: return "a named pipe"
        case .socket: return "a socket"
        case .other: return "a special file"
        }
    }
}

/// A file's device and inode numbers: two paths name the same file when these are equal.
package struct FileIdentity: Hashable, Sendable {
    /// `st_dev`.
    package let device: UInt64
    /// `st_ino`.
    package let inode: UInt64

    /// The identity of `device` and `inode`.
    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
