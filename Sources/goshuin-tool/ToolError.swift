import GoshuinFormat
import GoshuinRecovery

/// The exit statuses of `goshuin-tool` (sysexits.h).
enum ExitStatus: Int32 {
    case success = 0
    /// `check` found a vector that fails.
    case vectorsFailed = 1
    /// EX_USAGE: the command was used wrongly.
    case usage = 64
    /// EX_DATAERR: the input is malformed or not authentic, or its recovery set is missing, unusable or too
    /// damaged to repair it.
    case dataError = 65
    /// EX_NOINPUT: the input does not exist or cannot be read.
    case noInput = 66
    /// EX_OSERR: the system refused what the tool needs (memory).
    case systemError = 71
    /// EX_CANTCREAT: the output cannot be created or already exists.
    case cannotCreate = 73
    /// EX_IOERR: reading or writing failed, a full disk included.
    case ioError = 74
    /// 128 + SIGINT: stopped by a signal, after removing what it had started to write.
    case interrupted = 130
}

/// The codes of `goshuin-tool` itself, beside the library's (`GoshuinError.Code`); the manual lists both.
enum ToolCode: String, CaseIterable {
    /// A wrong command, option or argument.
    case usage
    /// The input, a passphrase file or a `check` path does not exist or cannot be read.
    case inputNotFound = "input_not_found"
    /// The two passphrases typed on the terminal differ.
    case passphraseMismatch = "passphrase_mismatch"
    /// The input and the output are the same file.
    case sameFile = "same_file"
    /// Binary output was going to a terminal.
    case terminalOutput = "terminal_output"
    /// The output's folder does not exist or is not writable.
    case cannotCreateOutput = "cannot_create_output"
    /// An operating-system error the library did not report.
    case io
    /// Stopped by a signal.
    case interrupted
}

/// An error as the tool reports it: a stable code, a message, a hint and an exit status.
struct ToolError: Error {
    let code: String
    let message: String
    let hint: String?
    let status: ExitStatus
    /// The chunk at fault, for `chunk_damaged` and `chunk_length_invalid`.
    let chunkIndex: UInt64?
    /// One line per problem when there are several (every file of a folder that may not be in a backup).
    let details: [String]

    init(code: ToolCode, _ message: String, hint: String? = nil, status: ExitStatus) {
        self.init(code: code.rawValue, message, hint: hint, status: status)
    }

    init(
        code: String, _ message: String, hint: String? = nil, status: ExitStatus, chunkIndex: UInt64? = nil,
        details: [String] = []
    ) {
        self.code = code
        self.message = message
        self.hint = hint
        self.status = status
        self.chunkIndex = chunkIndex
        self.details = details
    }

    /// A usage error, pointing at the command's help.
    static func usage(_ message: String, command: String? = nil) -> ToolError {
        let helpCommand = command.map { "goshuin-tool help \($0)" } ?? "goshuin-tool help"
        return ToolError(code: .usage, message, hint: "see '\(helpCommand)'", status: .usage)
    }

    /// A core error that comes from how the tool was used (an option's value out of bounds): exit 64, with
    /// the command's help as the hint.
    init(usage error: GoshuinError, command: String) {
        self.init(code: error.code.rawValue, error.message, hint: "see 'goshuin-tool help \(command)'", status: .usage)
    }

    /// A core error with the exit status its code implies and a hint where one helps (`hint`, or the usual
    /// one for the code).
    init(_ error: GoshuinError, hint: String? = nil) {
        self.init(
            code: error.code.rawValue, error.message, hint: hint ?? Self.hint(for: error.code),
            status: Self.status(for: error.code), chunkIndex: error.chunkIndex, details: error.details)
    }

    /// The exit status of a library code: by its category, but for the destinations (73), a stop (130) and
    /// memory (71).
    static func status(for code: GoshuinError.Code) -> ExitStatus {
        switch code {
        case .outputExists, .destinationNotEmpty: return .cannotCreate
        case .interrupted: return .interrupted
        case .outOfMemory: return .systemError
        default: break
        }
        switch code.category {
        case .container, .backup, .recovery: return .dataError
        case .usage: return .usage
        case .system: return .ioError
        }
    }

    private static func hint(for code: GoshuinError.Code) -> String? {
        switch code {
        case .outputExists: return "use --force to replace it, or -o to choose another name"
        case .unexpectedFile:
            return "rename what has a suggested name; files a backup cannot hold can be left out with"
                + " --leave-out-unsupported"
        case .destinationNotEmpty: return "give the name of a new folder, or empty that one first"
        case .zipMalformed, .manifestMismatch:
            return "to get what the file holds as it is, use 'goshuin-tool open FILE -o OUTPUT'"
        case .noSpace: return "free some space, or choose a destination on another disk"
        case .outOfMemory: return "close other programs, or raise the memory limit (ulimit -v)"
        case .emptyPassphrase: return "choose a passphrase of several words"
        case .passphraseTooLong: return "choose a passphrase of at most 4096 bytes"
        case .authFailed:
            return
                "check the passphrase (capital letters and spaces count); if it is right, try another copy of the file"
        case .truncated, .trailingData:
            return "copy the file again from where it was saved; if this is the only copy and you kept its recovery"
                + " files elsewhere, 'goshuin-tool repair FILE --recovery PATH' repairs it with them; without them,"
                + " 'goshuin-tool open FILE --extract FOLDER --salvage' restores what it still holds"
        case .chunkDamaged, .chunkLengthInvalid:
            return "try another copy of the file; if this is the only copy and you kept its recovery files elsewhere,"
                + " 'goshuin-tool repair FILE --recovery PATH' repairs it with them; without them, 'goshuin-tool open"
                + " FILE --extract FOLDER --salvage' restores what is intact"
        case .badMagic:
            return "check that this is the .goshuin file, not something it holds or another file; if it is, and you"
                + " kept its recovery files elsewhere, 'goshuin-tool repair FILE --recovery PATH' repairs its start"
        case .recoverySetNotFound:
            return "give the set's .par2 file with --recovery PATH, or make one of an intact file with 'goshuin-tool"
                + " protect FILE'"
        case .recoverySetInvalid, .recoverySetMismatch:
            return "give another copy of the set with --recovery PATH; without one, 'goshuin-tool open FILE --extract"
                + " DIR --salvage' restores what is intact"
        case .notRepairable:
            return "to restore what is intact: goshuin-tool open FILE --extract DIR --salvage"
        case .repairCheckFailed:
            return "the set may be for another version of the file; try another copy of the set or of the file"
        default: return nil
        }
    }
}
