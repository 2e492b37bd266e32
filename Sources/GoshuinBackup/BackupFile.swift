import GoshuinFormat

/// Backups (`Spec/backup-v1.md`) as a person handles them: a folder of `records.csv` and photos sealed
/// into one `.goshuin` file, and that file listed, verified and extracted into a folder again.
///
/// As with ``GoshuinFile``, the passphrase argument is evaluated only after every check that needs no key
/// passed, so an interactive caller can ask for it then.
public enum BackupFile {
    /// Checks the backup folder `folder` whole, then seals it into a new `.goshuin` file at `outputPath`
    /// in one pass (``BackupFolder``): no plaintext temporary, so the free space needed is the backup's size.
    ///
    /// Every file that may not be in a backup is reported at once (`unexpected_file`, one line each in
    /// ``GoshuinError/details``) before the passphrase is asked for.
    /// - Returns: the manifest sealed.
    @discardableResult
    public static func seal(
        folder: String, outputPath: String, passphrase: @autoclosure () throws -> Passphrase,
        parameters: SealParameters = SealParameters(), replaceExisting: Bool = false, progress: ProgressHandler? = nil
    ) throws -> Manifest {
        try BackupFolder(checking: folder).seal(
            to: outputPath, passphrase: passphrase(), parameters: parameters, replaceExisting: replaceExisting,
            progress: progress)
    }

    /// Extracts the backup sealed in `inputPath` into `folder`, which must not exist or be an empty folder;
    /// the folder appears only once every entry verified.
    /// - Returns: the manifest.
    @discardableResult
    public static func extract(
        inputPath: String, into folder: String, passphrase: @autoclosure () throws -> Passphrase,
        progress: ProgressHandler? = nil
    ) throws -> Manifest {
        let destination = try ExtractionDestination(folder)
        let input = try FileSystem.openInput(inputPath)
        return try input.closeAfter {
            try BackupExtractor.extract(input, into: destination, passphrase: passphrase(), progress: progress)
        }
    }

    /// Restores what a damaged or cut backup in `inputPath` still holds into `folder` (new or empty), which
    /// appears only at the end and only when something was restored: every entry whose bytes all
    /// authenticate and pass their checks (`Spec/backup-v1.md` §4.2). Nothing is written from a chunk that
    /// does not authenticate; a wrong passphrase restores nothing (`auth_failed`).
    /// - Returns: what was restored and lost.
    public static func salvage(
        inputPath: String, into folder: String, passphrase: @autoclosure () throws -> Passphrase,
        progress: ProgressHandler? = nil
    ) throws -> SalvageReport {
        let destination = try ExtractionDestination(folder)
        let input = try FileSystem.openInput(inputPath)
        return try input.closeAfter {
            try BackupSalvage.salvage(input, into: destination, passphrase: passphrase(), progress: progress)
        }
    }

    /// The manifest and the entries of the backup sealed in `inputPath`, checked against each other by
    /// name and size; only the chunks holding the ZIP's directory and manifest are decrypted.
    public static func list(
        inputPath: String, passphrase: @autoclosure () throws -> Passphrase, progress: ProgressHandler? = nil
    ) throws -> BackupListing {
        let input = try FileSystem.openInput(inputPath)
        return try input.closeAfter { try BackupListing(input, passphrase: passphrase(), progress: progress) }
    }

    /// Verifies the `.goshuin` file at `inputPath`, writing nothing: every chunk authenticated and, when the
    /// payload is a backup, every entry checked against the manifest. With `requiringBackup`, a payload that
    /// is not a backup extracting would restore fails with the error extracting would give.
    public static func verify(
        inputPath: String, passphrase: @autoclosure () throws -> Passphrase, requiringBackup: Bool = false,
        progress: ProgressHandler? = nil
    ) throws -> Verification {
        let input = try FileSystem.openInput(inputPath)
        return try input.closeAfter {
            try Verification.verify(
                input, passphrase: passphrase(), requiringBackup: requiringBackup, progress: progress)
        }
    }
}

/// What a backup holds, read from its ZIP's central directory and manifest.
public struct BackupListing: Sendable {
    /// The manifest.
    public let manifest: Manifest
    /// The ZIP's entries, in central-directory order.
    public let entries: [ZipEntry]

    /// Lists the backup in the `.goshuin` file open at `input`; the structure is checked before
    /// `passphrase` is evaluated.
    package init(
        _ input: FileDescriptor, passphrase: @autoclosure () throws -> Passphrase, progress: ProgressHandler?
    ) throws {
        let reader = try DecryptingReader(input, passphrase: passphrase(), progress: progress)
        (manifest, entries) = try reader.checkingContainerFirst {
            let archive = try BackupArchive(reader)
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            return (manifest, archive.directory.entries)
        }
    }
}
