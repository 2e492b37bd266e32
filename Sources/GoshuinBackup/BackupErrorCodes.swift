import GoshuinFormat
import GoshuinSystem

/// The codes of backups (`Spec/backup-v1.md`): declared here, beside the code that gives them, each a case
/// of ``BackupErrorCodes``.
extension GoshuinError.Code {
    /// The payload is not a well-formed ZIP, or its structure is unsafe (`Spec/backup-v1.md` §4).
    public static let zipMalformed = Self(BackupErrorCodes.zipMalformed)
    /// A ZIP entry's name breaks the name rules.
    public static let unsafeEntryName = Self(BackupErrorCodes.unsafeEntryName)
    /// Two ZIP entries have the same name, exactly or case-folded.
    public static let duplicateEntry = Self(BackupErrorCodes.duplicateEntry)
    /// A ZIP entry is a directory, a link, encrypted, or compressed with a method other than stored or
    /// deflate.
    public static let unsupportedEntry = Self(BackupErrorCodes.unsupportedEntry)
    /// A ZIP declares more than the limits allow (entries, manifest size, compression ratio).
    public static let zipLimitExceeded = Self(BackupErrorCodes.zipLimitExceeded)
    /// An entry's data does not match its declared size or CRC-32.
    public static let entryCorrupt = Self(BackupErrorCodes.entryCorrupt)
    /// `manifest.json` breaks the manifest rules.
    public static let manifestInvalid = Self(BackupErrorCodes.manifestInvalid)
    /// The ZIP's entries do not match the manifest: missing, extra, or a wrong size or hash.
    public static let manifestMismatch = Self(BackupErrorCodes.manifestMismatch)
    /// A folder to seal holds a file that may not be in a backup, or an unsafe name.
    public static let unexpectedFile = Self(BackupErrorCodes.unexpectedFile)
    /// The folder to extract into exists and is not empty.
    public static let destinationNotEmpty = Self(BackupErrorCodes.destinationNotEmpty)

    /// The codes this module declares.
    package static let backupModuleCodes = all(BackupErrorCodes.self)
}

/// The backup module's codes.
package enum BackupErrorCodes: String, GoshuinErrorCodeSet {
    case zipMalformed = "zip_malformed"
    case unsafeEntryName = "unsafe_entry_name"
    case duplicateEntry = "duplicate_entry"
    case unsupportedEntry = "unsupported_entry"
    case zipLimitExceeded = "zip_limit_exceeded"
    case entryCorrupt = "entry_corrupt"
    case manifestInvalid = "manifest_invalid"
    case manifestMismatch = "manifest_mismatch"
    case unexpectedFile = "unexpected_file"
    case destinationNotEmpty = "destination_not_empty"

    package var category: GoshuinError.Code.Category { self == .destinationNotEmpty ? .usage : .backup }

    package var hint: String? {
        switch self {
        case .unexpectedFile:
            return "rename what has a suggested name; files a backup cannot hold can be left out with"
                + " --leave-out-unsupported"
        case .destinationNotEmpty: return "give the name of a new folder, or empty that one first"
        case .zipMalformed, .manifestMismatch:
            return "to get what the file holds as it is, use 'goshuin-tool open FILE -o OUTPUT'"
        case .unsafeEntryName, .duplicateEntry, .unsupportedEntry, .zipLimitExceeded, .entryCorrupt, .manifestInvalid:
            return nil
        }
    }
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
