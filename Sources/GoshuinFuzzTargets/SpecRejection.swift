import GoshuinFormat

/// The first failing check of a container spec's §7, as a restatement gives it: its code, and the chunk (record)
/// index of the codes that name one (`chunk_length_invalid`, `chunk_damaged`).
struct SpecRejection: Error, Equatable, CustomStringConvertible {
    /// The stable error code, as `Spec/container-v1.md` §8 spells it.
    let code: String
    /// The chunk the code names, if it names one.
    var chunkIndex: UInt64? = nil

    /// A rejection with `code`, naming `chunkIndex` if given.
    init(code: String, chunkIndex: UInt64? = nil) {
        self.code = code
        self.chunkIndex = chunkIndex
    }

    /// The rejection the library's `error` amounts to: its code and its chunk index.
    init(_ error: GoshuinError) {
        self.init(code: error.code.rawValue, chunkIndex: error.chunkIndex)
    }

    /// The code, and the chunk in parentheses.
    var description: String { chunkIndex.map { "\(code) (chunk \($0))" } ?? code }
}

extension Optional where Wrapped == GoshuinError {
    /// What a call that threw this error (or returned, for `nil`) amounts to, for messages and comparisons.
    var asRejection: SpecRejection? { map(SpecRejection.init) }

    /// `success`, or the rejection's description.
    var verdictText: String { asRejection?.description ?? "success" }
}
