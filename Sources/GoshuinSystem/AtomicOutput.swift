/// A file written under a temporary name beside its destination and moved into place only when complete.
///
/// The temporary file is created exclusively in the destination's directory, reached through that
/// directory's descriptor, marked as the toolkit's (``Temporaries/mark(_:name:)``) and held under an
/// exclusive `flock(2)` while it is written (so a later run's sweep, ``Temporaries/sweepLeftovers(in:sparing:)``,
/// never takes it, and takes it only if this run was killed). ``commit()`` syncs the data, then moves
/// it into place: without `replaceExisting`, by a hard link that fails if the destination appeared
/// meanwhile, so an existing file is never replaced by surprise; with it, by a rename that replaces only
/// a regular file; the mark comes off last, once no temporary name holds the file. ``discard()`` removes the
/// temporary file. An output that is neither committed nor discarded is discarded when released, so no
/// temporary file outlives a failure.
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
    package init(destination: String, replaceExisting: Bool, permissions: UInt32 = 0o600) throws {
        let directoryPath = FileSystem.parentDirectory(of: destination)
        destinationName = FileSystem.lastComponent(of: destination)
        directory = try Self.openFolder(directoryPath)
        try Self.refuseExisting(destinationName, in: directory, path: destination, replacing: replaceExisting)
        var attempt = 0
        while true {
            let candidate = Temporaries.name(for: destinationName)
            do {
                descriptor = try directory.openFile(
                    candidate, [.writeOnly, .create, .exclusive], permissions: permissions)
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
            Temporaries.mark(descriptor, name: temporaryName)
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
        let directoryPath = FileSystem.parentDirectory(of: path)
        let directory = try openFolder(directoryPath)
        try refuseExisting(FileSystem.lastComponent(of: path), in: directory, path: path, replacing: replaceExisting)
    }

    /// Opens the folder that is to hold an output.
    package static func openFolder(_ path: String) throws -> OpenDirectory {
        try describingFailure("cannot open the folder \(DisplayText.quoted(path))") { try OpenDirectory(path: path) }
    }

    /// Throws `output_exists` when `name` exists in `directory` and may not be replaced: always when
    /// `replacing` is false, and when it is anything but a regular file otherwise (a device, a pipe, a
    /// link or a folder is never replaced by a file of plaintext).
    static func refuseExisting(_ name: String, in directory: OpenDirectory, path: String, replacing: Bool) throws {
        let found = try describingFailure("cannot examine \(DisplayText.quoted(path))") {
            try directory.status(of: name)
        }
        guard let found else { return }
        guard replacing else {
            throw GoshuinError(.outputExists, "\(DisplayText.quoted(path)) already exists")
        }
        guard found.kind == .regular else {
            throw GoshuinError(
                .outputExists,
                "\(DisplayText.quoted(path)) is \(found.kind), not a regular file; only a regular file is ever"
                    + " replaced")
        }
    }

    /// Syncs the temporary file and moves it to the destination; with `expected`, only if the destination is
    /// still that file (its identity, size, modification and status change, checked just before the rename):
    /// a file written there meanwhile (a new backup, a sync client's copy) is left as it is, and this output
    /// discarded (`io`).
    package func commit(replacingOnly expected: FileStatus? = nil) throws {
        precondition(!finished, "an atomic output is committed or discarded once")
        do {
            try describingFailure("cannot finish writing \(DisplayText.quoted(destination))") { try descriptor.sync() }
            if let expected {
                let found = try describingFailure("cannot examine \(DisplayText.quoted(destination))") {
                    try directory.status(of: destinationName)
                }
                guard let found, found.kind == .regular, found.isUnchanged(comparedTo: expected) else {
                    throw GoshuinError(
                        .io,
                        "\(DisplayText.quoted(destination)) changed while this run worked on it (another program wrote"
                            + " it, or it was replaced): it was left as it is, and nothing was written")
                }
            }
            try moveIntoPlace()
        } catch {
            discard()
            throw error
        }
        finished = true
        // The mark comes off only once the temporary's name is gone (Spec/decisions/0011): a run killed at any
        // step before leaves a marked temporary that a later run sweeps, never an unmarked copy of the data.
        Temporaries.unmark(descriptor)
        try? descriptor.close()
        // Makes the rename durable; failure here loses nothing already visible, so it is not reported.
        try? directory.sync()
    }

    /// Closes and removes the temporary file; the destination is not touched.
    package func discard() {
        guard !finished else { return }
        finished = true
        if directory.stillNames(identity, temporaryName) {
            try? directory.removeFile(temporaryName)
        }
        try? descriptor.close()
    }

    private func moveIntoPlace() throws {
        guard directory.stillNames(identity, temporaryName) else {
            throw GoshuinError(
                .io, "the temporary file beside \(DisplayText.quoted(destination)) was replaced while being written")
        }
        let moving = "cannot move the finished file to \(DisplayText.quoted(destination))"
        if replaceExisting {
            try Self.refuseExisting(destinationName, in: directory, path: destination, replacing: true)
            try describingFailure(moving) { try directory.rename(temporaryName, to: destinationName) }
            return
        }
        do {
            try directory.link(temporaryName, to: destinationName)
            try? directory.removeFile(temporaryName)
        } catch .fileExists {
            throw GoshuinError(
                .outputExists, "\(DisplayText.quoted(destination)) appeared while writing; it was left as it is")
        } catch  where error.meansNoHardLinks {
            // Some file systems have no hard links; check, then rename (a narrow window, but no silent loss
            // of a file that existed when the work began).
            try Self.refuseExisting(destinationName, in: directory, path: destination, replacing: false)
            try describingFailure(moving) { try directory.rename(temporaryName, to: destinationName) }
        } catch {
            throw error.goshuinError(moving)
        }
    }
}

/// Writes `destination` atomically: runs `body` with the temporary file's descriptor and commits on
/// success; on any error the temporary file is removed and the error rethrown.
@discardableResult
package func withAtomicOutput<Result>(
    to destination: String, replaceExisting: Bool, permissions: UInt32 = 0o600,
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
