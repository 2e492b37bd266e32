/// `Spec/backup-v1.md` §3 written out again from the text, sharing no code with `GoshuinFormat`, so a
/// harness compares the library's name verdicts with the spec's own.
enum BackupSpecRestatement {
    static func isNameCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// §3.1: a full match of `[A-Za-z0-9._-]+`, 1–255 bytes, not `.` or `..`.
    static func isSafeEntryName(_ bytes: [UInt8]) -> Bool {
        !bytes.isEmpty && bytes.count <= 255 && bytes.allSatisfy(isNameCharacter) && bytes != [0x2E]
            && bytes != [0x2E, 0x2E]
    }

    /// §3.2: `stem.ext`, one dot, stem 1–100 of `[A-Za-z0-9_-]` starting alphanumeric, a listed extension
    /// in any case, and not a Windows device name in any case.
    static func isValidPhotoName(_ bytes: [UInt8]) -> Bool {
        let parts = bytes.split(separator: 0x2E, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let stem = Array(parts[0])
        let fileExtension = String(decoding: parts[1], as: UTF8.self)
        guard (1...100).contains(stem.count), stem.allSatisfy({ isNameCharacter($0) && $0 != 0x2E }),
            let first = stem.first, first != UInt8(ascii: "_"), first != UInt8(ascii: "-"),
            ["jpg", "jpeg", "png", "heic", "heif", "webp"].contains(fileExtension.lowercased())
        else { return false }
        let upper = String(decoding: stem, as: UTF8.self).uppercased()
        let devices = ["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] }
        return !devices.contains(upper)
    }

    /// The codes a ZIP or manifest can be refused with (§2, §4).
    static let archiveErrorCodes: Set<String> = [
        "zip_malformed", "unsafe_entry_name", "duplicate_entry", "unsupported_entry", "zip_limit_exceeded",
        "entry_corrupt", "manifest_invalid", "manifest_mismatch",
    ]
}
