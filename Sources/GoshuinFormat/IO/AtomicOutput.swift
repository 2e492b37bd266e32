import Glibc

/// A file written under a temporary name beside its destination and moved into place only when complete.
///
/// The temporary file is created exclusively in the destination's directory, reached through that
/// directory's descriptor, and held under an exclusive `flock(2)` while it is written (so a later run's
/// sweep, ``Temporaries/sweepLeftovers(in:)``, never takes it). ``commit()`` syncs the data, then moves
/// it into place: without `replaceExisting`, by a hard link that fails if the destination appeared
/// meanwhile, so an existing file is never replaced by surprise; with it, by a rename that replaces only
/// a regular file. ``discard()`` removes the temporary file. An output that is neither committed nor
/// discarded is discarded when released, so no temporary file outlives a failure.
package final class AtomicOutput {
    /// Where the file ends up.
    package let destination: String
    /// The temporary file beside the destination.
    package let temporaryPath: String
    /// The descriptor to write to.
    package let descriptor: FileDescriptor
    private let directory: OpenDirectory
    private let destinationName: String
    private let temporaryName: String
    private let identity: FileIdentity
    private let replaceExisting: Bool
    private var finished = false

    /// Creates the temporary file for `destination`.
    ///
    /// - Throws: `output_exists` if the destination exists and `replaceExisting` is false, or if it is not
    ///   a regular file; `io` if the temporary file cannot be created.
    package init(destination: String, replaceExisting: Bool, permissions: mode_t = 0o600) throws {
        let directoryPath = Self.directory(of: destination)
        destinationName = Self.lastComponent(of: destination)
        do {
            directory = try OpenDirectory(path: directoryPath)
        } catch {
            throw error.goshuinError("cannot open the folder \(DisplayText.quoted(directoryPath))")
        }
        try Self.refuseExisting(destinationName, in: directory, path: destination, replacing: replaceExisting)
        var attempt = 0
        while true {
            let candidate = Temporaries.name(for: destinationName)
            do {
                descriptor = try directory.openFile(candidate, O_WRONLY | O_CREAT | O_EXCL, permissions: permissions)
                temporaryName = candidate
                break
            } catch  where error == .fileExists && attempt < 100 {
                attempt += 1
            } catch  where error == .fileExists {
                throw GoshuinError(.io, "cannot find a free temporary name beside \(DisplayText.quoted(destination))")
            } catch {
                throw error.goshuinError("cannot create a temporary file beside \(DisplayText.quoted(destination))")
            }
        }
        temporaryPath = directoryPath + "/" + temporaryName
        do {
            _ = try descriptor.lockExclusively()
            identity = try descriptor.fileIdentity()
        } catch {
            try? directory.removeFile(temporaryName)
            try? descriptor.close()
            throw error.goshuinError("cannot lock the temporary file beside \(DisplayText.quoted(destination))")
        }
        self.destination = destination
        self.replaceExisting = replaceExisting
    }

    deinit {
        if !finished { discard() }
    }

    /// Checks `path` as a destination before any work, as ``commit()`` will: `output_exists` when
    /// something is there (a dangling symbolic link included) and `replaceExisting` is false, or when it is
    /// not a regular file; `io` when its folder cannot be opened.
    package static func checkDestination(_ path: String, replaceExisting: Bool) throws {
        let directoryPath = directory(of: path)
        let directory: OpenDirectory
        do {
            directory = try OpenDirectory(path: directoryPath)
        } catch {
            throw error.goshuinError("cannot open the folder \(DisplayText.quoted(directoryPath))")
        }
        try refuseExisting(lastComponent(of: path), in: directory, path: path, replacing: replaceExisting)
    }

    /// Throws `output_exists` when `name` exists in `directory` and may not be replaced: always when
    /// `replacing` is false, and when it is anything but a regular file otherwise (a device, a pipe, a
    /// link or a folder is never replaced by a file of plaintext).
    static func refuseExisting(_ name: String, in directory: OpenDirectory, path: String, replacing: Bool) throws {
        let info: stat?
        do {
            info = try directory.status(of: name)
        } catch {
            throw error.goshuinError("cannot examine \(DisplayText.quoted(path))")
        }
        guard let info else { return }
        guard replacing else {
            throw GoshuinError(.outputExists, "\(DisplayText.quoted(path)) already exists")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw GoshuinError(
                .outputExists,
                "\(DisplayText.quoted(path)) is \(FileKind(info).description), not a regular file; only a regular"
                    + " file is ever replaced")
        }
    }

    /// Syncs the temporary file and moves it to the destination.
    package func commit() throws {
        precondition(!finished, "an atomic output is committed or discarded once")
        do {
            try descriptor.sync()
        } catch {
            discard()
            throw error.goshuinError("cannot finish writing \(DisplayText.quoted(destination))")
        }
        do {
            try moveIntoPlace()
        } catch {
            discard()
            throw error
        }
        finished = true
        try? descriptor.close()
        // Makes the rename durable; failure here loses nothing already visible, so it is not reported.
        try? directory.sync()
    }

    /// Closes and removes the temporary file; the destination is not touched.
    package func discard() {
        guard !finished else { return }
        finished = true
        if Temporaries.stillNames(identity, temporaryName, in: directory) {
            try? directory.removeFile(temporaryName)
        }
        try? descriptor.close()
    }

    private func moveIntoPlace() throws {
        guard Temporaries.stillNames(identity, temporaryName, in: directory) else {
            throw GoshuinError(
                .io, "the temporary file beside \(DisplayText.quoted(destination)) was replaced while being written")
        }
        if replaceExisting {
            try Self.refuseExisting(destinationName, in: directory, path: destination, replacing: true)
            do {
                try directory.rename(temporaryName, to: destinationName)
            } catch {
                throw error.goshuinError("cannot move the finished file to \(DisplayText.quoted(destination))")
            }
            return
        }
        do {
            try linkat(temporaryName, destinationName)
            try? directory.removeFile(temporaryName)
            return
        } catch .fileExists {
            throw GoshuinError(
                .outputExists, "\(DisplayText.quoted(destination)) appeared while writing; it was left as it is")
        } catch let error where [EPERM, EOPNOTSUPP, EXDEV, EMLINK].contains(error.rawValue) {
            // Some file systems have no hard links; check, then rename (a narrow window, but no silent loss
            // of a file that existed when the work began).
            try Self.refuseExisting(destinationName, in: directory, path: destination, replacing: false)
            do {
                try directory.rename(temporaryName, to: destinationName)
            } catch {
                throw error.goshuinError("cannot move the finished file to \(DisplayText.quoted(destination))")
            }
        } catch {
            throw error.goshuinError("cannot move the finished file to \(DisplayText.quoted(destination))")
        }
    }

    private func linkat(_ name: String, _ newName: String) throws(Errno) {
        let raw = directory.descriptor.rawValue
        _ = try retryOnInterrupt { Glibc.linkat(raw, name, raw, newName, 0) }
    }

    /// The directory part of `path` (`.` when it has none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The last component of `path`.
    package static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

/// Writes `destination` atomically: runs `body` with the temporary file's descriptor and commits on
/// success; on any error the temporary file is removed and the error rethrown.
@discardableResult
package func withAtomicOutput<Result>(
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

/// What kind of file a `stat` describes, in words for messages.
package struct FileKind: CustomStringConvertible {
    package let mode: mode_t

    package init(_ info: stat) { mode = info.st_mode & S_IFMT }

    package var description: String {
        switch mode {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }
}
