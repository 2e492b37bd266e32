import GoshuinFormat

/// The exit statuses of `goshuin-tool` (sysexits.h).
enum ExitStatus: Int32 {
    case success = 0
    /// `check` found a vector that fails.
    case vectorsFailed = 1
    /// EX_USAGE: the command was used wrongly.
    case usage = 64
    /// EX_DATAERR: the input is malformed or not authentic.
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

/// An error as the tool reports it: a stable code, a message, a hint and an exit status.
struct ToolError: Error {
    let code: String
    let message: String
    let hint: String?
    let status: ExitStatus

    init(code: String, _ message: String, hint: String? = nil, status: ExitStatus) {
        self.code = code
        self.message = message
        self.hint = hint
        self.status = status
    }

    /// A usage error, pointing at the command's help.
    static func usage(_ message: String, command: String? = nil) -> ToolError {
        let helpCommand = command.map { "goshuin-tool help \($0)" } ?? "goshuin-tool help"
        return ToolError(code: "usage", message, hint: "see '\(helpCommand)'", status: .usage)
    }

    /// A core error with the exit status its code implies and a hint where one helps.
    init(_ error: GoshuinError) {
        let status: ExitStatus
        switch error.code {
        case .outputExists, .destinationNotEmpty: status = .cannotCreate
        case .io, .noSpace: status = .ioError
        case .interrupted: status = .interrupted
        case .outOfMemory: status = .systemError
        case .invalidArgument: status = .usage
        default: status = error.isInputRejection ? .dataError : .ioError
        }
        self.init(code: error.code.rawValue, error.message, hint: Self.hint(for: error.code), status: status)
    }

    private static func hint(for code: GoshuinError.Code) -> String? {
        switch code {
        case .outputExists: return "use --force to replace it, or -o to choose another name"
        case .destinationNotEmpty: return "give a new folder name, or empty the folder first"
        case .noSpace: return "free some space, or choose a destination on another disk"
        case .outOfMemory: return "close other programs, or raise the memory limit (ulimit -v)"
        case .authFailed:
            return
                "check the passphrase (it is case- and space-sensitive); a file sealed by another app needs its own passphrase"
        case .truncated: return "copy the file again from where it was saved; 'goshuin-tool inspect' shows the sizes"
        case .chunkDamaged, .chunkLengthInvalid:
            return "the file is damaged; try another copy of the backup"
        case .badMagic: return "is this the .goshuin file? 'goshuin-tool inspect' shows what the file starts with"
        default: return nil
        }
    }
}
