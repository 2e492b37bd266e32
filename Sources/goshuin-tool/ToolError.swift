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

/// The codes of `goshuin-tool` itself, beside the library's (each module declares its own,
/// `Spec/decisions/0036`); the manual lists both. A stop and an operating-system error the library did not
/// report take the library's `interrupted` and `io`.
enum ToolCode: String, GoshuinErrorCodeSet {
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

    var category: GoshuinError.Code.Category {
        switch self {
        case .usage, .passphraseMismatch, .sameFile, .terminalOutput: return .usage
        case .inputNotFound, .cannotCreateOutput: return .system
        }
    }

    var hint: String? {
        switch self {
        case .inputNotFound: return "check the path"
        case .passphraseMismatch: return "run the command again"
        case .sameFile: return "choose another output name"
        case .terminalOutput: return "redirect standard output, use -o FILE, or add --force to show it anyway"
        case .cannotCreateOutput: return "check that the folder exists and is writable"
        case .usage: return nil
        }
    }
}

extension GoshuinError.Code {
    /// A wrong command, option or argument.
    static let usage = Self(ToolCode.usage)
    /// The input, a passphrase file or a `check` path does not exist or cannot be read.
    static let inputNotFound = Self(ToolCode.inputNotFound)
    /// The two passphrases typed on the terminal differ.
    static let passphraseMismatch = Self(ToolCode.passphraseMismatch)
    /// The input and the output are the same file.
    static let sameFile = Self(ToolCode.sameFile)
    /// Binary output was going to a terminal.
    static let terminalOutput = Self(ToolCode.terminalOutput)
    /// The output's folder does not exist or is not writable.
    static let cannotCreateOutput = Self(ToolCode.cannotCreateOutput)
}

/// An error as the tool reports it: a stable code, a message, a hint and an exit status.
struct ToolError: Error {
    let code: GoshuinError.Code
    let message: String
    let hint: String?
    let status: ExitStatus
    /// The chunk at fault, for `chunk_damaged` and `chunk_length_invalid`.
    let chunkIndex: UInt64?
    /// One line per problem when there are several (every file of a folder that may not be in a backup).
    let details: [String]

    /// An error of `code`, with the hint given or else the one declared with the code.
    init(
        code: GoshuinError.Code, _ message: String, hint: String? = nil, status: ExitStatus, chunkIndex: UInt64? = nil,
        details: [String] = []
    ) {
        self.code = code
        self.message = message
        self.hint = hint ?? code.hint
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
        self.init(code: error.code, error.message, hint: "see 'goshuin-tool help \(command)'", status: .usage)
    }

    /// A core error with the exit status its code implies and a hint where one helps (`hint`, or the one
    /// declared with the code).
    init(_ error: GoshuinError, hint: String? = nil) {
        self.init(
            code: error.code, error.message, hint: hint, status: Self.status(for: error.code),
            chunkIndex: error.chunkIndex, details: error.details)
    }

    /// The exit status of a code: by its category, but for the destinations (73), a stop (130), memory (71)
    /// and an input that is not there (66).
    static func status(for code: GoshuinError.Code) -> ExitStatus {
        switch code {
        case .outputExists, .destinationNotEmpty, .cannotCreateOutput: return .cannotCreate
        case .interrupted: return .interrupted
        case .outOfMemory: return .systemError
        case .inputNotFound: return .noInput
        default: break
        }
        switch code.category {
        case .container, .backup, .recovery: return .dataError
        case .usage: return .usage
        case .system: return .ioError
        }
    }
}
