import Glibc

/// Turns a folder into a backup ZIP (`Spec/backup-v1.md` §5): `records.csv` and photo files, with a
/// generated `manifest.json`; any other file or unsafe name is refused by name.
public enum BackupPacker {
    /// Packs the folder at `folder` into the empty file open at `output`, then re-reads the ZIP with the
    /// strict reader and checks every entry against the manifest before returning it.
    ///
    /// Records and manifest are deflated, photos stored, in the order records, photos by name, manifest
    /// (last, so that listing a sealed backup reads only its final chunks). `createdAt` is kept from a
    /// `manifest.json` already in the folder (a folder extracted from a backup), otherwise it is the newest
    /// modification time among the files: the same folder always gives the same ZIP.
    @discardableResult
    public static func pack(folder: String, into output: FileDescriptor) throws -> Manifest {
        let contents = try FolderContents(folder)
        let manifest = try Manifest(
            createdAt: try contents.createdAt(), records: try contents.describe(Manifest.recordsName),
            photos: try contents.photoNames.map { try contents.describe($0) })
        let writer = try ZipWriter(output)
        try writer.addEntry(Manifest.recordsName, size: manifest.records.size, deflate: true) { write in
            try contents.stream(Manifest.recordsName, write)
        }
        for photo in manifest.photos {
            try writer.addEntry(photo.name, size: photo.size, deflate: false) { write in
                try contents.stream(photo.name, write)
            }
        }
        let manifestBytes = manifest.encode()
        try writer.addEntry(Manifest.fileName, size: UInt64(manifestBytes.count), deflate: true) { write in
            try manifestBytes.withUnsafeBytes { try write($0) }
        }
        try writer.finish()
        try verify(output, against: manifest)
        return manifest
    }

    /// Reads the written ZIP back through the strict reader: structure, binding and every hash.
    private static func verify(_ output: FileDescriptor, against manifest: Manifest) throws {
        let archive = try BackupArchive(try FileSource(output))
        guard try archive.readManifest() == manifest else {
            throw GoshuinError(.io, "the ZIP just written does not read back its manifest")
        }
        try archive.checkBinding(manifest)
        for entry in archive.directory.entries {
            try archive.read(entry, checkedAgainst: manifest) { _ in }
        }
    }
}

/// The files of a folder to pack, checked: regular files only, `records.csv`, photos with valid names
/// and an optional `manifest.json`.
private struct FolderContents {
    let folder: String
    let photoNames: [String]
    let hasManifest: Bool

    init(_ folder: String) throws {
        self.folder = folder
        var photos: [String] = []
        var folded = Set<String>()
        var hasRecords = false
        var hasManifest = false
        for name in try FileSystem.directoryEntries(folder) {
            var info = stat()
            guard lstat(folder + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw GoshuinError(
                    .unexpectedFile,
                    "\(ZipStructureScanner.quoted(Array(name.utf8))) is not a regular file;"
                        + " a backup folder holds only records.csv, manifest.json and photos")
            }
            switch name {
            case Manifest.recordsName: hasRecords = true
            case Manifest.fileName: hasManifest = true
            default:
                guard EntryName.isValidPhotoName(name) else {
                    throw GoshuinError(
                        .unexpectedFile,
                        "\(ZipStructureScanner.quoted(Array(name.utf8))) may not be in a backup: only records.csv,"
                            + " manifest.json and photos named like IMG_0001.jpg (jpg, jpeg, png, heic, heif, webp)")
                }
                guard folded.insert(EntryName.foldedCase(name)).inserted else {
                    throw GoshuinError(.duplicateEntry, "\(name) differs from another photo's name only in case")
                }
                photos.append(name)
            }
        }
        guard hasRecords else {
            throw GoshuinError(.unexpectedFile, "\(folder) has no records.csv; it is not a backup folder")
        }
        photoNames = photos.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        self.hasManifest = hasManifest
    }

    func describe(_ name: String) throws -> Manifest.FileEntry {
        let hasher = SHA256Hasher()
        var size: UInt64 = 0
        try stream(name) { bytes in
            hasher.update(bytes)
            size += UInt64(bytes.count)
        }
        return Manifest.FileEntry(name: name, size: size, sha256: hasher.finalize())
    }

    func stream(_ name: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let input = try GoshuinFile.openInput(folder + "/" + name)
        try input.closeAfter {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                try Interruption.check()
                let count: Int
                do {
                    count = try input.read(into: buffer)
                } catch let error as Errno {
                    throw error.goshuinError("cannot read \(name)")
                }
                if count == 0 { return }
                try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
    }

    /// The `createdAt` of an existing `manifest.json`, or the newest modification time of the files.
    func createdAt() throws -> String {
        if hasManifest {
            return try Manifest.parse(
                try FileSystem.readFile(folder + "/" + Manifest.fileName, maximumSize: Manifest.maximumSize)
            ).createdAt
        }
        var newest = 0
        for name in [Manifest.recordsName] + photoNames {
            var info = stat()
            if stat(folder + "/" + name, &info) == 0 { newest = max(newest, Int(info.st_mtim.tv_sec)) }
        }
        return Self.timestamp(newest)
    }

    /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SSZ`.
    static func timestamp(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
