import GoshuinFormat

/// A backup folder checked whole and laid out as its ZIP, ready to seal: making one reads no photo (names,
/// kinds and sizes, records.csv and a kept manifest's `createdAt`), so a folder that cannot be sealed is
/// refused at once, and the backup's exact size is known.
/// ``seal(to:passphrase:parameters:replaceExisting:progress:)`` then asks for the passphrase and writes the
/// backup in one pass, into the output alone: no plaintext temporary anywhere, so sealing needs free space
/// for the backup and no more (`Spec/backup-v1.md` §5, `Spec/decisions/0015`).
public struct BackupFolder {
    /// A file of the folder left out of the backup, and why.
    public struct LeftOut: Equatable, Sendable {
        /// Its name, escaped for display.
        public let name: String
        /// Why it is left out.
        public let reason: String
        /// Whether it is a subfolder.
        public let isFolder: Bool
        /// For a subfolder, the photos in it (and in its own subfolders), left out with it, as paths from the
        /// folder sealed.
        public let photos: [String]

        init(name: String, reason: String, isFolder: Bool = false, photos: [String] = []) {
            self.name = name
            self.reason = reason
            self.isFolder = isFolder
            self.photos = photos
        }
    }

    /// The folder's files as the check found them.
    package let scan: FolderScan
    /// records.csv, read now when small enough.
    let records: RecordsPlan
    /// The backup's `createdAt`.
    let createdAt: String
    /// Where every part of the ZIP lies.
    let layout: BackupZipLayout

    /// The number of photos the backup will hold.
    public var photoCount: Int { scan.photoNames.count }
    /// The bytes of records.csv and the photos.
    public var dataSize: UInt64 { scan.dataSize }
    /// The size of the backup's ZIP, the payload that is sealed.
    package var payloadSize: UInt64 { layout.size }
    /// The files left out: the operating system's (`.DS_Store` …), and with `leavingOutUnsupported` those a
    /// backup cannot hold.
    public var leftOut: [LeftOut] { scan.leftOut }
    /// What a left-out file's reason is when the operating system made it.
    package static var operatingSystemFileReason: String { FolderScan.operatingSystemFile }

    /// Checks the folder at `path` and lays out its backup.
    ///
    /// - Parameter leavingOutUnsupported: leave out, instead of refusing, every file a backup cannot hold
    ///   (a video, an edit sidecar, a subfolder, a link); a photo whose name only needs a rename is refused
    ///   either way.
    /// - Throws: `unexpected_file` listing every file that may not be in a backup, `zip_limit_exceeded` for
    ///   more photos than a backup holds, `manifest_invalid` for a kept manifest that does not parse, `io`.
    public init(checking path: String, leavingOutUnsupported: Bool = false) throws {
        let scan = try FolderScan(path, leavingOutUnsupported: leavingOutUnsupported)
        self.scan = scan
        let recordsStatus = try Self.status(of: Manifest.recordsName, in: scan)
        records = try RecordsPlan(scan: scan, status: recordsStatus)
        createdAt = try scan.hasManifest ? Self.keptCreatedAt(scan) : FileSystem.timestamp(scan.newestModification)
        let photos = try scan.photoNames.map { name in
            let status = try Self.status(of: name, in: scan)
            return BackupZipLayout.Entry(
                name: name, method: 0, compressedSize: UInt64(status.size), uncompressedSize: UInt64(status.size),
                modificationTime: status.modified)
        }
        layout = try BackupZipLayout.backup(
            records: BackupZipLayout.Entry(
                name: Manifest.recordsName, method: records.method, compressedSize: records.compressedSize,
                uncompressedSize: UInt64(recordsStatus.size), modificationTime: recordsStatus.modified),
            photos: photos, createdAt: createdAt)
    }

    /// Seals the backup into a new `.goshuin` file at `outputPath`, asking for the passphrase (evaluating
    /// `passphrase`) only once the destination, the parameters and the free space for the backup were
    /// checked.
    ///
    /// - Returns: the manifest sealed.
    @discardableResult
    public func seal(
        to outputPath: String, passphrase: @autoclosure () throws -> Passphrase,
        parameters: SealParameters = SealParameters(), replaceExisting: Bool = false, progress: ProgressHandler? = nil
    ) throws -> Manifest {
        try AtomicOutput.checkDestination(outputPath, replaceExisting: replaceExisting)
        return try seal(
            passphrase: passphrase(), parameters: parameters, spaceNeededIn: FileSystem.parentDirectory(of: outputPath),
            progress: progress
        ) { write in try withAtomicOutput(to: outputPath, replaceExisting: replaceExisting, write) }.manifest
    }

    /// Seals the backup into the output `place` makes: the header drafted (the parameters checked, the
    /// salts drawn) and the free space for the whole backup checked in `folder`, then `place` runs its
    /// argument on the empty regular file that becomes the output only if that returns (an
    /// ``AtomicOutput``, or a spool for standard output), which evaluates `passphrase`, derives the keys and
    /// writes the backup in one pass.
    ///
    /// `sealedBytes`, when given, is shown the file's bytes in order as they are written (`seal --recovery`).
    ///
    /// - Returns: the manifest and the header written.
    package func seal(
        passphrase: @autoclosure () throws -> Passphrase, parameters: SealParameters, spaceNeededIn folder: String,
        sealedBytes: SealedBytesObserver? = nil, progress: ProgressHandler?,
        placingOutput place: ((FileDescriptor) throws -> SealedBackup) throws -> SealedBackup
    ) throws -> SealedBackup {
        let draft = try parameters.draft(plaintextLength: payloadSize)
        try FileSystem.requireSpace(draft.fileSize ?? payloadSize, at: folder, for: "sealing this backup")
        // Evaluated inside `place`'s argument, which does not outlive this call.
        return try withoutActuallyEscaping(passphrase) { passphrase in
            try place { output in
                let keyed = try draft.key(with: passphrase(), progress: progress)
                let writer = BackupZipWriter(self)
                let sealer = try StreamingSealer(
                    into: output, header: keyed, plaintextLength: payloadSize,
                    workerCount: WorkerThreads.defaultWorkerCount, observer: writer.digests, sealedBytes: sealedBytes,
                    progress: progress)
                let manifest = try writer.write(into: sealer)
                return SealedBackup(manifest: manifest, header: try sealer.finish())
            }
        }
    }

    /// Writes the backup's ZIP, unsealed, into the empty file open at `output`: what sealing encrypts.
    @discardableResult
    package func pack(into output: FileDescriptor) throws -> Manifest {
        let writer = BackupZipWriter(self)
        return try writer.write(into: try FileZipSink(output, observer: writer.digests))
    }

    /// The layout's indices of the entries whose data is read from the folder as it is written: the
    /// photos, and records.csv when it is too large to hold.
    var filesReadAsWritten: [Int] {
        let photos = Array(layout.entries.indices.dropFirst().dropLast())
        if case .streamed = records.content { return [0] + photos }
        return photos
    }

    // MARK: - The folder's files, judged again as they are read

    /// Opens the packed file `name` without following a link, and checks on what was opened that it is the
    /// file the folder check found, unchanged.
    func openChecked(_ name: String) throws -> FileDescriptor {
        let file: FileDescriptor
        do {
            // Non-blocking: a named pipe swapped in must not block the open; it is refused just below.
            file = try scan.directory.openFile(name, [.readOnly, .nonBlocking])
        } catch .tooManyLinks {
            throw changed(name, "it is a symbolic link now")
        } catch {
            throw error.goshuinError("cannot open \(DisplayText.quoted(name))")
        }
        do {
            let opened = try describingFailure("cannot examine \(DisplayText.quoted(name))") { try file.status() }
            guard let found = scan.statuses[name], opened.kind == .regular, opened.identity == found.identity else {
                throw changed(name, "it was replaced by another file")
            }
            guard opened.isUnchanged(comparedTo: found) else {
                throw changed(
                    name,
                    "it was replaced or written to: its size, modification time or status change time is"
                        + " not the checked one")
            }
            return file
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Throws unless `file`, the packed file `name`, gave exactly its size (`read` bytes, then its end) and
    /// still has the size and time the folder check found.
    func requireUnchanged(_ name: String, _ file: FileDescriptor, read: UInt64) throws {
        guard let found = scan.statuses[name] else { throw changed(name, "it was not found by the folder check") }
        guard read == UInt64(found.size) else { throw changed(name, "it became shorter as it was read") }
        var probe: UInt8 = 0
        let extra = try describingFailure("cannot read \(DisplayText.quoted(name))") {
            try withUnsafeMutableBytes(of: &probe) { try file.read(into: $0) }
        }
        guard extra == 0 else { throw changed(name, "it grew as it was read") }
        let after = try describingFailure("cannot examine \(DisplayText.quoted(name))") { try file.status() }
        guard after.isUnchanged(comparedTo: found) else { throw changed(name, "it was written to as it was read") }
    }

    /// The refusal of a file that changed between the folder check and its reading.
    func changed(_ name: String, _ how: String) -> GoshuinError {
        GoshuinError(
            .io,
            "\(DisplayText.quoted(name)) changed while the backup was being made (\(how)); nothing was sealed: seal"
                + " again once nothing is writing into the folder")
    }

    // MARK: - Planning

    private static func status(of name: String, in scan: FolderScan) throws -> FileStatus {
        guard let status = scan.statuses[name] else {
            throw GoshuinError(.io, "\(DisplayText.quoted(name)) vanished while the folder was checked")
        }
        return status
    }

    /// The `createdAt` of the folder's `manifest.json` (a folder extracted from a backup).
    private static func keptCreatedAt(_ scan: FolderScan) throws -> String {
        let file = try scan.directory.openFile(Manifest.fileName, [.readOnly, .nonBlocking])
        return try file.closeAfter {
            guard try file.status().kind == .regular else {
                throw GoshuinError(.unexpectedFile, "manifest.json is not a regular file")
            }
            return try Manifest.parse(
                try FileSystem.readAll(file, maximumSize: Manifest.maximumSize, name: Manifest.fileName)
            ).createdAt
        }
    }
}

/// What sealing a backup wrote.
package struct SealedBackup {
    /// The manifest sealed.
    package let manifest: Manifest
    /// The header of the file written.
    package let header: Header
}

/// records.csv as it will be written: deflated when it is small enough to read now and deflates within the
/// reader's ratio limit, otherwise stored and read as it is written, like a photo.
struct RecordsPlan {
    /// The most of records.csv read into memory to be deflated: a larger one is stored.
    static let inMemoryLimit = 16 << 20

    /// What is written.
    enum Content {
        /// Held in memory: the bytes written (deflated or as they are), the CRC-32 and SHA-256 of the file.
        case inMemory(stored: [UInt8], crc32: UInt32, sha256: [UInt8])
        /// Read from the file as it is written.
        case streamed
    }

    let content: Content
    let method: UInt16
    let compressedSize: UInt64

    init(scan: FolderScan, status: FileStatus) throws {
        let size = UInt64(max(0, status.size))
        guard size <= UInt64(Self.inMemoryLimit) else {
            self.init(streaming: size)
            return
        }
        let folder = BackupFolderReader(scan: scan)
        try self.init(holding: try folder.readWhole(Manifest.recordsName, expected: status))
    }

    /// records.csv of `size` bytes, too large to hold: stored, and read as it is written.
    init(streaming size: UInt64) { (content, method, compressedSize) = (.streamed, 0, size) }

    /// records.csv held in memory as `bytes` (at most ``inMemoryLimit``): deflated when that stays within the
    /// reader's ratio limit, stored otherwise.
    init(holding bytes: [UInt8]) throws {
        let size = UInt64(bytes.count)
        let deflated = try RawDeflate.deflate(bytes)
        // A margin below the reader's limit: it refuses an entry that inflates more than 200 times.
        let deflates = UInt64(deflated.count) * (ZipStructureScanner.maximumCompressionRatio - 10) >= size
        content = .inMemory(
            stored: deflates ? deflated : bytes, crc32: CRC32.of(bytes), sha256: try SHA256Hasher.hash(bytes))
        method = deflates ? 8 : 0
        compressedSize = UInt64(deflates ? deflated.count : bytes.count)
    }
}

/// Reads a small file of a checked folder whole, judged against what the check found.
private struct BackupFolderReader {
    let scan: FolderScan

    func readWhole(_ name: String, expected: FileStatus) throws -> [UInt8] {
        let file = try describingFailure("cannot open \(DisplayText.quoted(name))") {
            try scan.directory.openFile(name, [.readOnly, .nonBlocking])
        }
        return try file.closeAfter {
            let opened = try describingFailure("cannot examine \(DisplayText.quoted(name))") { try file.status() }
            guard opened.kind == .regular, opened.identity == expected.identity, opened.size == expected.size else {
                throw GoshuinError(
                    .io, "\(DisplayText.quoted(name)) changed while the folder was checked; nothing was sealed")
            }
            let bytes = try FileSystem.readAll(file, maximumSize: RecordsPlan.inMemoryLimit, name: name)
            guard bytes.count == Int(expected.size) else {
                throw GoshuinError(.io, "\(DisplayText.quoted(name)) changed as it was read; nothing was sealed")
            }
            return bytes
        }
    }
}
