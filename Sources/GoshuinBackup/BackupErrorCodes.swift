import GoshuinFormat

/// The codes of backups (`Spec/backup-v1.md`): declared here, beside the code that gives them.
extension GoshuinError.Code {
    /// The payload is not a well-formed ZIP, or its structure is unsafe (`Spec/backup-v1.md` §4).
    public static let zipMalformed = Self("zip_malformed", .backup)
    /// A ZIP entry's name breaks the name rules.
    public static let unsafeEntryName = Self("unsafe_entry_name", .backup)
    /// Two ZIP entries have the same name, exactly or case-folded.
    public static let duplicateEntry = Self("duplicate_entry", .backup)
    /// A ZIP entry is a directory, a link, encrypted, or compressed with a method other than stored or
    /// deflate.
    public static let unsupportedEntry = Self("unsupported_entry", .backup)
    /// A ZIP declares more than the limits allow (entries, manifest size, compression ratio).
    public static let zipLimitExceeded = Self("zip_limit_exceeded", .backup)
    /// An entry's data does not match its declared size or CRC-32.
    public static let entryCorrupt = Self("entry_corrupt", .backup)
    /// `manifest.json` breaks the manifest rules.
    public static let manifestInvalid = Self("manifest_invalid", .backup)
    /// The ZIP's entries do not match the manifest: missing, extra, or a wrong size or hash.
    public static let manifestMismatch = Self("manifest_mismatch", .backup)
    /// A folder to seal holds a file that may not be in a backup, or an unsafe name.
    public static let unexpectedFile = Self("unexpected_file", .backup)
    /// The folder to extract into exists and is not empty.
    public static let destinationNotEmpty = Self("destination_not_empty", .usage)

    /// The codes this module declares.
    public static let backupModuleCodes: [Self] = [
        .zipMalformed, .unsafeEntryName, .duplicateEntry, .unsupportedEntry, .zipLimitExceeded, .entryCorrupt,
        .manifestInvalid, .manifestMismatch, .unexpectedFile, .destinationNotEmpty,
    ]

    /// Every code of the library: the container module's and this one's.
    public static var allLibraryCodes: [Self] { containerModuleCodes + backupModuleCodes }
}

extension GoshuinError {
    /// `zip_malformed` for `reason`.
    package static func zipMalformed(_ reason: String) -> GoshuinError { GoshuinError(.zipMalformed, reason) }

    /// `entry_corrupt` for `reason`.
    package static func entryCorrupt(_ reason: String) -> GoshuinError { GoshuinError(.entryCorrupt, reason) }

    /// `manifest_invalid` for `reason`.
    package static func manifestInvalid(_ reason: String) -> GoshuinError { GoshuinError(.manifestInvalid, reason) }

    /// `manifest_mismatch` for `reason`.
    package static func manifestMismatch(_ reason: String) -> GoshuinError {
        GoshuinError(.manifestMismatch, reason)
    }
}
