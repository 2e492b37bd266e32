import GoshuinFormat

/// The rules for names inside a backup ZIP and for photo names in its manifest (`Spec/backup-v1.md` §3),
/// judged on raw bytes before anything is decoded or written.
package enum EntryName {
    /// The longest entry name, in bytes.
    package static let maximumLength = 255
    /// The longest photo stem, in characters.
    package static let maximumStemLength = 100
    /// The photo extensions accepted, in any case (`.JPG` and `.heic` alike), listed in lower case.
    package static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif", "webp"]
    /// Windows device names, refused as photo stems in any case.
    package static let deviceNames: Set<String> = Set(
        ["con", "prn", "aux", "nul"] + (1...9).map { "com\($0)" } + (1...9).map { "lpt\($0)" })

    /// Whether `bytes` is a safe ZIP entry name: 1–255 bytes, every byte one of `A–Z a–z 0–9 . _ -`,
    /// and not `.` or `..`. (So no `/`, no `\`, no NUL, no control character, no absolute path.)
    package static func isSafeEntryName(_ bytes: some Collection<UInt8>) -> Bool {
        guard (1...maximumLength).contains(bytes.count), bytes.allSatisfy(isNameByte) else { return false }
        return !bytes.elementsEqual([0x2E]) && !bytes.elementsEqual([0x2E, 0x2E])
    }

    /// Whether `name` is a valid photo name: `stem.ext`, the stem 1–100 of `A–Z a–z 0–9 _ -` starting with
    /// a letter or digit, exactly one dot, an extension from ``photoExtensions`` in any case, and the stem
    /// not a Windows device name in any case.
    package static func isValidPhotoName(_ name: String) -> Bool { photoNameProblem(name) == nil }

    /// The first rule of `Spec/backup-v1.md` §3.2 that `name` breaks, in words a person can act on; `nil`
    /// for a valid photo name.
    package static func photoNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard let dot = bytes.lastIndex(of: 0x2E),
            photoExtensions.contains(foldedCase(String(decoding: bytes[(dot + 1)...], as: UTF8.self)))
        else {
            return "it is not records.csv, manifest.json or a photo (.jpg, .jpeg, .png, .heic, .heif or .webp,"
                + " in any case)"
        }
        let stem = bytes[..<dot]
        guard stem.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else {
            return stem.contains(0x2E)
                ? "a photo's name has one dot only, before its extension"
                : "a photo's name holds only the letters A–Z and a–z, digits, _ and - before its extension (no"
                    + " spaces, accents or other scripts)"
        }
        guard let first = stem.first, isAlphanumeric(first) else {
            return "a photo's name starts with a letter or a digit"
        }
        guard stem.count <= maximumStemLength else {
            return "a photo's name has at most \(maximumStemLength) characters before its extension"
        }
        guard !deviceNames.contains(foldedCase(String(decoding: stem, as: UTF8.self))) else {
            return "CON, PRN, AUX, NUL, COM1–COM9 and LPT1–LPT9 are reserved names on Windows, in any case"
        }
        return nil
    }

    /// A valid photo name close to `name`, not among `taken` (names case-folded with ``foldedCase(_:)``):
    /// each character a photo name may not hold becomes `_`, leading `_` and `-` go, the stem is cut to
    /// 100 characters, and a reserved or taken name gets `_2`, `_3`, …; `nil` when none would be close
    /// (not a photo's extension, or nothing of the stem left).
    package static func suggestedPhotoName(for name: String, taken: Set<String>) -> String? {
        let bytes = Array(name.utf8)
        guard let dot = bytes.lastIndex(of: 0x2E) else { return nil }
        let fileExtension = String(decoding: bytes[(dot + 1)...], as: UTF8.self)
        guard photoExtensions.contains(foldedCase(fileExtension)) else { return nil }
        var stem = ""
        for scalar in String(decoding: bytes[..<dot], as: UTF8.self).unicodeScalars {
            let allowed = scalar.isASCII && (isAlphanumeric(UInt8(scalar.value)) || scalar == "_" || scalar == "-")
            stem.unicodeScalars.append(allowed ? scalar : "_")
        }
        while let first = stem.first, first == "_" || first == "-" { stem.removeFirst() }
        stem = String(stem.prefix(maximumStemLength - 3))
        guard !stem.isEmpty else { return nil }
        var candidate = stem + "." + fileExtension
        var number = 2
        while !isValidPhotoName(candidate) || taken.contains(foldedCase(candidate)) {
            candidate = stem + "_\(number)." + fileExtension
            number += 1
        }
        return candidate == name ? nil : candidate
    }

    /// The name with ASCII letters in lower case: two names that fold alike collide on case-insensitive
    /// file systems (names are ASCII, so this is the full case fold).
    package static func foldedCase(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
