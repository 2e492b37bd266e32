import GoshuinFormat

/// Turns a `.goshuin` backup into a folder: `manifest.json`, `records.csv` and the photos, every byte
/// checked against the manifest, written into a temporary sibling that becomes the destination only
/// when everything verified (`Spec/backup-v1.md` §5).
///
/// Everything inside the temporary folder is reached through its descriptor, never a path, and the folder
/// through its parent's descriptor: whoever can rename entries beside the destination cannot make the
/// extraction write, or its cleanup delete, anything elsewhere.
package enum BackupExtractor {
    /// Extracts the backup in the `.goshuin` file open at `input` into `destination`, which must not exist
    /// or be an empty directory.
    ///
    /// The destination, the container's structure and the free space for the payload are checked before
    /// `passphrase` is evaluated; the space is checked again against the entries' declared sizes once the
    /// manifest matched them.
    /// - Returns: the manifest.
    @discardableResult
    package static func extract(
        _ input: FileDescriptor, into destination: String, passphrase: @autoclosure () throws -> Passphrase,
        progress: ProgressHandler? = nil
    ) throws -> Manifest {
        let destination = try normalizedDestination(destination)
        try requireEmptyOrAbsent(destination)
        let header = try ContainerStructure.validate(input)
        try FileSystem.requireSpace(
            header.plaintextLength, at: FileSystem.parentDirectory(of: destination), for: "extracting this backup")
        let key = try KeyDerivation.deriveKey(passphrase: passphrase(), header: header, progress: progress)
        let reader = try DecryptingReader(input, header: header, key: key, authenticatingFinalChunkFirst: true)
        return try extract(from: reader, into: destination, progress: progress)
    }

    /// Extracts the backup whose payload `reader` decrypts into `destination`; `afterStagingFolderMade`
    /// runs once the temporary folder exists (tests use it to race the extraction). A fault of the payload
    /// is reported only if every chunk authenticates (``DecryptingReader/checkingContainerFirst(_:)``).
    package static func extract(
        from reader: DecryptingReader, into destination: String, progress: ProgressHandler? = nil,
        afterStagingFolderMade: (String) -> Void = { _ in }
    ) throws -> Manifest {
        let destination = try normalizedDestination(destination)
        let (archive, manifest) = try reader.checkingContainerFirst {
            let archive = try BackupArchive(reader)
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            return (archive, manifest)
        }
        try FileSystem.requireSpace(
            archive.directory.totalUncompressedSize, at: FileSystem.parentDirectory(of: destination),
            for: "extracting this backup")
        let staging = try StagingFolder(beside: destination)
        afterStagingFolderMade(staging.path)
        do {
            try reader.checkingContainerFirst {
                try writeEntries(archive, manifest: manifest, into: staging, progress: progress)
            }
            try staging.moveIntoPlace()
        } catch {
            staging.remove()
            throw error
        }
        return manifest
    }

    /// `path` without trailing slashes (`restored/` is `restored`); `invalid_argument` for a path that
    /// names no folder of its own (empty, `.`, `..`, `/`) or whose name is longer than the system allows.
    package static func normalizedDestination(_ path: String) throws -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let last = FileSystem.lastComponent(of: String(trimmed))
        guard !trimmed.isEmpty, trimmed != "/", last != ".", last != ".." else {
            throw GoshuinError(.invalidArgument, "\(DisplayText.quoted(path)) names no new folder to extract into")
        }
        guard last.utf8.count <= FileSystem.maximumNameLength else {
            throw GoshuinError(
                .invalidArgument,
                "the folder name \(DisplayText.quoted(last)) is longer than \(FileSystem.maximumNameLength) bytes")
        }
        return String(trimmed)
    }

    /// Throws `destination_not_empty` unless `path` is absent or an empty directory (not a symbolic link).
    package static func requireEmptyOrAbsent(_ path: String) throws {
        let parentPath = FileSystem.parentDirectory(of: path)
        guard let parent = try? OpenDirectory(path: parentPath) else { return }
        try requireEmptyOrAbsent(FileSystem.lastComponent(of: path), in: parent, path: path)
    }

    static func requireEmptyOrAbsent(_ name: String, in parent: OpenDirectory, path: String) throws {
        guard let found = try? parent.status(of: name) else { return }
        guard found.kind == .directory else {
            throw GoshuinError(
                .destinationNotEmpty,
                "\(DisplayText.quoted(path)) is \(found.kind), not a folder: a backup is unpacked into a new or empty"
                    + " folder, and nothing else is ever replaced")
        }
        guard let folder = try? parent.openDirectory(name), (try? folder.names())?.isEmpty == true else {
            throw GoshuinError(
                .destinationNotEmpty,
                "\(DisplayText.quoted(path)) is a folder that is not empty; a backup is unpacked only into a new or"
                    + " empty folder (empty it first, or give another name), so nothing in it is overwritten")
        }
    }

    private static func writeEntries(
        _ archive: BackupArchive, manifest: Manifest, into staging: StagingFolder, progress: ProgressHandler?
    ) throws {
        let total = archive.directory.totalUncompressedSize
        var done: UInt64 = 0
        // Written on a thread of its own while this one checks; every byte is on disk before the folder
        // moves into place (the writer is drained first), and the files' dates are the backup's.
        let writer = try BackgroundWriter()
        try archive.readEveryEntry(checkedAgainst: manifest) { entry, read in
            writer.begin(try staging.createFile(entry.name), name: entry.name)
            try read { bytes in try writer.write(bytes) }
            try writer.end(modificationTime: entry.modificationTime)
            done += entry.uncompressedSize
            progress?(.payload(bytesDone: done, bytesTotal: total))
        }
        try writer.drain()
    }
}

/// The temporary folder `.NAME.goshuin-tmp-RANDOM` an extraction writes into, beside its destination:
/// made private (0700) and locked (`flock`) for as long as the run uses it, reached only through its own
/// descriptor and its parent's, and moved into place by a rename checked to move this very folder.
private final class StagingFolder {
    let path: String
    private let parent: OpenDirectory
    private let folder: OpenDirectory
    private let name: String
    private let destinationName: String
    private let destinationPath: String
    private let identity: FileIdentity
    private var createdFiles: [String] = []

    init(beside destination: String) throws {
        destinationPath = destination
        destinationName = FileSystem.lastComponent(of: destination)
        let parentPath = FileSystem.parentDirectory(of: destination)
        parent = try AtomicOutput.openFolder(parentPath)
        var attempt = 0
        var candidate = Temporaries.name(for: destinationName)
        while true {
            do {
                try parent.makeDirectory(candidate, permissions: 0o700)
                break
            } catch  where error == .fileExists && attempt < 100 {
                attempt += 1
                candidate = Temporaries.name(for: destinationName)
            } catch {
                throw error.goshuinError("cannot create a folder beside \(DisplayText.quoted(destination))")
            }
        }
        name = candidate
        path = parentPath + "/" + candidate
        do {
            folder = try parent.openDirectory(candidate)
            let found = try folder.status()
            // Whoever swapped another folder in between mkdir and open would have to be this user.
            guard try folder.descriptor.lockExclusively(), found.owner == FileSystem.effectiveUserID,
                found.permissions == 0o700
            else {
                throw GoshuinError(.io, "the new folder \(DisplayText.quoted(path)) was replaced as it was made")
            }
            Temporaries.mark(folder.descriptor, name: candidate)
            identity = found.identity
        } catch {
            try? parent.removeDirectory(candidate)
            throw error.goshuinError("cannot open the new folder \(DisplayText.quoted(path))")
        }
    }

    /// Creates `name` in the folder, private and new.
    func createFile(_ entryName: String) throws -> FileDescriptor {
        let file = try describingFailure("cannot create \(entryName) in \(DisplayText.quoted(path))") {
            try folder.openFile(entryName, [.writeOnly, .create, .exclusive])
        }
        createdFiles.append(entryName)
        return file
    }

    /// Syncs the folder, renames it onto the destination (an empty directory is replaced by the rename
    /// itself) and checks that what now has the destination's name is this folder.
    func moveIntoPlace() throws {
        // The destination is the person's folder: it never carries the temporaries' mark.
        Temporaries.unmark(folder.descriptor)
        try describingFailure("cannot sync the extracted folder") { try folder.sync() }
        try BackupExtractor.requireEmptyOrAbsent(destinationName, in: parent, path: destinationPath)
        // An empty folder the restore replaces keeps its permissions; a new one stays private (0700).
        if let existing = try? parent.status(of: destinationName), existing.kind == .directory {
            try describingFailure("cannot set the extracted folder's permissions") {
                try folder.descriptor.setPermissions(existing.permissions)
            }
        }
        guard parent.stillNames(identity, name) else {
            throw GoshuinError(
                .io, "the folder being extracted into was moved or replaced; nothing was put at the destination")
        }
        try describingFailure("cannot move the extracted folder to \(DisplayText.quoted(destinationPath))") {
            try parent.rename(name, to: destinationName)
        }
        guard parent.stillNames(identity, destinationName) else {
            throw GoshuinError(
                .io,
                "\(DisplayText.quoted(destinationPath)) was replaced while the extracted folder was moved there;"
                    + " check it")
        }
        try? parent.sync()
    }

    /// Removes the files this run created, through the folder's descriptor, then the folder itself if its
    /// name still names it. Never follows a link.
    func remove() {
        for file in createdFiles { try? folder.removeFile(file) }
        if parent.stillNames(identity, name) {
            try? parent.removeDirectory(name)
        }
    }
}
