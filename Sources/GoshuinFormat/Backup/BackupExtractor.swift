import Glibc

/// Turns a `.goshuin` backup into a folder: `manifest.json`, `records.csv` and the photos, every byte
/// checked against the manifest, written into a temporary sibling that becomes the destination only
/// when everything verified (`Spec/backup-v1.md` §5).
public enum BackupExtractor {
    /// Extracts the backup at `inputPath` into `destination`, which must not exist or be an empty
    /// directory. Free space is checked before the key is derived, and again against the declared sizes.
    ///
    /// - Returns: the manifest.
    @discardableResult
    public static func extract(
        inputPath: String, passphrase: Passphrase, into destination: String, progress: ProgressHandler? = nil
    ) throws -> Manifest {
        let destination = try normalizedDestination(destination)
        try requireEmptyOrAbsent(destination)
        let input = try GoshuinFile.openInput(inputPath)
        return try input.closeAfter {
            let header = try ContainerStructure.validate(input)
            let parent = AtomicOutput.directory(of: destination)
            try FileSystem.requireSpace(header.plaintextLength, at: parent, for: "extracting this backup")
            let reader = try DecryptingReader(input, passphrase: passphrase, progress: progress)
            let archive = try BackupArchive(reader)
            try FileSystem.requireSpace(
                archive.directory.totalUncompressedSize, at: parent, for: "extracting this backup")
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            let staging = try FileSystem.makeTemporarySibling(of: destination)
            do {
                try writeEntries(archive, manifest: manifest, into: staging, progress: progress)
                try moveIntoPlace(staging, destination)
            } catch {
                FileSystem.removeFlatDirectory(staging)
                throw error
            }
            return manifest
        }
    }

    /// `path` without trailing slashes (`restored/` is `restored`); `invalid_argument` for a path that
    /// names no folder of its own (empty, `.`, `..`, `/`).
    public static func normalizedDestination(_ path: String) throws -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let last = AtomicOutput.lastComponent(of: String(trimmed))
        guard !trimmed.isEmpty, trimmed != "/", last != ".", last != ".." else {
            throw GoshuinError(.invalidArgument, "\"\(path)\" names no new folder to extract into")
        }
        return String(trimmed)
    }

    /// Throws `destination_not_empty` unless `path` is absent or an empty directory (not a symbolic link).
    public static func requireEmptyOrAbsent(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR, (try FileSystem.directoryEntries(path)).isEmpty else {
            throw GoshuinError(
                .destinationNotEmpty,
                "\(path) exists and is not an empty folder (or is a link); extract into a new or empty folder")
        }
    }

    private static func writeEntries(
        _ archive: BackupArchive, manifest: Manifest, into staging: String, progress: ProgressHandler?
    ) throws {
        let total = archive.directory.totalUncompressedSize
        var done: UInt64 = 0
        for entry in archive.directory.entries {
            let path = staging + "/" + entry.name
            let output: FileDescriptor
            do {
                output = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, permissions: 0o600)
            } catch {
                throw error.goshuinError("cannot create \(path)")
            }
            try output.closeAfter {
                try archive.read(entry, checkedAgainst: manifest) { bytes in
                    do {
                        try output.writeAll(bytes)
                    } catch let error as Errno {
                        throw error.goshuinError("cannot write \(path)")
                    }
                }
                do {
                    try output.sync()
                } catch let error as Errno {
                    throw error.goshuinError("cannot write \(path)")
                }
            }
            done += entry.uncompressedSize
            progress?(.payload(bytesDone: done, bytesTotal: total))
        }
    }

    /// Renames the verified staging folder onto the destination (an empty directory is replaced by the
    /// rename itself) and makes the rename durable.
    private static func moveIntoPlace(_ staging: String, _ destination: String) throws {
        do {
            let folder = try FileDescriptor.open(staging, O_RDONLY | O_DIRECTORY)
            try folder.closeAfter { try folder.sync() }
        } catch {
            throw GoshuinError(.io, "cannot sync the extracted folder: \(error)")
        }
        try requireEmptyOrAbsent(destination)
        guard rename(staging, destination) == 0 else {
            throw Errno.current.goshuinError("cannot move the extracted folder to \(destination)")
        }
        if let parent = try? FileDescriptor.open(AtomicOutput.directory(of: destination), O_RDONLY) {
            try? parent.sync()
            try? parent.close()
        }
    }
}
