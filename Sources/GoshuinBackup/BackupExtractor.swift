import Glibc
import GoshuinFormat

/// Turns a `.goshuin` backup into a folder: `manifest.json`, `records.csv` and the photos, every byte
/// checked against the manifest, written into a temporary sibling that becomes the destination only
/// when everything verified (`Spec/backup-v1.md` §5).
///
/// Everything inside the temporary folder is reached through its descriptor, never a path, and the folder
/// through its parent's descriptor: whoever can rename entries beside the destination cannot make the
/// extraction write, or its cleanup delete, anything elsewhere.
package enum BackupExtractor {
    /// Extracts the backup at `inputPath` into `destination`, which must not exist or be an empty
    /// directory. Free space is checked before the key is derived, and again against the declared sizes.
    ///
    /// - Returns: the manifest.
    @discardableResult
    package static func extract(
        inputPath: String, passphrase: Passphrase, into destination: String, progress: ProgressHandler? = nil
    ) throws -> Manifest {
        let destination = try normalizedDestination(destination)
        try requireEmptyOrAbsent(destination)
        let input = try GoshuinFile.openInput(inputPath)
        return try input.closeAfter {
            let header = try ContainerStructure.validate(input)
            try FileSystem.requireSpace(
                header.plaintextLength, at: AtomicOutput.directory(of: destination), for: "extracting this backup")
            let reader = try DecryptingReader(input, passphrase: passphrase, progress: progress)
            return try extract(from: reader, into: destination, progress: progress)
        }
    }

    /// Extracts the backup whose payload `reader` decrypts into `destination`; `afterStagingFolderMade`
    /// runs once the temporary folder exists (tests use it to race the extraction).
    package static func extract(
        from reader: DecryptingReader, into destination: String, progress: ProgressHandler? = nil,
        afterStagingFolderMade: (String) -> Void = { _ in }
    ) throws -> Manifest {
        let destination = try normalizedDestination(destination)
        let parentPath = AtomicOutput.directory(of: destination)
        let archive = try BackupArchive(reader)
        try FileSystem.requireSpace(
            archive.directory.totalUncompressedSize, at: parentPath, for: "extracting this backup")
        let manifest = try archive.readManifest()
        try archive.checkBinding(manifest)
        let staging = try StagingFolder(beside: destination)
        afterStagingFolderMade(staging.path)
        do {
            try writeEntries(archive, manifest: manifest, into: staging, progress: progress)
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
        let last = AtomicOutput.lastComponent(of: String(trimmed))
        guard !trimmed.isEmpty, trimmed != "/", last != ".", last != ".." else {
            throw GoshuinError(.invalidArgument, "\(DisplayText.quoted(path)) names no new folder to extract into")
        }
        guard last.utf8.count <= Int(NAME_MAX) else {
            throw GoshuinError(
                .invalidArgument, "the folder name \(DisplayText.quoted(last)) is longer than \(NAME_MAX) bytes")
        }
        return String(trimmed)
    }

    /// Throws `destination_not_empty` unless `path` is absent or an empty directory (not a symbolic link).
    package static func requireEmptyOrAbsent(_ path: String) throws {
        let parentPath = AtomicOutput.directory(of: path)
        guard let parent = try? OpenDirectory(path: parentPath) else { return }
        try requireEmptyOrAbsent(AtomicOutput.lastComponent(of: path), in: parent, path: path)
    }

    static func requireEmptyOrAbsent(_ name: String, in parent: OpenDirectory, path: String) throws {
        let refusal = GoshuinError(
            .destinationNotEmpty, "\(DisplayText.quoted(path)) exists and is not an empty folder (or is a link)")
        guard let info = try? parent.status(of: name) else { return }
        guard info.st_mode & S_IFMT == S_IFDIR, let folder = try? parent.openDirectory(name),
            (try? folder.names())?.isEmpty == true
        else { throw refusal }
    }

    private static func writeEntries(
        _ archive: BackupArchive, manifest: Manifest, into staging: StagingFolder, progress: ProgressHandler?
    ) throws {
        let total = archive.directory.totalUncompressedSize
        var done: UInt64 = 0
        try archive.readEveryEntry(checkedAgainst: manifest) { entry, read in
            let output = try staging.createFile(entry.name)
            try output.closeAfter {
                try read { bytes in
                    do {
                        try output.writeAll(bytes)
                    } catch {
                        throw error.goshuinError("cannot write \(entry.name)")
                    }
                }
                do {
                    try output.sync()
                } catch {
                    throw error.goshuinError("cannot write \(entry.name)")
                }
            }
            done += entry.uncompressedSize
            progress?(.payload(bytesDone: done, bytesTotal: total))
        }
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
        destinationName = AtomicOutput.lastComponent(of: destination)
        let parentPath = AtomicOutput.directory(of: destination)
        do {
            parent = try OpenDirectory(path: parentPath)
        } catch {
            throw error.goshuinError("cannot open the folder \(DisplayText.quoted(parentPath))")
        }
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
            let info = try folder.status()
            // Whoever swapped another folder in between mkdir and open would have to be this user.
            guard try folder.descriptor.lockExclusively(), info.st_uid == geteuid(), info.st_mode & 0o7777 == 0o700
            else {
                throw GoshuinError(.io, "the new folder \(DisplayText.quoted(path)) was replaced as it was made")
            }
            identity = FileIdentity(info)
        } catch {
            try? parent.removeDirectory(candidate)
            throw error.goshuinError("cannot open the new folder \(DisplayText.quoted(path))")
        }
    }

    /// Creates `name` in the folder, private and new.
    func createFile(_ entryName: String) throws -> FileDescriptor {
        do {
            let file = try folder.openFile(entryName, O_WRONLY | O_CREAT | O_EXCL, permissions: 0o600)
            createdFiles.append(entryName)
            return file
        } catch {
            throw error.goshuinError("cannot create \(entryName) in \(DisplayText.quoted(path))")
        }
    }

    /// Syncs the folder, renames it onto the destination (an empty directory is replaced by the rename
    /// itself) and checks that what now has the destination's name is this folder.
    func moveIntoPlace() throws {
        do {
            try folder.sync()
        } catch {
            throw error.goshuinError("cannot sync the extracted folder")
        }
        try BackupExtractor.requireEmptyOrAbsent(destinationName, in: parent, path: destinationPath)
        guard Temporaries.stillNames(identity, name, in: parent) else {
            throw GoshuinError(
                .io, "the folder being extracted into was moved or replaced; nothing was put at the destination")
        }
        do {
            try parent.rename(name, to: destinationName)
        } catch {
            throw error.goshuinError("cannot move the extracted folder to \(DisplayText.quoted(destinationPath))")
        }
        guard Temporaries.stillNames(identity, destinationName, in: parent) else {
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
        if Temporaries.stillNames(identity, name, in: parent) {
            try? parent.removeDirectory(name)
        }
    }
}
