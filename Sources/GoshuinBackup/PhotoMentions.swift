/// The photo names a `records.csv` mentions (`Spec/backup-v1.md` §4.2, walk mode): what lets a salvage
/// whose manifest is lost still name the photos it did not find.
///
/// records.csv's content is the app's business, so nothing is assumed of its columns: every run of bytes
/// between two separators (space, tab, CR, LF, `"`, `,`, `;`, `|`, or the ends) that is a valid photo name
/// (§3.2) is a mention, after a leading UTF-8 byte-order mark. The page reads records.csv the same way.
enum PhotoMentions {
    /// The most of records.csv read for mentions.
    static let maximumBytesRead = 64 * 1_048_576
    /// The most names kept: as many photos as a backup holds.
    static let maximumNames = Manifest.maximumPhotoCount

    /// The photo names `records` mentions, each once (case-folded), in the order of their first mention.
    static func names(in records: [UInt8]) -> [String] {
        var bytes = records.prefix(maximumBytesRead)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var names: [String] = []
        var seen = Set<String>()
        for word in bytes.split(whereSeparator: isSeparator) where word.count <= EntryName.maximumLength {
            let name = String(decoding: word, as: UTF8.self)
            guard EntryName.isValidPhotoName(name), seen.insert(EntryName.foldedCase(name)).inserted else { continue }
            names.append(name)
            if names.count == maximumNames { break }
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
