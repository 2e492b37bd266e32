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
        /// The operating system's files found in the folder and left out, sorted.
        package let skipped: [String]
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
    package static func pack(folder: String, into output: FileDescriptor) throws -> Packed {
        let contents = try FolderContents(folder)
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
        return Packed(manifest: manifest, skipped: contents.skipped)
    }

    /// Whether `name` is a file an operating system leaves in folders: Finder's `.DS_Store` and its
    /// AppleDouble `._NAME` files, Windows Explorer's `Thumbs.db` and `desktop.ini`.
    package static func isOperatingSystemLitter(_ name: [UInt8]) -> Bool {
        let text = String(decoding: name, as: UTF8.self)
        return [".DS_Store", "Thumbs.db", "desktop.ini"].contains(text) || text.hasPrefix("._")
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

/// The files of a folder to pack, checked by name and kind: `records.csv`, photos with valid names and an
/// optional `manifest.json`, all regular files; the operating system's litter set aside.
private struct FolderContents {
    let path: String
    let directory: OpenDirectory
    let photoNames: [String]
    let skipped: [String]
    /// The `createdAt` of a `manifest.json` in the folder.
    let keptCreatedAt: String?

    init(_ path: String) throws {
        self.path = path
        let directory = try AtomicOutput.openFolder(path)
        self.directory = directory
        let names = try describingFailure("cannot list \(DisplayText.quoted(path))") {
            try directory.names().sorted { $0.lexicographicallyPrecedes($1) }
        }
        let taken = Set(names.map { EntryName.foldedCase(String(decoding: $0, as: UTF8.self)) })
        var photos: [String] = []
        var skipped: [String] = []
        var problems: [String] = []
        var photosByFoldedName: [String: String] = [:]
        var hasRecords = false
        var hasManifest = false
        for raw in names {
            if BackupPacker.isOperatingSystemLitter(raw) {
                skipped.append(DisplayText.escaped(bytes: raw))
                continue
            }
            guard let name = String(validating: raw, as: UTF8.self) else {
                problems.append("\(DisplayText.quoted(bytes: raw)): its name is not valid UTF-8")
                continue
            }
            if let found = try? directory.status(of: name), found.kind != .regular {
                problems.append("\(DisplayText.quoted(name)) is \(found.kind); a backup folder holds only files")
                continue
            }
            switch name {
            case Manifest.recordsName: hasRecords = true
            case Manifest.fileName: hasManifest = true
            default:
                if let problem = EntryName.photoNameProblem(name) {
                    let suggestion = EntryName.suggestedPhotoName(for: name, taken: taken).map {
                        "; rename it to \(DisplayText.quoted($0)), and wherever records.csv names it"
                    }
                    problems.append("\(DisplayText.quoted(name)): \(problem)\(suggestion ?? "")")
                } else if let other = photosByFoldedName[EntryName.foldedCase(name)] {
                    problems.append(
                        "\(DisplayText.quoted(name)) and \(DisplayText.quoted(other)) differ only in case; a backup"
                            + " holds names that differ in more, since some systems cannot tell them apart")
                } else {
                    photosByFoldedName[EntryName.foldedCase(name)] = name
                    photos.append(name)
                }
            }
        }
        if !hasRecords {
            problems.insert("no records.csv: a backup folder holds the records as records.csv", at: 0)
        }
        guard problems.isEmpty else {
            throw GoshuinError(
                .unexpectedFile,
                "\(DisplayText.quoted(path)) is not a backup folder as it is: \(problems.count)"
                    + " \(problems.count == 1 ? "problem" : "problems"), listed below; nothing was sealed",
                details: problems)
        }
        // Refused before anything is written: records, photos and the manifest are the entries.
        guard photos.count + 2 <= ZipStructureScanner.maximumEntryCount else {
            throw GoshuinError(
                .zipLimitExceeded,
                "\(DisplayText.quoted(path)) holds \(photos.count) photos; a backup holds at most"
                    + " \(ZipStructureScanner.maximumEntryCount - 2) besides records.csv and manifest.json")
        }
        photoNames = photos
        self.skipped = skipped
        keptCreatedAt = hasManifest ? try Self.createdAt(ofManifestIn: directory) : nil
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
