import GoshuinFormat

/// `manifest.json` of a backup, version 1 (`Spec/backup-v1.md` §2): exactly these keys at every level.
///
/// The strictness is a safety property: nothing but records and photos can travel in a backup (no
/// purchase or entitlement data), so restoring one can never unlock anything.
public struct Manifest: Equatable, Sendable {
    /// A file the manifest lists, with the size and SHA-256 its ZIP entry must have.
    public struct FileEntry: Equatable, Sendable {
        /// The entry's name.
        public let name: String
        /// Its size in bytes.
        public let size: UInt64
        /// Its SHA-256.
        public let sha256: [UInt8]

        /// An entry with every field given.
        package init(name: String, size: UInt64, sha256: [UInt8]) {
            self.name = name
            self.size = size
            self.sha256 = sha256
        }
    }

    /// The value of `format`.
    package static let formatName = "goshuin-backup"
    /// The value of `version`.
    package static let version: Int64 = 1
    /// The manifest's own entry name.
    package static let fileName = "manifest.json"
    /// The records' entry name.
    package static let recordsName = "records.csv"
    /// The largest manifest read, in bytes.
    package static let maximumSize = 16 * 1_048_576

    /// When the backup was made: `YYYY-MM-DDTHH:MM:SSZ`, UTC.
    public let createdAt: String
    /// `records.csv`.
    public let records: FileEntry
    /// The photos, sorted by name, each name unique also when case-folded.
    public let photos: [FileEntry]
    /// Every entry the ZIP must hold besides `manifest.json`: records, then photos.
    package let listedFiles: [FileEntry]
    private let fileIndexByName: [String: Int]

    /// A manifest, checked like a parsed one.
    package init(createdAt: String, records: FileEntry, photos: [FileEntry]) throws {
        self.createdAt = createdAt
        self.records = records
        self.photos = photos
        listedFiles = [records] + photos
        fileIndexByName = Dictionary(
            listedFiles.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
        try validate()
    }

    /// The listed file named `name` (records or a photo).
    package func file(named name: String) -> FileEntry? { fileIndexByName[name].map { listedFiles[$0] } }

    /// Compares what the manifest says.
    public static func == (lhs: Manifest, rhs: Manifest) -> Bool {
        lhs.createdAt == rhs.createdAt && lhs.records == rhs.records && lhs.photos == rhs.photos
    }

    /// Parses `manifest.json` strictly: no duplicate key, no unknown or missing key at any level, the
    /// types, ranges and hex lengths of the spec, at most ``maximumPhotoCount`` photos, sorted by name with
    /// valid, unique names.
    ///
    /// The shape is checked as the document is read (``ManifestReader``): a document that is not an object,
    /// a `photos` that is not an array of objects, or more photos than a backup holds, is refused at the
    /// first value that shows it, so the memory a manifest costs is what a valid one of its size needs.
    ///
    /// - Throws: `manifest_invalid` naming the first problem.
    package static func parse(_ bytes: [UInt8]) throws -> Manifest {
        guard bytes.count <= maximumSize else {
            throw GoshuinError.manifestInvalid("manifest.json is larger than 16 MiB")
        }
        var reader = ManifestReader(bytes)
        do {
            return try reader.read()
        } catch let error as JSONSyntaxError {
            throw GoshuinError.manifestInvalid("manifest.json is not valid JSON: \(error)")
        }
    }

    /// The most photos a manifest lists: a backup's ZIP holds at most 50,000 entries, records.csv and
    /// manifest.json among them.
    package static let maximumPhotoCount = ZipStructureScanner.maximumEntryCount - 2

    /// The manifest's JSON, keys in the spec's order, compact, with a final newline.
    package func encode() -> [UInt8] {
        func entry(_ file: FileEntry) -> JSONValue {
            .object([
                ("name", .string(file.name)), ("size", .integer(file.size)),
                ("sha256", .string(Hex.encode(file.sha256))),
            ])
        }
        let document: JSONValue = .object([
            ("format", .string(Self.formatName)),
            ("version", .integer(Self.version)),
            ("createdAt", .string(createdAt)),
            ("records", entry(records)),
            ("photos", .array(photos.map(entry))),
        ])
        return Array((document.serialized() + "\n").utf8)
    }

    private func validate() throws {
        guard Self.isTimestamp(createdAt) else {
            throw GoshuinError.manifestInvalid("createdAt \(DisplayText.quoted(createdAt)) is not YYYY-MM-DDTHH:MM:SSZ")
        }
        guard records.name == Self.recordsName else {
            throw GoshuinError.manifestInvalid("records.name is not records.csv")
        }
        var folded = Set<String>()
        for (position, photo) in photos.enumerated() {
            guard EntryName.isValidPhotoName(photo.name) else {
                throw GoshuinError.manifestInvalid("photo name \(DisplayText.quoted(photo.name)) is not allowed")
            }
            guard folded.insert(EntryName.foldedCase(photo.name)).inserted else {
                throw GoshuinError.manifestInvalid(
                    "photo name \(DisplayText.quoted(photo.name)) appears twice (names are compared case-folded)")
            }
            if position > 0, !(photos[position - 1].name.utf8.lexicographicallyPrecedes(photo.name.utf8)) {
                throw GoshuinError.manifestInvalid("photos are not sorted by name at \(DisplayText.quoted(photo.name))")
            }
        }
    }

    /// Whether `text` is `YYYY-MM-DDTHH:MM:SSZ` with a real month, day, hour, minute and second.
    static func isTimestamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x5A
        else { return false }
        func number(_ range: Range<Int>) -> Int? {
            bytes[range].allSatisfy { (0x30...0x39).contains($0) }
                ? bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } : nil
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let daysInMonth = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return year >= 1970 && (1...12).contains(month) && (1...daysInMonth[month - 1]).contains(day) && hour < 24
            && minute < 60 && second < 60
    }
}
