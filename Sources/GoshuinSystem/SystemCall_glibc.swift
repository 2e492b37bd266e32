internal import Glibc

/// The one place the toolkit's libraries call the C library: every system call they make, with Swift types
/// in and out, in this file and the `SystemCall+…_glibc.swift` files beside it, one a kind of call.
/// Another platform is these files and the module maps.
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

    /// Runs a system call, retrying while it fails with `EINTR`; throws the `errno` of any other failure. A
    /// call of a `kind` is where a debug build's ``FaultInjection`` may fail or interrupt it.
    @inline(__always)
    static func retryOnInterrupt<Result: FixedWidthInteger>(
        _ kind: FaultInjection.Call? = nil, _ call: () -> Result
    ) throws(Errno) -> Result {
        #if GOSHUIN_FAULT_INJECTION
            // One injected fault a call at most: an interrupted call is then made, as a real one would be.
            switch kind.flatMap(FaultInjection.take) {
            case .fails(let code)?: throw Errno(rawValue: code)
            case .interrupted?: if Interruption.isRequested { throw Errno.interrupted }
            case .shortTransfer?, nil: break
            }
        #endif
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
    init(_ info: stat) {
        self.init(
            kind: FileKind(typeBits: UInt32(info.st_mode) & UInt32(S_IFMT)), size: Int64(info.st_size),
            identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)), owner: UInt32(info.st_uid),
            group: UInt32(info.st_gid),
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
