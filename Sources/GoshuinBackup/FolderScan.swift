import GoshuinFormat

/// A backup folder judged whole before anything is read or written (`Spec/backup-v1.md` §5): every name
/// and kind, with every problem found at once, each in words a person can act on.
///
/// The folder holds `records.csv`, photos named as §3.2 says and, from an earlier extraction, a
/// `manifest.json` (only its `createdAt` is kept). Files an operating system leaves behind (`.DS_Store`,
/// `Thumbs.db`, `desktop.ini`, `._*`) are left out and named. A photo whose name only needs a rename is
/// refused with a name that would pass. Anything a backup cannot hold at all (a Live Photo's video, an edit
/// sidecar, a subfolder, a backup, a link) is refused, saying what it is, unless the caller asked to leave
/// such files out, and then each is listed with why.
package struct FolderScan {
    /// A file left out of the backup, and why.
    package typealias LeftOut = BackupFolder.LeftOut

    /// The folder's path, for messages.
    package let path: String
    /// The folder, open: every file is reached through it.
    package let directory: OpenDirectory
    /// The photos' names, in byte order.
    package let photoNames: [String]
    /// What the folder check found of each file it will pack (records.csv, the photos, a manifest.json), by
    /// name, without following a link: a file is judged again against this when it is read.
    package let statuses: [String: FileStatus]
    /// What is left out, in byte order of the names: the operating system's files always, and with
    /// `leavingOutUnsupported`, what a backup cannot hold.
    package let leftOut: [LeftOut]
    /// Whether the folder holds a `manifest.json`, whose `createdAt` is kept.
    package let hasManifest: Bool

    /// Why a file left out by the operating system's rule is left out.
    package static let operatingSystemFile = "a file the operating system made"

    /// Judges the folder at `path`.
    ///
    /// - Throws: `unexpected_file` listing every file that may not be in a backup (``GoshuinError/details``),
    ///   `zip_limit_exceeded` for more photos than a backup holds, `io` when the folder cannot be read.
    package init(_ path: String, leavingOutUnsupported: Bool = false) throws {
        self.path = path
        let directory = try AtomicOutput.openFolder(path)
        self.directory = directory
        let names = try describingFailure("cannot list \(DisplayText.quoted(path))") {
            try directory.names().sorted { $0.lexicographicallyPrecedes($1) }
        }
        let taken = Set(names.map { EntryName.foldedCase(String(decoding: $0, as: UTF8.self)) })
        var photos: [String] = []
        var leftOut: [LeftOut] = []
        var problems: [String] = []
        var photosByFoldedName: [String: String] = [:]
        var hasRecords = false
        var hasManifest = false
        var statuses: [String: FileStatus] = [:]
        for raw in names {
            if Self.isOperatingSystemLitter(raw) {
                leftOut.append(LeftOut(name: DisplayText.escaped(bytes: raw), reason: Self.operatingSystemFile))
                continue
            }
            guard let name = String(validating: raw, as: UTF8.self) else {
                problems.append("\(DisplayText.quoted(bytes: raw)): its name is not valid UTF-8; rename it")
                continue
            }
            let found = try describingFailure("cannot examine \(DisplayText.quoted(name))") {
                try directory.status(of: name)
            }
            statuses[name] = found
            if let unsupported = Self.whatABackupCannotHold(name, kind: found?.kind) {
                if leavingOutUnsupported {
                    let isFolder = found?.kind == .directory
                    leftOut.append(
                        LeftOut(
                            name: DisplayText.escaped(name), reason: unsupported, isFolder: isFolder,
                            photos: isFolder ? Self.photos(inFolder: name, of: directory) : []))
                } else {
                    problems.append("\(DisplayText.quoted(name)): it is \(unsupported)")
                }
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
        guard photos.count <= Manifest.maximumPhotoCount else {
            throw GoshuinError(
                .zipLimitExceeded,
                "\(DisplayText.quoted(path)) holds \(photos.count) photos; a backup holds at most"
                    + " \(Manifest.maximumPhotoCount) besides records.csv and manifest.json")
        }
        photoNames = photos
        self.leftOut = leftOut
        self.hasManifest = hasManifest
        let packed = Set(photos + [Manifest.recordsName] + (hasManifest ? [Manifest.fileName] : []))
        self.statuses = statuses.filter { packed.contains($0.key) }
    }

    /// The bytes of the files packed as they are: records.csv and the photos.
    package var dataSize: UInt64 {
        ([Manifest.recordsName] + photoNames).reduce(0) { $0 + UInt64(max(0, statuses[$1]?.size ?? 0)) }
    }

    /// The newest modification time of the files packed: a backup's `createdAt` when the folder keeps none.
    package var newestModification: Int {
        ([Manifest.recordsName] + photoNames).compactMap { statuses[$0]?.modified }.max() ?? 0
    }

    /// How deep ``photos(inFolder:of:)`` looks: a phone's `DCIM/100APPLE/IMG_0001.HEIC` is two levels down.
    static let photoSearchDepth = 4
    /// The most photos ``photos(inFolder:of:)`` names.
    static let photoSearchLimit = Manifest.maximumPhotoCount

    /// The photos (files with a photo's name, §3.2) in the subfolder `name` of `directory` and in its own
    /// subfolders, ``photoSearchDepth`` deep, as escaped paths from `directory`, in byte order: what leaving
    /// the subfolder out leaves out with it. Nothing is followed: a link is not a folder.
    static func photos(inFolder name: String, of directory: OpenDirectory) -> [String] {
        var found: [String] = []
        func visit(_ folder: OpenDirectory, path: String, depth: Int) {
            guard depth <= photoSearchDepth, let raw = try? folder.names() else { return }
            for entry in raw.sorted(by: { $0.lexicographicallyPrecedes($1) }) where found.count < photoSearchLimit {
                guard let entryName = String(validating: entry, as: UTF8.self),
                    let status = try? folder.status(of: entryName)
                else { continue }
                let entryPath = path + "/" + entryName
                if status.kind == .regular, EntryName.isValidPhotoName(entryName) {
                    found.append(DisplayText.escaped(entryPath))
                } else if status.kind == .directory, let inner = try? folder.openDirectory(entryName) {
                    visit(inner, path: entryPath, depth: depth + 1)
                }
            }
        }
        if let folder = try? directory.openDirectory(name) { visit(folder, path: name, depth: 1) }
        return found
    }

    /// Whether `name` is a file an operating system leaves in folders: Finder's `.DS_Store` and its
    /// AppleDouble `._NAME` files, Windows Explorer's `Thumbs.db` and `desktop.ini`.
    package static func isOperatingSystemLitter(_ name: [UInt8]) -> Bool {
        let text = String(decoding: name, as: UTF8.self)
        return [".DS_Store", "Thumbs.db", "desktop.ini"].contains(text) || text.hasPrefix("._")
    }

    /// What `name`, of `kind`, is when a backup cannot hold it at all, whatever its name, as the rest of a
    /// sentence (`"… is a video …"`); `nil` for what a backup holds or what only needs a rename.
    static func whatABackupCannotHold(_ name: String, kind: FileKind?) -> String? {
        switch kind {
        case .regular?, nil: break
        case .directory?:
            return "a folder; a backup holds the files of one folder only (a phone's DCIM folder holds its photos in"
                + " folders such as 100APPLE: put the photos and records.csv in one folder)"
        case .some(let other): return "\(other); a backup folder holds only regular files"
        }
        let bytes = Array(name.utf8)
        let fileExtension = bytes.lastIndex(of: UInt8(ascii: ".")).map {
            EntryName.foldedCase(String(decoding: bytes[($0 + 1)...], as: UTF8.self))
        }
        switch fileExtension {
        case "goshuin":
            return "a backup inside the folder being sealed; move it out of the folder (a backup does not hold"
                + " another)"
        case "mov", "mp4", "m4v", "avi", "3gp":
            return "a video (an iPhone keeps a Live Photo's motion as IMG_NNNN.MOV beside the photo); a backup"
                + " holds photos and records only, the photo itself is kept"
        case "aae":
            return "an edit sidecar the Photos app writes beside an edited photo; a backup holds the photo, not"
                + " the record of its edits"
        case "gif", "bmp", "tif", "tiff", "dng", "cr2", "nef", "arw", "raw":
            return "an image of a kind a backup does not hold; a backup holds .jpg, .jpeg, .png, .heic, .heif and"
                + " .webp photos (convert it to one of these to keep it)"
        case .some(let known) where EntryName.photoExtensions.contains(known):
            return nil
        default:
            guard name != Manifest.recordsName, name != Manifest.fileName else { return nil }
            return "not records.csv, manifest.json or a photo (.jpg, .jpeg, .png, .heic, .heif or .webp, in any"
                + " case); a backup cannot hold it"
        }
    }
}
