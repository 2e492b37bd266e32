import GoshuinSystem

/// The codes of the container module: the reading codes of `.goshuin` files (`Spec/container-v1.md` §8,
/// `Spec/container-v2.md` §12) and the refusals of a passphrase, each a case of ``ContainerErrorCodes``.
extension GoshuinError.Code {
    /// The file is shorter than its header (45 bytes; 77 in version 2).
    public static let shortHeader = Self(ContainerErrorCodes.shortHeader)
    /// The magic bytes are not `GSHN`.
    public static let badMagic = Self(ContainerErrorCodes.badMagic)
    /// The version byte is neither 1 nor 2.
    public static let unsupportedVersion = Self(ContainerErrorCodes.unsupportedVersion)
    /// `kdfIterations` is outside 1,000 … 2,000,000.
    public static let iterationsOutOfRange = Self(ContainerErrorCodes.iterationsOutOfRange)
    /// `chunkSize` is outside 1,024 … 67,108,864.
    public static let chunkSizeOutOfRange = Self(ContainerErrorCodes.chunkSizeOutOfRange)
    /// The payload is empty (version 1 cannot authenticate an empty payload; the tool seals none).
    public static let emptyPayload = Self(ContainerErrorCodes.emptyPayload)
    /// The header (version 1) or the file size (version 2) implies more than 2^32 chunks.
    public static let tooManyChunks = Self(ContainerErrorCodes.tooManyChunks)
    /// The file is shorter than the header says (version 1), or its last record is shorter than a tag
    /// (version 2).
    public static let truncated = Self(ContainerErrorCodes.truncated)
    /// The file is longer than the header says (version 1).
    public static let trailingData = Self(ContainerErrorCodes.trailingData)
    /// A version 1 chunk's length prefix differs from the one the header implies.
    public static let chunkLengthInvalid = Self(ContainerErrorCodes.chunkLengthInvalid)
    /// Nothing authenticates (version 1), or the header MAC does not verify (version 2): wrong passphrase,
    /// or the header was altered.
    public static let authFailed = Self(ContainerErrorCodes.authFailed)
    /// A chunk fails authentication while the passphrase is known to be right.
    public static let chunkDamaged = Self(ContainerErrorCodes.chunkDamaged)
    /// Sealing was asked with an empty passphrase, which protects nothing.
    public static let emptyPassphrase = Self(ContainerErrorCodes.emptyPassphrase)
    /// The passphrase is longer than ``Passphrase/maximumLength`` bytes.
    public static let passphraseTooLong = Self(ContainerErrorCodes.passphraseTooLong)

    /// The codes this module declares, in the order of the specs.
    package static let containerModuleCodes = all(ContainerErrorCodes.self)

    /// The reading codes of `.goshuin` files (`Spec/container-v1.md` §7): the container category.
    package static var containerReadingCodes: [Self] { containerModuleCodes.filter { $0.category == .container } }

    /// Whether a reader of `.goshuin` files can fail with this code.
    package var isContainerReadingCode: Bool { category == .container }
}

/// The container module's codes, in the order of the specs.
package enum ContainerErrorCodes: String, GoshuinErrorCodeSet {
    case shortHeader = "short_header"
    case badMagic = "bad_magic"
    case unsupportedVersion = "unsupported_version"
    case iterationsOutOfRange = "iterations_out_of_range"
    case chunkSizeOutOfRange = "chunk_size_out_of_range"
    case emptyPayload = "empty_payload"
    case tooManyChunks = "too_many_chunks"
    case truncated
    case trailingData = "trailing_data"
    case chunkLengthInvalid = "chunk_length_invalid"
    case authFailed = "auth_failed"
    case chunkDamaged = "chunk_damaged"
    case emptyPassphrase = "empty_passphrase"
    case passphraseTooLong = "passphrase_too_long"

    package var category: GoshuinError.Code.Category {
        switch self {
        case .emptyPassphrase, .passphraseTooLong: return .usage
        default: return .container
        }
    }

    package var hint: String? {
        switch self {
        case .emptyPassphrase: return "choose a passphrase of several words"
        case .passphraseTooLong: return "choose a passphrase of at most 4096 bytes"
        case .authFailed:
            return "check the passphrase (capital letters and spaces count); if it is right, try another copy of the"
                + " file"
        case .truncated, .trailingData:
            return "copy the file again from where it was saved; if this is the only copy and you kept its recovery"
                + " files elsewhere, 'goshuin-tool repair FILE --recovery PATH' repairs it with them; without them,"
                + " 'goshuin-tool open FILE --extract FOLDER --salvage' restores what it still holds, and 'goshuin-tool"
                + " rescue FILE' saves it as a new backup the app can import"
        case .chunkDamaged, .chunkLengthInvalid:
            return "try another copy of the file; if this is the only copy and you kept its recovery files elsewhere,"
                + " 'goshuin-tool repair FILE --recovery PATH' repairs it with them; without them, 'goshuin-tool open"
                + " FILE --extract FOLDER --salvage' restores what is intact, and 'goshuin-tool rescue FILE' saves it as a"
                + " new backup the app can import"
        case .badMagic:
            return "check that this is the .goshuin file, not something it holds or another file; if it is, and you"
                + " kept its recovery files elsewhere, 'goshuin-tool repair FILE --recovery PATH' repairs its start"
        case .shortHeader, .unsupportedVersion, .iterationsOutOfRange, .chunkSizeOutOfRange, .emptyPayload,
            .tooManyChunks:
            return nil
        }
    }
}

extension GoshuinError {
    /// `chunk_damaged` at `index` of a file of `layout`: the chunk fails although the passphrase is known to
    /// be right, in version 1 because other chunks authenticate (`Spec/container-v1.md` §7.1), in version 2
    /// because the header MAC verified (`Spec/container-v2.md` §7). Version 2's final record is the one a
    /// cut leaves (its size is the file's), so its failure says that the file may have been cut short.
    package static func chunkDamaged(_ index: UInt64, in layout: ContainerLayout) -> GoshuinError {
        guard layout.version == .v2 else {
            return GoshuinError(
                .chunkDamaged,
                "chunk \(index) fails authentication while other chunks authenticate: the file is damaged (the"
                    + " passphrase is right)", chunkIndex: index)
        }
        guard index == layout.finalChunk else {
            return GoshuinError(
                .chunkDamaged,
                "chunk \(index) fails authentication while the header's MAC verifies: the file is damaged (the"
                    + " passphrase is right)", chunkIndex: index)
        }
        return GoshuinError(
            .chunkDamaged,
            "chunk \(index), the last, fails authentication while the header's MAC verifies: the file was cut short"
                + " (an interrupted copy or download?) or its end is damaged (the passphrase is right)",
            chunkIndex: index)
    }

    /// `auth_failed`: nothing authenticates that could tell damage from a wrong passphrase.
    package static var authenticationFailed: GoshuinError {
        GoshuinError(
            .authFailed,
            "nothing in the file authenticates with this passphrase: either the passphrase is wrong, or the file"
                + " is damaged from its start (its header or first chunks)")
    }

    /// `unsupported_version`: the version byte is `version`, neither 1 nor 2.
    package static func unsupportedVersion(_ version: UInt8) -> GoshuinError {
        GoshuinError(
            .unsupportedVersion,
            "the file is format version \(version); this toolkit reads versions 1 and 2 (a newer toolkit may read it)")
    }

    /// `auth_failed` from version 2's header MAC (`Spec/container-v2.md` §7, check 9): decisive, no chunk is
    /// read.
    package static var headerMacFailed: GoshuinError {
        GoshuinError(
            .authFailed,
            "the header's MAC does not verify with this passphrase: either the passphrase is wrong, or the"
                + " header (the file's first 77 bytes) was altered")
    }

    /// `chunk_length_invalid` at `index`: its length prefix says `prefix`, the header implies `expected`.
    package static func chunkLengthInvalid(_ index: UInt64, prefix: UInt32, expected: UInt32) -> GoshuinError {
        GoshuinError(
            .chunkLengthInvalid,
            "chunk \(index) says it holds \(prefix) bytes but the header implies \(expected): the file is damaged",
            chunkIndex: index)
    }

    /// `truncated` found while reading chunks: the file was cut after its structure was checked.
    package static var fileShrank: GoshuinError { GoshuinError(.truncated, "the file shrank while being read") }
}
