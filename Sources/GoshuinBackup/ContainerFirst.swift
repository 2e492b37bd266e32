import GoshuinFormat

extension DecryptingReader {
    /// Runs the backup checks of `body` on this reader's payload, reporting a fault of the container before
    /// any fault of the payload: when `body` finds a payload fault (`Spec/backup-v1.md` §4), every chunk is
    /// authenticated first, and a chunk that fails is the error. So a file with a damaged chunk gets the
    /// container's code (`Spec/container-v1.md` §7.1) whatever part of the payload a reader looked at first,
    /// as `open -o` gives it.
    func checkingContainerFirst<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as GoshuinError where error.code.isPayloadFault {
            try authenticateEveryChunk()
            throw error
        }
    }
}

extension GoshuinError.Code {
    /// Whether the code is a fault of a backup's payload, found only once the container is decrypted: a code
    /// of the backup category (as the page computes it; `unexpected_file`, of sealing a folder, is never met
    /// reading one).
    var isPayloadFault: Bool { category == .backup }
}
