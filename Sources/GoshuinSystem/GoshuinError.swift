/// The one error type of the toolkit.
///
/// Every error carries a stable ``Code`` (the package contract listed in `Spec/container-v1.md` §8,
/// `Spec/container-v2.md` §12 and `Spec/backup-v1.md`), with its category, and a human message. Two errors are equal when their codes and chunk indices are equal; the message is for
/// people and may change. Messages never contain a passphrase or a key.
public struct GoshuinError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A stable error code: the string programs compare, and its category. The codes are data: each module
    /// declares its own (this one the container's, the caller's and the system's; `GoshuinBackup` the
    /// backup's), and ``Category`` says what kind of problem each is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// What kind of problem a code names.
        public enum Category: String, Sendable, CaseIterable {
            /// The `.goshuin` file is malformed or not authentic: a reading code of `Spec/container-v1.md` §8
            /// and `Spec/container-v2.md` §12, the same whatever reads the file.
            case container
            /// The payload is not a backup the rules accept, or a folder is not one to seal
            /// (`Spec/backup-v1.md`).
            case backup
            /// A PAR 2.0 recovery set beside a file (`Spec/recovery-par2.md`): none is there, it is malformed or
            /// for another file, or it cannot repair the damage found.
            case recovery
            /// How the caller asked: an argument, a passphrase, a destination.
            case usage
            /// The operating system: reading, writing, space, memory, a stop on request.
            case system
        }

        /// The string programs compare, such as `chunk_damaged`.
        public let rawValue: String
        /// What kind of problem it names.
        public let category: Category
        /// What a person can do about it, declared with the code by its module (``GoshuinErrorCodeSet/hint``).
        package let hint: String?

        /// A code named `rawValue`, of `category`.
        private init(_ rawValue: String, _ category: Category, hint: String?) {
            self.rawValue = rawValue
            self.category = category
            self.hint = hint
        }

        /// The raw value.
        public var description: String { rawValue }

        /// A code of a module's code set, with its category (``GoshuinErrorCodeSet``): the only way to make one,
        /// so that every code is a case of its module's set and in its list.
        package init<Codes: GoshuinErrorCodeSet>(_ member: Codes) {
            self.init(member.rawValue, member.category, hint: member.hint)
        }

        /// Codes compare by their string alone.
        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }

        /// Hashes the string.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// Every code of `set`, in its order.
        package static func all<Codes: GoshuinErrorCodeSet>(_ set: Codes.Type) -> [Code] { set.allCases.map(Code.init) }

        /// The destination exists and replacing it was not asked for.
        public static let outputExists = Code(SystemErrorCodes.outputExists)
        /// A parameter given by the caller is not acceptable.
        public static let invalidArgument = Code(SystemErrorCodes.invalidArgument)
        /// An operating-system error while reading or writing.
        public static let io = Code(SystemErrorCodes.io)
        /// The destination file system lacks the space the operation needs.
        public static let noSpace = Code(SystemErrorCodes.noSpace)
        /// The operation was stopped on request (a signal); nothing was written.
        public static let interrupted = Code(SystemErrorCodes.interrupted)
        /// The system refused the memory the operation needs (a memory limit, or a full machine).
        public static let outOfMemory = Code(SystemErrorCodes.outOfMemory)

        /// The codes this module declares.
        package static let systemModuleCodes = all(SystemErrorCodes.self)
    }

    /// The stable code.
    public let code: Code
    /// A sentence for people: what went wrong and, where it helps, what to do.
    public let message: String
    /// The chunk at fault, for `chunk_damaged` and `chunk_length_invalid`.
    public let chunkIndex: UInt64?
    /// The `errno` value behind an `io` or `no_space` error.
    package let errno: Int32?
    /// One line each for the several problems behind one error (every file of a folder that may not be in a
    /// backup), so that a person learns all of them at once.
    public let details: [String]
    /// What the operation had found when it failed, for a caller to say in its own words without doing the
    /// work again (a recovery set's check of a file it cannot repair); each module says what it attaches.
    package let context: (any Sendable)?

    /// Makes an error with its code and message.
    package init(
        _ code: Code, _ message: String, chunkIndex: UInt64? = nil, errno: Int32? = nil, details: [String] = [],
        context: (any Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.chunkIndex = chunkIndex
        self.errno = errno
        self.details = details
        self.context = context
    }

    /// This error with `context` attached.
    package func attaching(_ context: any Sendable) -> GoshuinError {
        GoshuinError(code, message, chunkIndex: chunkIndex, errno: errno, details: details, context: context)
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors compare by code and chunk index, never by message.
    public static func == (lhs: GoshuinError, rhs: GoshuinError) -> Bool {
        lhs.code == rhs.code && lhs.chunkIndex == rhs.chunkIndex
    }

    /// Whether the error says the input is malformed or not authentic (as opposed to a problem of the
    /// caller or the operating system): its code is of the container, the backup or the recovery category.
    package var isInputRejection: Bool {
        code.category == .container || code.category == .backup || code.category == .recovery
    }
}

/// The codes of one module: a case each, its raw value the stable code, with its category. A module's list
/// of codes is its set's cases, so a code cannot be declared and left out of it (``GoshuinError/Code/init(_:)``).
package protocol GoshuinErrorCodeSet: CaseIterable, RawRepresentable, Sendable where RawValue == String {
    /// The category of this code.
    var category: GoshuinError.Code.Category { get }
    /// What a person can do about it, in the words of the toolkit's tool (`FILE` for the file at fault);
    /// `nil` when the message says it all. A caller that knows better gives its own.
    var hint: String? { get }
}

/// The codes of the system module: how the caller asked for an output or a parameter, and the operating
/// system's refusals.
package enum SystemErrorCodes: String, GoshuinErrorCodeSet {
    case outputExists = "output_exists"
    case invalidArgument = "invalid_argument"
    case io
    case noSpace = "no_space"
    case interrupted
    case outOfMemory = "out_of_memory"

    package var category: GoshuinError.Code.Category {
        switch self {
        case .outputExists, .invalidArgument: return .usage
        case .io, .noSpace, .interrupted, .outOfMemory: return .system
        }
    }

    package var hint: String? {
        switch self {
        case .outputExists: return "use --force to replace it, or -o to choose another name"
        case .noSpace: return "free some space, or choose a destination on another disk"
        case .outOfMemory: return "close other programs, or raise the memory limit (ulimit -v)"
        case .invalidArgument, .io, .interrupted: return nil
        }
    }
}
