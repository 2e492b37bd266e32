import Glibc

/// A file written under a temporary name beside its destination and moved into place only when complete.
///
/// The temporary file is created exclusively (`O_EXCL`) in the destination's directory, so the final move
/// is a rename within one file system. ``commit()`` syncs the data, then moves it into place: without
/// `replaceExisting`, by a hard link that fails if the destination appeared meanwhile, so an existing file
/// is never replaced by surprise. ``discard()`` removes the temporary file. An output that is neither
/// committed nor discarded is discarded when released, so no temporary file outlives a failure.
public final class AtomicOutput {
    /// Where the file ends up.
    public let destination: String
    /// The temporary file beside the destination.
    public let temporaryPath: String
    /// The descriptor to write to.
    public let descriptor: FileDescriptor
    private let replaceExisting: Bool
    private var finished = false

    /// Creates the temporary file for `destination`.
    ///
    /// - Throws: `output_exists` if the destination exists and `replaceExisting` is false; `io` if the
    ///   temporary file cannot be created.
    public init(destination: String, replaceExisting: Bool, permissions: mode_t = 0o600) throws {
        if !replaceExisting {
            try Self.refuseExisting(destination)
        }
        let directory = Self.directory(of: destination)
        let base = Self.lastComponent(of: destination)
        var attempt = 0
        while true {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let candidate = directory + "/." + base + ".goshuin-tmp-" + suffix
            do {
                descriptor = try FileDescriptor.open(candidate, O_WRONLY | O_CREAT | O_EXCL, permissions: permissions)
                temporaryPath = candidate
                break
            } catch  where error == .fileExists && attempt < 16 {
                attempt += 1
            } catch {
                throw error.goshuinError("cannot create a temporary file beside \(destination)")
            }
        }
        self.destination = destination
        self.replaceExisting = replaceExisting
    }

    deinit {
        if !finished { discard() }
    }

    /// Throws `output_exists` when something already exists at `path` (a dangling symbolic link included).
    public static func refuseExisting(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) == 0 {
            throw GoshuinError(
                .outputExists, "\(path) already exists; choose another name or allow replacing it")
        }
    }

    /// Syncs the temporary file and moves it to the destination.
    public func commit() throws {
        precondition(!finished, "an atomic output is committed or discarded once")
        do {
            try descriptor.sync()
            finished = true
            try descriptor.close()
        } catch {
            discard()
            throw error.goshuinError("cannot finish writing \(destination)")
        }
        do {
            try moveIntoPlace()
        } catch {
            unlink(temporaryPath)
            throw error
        }
        syncDirectory()
    }

    /// Closes and removes the temporary file; the destination is not touched.
    public func discard() {
        if !finished {
            finished = true
            try? descriptor.close()
        }
        unlink(temporaryPath)
    }

    private func moveIntoPlace() throws {
        if replaceExisting {
            guard rename(temporaryPath, destination) == 0 else {
                throw Errno.current.goshuinError("cannot move the finished file to \(destination)")
            }
            return
        }
        if link(temporaryPath, destination) == 0 {
            unlink(temporaryPath)
            return
        }
        let linkError = Errno.current
        if linkError == .fileExists {
            throw GoshuinError(.outputExists, "\(destination) appeared while writing; it was left as it is")
        }
        // Some file systems have no hard links; check, then rename (a narrow window, but no silent loss
        // of a file that existed when the work began).
        guard [EPERM, EOPNOTSUPP, EXDEV, EMLINK].contains(linkError.rawValue) else {
            throw linkError.goshuinError("cannot move the finished file to \(destination)")
        }
        try Self.refuseExisting(destination)
        guard rename(temporaryPath, destination) == 0 else {
            throw Errno.current.goshuinError("cannot move the finished file to \(destination)")
        }
    }

    private func syncDirectory() {
        // Makes the rename durable; failure here loses nothing already visible, so it is not reported.
        if let directoryDescriptor = try? FileDescriptor.open(Self.directory(of: destination), O_RDONLY) {
            try? directoryDescriptor.sync()
            try? directoryDescriptor.close()
        }
    }

    /// The directory part of `path` (`.` when it has none).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The last component of `path`.
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

/// Writes `destination` atomically: runs `body` with the temporary file's descriptor and commits on
/// success; on any error the temporary file is removed and the error rethrown.
@discardableResult
public func withAtomicOutput<Result>(
    to destination: String, replaceExisting: Bool, permissions: mode_t = 0o600,
    _ body: (FileDescriptor) throws -> Result
) throws -> Result {
    let output = try AtomicOutput(destination: destination, replaceExisting: replaceExisting, permissions: permissions)
    let result: Result
    do {
        result = try body(output.descriptor)
    } catch {
        output.discard()
        throw error
    }
    try output.commit()
    return result
}
