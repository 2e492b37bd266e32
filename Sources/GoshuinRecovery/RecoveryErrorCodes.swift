import GoshuinFormat
import GoshuinSystem

/// The codes of recovery sets (`Spec/recovery-par2.md` §8): declared here, beside the code that gives them,
/// each a case of ``RecoveryErrorCodes``.
extension GoshuinError.Code {
    /// No file of a recovery set is beside the file (`FILE.par2`, `FILE.vol…par2`), or the one named does not
    /// exist.
    public static let recoverySetNotFound = Self(RecoveryErrorCodes.recoverySetNotFound)
    /// The recovery set's files hold no usable set for the file: no packet verifies, or the main packet, the
    /// file's description or its slice checksums are missing or break a limit.
    public static let recoverySetInvalid = Self(RecoveryErrorCodes.recoverySetInvalid)
    /// The recovery set describes other files, not this one (a set for another file).
    public static let recoverySetMismatch = Self(RecoveryErrorCodes.recoverySetMismatch)
    /// More slices are damaged than the recovery slices that verify can rebuild.
    public static let notRepairable = Self(RecoveryErrorCodes.notRepairable)
    /// The rebuilt file does not match the MD5 the recovery set gives for it, or is not a well-formed `.goshuin`
    /// file: nothing was written.
    public static let repairCheckFailed = Self(RecoveryErrorCodes.repairCheckFailed)

    /// The codes this module declares.
    package static let recoveryModuleCodes = all(RecoveryErrorCodes.self)
}

/// The recovery module's codes.
package enum RecoveryErrorCodes: String, GoshuinErrorCodeSet {
    case recoverySetNotFound = "recovery_set_not_found"
    case recoverySetInvalid = "recovery_set_invalid"
    case recoverySetMismatch = "recovery_set_mismatch"
    case notRepairable = "not_repairable"
    case repairCheckFailed = "repair_check_failed"

    package var category: GoshuinError.Code.Category { .recovery }

    package var hint: String? {
        switch self {
        case .recoverySetNotFound:
            return "give the set's .par2 file with --recovery PATH, or make one of an intact file with 'goshuin-tool"
                + " protect FILE'"
        case .recoverySetInvalid:
            return "give another copy of the set with --recovery PATH; without one, 'goshuin-tool open FILE --extract"
                + " DIR --salvage' restores what is intact, and 'goshuin-tool rescue FILE' saves it as a new backup"
        case .recoverySetMismatch:
            return "the recovery files were made for another file; make new ones of an intact backup with"
                + " 'goshuin-tool protect FILE --force', or give the right ones with --recovery PATH"
        case .notRepairable:
            return "to restore what is intact: goshuin-tool open FILE --extract DIR --salvage; to bring it into the"
                + " app, save it as a new backup: goshuin-tool rescue FILE"
        case .repairCheckFailed:
            return "the set may be for another version of the file; try another copy of the set or of the file"
        }
    }
}

extension GoshuinError {
    /// What the recovery set found of the file when it could not repair it (`not_repairable`, or `truncated`
    /// for a file cut short beyond its reach): where it is damaged and how many recovery slices there are, so
    /// that a caller says it without checking the file again.
    public var recoveryVerification: RecoveryVerification? { context as? RecoveryVerification }
}
