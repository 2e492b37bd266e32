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
        _ input: FileDescriptor, into destination: ExtractionDestination,
        passphrase: @autoclosure () throws -> Passphrase, progress: ProgressHandler? = nil
    ) throws -> Manifest {
        try destination.requireEmptyOrAbsent()
        let locked = try LockedContainer(checking: input)
        // Version 1 states its length in its header; version 2's is its size's, anybody's until the header MAC
        // verified (a sparse file implies terabytes), so its room is checked once it is unlocked
        // (`Spec/container-v2.md` §7).
        if locked.header.version == .v1 { try destination.requireSpace(locked.header.plaintextLength) }
        let container = try locked.unlock(with: passphrase(), progress: progress)
        if locked.header.version == .v2 { try destination.requireSpace(locked.header.plaintextLength) }
        do {
            return try extract(
                from: try container.reader(authenticatingFinalChunkFirst: true), into: destination, progress: progress)
        } catch let error as GoshuinError where error.code == .chunkDamaged {
            throw DamageReport.annotate(error, container)
        }
    }

    /// Extracts the backup whose payload `reader` decrypts into `destination`; `afterStagingFolderMade`
    /// runs once the temporary folder exists (tests use it to race the extraction). A fault of the payload
    /// is reported only if every chunk authenticates (``DecryptingReader/checkingContainerFirst(_:)``).
    package static func extract(
        from reader: DecryptingReader, into destination: ExtractionDestination, progress: ProgressHandler? = nil,
        afterStagingFolderMade: (String) -> Void = { _ in }
    ) throws -> Manifest {
        let (archive, manifest) = try reader.checkingContainerFirst {
            let archive = try BackupArchive(reader)
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            return (archive, manifest)
        }
        try destination.requireSpace(archive.directory.totalUncompressedSize)
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

    private static func writeEntries(
        _ archive: BackupArchive, manifest: Manifest, into staging: StagingFolder, progress: ProgressHandler?
    ) throws {
        let total = archive.directory.totalUncompressedSize
        var done: UInt64 = 0
        // Written on a thread of its own, straight from the decrypted chunks, while others hash them; every
        // byte is on disk before the folder moves into place (the writer is drained first), and the files'
        // dates are the backup's.
        let writer = try BackgroundWriter()
        try archive.lendEveryEntry(checkedAgainst: manifest) { entry, read in
            writer.begin(try staging.createFile(entry.name), name: entry.name)
            try read { piece in try writer.write(lent: piece) }
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
final class StagingFolder {
    let path: String
    private let parent: OpenDirectory
    private let folder: OpenDirectory
    private let name: String
    private let destination: ExtractionDestination
    private let identity: FileIdentity
    private var createdFiles: [String] = []

    init(beside destination: ExtractionDestination) throws {
        self.destination = destination
        parent = destination.parent
        var attempt = 0
        var candidate = Temporaries.name(for: destination.name)
        while true {
            do {
                try parent.makeDirectory(candidate, permissions: 0o700)
                break
            } catch  where error == .fileExists && attempt < 100 {
                attempt += 1
                candidate = Temporaries.name(for: destination.name)
            } catch {
                throw error.goshuinError("cannot create a folder beside \(DisplayText.quoted(destination.path))")
            }
        }
        name = candidate
        path = destination.parentPath + "/" + candidate
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
        try describingFailure("cannot sync the extracted folder") { try folder.sync() }
        try destination.requireEmptyOrAbsent()
        // An empty folder the restore replaces keeps its permissions; a new one stays private (0700).
        if let existing = try? parent.status(of: destination.name), existing.kind == .directory {
            try describingFailure("cannot set the extracted folder's permissions") {
                try folder.descriptor.setPermissions(existing.permissions)
            }
        }
        guard parent.stillNames(identity, name) else {
            throw GoshuinError(
                .io, "the folder being extracted into was moved or replaced; nothing was put at the destination")
        }
        try describingFailure("cannot move the extracted folder to \(DisplayText.quoted(destination.path))") {
            try parent.rename(name, to: destination.name)
        }
        // Only now that no name of the temporary shape holds it: a run killed before leaves a marked folder a
        // later run sweeps (Spec/decisions/0011).
        Temporaries.unmark(folder.descriptor)
        guard parent.stillNames(identity, destination.name) else {
            throw GoshuinError(
                .io,
                "\(DisplayText.quoted(destination.path)) was replaced while the extracted folder was moved there;"
                    + " check it")
        }
        try? parent.sync()
    }

    /// Removes the file `entryName` this run created (an entry a salvage found corrupt once written).
    func removeFile(_ entryName: String) {
        guard let index = createdFiles.firstIndex(of: entryName) else { return }
        try? folder.removeFile(entryName)
        createdFiles.remove(at: index)
    }

    /// Whether this run created no file here.
    var isEmpty: Bool { createdFiles.isEmpty }

    /// Removes the files this run created, through the folder's descriptor, then the folder itself if its
    /// name still names it. Never follows a link.
    func remove() {
        for file in createdFiles { try? folder.removeFile(file) }
        if parent.stillNames(identity, name) {
            try? parent.removeDirectory(name)
        }
    }
}
