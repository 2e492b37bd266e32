/// The few file-system operations beyond a single descriptor that the toolkit needs.
package enum FileSystem {
    /// The whole content of the file at `path`, refused with `invalid_argument` beyond `maximumSize` bytes.
    package static func readFile(_ path: String, maximumSize: Int) throws -> [UInt8] {
        let descriptor = try openRegularFile(path)
        return try descriptor.closeAfter { try readAll(descriptor, maximumSize: maximumSize, name: path) }
    }

    /// Opens the existing file at `path` for reading; a missing or unreadable file is `io` with the system's
    /// text. The open does not wait on a named pipe: callers read only regular files.
    package static func openInput(_ path: String) throws -> FileDescriptor {
        try describingFailure("cannot open \(DisplayText.quoted(path))") {
            try FileDescriptor.openWithoutWaiting(path)
        }
    }

    /// Opens the existing regular file at `path` for reading: anything else (a device, a pipe, a folder)
    /// is `invalid_argument`, before a byte is read.
    package static func openRegularFile(_ path: String) throws -> FileDescriptor {
        let file = try openInput(path)
        do {
            let found = try describingFailure("cannot examine \(DisplayText.quoted(path))") { try file.status() }
            guard found.kind == .regular else {
                throw GoshuinError(.invalidArgument, "\(DisplayText.quoted(path)) is \(found.kind), not a regular file")
            }
            return file
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Up to `count` bytes of `file` at `offset` (fewer at the end of the file), by a positioned read that
    /// leaves its position as it was.
    package static func read(_ file: FileDescriptor, at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let received = try describingFailure("cannot read the input") {
            try bytes.withUnsafeMutableBytes { try file.readFully(into: $0, atOffset: offset) }
        }
        return Array(bytes[0..<received])
    }

    /// Everything from `descriptor`'s position to its end, refused with `invalid_argument` beyond
    /// `maximumSize` bytes; `name` says which file in messages.
    package static func readAll(_ descriptor: FileDescriptor, maximumSize: Int, name: String) throws -> [UInt8] {
        let buffer = try AllocatedBytes(count: maximumSize + 1, wipesOnRelease: true)
        let count = try describingFailure("cannot read \(DisplayText.quoted(name))") {
            try descriptor.readFully(into: buffer.bytes)
        }
        guard count <= maximumSize else {
            throw GoshuinError(.invalidArgument, "\(DisplayText.quoted(name)) is larger than \(maximumSize) bytes")
        }
        return Array(buffer.bytes[0..<count])
    }

    /// The names in the directory at `path` that are valid UTF-8, sorted, without `.` and `..`.
    package static func directoryEntries(_ path: String) throws -> [String] {
        try describingFailure("cannot list \(DisplayText.quoted(path))") {
            try OpenDirectory(path: path).names().compactMap { String(validating: $0, as: UTF8.self) }.sorted()
        }
    }

    /// What is at `path`, without following a final symbolic link; `nil` when nothing is there (a dangling
    /// link is something).
    package static func status(ofPath path: String) -> FileStatus? {
        try? SystemCall.status(ofPath: path, followingLinks: false).get()
    }

    /// What `path` leads to, following symbolic links; the error when it cannot be examined.
    package static func statusFollowingLinks(ofPath path: String) -> Result<FileStatus, Errno> {
        SystemCall.status(ofPath: path, followingLinks: true)
    }

    /// Whether anything (a dangling symbolic link included) exists at `path`.
    package static func exists(_ path: String) -> Bool { status(ofPath: path) != nil }

    /// Whether `path` is a directory (following symbolic links).
    package static func isDirectory(_ path: String) -> Bool {
        (try? statusFollowingLinks(ofPath: path).get())?.kind == .directory
    }

    /// `nil` when this process may create files in the directory at `path`; otherwise why not.
    package static func cannotWrite(inDirectory path: String) -> Errno? { SystemCall.canWrite(inDirectory: path) }

    /// A new private (0600) file with no name in `directory` (`O_TMPFILE`; where the file system lacks it,
    /// created and unlinked at once), so it vanishes when the descriptor is closed, whatever happens to the
    /// process.
    package static func anonymousFile(in directory: String = temporaryDirectory) throws -> FileDescriptor {
        let doing = "cannot create a temporary file in \(DisplayText.quoted(directory))"
        do {
            return try FileDescriptor.open(directory, SystemCall.anonymousFileOptions, permissions: 0o600)
        } catch  where SystemCall.meansNoAnonymousFiles(error) {
            // Below: the fallback for file systems without O_TMPFILE.
        } catch {
            throw error.goshuinError(doing)
        }
        return FileDescriptor(
            rawValue: try describingFailure(doing) {
                try SystemCall.makeUnlinkedFile(template: directory + "/goshuin-XXXXXX")
            })
    }

    /// A new private directory in ``temporaryDirectory`` whose name starts with `prefix`; returns its path.
    package static func makeTemporaryDirectory(prefix: String) throws -> String {
        try describingFailure("cannot create a temporary directory") {
            try SystemCall.makeTemporaryDirectory(template: temporaryDirectory + "/" + prefix + "XXXXXX")
        }
    }

    /// Removes the file at `path`, if it can; for cleaning up scratch files.
    package static func removeFile(_ path: String) { SystemCall.removeFile(atPath: path) }

    /// Makes the directory `path` (its parent must exist), readable by everyone.
    package static func makeDirectory(_ path: String) throws(Errno) {
        try SystemCall.makeDirectory(atPath: path, permissions: 0o755)
    }

    /// Removes the empty directory at `path`, if it can; for cleaning up scratch directories.
    package static func removeEmptyDirectory(_ path: String) { SystemCall.removeEmptyDirectory(atPath: path) }

    /// Throws `no_space` unless the file system holding `path` has `needed` bytes free.
    package static func requireSpace(_ needed: UInt64, at path: String, for purpose: String) throws {
        let available = try describingFailure("cannot measure the free space at \(DisplayText.quoted(path))") {
            try SystemCall.availableSpace(at: path)
        }
        guard available >= needed else {
            throw GoshuinError(
                .noSpace,
                "\(purpose) needs \(needed) bytes but only \(available) are free at \(DisplayText.quoted(path))")
        }
    }

    /// Throws `no_space` unless the file system holding the open folder `directory` (at `path`, for
    /// messages) has `needed` bytes free.
    package static func requireSpace(_ needed: UInt64, in directory: OpenDirectory, path: String, for purpose: String)
        throws
    {
        let available = try describingFailure("cannot measure the free space at \(DisplayText.quoted(path))") {
            try SystemCall.availableSpace(directory.descriptor.rawValue)
        }
        guard available >= needed else {
            throw GoshuinError(
                .noSpace,
                "\(purpose) needs \(needed) bytes but only \(available) are free at \(DisplayText.quoted(path))")
        }
    }

    /// The directory part of `path` (`.` when it has none).
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The last component of `path`.
    package static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `$TMPDIR`, or `/tmp`.
    package static var temporaryDirectory: String {
        if let value = SystemCall.environment("TMPDIR"), !value.isEmpty {
            return String(decoding: value, as: UTF8.self)
        }
        return "/tmp"
    }

    /// The raw bytes of the environment variable `name`, valid until the environment changes; `nil` when it
    /// is not set.
    package static func environment(_ name: String) -> UnsafeRawBufferPointer? { SystemCall.environment(name) }

    /// The longest name in a directory, in bytes.
    package static var maximumNameLength: Int { SystemCall.maximumNameLength }

    /// The effective user ID of this process.
    package static var effectiveUserID: UInt32 { SystemCall.effectiveUserID }

    /// `seconds` since 1970 in UTC: year, month 1–12, day, hour, minute, second.
    package static func utcDate(_ seconds: Int) -> (
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    ) { SystemCall.utcDate(seconds) }

    /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SSZ`.
    package static func timestamp(_ seconds: Int) -> String {
        let date = SystemCall.utcDate(seconds)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(date.year)-\(two(date.month))-\(two(date.day))T\(two(date.hour)):\(two(date.minute)):"
            + "\(two(date.second))Z"
    }
}

extension FileDescriptor {
    /// The size of the buffer of a copy between descriptors.
    package static let copyBufferSize = 1 << 20

    /// Copies everything from the current position of `source` to the end into this descriptor, or the first
    /// `limit` bytes of it.
    ///
    /// - Throws: a ``GoshuinError`` saying which side failed: `no_space`, `interrupted`, `out_of_memory`, `io`.
    package func copyAll(
        from source: FileDescriptor, limit: UInt64 = .max, reading: String, writing: String
    ) throws {
        let buffer = try AllocatedBytes(count: Self.copyBufferSize, wipesOnRelease: true)
        var remaining = limit
        while remaining > 0 {
            try Interruption.check()
            let room = Int(min(UInt64(buffer.bytes.count), remaining))
            let count = try describingFailure("cannot read \(reading)") {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<room]))
            }
            if count == 0 { return }
            remaining -= UInt64(count)
            try describingFailure("cannot write \(writing)") {
                try writeAll(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]))
            }
        }
    }
}
