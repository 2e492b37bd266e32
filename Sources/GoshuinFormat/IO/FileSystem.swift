import Glibc

/// The few file-system operations beyond a single descriptor that the toolkit needs.
package enum FileSystem {
    /// The whole content of the file at `path`, refused with `invalid_argument` beyond `maximumSize` bytes.
    package static func readFile(_ path: String, maximumSize: Int) throws -> [UInt8] {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.openForReading(path)
        } catch {
            throw error.goshuinError("cannot open \(DisplayText.quoted(path))")
        }
        return try descriptor.closeAfter { try readAll(descriptor, maximumSize: maximumSize, name: path) }
    }

    /// Everything from `descriptor`'s position to its end, refused with `invalid_argument` beyond
    /// `maximumSize` bytes; `name` says which file in messages.
    package static func readAll(_ descriptor: FileDescriptor, maximumSize: Int, name: String) throws -> [UInt8] {
        let buffer = try AllocatedBytes(count: maximumSize + 1, wipesOnRelease: true)
        let count: Int
        do {
            count = try descriptor.readFully(into: buffer.bytes)
        } catch {
            throw error.goshuinError("cannot read \(DisplayText.quoted(name))")
        }
        guard count <= maximumSize else {
            throw GoshuinError(.invalidArgument, "\(DisplayText.quoted(name)) is larger than \(maximumSize) bytes")
        }
        return Array(buffer.bytes[0..<count])
    }

    /// The names in the directory at `path`, sorted, without `.` and `..`.
    package static func directoryEntries(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else {
            throw Errno.current.goshuinError("cannot list \(path)")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            // readdir returns NULL both at the end and on an error; only errno tells them apart.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw Errno.current.goshuinError("cannot list \(path)") }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Whether anything (a dangling symbolic link included) exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `path` is a directory (following symbolic links).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A new private (0600) file with no name in `directory` (`O_TMPFILE`; where the file system lacks it,
    /// created and unlinked at once), so it vanishes when the descriptor is closed, whatever happens to the
    /// process.
    package static func anonymousFile(in directory: String = temporaryDirectory) throws -> FileDescriptor {
        // O_TMPFILE (`__O_TMPFILE | O_DIRECTORY`, the same bits on every Linux architecture Swift runs on) is
        // not exported by the Glibc module.
        let temporaryFileFlag: Int32 = 0o20_000_000 | O_DIRECTORY
        do {
            return try FileDescriptor.open(directory, temporaryFileFlag | O_RDWR, permissions: 0o600)
        } catch  where [EOPNOTSUPP, EISDIR, EINVAL].contains(error.rawValue) {
            // Below: the fallback for file systems without O_TMPFILE.
        } catch {
            throw error.goshuinError("cannot create a temporary file in \(DisplayText.quoted(directory))")
        }
        var template = Array((directory + "/goshuin-XXXXXX").utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard raw >= 0 else {
            throw Errno.current.goshuinError("cannot create a temporary file in \(DisplayText.quoted(directory))")
        }
        template.withUnsafeBufferPointer { buffer in
            if let path = buffer.baseAddress { _ = unlink(path) }
        }
        _ = fcntl(raw, F_SETFD, FD_CLOEXEC)
        return FileDescriptor(rawValue: raw)
    }

    /// The bytes an unprivileged user can still write on the file system holding `path`.
    package static func availableSpace(at path: String) throws -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else {
            throw Errno.current.goshuinError("cannot measure the free space at \(path)")
        }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Throws `no_space` unless the file system holding `path` has `needed` bytes free.
    package static func requireSpace(_ needed: UInt64, at path: String, for purpose: String) throws {
        let available = try availableSpace(at: path)
        guard available >= needed else {
            throw GoshuinError(
                .noSpace, "\(purpose) needs \(needed) bytes but only \(available) are free at \(path)")
        }
    }

    /// `$TMPDIR`, or `/tmp`.
    package static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}

extension FileDescriptor {
    /// The size of the buffer of a copy between descriptors.
    package static let copyBufferSize = 1 << 20

    /// Copies everything from the current position of `source` to the end into this descriptor.
    ///
    /// - Throws: an ``Errno``, or `interrupted` or `out_of_memory` as a ``GoshuinError``.
    package func copyAll(from source: FileDescriptor) throws {
        let buffer = try AllocatedBytes(count: Self.copyBufferSize, wipesOnRelease: true)
        while true {
            try Interruption.check()
            let count = try source.read(into: buffer.bytes)
            if count == 0 { return }
            try writeAll(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]))
        }
    }

    /// The current position; `nil` for a descriptor that cannot seek.
    package func position() -> Int64? {
        let offset = lseek(rawValue, 0, SEEK_CUR)
        return offset < 0 ? nil : Int64(offset)
    }

    /// Moves the position to `offset` from the start.
    package func seek(to offset: Int64) throws(Errno) {
        _ = try retryOnInterrupt { lseek(rawValue, off_t(offset), SEEK_SET) }
    }
}
