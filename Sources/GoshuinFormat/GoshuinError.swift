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
            /// How the caller asked: an argument, a passphrase, a destination.
            case usage
            /// The operating system: reading, writing, space, memory, a stop on request.
            case system
        }

        /// The string programs compare, such as `chunk_damaged`.
        public let rawValue: String
        /// What kind of problem it names.
        public let category: Category

        /// A code named `rawValue`, of `category`: each is made once, as a static member.
        package init(_ rawValue: String, _ category: Category) {
            self.rawValue = rawValue
            self.category = category
        }

        /// The raw value.
        public var description: String { rawValue }

        /// The file is shorter than its header (45 bytes; 77 in version 2).
        public static let shortHeader = Code("short_header", .container)
        /// The magic bytes are not `GSHN`.
        public static let badMagic = Code("bad_magic", .container)
        /// The version byte is neither 1 nor 2.
        public static let unsupportedVersion = Code("unsupported_version", .container)
        /// `kdfIterations` is outside 1,000 … 2,000,000.
        public static let iterationsOutOfRange = Code("iterations_out_of_range", .container)
        /// `chunkSize` is outside 1,024 … 67,108,864.
        public static let chunkSizeOutOfRange = Code("chunk_size_out_of_range", .container)
        /// The payload is empty (version 1 cannot authenticate an empty payload; the tool seals none).
        public static let emptyPayload = Code("empty_payload", .container)
        /// The header (version 1) or the file size (version 2) implies more than 2^32 chunks.
        public static let tooManyChunks = Code("too_many_chunks", .container)
        /// The file is shorter than the header says (version 1), or its last record is shorter than a tag
        /// (version 2).
        public static let truncated = Code("truncated", .container)
        /// The file is longer than the header says (version 1).
        public static let trailingData = Code("trailing_data", .container)
        /// A version 1 chunk's length prefix differs from the one the header implies.
        public static let chunkLengthInvalid = Code("chunk_length_invalid", .container)
        /// Nothing authenticates (version 1), or the header MAC does not verify (version 2): wrong passphrase,
        /// or the header was altered.
        public static let authFailed = Code("auth_failed", .container)
        /// A chunk fails authentication while the passphrase is known to be right.
        public static let chunkDamaged = Code("chunk_damaged", .container)
        /// The destination exists and replacing it was not asked for.
        public static let outputExists = Code("output_exists", .usage)
        /// A parameter given by the caller is not acceptable.
        public static let invalidArgument = Code("invalid_argument", .usage)
        /// Sealing was asked with an empty passphrase, which protects nothing.
        public static let emptyPassphrase = Code("empty_passphrase", .usage)
        /// The passphrase is longer than ``Passphrase/maximumLength`` bytes.
        public static let passphraseTooLong = Code("passphrase_too_long", .usage)
        /// An operating-system error while reading or writing.
        public static let io = Code("io", .system)
        /// The destination file system lacks the space the operation needs.
        public static let noSpace = Code("no_space", .system)
        /// The operation was stopped on request (a signal); nothing was written.
        public static let interrupted = Code("interrupted", .system)
        /// The system refused the memory the operation needs (a memory limit, or a full machine).
        public static let outOfMemory = Code("out_of_memory", .system)

        /// The codes this module declares, in the order of the specs.
        public static let containerModuleCodes: [Code] = [
            .shortHeader, .badMagic, .unsupportedVersion, .iterationsOutOfRange, .chunkSizeOutOfRange, .emptyPayload,
            .tooManyChunks, .truncated, .trailingData, .chunkLengthInvalid, .authFailed, .chunkDamaged, .outputExists,
            .invalidArgument, .emptyPassphrase, .passphraseTooLong, .io, .noSpace, .interrupted, .outOfMemory,
        ]

        /// The reading codes of `.goshuin` files (`Spec/container-v1.md` §7): the container category.
        public static var containerReadingCodes: [Code] { containerModuleCodes.filter { $0.category == .container } }

        /// Whether a reader of `.goshuin` files can fail with this code.
        package var isContainerReadingCode: Bool { category == .container }
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

    /// Makes an error with its code and message.
    package init(
        _ code: Code, _ message: String, chunkIndex: UInt64? = nil, errno: Int32? = nil, details: [String] = []
    ) {
        self.code = code
        self.message = message
        self.chunkIndex = chunkIndex
        self.errno = errno
        self.details = details
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors compare by code and chunk index, never by message.
    public static func == (lhs: GoshuinError, rhs: GoshuinError) -> Bool {
        lhs.code == rhs.code && lhs.chunkIndex == rhs.chunkIndex
    }

    /// Whether the error says the input is malformed or not authentic (as opposed to a problem of the
    /// caller or the operating system): its code is of the container or the backup category.
    package var isInputRejection: Bool { code.category == .container || code.category == .backup }
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
