import GoshuinFormat

/// Turns a folder into a backup ZIP (`Spec/backup-v1.md` §5): `records.csv` and photo files, with a
/// generated `manifest.json`. Every file that may not be in a backup is reported at once, each with the
/// rule it breaks and a name that would pass where one exists; files an operating system leaves behind
/// (`.DS_Store`, `Thumbs.db`, `desktop.ini`, `._*`) are skipped and named.
package enum BackupPacker {
    /// What packing made.
    package struct Packed: Sendable {
        /// The manifest written into the ZIP.
        package let manifest: Manifest
        /// The files of the folder left out, with why, sorted.
        package let leftOut: [FolderScan.LeftOut]
    }

    /// Packs the folder at `folder` into the empty file open at `output`, then re-reads the ZIP with the
    /// strict reader and checks every entry against the manifest before returning.
    ///
    /// Records (unless they would deflate past the reader's ratio limit) and manifest are deflated, photos
    /// stored, in the order records, photos by name, manifest
    /// (last, so that listing a sealed backup reads only its final chunks). `createdAt` is kept from a
    /// `manifest.json` already in the folder (a folder extracted from a backup), otherwise it is the newest
    /// modification time among the files: the same folder always gives the same ZIP.
    ///
    /// Each file is opened once, through the folder's descriptor without following links, judged on the
    /// opened descriptor (a regular file, of the size it had when opened), and hashed as it is written: a
    /// file swapped for a link, or changed while it is read, is refused rather than sealed.
    ///
    /// - Throws: `unexpected_file` listing every file that may not be in a backup (``GoshuinError/details``),
    ///   before anything is written; `zip_limit_exceeded` for more photos than a backup holds.
    @discardableResult
    package static func pack(folder: String, into output: FileDescriptor, leavingOutUnsupported: Bool = false) throws
        -> Packed
    {
        let contents = try FolderContents(try FolderScan(folder, leavingOutUnsupported: leavingOutUnsupported))
        let writer = try ZipWriter(output)
        var newestModification = 0
        func add(_ name: String, deflate: Bool) throws -> Manifest.FileEntry {
            let (entry, modified) = try contents.add(name, to: writer, deflate: deflate)
            newestModification = max(newestModification, modified)
            return entry
        }
        let records = try add(Manifest.recordsName, deflate: true)
        let photos = try contents.photoNames.map { try add($0, deflate: false) }
        let manifest = try Manifest(
            createdAt: contents.keptCreatedAt ?? FileSystem.timestamp(newestModification), records: records,
            photos: photos)
        let manifestBytes = manifest.encode()
        try writer.addEntry(Manifest.fileName, size: UInt64(manifestBytes.count), deflate: true) { write in
            try manifestBytes.withUnsafeBytes { try write($0) }
        }
        try writer.finish()
        try verify(output, against: manifest)
        return Packed(manifest: manifest, leftOut: contents.scan.leftOut)
    }

    /// Reads the written ZIP back through the strict reader: structure, binding and every hash.
    private static func verify(_ output: FileDescriptor, against manifest: Manifest) throws {
        let archive = try BackupArchive(try FileSource(output))
        guard try archive.readManifest() == manifest else {
            throw GoshuinError(.io, "the ZIP just written does not read back its manifest")
        }
        try archive.checkBinding(manifest)
        try archive.readEveryEntry(checkedAgainst: manifest) { _, read in try read { _ in } }
    }
}

/// The files of a judged folder (``FolderScan``), each opened as it is packed.
private struct FolderContents {
    let scan: FolderScan
    var directory: OpenDirectory { scan.directory }
    var photoNames: [String] { scan.photoNames }
    /// The `createdAt` of a `manifest.json` in the folder.
    let keptCreatedAt: String?

    init(_ scan: FolderScan) throws {
        self.scan = scan
        keptCreatedAt = scan.hasManifest ? try Self.createdAt(ofManifestIn: scan.directory) : nil
    }

    /// Opens `name` without following a link and checks, on the opened descriptor, that it is a regular
    /// file; returns it with its `fstat` information.
    private static func openRegularFile(_ name: String, in directory: OpenDirectory) throws -> (
        FileDescriptor, FileStatus
    ) {
        let file: FileDescriptor
        do {
            // Non-blocking: a named pipe swapped in must not block the open; it is refused just below.
            file = try directory.openFile(name, [.readOnly, .nonBlocking])
        } catch .tooManyLinks {
            throw GoshuinError(
                .unexpectedFile, "\(DisplayText.quoted(name)) is a symbolic link; a backup folder holds only files")
        } catch {
            throw error.goshuinError("cannot open \(DisplayText.quoted(name))")
        }
        do {
            let found = try describingFailure("cannot examine \(DisplayText.quoted(name))") { try file.status() }
            guard found.kind == .regular else {
                throw GoshuinError(
                    .unexpectedFile,
                    "\(DisplayText.quoted(name)) is \(found.kind); a backup folder holds only regular files")
            }
            return (file, found)
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Adds the file `name` to `writer` in one pass, hashing it as it is written; returns its manifest
    /// entry and its modification time.
    ///
    /// - Parameter deflate: deflate the file, unless it would deflate past the reader's ratio limit: it is
    ///   then stored (measured first, in a pass that only counts).
    func add(_ name: String, to writer: ZipWriter, deflate: Bool) throws -> (Manifest.FileEntry, Int) {
        let (file, found) = try Self.openRegularFile(name, in: directory)
        return try file.closeAfter {
            let size = UInt64(found.size)
            let hasher = try SHA256Hasher()
            var count: UInt64 = 0
            let buffer = try AllocatedBytes(count: FileDescriptor.copyBufferSize, wipesOnRelease: true)
            // A margin below the limit, for a writer that deflates a few bytes differently from the count.
            let safeRatio = ZipStructureScanner.maximumCompressionRatio - 10
            var deflates = deflate
            if deflate {
                let (limit, overflow) = try DeflatedSize.of(file, name: name, buffer: buffer)
                    .multipliedReportingOverflow(by: safeRatio)
                deflates = overflow || limit >= size
            }
            try writer.addEntry(name, size: size, deflate: deflates) { write in
                while true {
                    try Interruption.check()
                    let received = try describingFailure("cannot read \(DisplayText.quoted(name))") {
                        try file.read(into: buffer.bytes)
                    }
                    if received == 0 { break }
                    count += UInt64(received)
                    guard count <= size else { break }
                    let bytes = UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<received])
                    try hasher.update(bytes)
                    try write(bytes)
                }
            }
            guard count == size else {
                throw GoshuinError(
                    .io, "\(DisplayText.quoted(name)) changed size while being read; nothing was sealed, try again")
            }
            return (Manifest.FileEntry(name: name, size: size, sha256: try hasher.finalize()), found.modified)
        }
    }

    /// The `createdAt` of the folder's `manifest.json`.
    private static func createdAt(ofManifestIn directory: OpenDirectory) throws -> String {
        let (file, _) = try openRegularFile(Manifest.fileName, in: directory)
        return try file.closeAfter {
            try Manifest.parse(try FileSystem.readAll(file, maximumSize: Manifest.maximumSize, name: Manifest.fileName))
                .createdAt
        }
    }
}
