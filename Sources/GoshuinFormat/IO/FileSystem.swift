import Glibc

/// The few file-system operations beyond a single descriptor that the toolkit needs.
public enum FileSystem {
    /// The whole content of the file at `path`, refused with `invalid_argument` beyond `maximumSize` bytes.
    public static func readFile(_ path: String, maximumSize: Int) throws -> [UInt8] {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.openForReading(path)
        } catch {
            throw error.goshuinError("cannot open \(path)")
        }
        return try descriptor.closeAfter {
            var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
            let count: Int
            do {
                count = try bytes.withUnsafeMutableBytes { buffer in try descriptor.readFully(into: buffer) }
            } catch let error as Errno {
                throw error.goshuinError("cannot read \(path)")
            }
            guard count <= maximumSize else {
                throw GoshuinError(.invalidArgument, "\(path) is larger than \(maximumSize) bytes")
            }
            return Array(bytes[0..<count])
        }
    }

    /// The names in the directory at `path`, sorted, without `.` and `..`.
    public static func directoryEntries(_ path: String) throws -> [String] {
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
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `path` is a directory (following symbolic links).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A new private (0600) file with no name: created in `directory` and unlinked at once, so it vanishes
    /// when the descriptor is closed, whatever happens to the process.
    public static func anonymousFile(in directory: String = temporaryDirectory) throws -> FileDescriptor {
        var template = Array((directory + "/goshuin-XXXXXX").utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard raw >= 0 else {
            throw Errno.current.goshuinError("cannot create a temporary file in \(directory)")
        }
        template.withUnsafeBufferPointer { buffer in
            if let path = buffer.baseAddress { _ = unlink(path) }
        }
        _ = fcntl(raw, F_SETFD, FD_CLOEXEC)
        return FileDescriptor(rawValue: raw)
    }

    /// The bytes an unprivileged user can still write on the file system holding `path`.
    public static func availableSpace(at path: String) throws -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else {
            throw Errno.current.goshuinError("cannot measure the free space at \(path)")
        }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Throws `no_space` unless the file system holding `path` has `needed` bytes free.
    public static func requireSpace(_ needed: UInt64, at path: String, for purpose: String) throws {
        let available = try availableSpace(at: path)
        guard available >= needed else {
            throw GoshuinError(
                .noSpace, "\(purpose) needs \(needed) bytes but only \(available) are free at \(path)")
        }
    }

    /// Makes a new private directory `NAME.goshuin-tmp-XXXXXX` beside `path` and returns its path.
    public static func makeTemporarySibling(of path: String) throws -> String {
        let template =
            AtomicOutput.directory(of: path) + "/." + AtomicOutput.lastComponent(of: path) + ".goshuin-tmp-XXXXXX"
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let created else { throw Errno.current.goshuinError("cannot create a folder beside \(path)") }
        return created
    }

    /// Removes a flat directory this process made, with the files in it.
    public static func removeFlatDirectory(_ path: String) {
        for name in (try? directoryEntries(path)) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }

    /// `$TMPDIR`, or `/tmp`.
    public static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}

extension FileDescriptor {
    /// Copies everything from the current position of `source` to the end into this descriptor.
    public func copyAll(from source: FileDescriptor) throws(Errno) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            if Interruption.isRequested { throw Errno.interrupted }
            let count = try source.read(into: buffer)
            if count == 0 { return }
            try writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The current position; `nil` for a descriptor that cannot seek.
    public func position() -> Int64? {
        let offset = lseek(rawValue, 0, SEEK_CUR)
        return offset < 0 ? nil : Int64(offset)
    }

    /// Moves the position to `offset` from the start.
    public func seek(to offset: Int64) throws(Errno) {
        _ = try retryOnInterrupt { lseek(rawValue, off_t(offset), SEEK_SET) }
    }
}
