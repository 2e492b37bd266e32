/// The file key: PBKDF2-HMAC-SHA256 of the passphrase's bytes, 32 bytes (`Spec/container-v1.md` §4),
/// computed by ``FastPBKDF2`` (`Spec/decisions/0003`).
package enum KeyDerivation {
    /// Derives the 32-byte key for `passphrase`, `salt` and `iterations`.
    ///
    /// The iteration count is not bounded here (the header is); callers reading untrusted headers go
    /// through ``Header/decode(_:)`` first.
    package static func deriveKey(passphrase: Passphrase, salt: [UInt8], iterations: UInt32) throws
        -> SecretBytes
    {
        try passphrase.bytes.withUnsafeBytes { password in
            try FastPBKDF2.deriveSHA256(
                password: password, salt: salt, iterations: iterations, length: AES256GCM.keyLength)
        }
    }

    /// How many iterations pass between two ``ProgressEvent/keyDerivation(iterationsDone:iterationsTotal:)``.
    package static let progressInterval: UInt32 = 50_000

    /// Derives the key for a header's salt and iteration count, reporting its start, its progress and its
    /// end to `progress`.
    package static func deriveKey(passphrase: Passphrase, header: Header, progress: ProgressHandler? = nil) throws
        -> SecretBytes
    {
        let total = header.kdfIterations
        progress?(.keyDerivationStarted(iterations: total))
        let key = try passphrase.bytes.withUnsafeBytes { password in
            try FastPBKDF2.deriveSHA256(
                password: password, salt: header.salt, iterations: total, length: AES256GCM.keyLength,
                progressInterval: progress == nil ? 0 : progressInterval
            ) { done in progress?(.keyDerivation(iterationsDone: done, iterationsTotal: total)) }
        }
        progress?(.keyDerivationFinished)
        return key
    }
}
