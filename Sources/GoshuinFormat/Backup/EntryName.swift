/// The rules for names inside a backup ZIP and for photo names in its manifest (`Spec/backup-v1.md` §3),
/// judged on raw bytes before anything is decoded or written.
public enum EntryName {
    /// The longest entry name, in bytes.
    public static let maximumLength = 255
    /// The longest photo stem, in characters.
    public static let maximumStemLength = 100
    /// The photo extensions accepted, in lower case.
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif", "webp"]
    /// Windows device names, refused as photo stems in any case.
    public static let deviceNames: Set<String> = Set(
        ["con", "prn", "aux", "nul"] + (1...9).map { "com\($0)" } + (1...9).map { "lpt\($0)" })

    /// Whether `bytes` is a safe ZIP entry name: 1–255 bytes, every byte one of `A–Z a–z 0–9 . _ -`,
    /// and not `.` or `..`. (So no `/`, no `\`, no NUL, no control character, no absolute path.)
    public static func isSafeEntryName(_ bytes: some Collection<UInt8>) -> Bool {
        guard (1...maximumLength).contains(bytes.count), bytes.allSatisfy(isNameByte) else { return false }
        return !bytes.elementsEqual([0x2E]) && !bytes.elementsEqual([0x2E, 0x2E])
    }

    /// Whether `name` is a valid photo name: `stem.ext`, the stem 1–100 of `A–Z a–z 0–9 _ -` starting with
    /// a letter or digit, exactly one dot, a lower-case extension from ``photoExtensions``, and the stem
    /// not a Windows device name in any case.
    public static func isValidPhotoName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard isSafeEntryName(bytes), bytes.filter({ $0 == 0x2E }).count == 1,
            let dot = bytes.firstIndex(of: 0x2E)
        else { return false }
        let stem = bytes[..<dot]
        let fileExtension = String(decoding: bytes[(dot + 1)...], as: UTF8.self)
        guard (1...maximumStemLength).contains(stem.count), let first = stem.first, isAlphanumeric(first),
            stem.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }),
            photoExtensions.contains(fileExtension)
        else { return false }
        return !deviceNames.contains(foldedCase(String(decoding: stem, as: UTF8.self)))
    }

    /// The name with ASCII letters in lower case: two names that fold alike collide on case-insensitive
    /// file systems (names are ASCII, so this is the full case fold).
    public static func foldedCase(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
