/// The one error type of the toolkit.
///
/// Every error carries a stable ``Code`` (the package contract listed in `Spec/container-v1.md` §8) and a
/// human message. Two errors are equal when their codes and chunk indices are equal; the message is for
/// people and may change. Messages never contain a passphrase or a key.
public struct GoshuinError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The stable error codes. The raw value is the string programs compare.
    public enum Code: String, Sendable, CaseIterable {
        /// The file is shorter than the 45-byte header.
        case shortHeader = "short_header"
        /// The magic bytes are not `GSHN`.
        case badMagic = "bad_magic"
        /// The version byte is neither 1 nor 2.
        case unsupportedVersion = "unsupported_version"
        /// `kdfIterations` is outside 1,000 … 2,000,000.
        case iterationsOutOfRange = "iterations_out_of_range"
        /// `chunkSize` is outside 1,024 … 67,108,864.
        case chunkSizeOutOfRange = "chunk_size_out_of_range"
        /// The payload is empty (version 1 cannot authenticate an empty payload).
        case emptyPayload = "empty_payload"
        /// The header implies more than 2^32 chunks.
        case tooManyChunks = "too_many_chunks"
        /// The file is shorter than the header says.
        case truncated = "truncated"
        /// The file is longer than the header says.
        case trailingData = "trailing_data"
        /// A chunk's length prefix differs from the one the header implies.
        case chunkLengthInvalid = "chunk_length_invalid"
        /// Nothing authenticates (version 1), or the header MAC does not verify (version 2): wrong passphrase,
        /// or the header was altered.
        case authFailed = "auth_failed"
        /// A chunk fails authentication while another authenticates.
        case chunkDamaged = "chunk_damaged"
        /// The destination exists and replacing it was not asked for.
        case outputExists = "output_exists"
        /// A parameter given by the caller is not acceptable.
        case invalidArgument = "invalid_argument"
        /// An operating-system error while reading or writing.
        case io = "io"
        /// The destination file system lacks the space the operation needs.
        case noSpace = "no_space"
        /// A known-answer vector file does not follow `Spec/vectors-v1.md`.
        case malformedVector = "malformed_vector"
        /// The payload is not a well-formed ZIP, or its structure is unsafe (`Spec/backup-v1.md` §4).
        case zipMalformed = "zip_malformed"
        /// A ZIP entry's name breaks the name rules.
        case unsafeEntryName = "unsafe_entry_name"
        /// Two ZIP entries have the same name, exactly or case-folded.
        case duplicateEntry = "duplicate_entry"
        /// A ZIP entry is a directory, a link, encrypted, or compressed with a method other than stored or
        /// deflate.
        case unsupportedEntry = "unsupported_entry"
        /// A ZIP declares more than the limits allow (entries, manifest size, compression ratio).
        case zipLimitExceeded = "zip_limit_exceeded"
        /// An entry's data does not match its declared size or CRC-32.
        case entryCorrupt = "entry_corrupt"
        /// `manifest.json` breaks the manifest rules.
        case manifestInvalid = "manifest_invalid"
        /// The ZIP's entries do not match the manifest: missing, extra, or a wrong size or hash.
        case manifestMismatch = "manifest_mismatch"
        /// A folder to pack holds a file that may not be in a backup, or an unsafe name.
        case unexpectedFile = "unexpected_file"
        /// The folder to extract into exists and is not empty.
        case destinationNotEmpty = "destination_not_empty"
        /// The operation was stopped on request (a signal); nothing was written.
        case interrupted = "interrupted"
        /// The system refused the memory the operation needs (a memory limit, or a full machine).
        case outOfMemory = "out_of_memory"
        /// Sealing was asked with an empty passphrase, which protects nothing.
        case emptyPassphrase = "empty_passphrase"
        /// The passphrase is longer than ``Passphrase/maximumLength`` bytes.
        case passphraseTooLong = "passphrase_too_long"
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
    /// caller or the operating system).
    package var isInputRejection: Bool {
        switch code {
        case .shortHeader, .badMagic, .unsupportedVersion, .iterationsOutOfRange, .chunkSizeOutOfRange,
            .emptyPayload, .tooManyChunks, .truncated, .trailingData, .chunkLengthInvalid, .authFailed,
            .chunkDamaged, .malformedVector, .zipMalformed, .unsafeEntryName, .duplicateEntry, .unsupportedEntry,
            .zipLimitExceeded, .entryCorrupt, .manifestInvalid, .manifestMismatch, .unexpectedFile:
            return true
        case .outputExists, .invalidArgument, .io, .noSpace, .destinationNotEmpty, .interrupted, .outOfMemory,
            .emptyPassphrase, .passphraseTooLong:
            return false
        }
    }
}

extension GoshuinError {
    /// `chunk_damaged` at `index`: the chunk fails while others authenticate (`Spec/container-v1.md` §7.1).
    package static func chunkDamaged(_ index: UInt64) -> GoshuinError {
        GoshuinError(
            .chunkDamaged,
            "chunk \(index) fails authentication while other chunks authenticate: the file is damaged"
                + " (the passphrase is right)",
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

    /// `malformed_vector` for `reason`.
    package static func malformedVector(_ reason: String) -> GoshuinError { GoshuinError(.malformedVector, reason) }
}
