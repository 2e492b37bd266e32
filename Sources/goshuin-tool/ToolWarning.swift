import GoshuinBackup
import GoshuinFormat

/// What a command warns about before the passphrase is asked, and then goes on: photos that records.csv
/// names but the folder being sealed does not hold, an output whose name hides what it is. Each is a line on
/// standard error (silenced by `--quiet`) and a member of `"warnings"` in `--json`.
struct ToolWarning {
    /// A stable name for programs, as an error's code is.
    let code: String
    /// The warning in words.
    let message: String
    /// The photos it is about, every one (the line names the first few).
    var photos: [String]?

    /// `{"code", "message"[, "photos"]}`.
    var json: JSONValue {
        .object(
            [("code", .string(code)), ("message", .string(message))]
                + (photos.map { [("photos", .array($0.map { .string($0) }))] } ?? []))
    }

    /// Says the warning on standard error.
    func show() { Console.notice("warning: " + message) }

    /// How many of the missing photos the line names.
    static let photosShown = 5

    /// The photos `records.csv` of `folder` names that are not beside it: a backup of the folder would not
    /// hold them, so a phone restored from it would show records whose photos are gone. `nil` when every
    /// photo it names is there (or records.csv cannot be read: sealing says so itself).
    static func photosNotInFolder(_ folder: BackupFolder, path: String) -> ToolWarning? {
        guard let records = try? readRecords(folder) else { return nil }
        let present = Set(folder.scan.photoNames.map(EntryName.foldedCase))
        let missing = RecordsMentions.photoNames(in: records).filter { !present.contains(EntryName.foldedCase($0)) }
        guard !missing.isEmpty else { return nil }
        let shown = missing.prefix(photosShown).joined(separator: ", ")
        let more = missing.count > photosShown ? " and \(missing.count - photosShown) more" : ""
        let (what, them) = missing.count == 1 ? ("1 photo that is", "it") : ("\(missing.count) photos that are", "them")
        let folder = DisplayText.quoted(path)
        return ToolWarning(
            code: "photos_not_in_folder",
            message: "records.csv names \(what) not beside it in \(folder): \(shown)\(more); the backup will not hold"
                + " \(them), and a phone restored from it will lack \(them) (to back \(them) up, copy \(them) into"
                + " \(folder) beside records.csv and seal again)",
            photos: missing)
    }

    /// records.csv of the checked folder, as far as ``RecordsMentions`` reads it, through the folder opened
    /// once (never following a link).
    private static func readRecords(_ folder: BackupFolder) throws -> [UInt8] {
        let file = try folder.scan.directory.openFile(Manifest.recordsName, .readOnly)
        defer { try? file.close() }
        let size = try file.regularFileSize() ?? 0
        return try FileSystem.read(file, at: 0, count: Int(min(size, Int64(RecordsMentions.maximumBytesRead))))
    }

    /// An output named other than `NAME.goshuin` (`backup.zip`): what `seal` writes is a `.goshuin` file
    /// whatever it is called, and a backup is known by that name (`Spec/decisions/0052`).
    static func outputName(_ outputPath: String) -> ToolWarning? {
        let name = FileSystem.lastComponent(of: outputPath)
        guard outputPath != "-", !name.lowercased().hasSuffix(".goshuin") else { return nil }
        let stem = name.lastIndex(of: ".").map { $0 == name.startIndex ? name : String(name[..<$0]) } ?? name
        let zip = name.lowercased().hasSuffix(".zip") ? ", not a ZIP: no ZIP program opens it" : ""
        return ToolWarning(
            code: "output_not_named_goshuin",
            message: "\(DisplayText.quoted(name)) will be a .goshuin file whatever its name says (encrypted\(zip));"
                + " the app and goshuin-open.html take a backup named NAME.goshuin, so rename it"
                + " \(DisplayText.quoted(stem + ".goshuin")) before you give it to them")
    }

    /// An output of `open -o` named `NAME.goshuin`: what is written is the payload, decrypted, which no
    /// reader of `.goshuin` files opens.
    static func openedIntoGoshuinName(_ outputPath: String) -> ToolWarning? {
        let name = FileSystem.lastComponent(of: outputPath)
        guard outputPath != "-", name.lowercased().hasSuffix(".goshuin") else { return nil }
        return ToolWarning(
            code: "output_named_goshuin",
            message: "\(DisplayText.quoted(name)) will hold what the file holds, decrypted (for a backup, a ZIP),"
                + " not a .goshuin file, whatever its name says; name it for what it holds (such as backup.zip), or"
                + " use --extract FOLDER to restore a backup")
    }
}

/// The photo names a records.csv mentions: the rule of `GoshuinBackup`'s `PhotoMentions`
/// (`Spec/backup-v1.md` §4.2), by which a salvage names the photos it did not find, so that `seal` warns
/// about exactly the names a salvage of the backup would look for. records.csv's columns are the app's
/// business: every run of bytes between two separators (space, tab, CR, LF, `"`, `,`, `;`, `|`, or the ends)
/// that is a valid photo name is a mention, after a leading UTF-8 byte-order mark. A test holds the two
/// rules to one answer.
enum RecordsMentions {
    /// The most of records.csv read for mentions.
    static let maximumBytesRead = 64 * 1_048_576

    /// The photo names `records` mentions, each once (case-folded), in the order of their first mention.
    static func photoNames(in records: [UInt8]) -> [String] {
        var bytes = records.prefix(maximumBytesRead)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var names: [String] = []
        var seen = Set<String>()
        for word in bytes.split(whereSeparator: isSeparator) where word.count <= EntryName.maximumLength {
            let name = String(decoding: word, as: UTF8.self)
            guard EntryName.isValidPhotoName(name), seen.insert(EntryName.foldedCase(name)).inserted else { continue }
            names.append(name)
            if names.count == Manifest.maximumPhotoCount { break }
        }
        return names
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0D, 0x0A, 0x22, 0x2C, 0x3B, 0x7C: return true
        default: return false
        }
    }
}
