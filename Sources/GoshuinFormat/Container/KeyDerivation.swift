/// The passphrase's key, `K_pw`: PBKDF2-HMAC-SHA256 of the passphrase's bytes, 32 bytes
/// (`Spec/container-v1.md` §4, `Spec/container-v2.md` §4), computed by ``FastPBKDF2``
/// (`Spec/decisions/0003`). Version 1 uses it as the file key; version 2 derives its two keys from it
/// (``ContainerKeys``).
package enum KeyDerivation {
    /// Derives the 32-byte key for `passphrase`, `salt` and `iterations`.
    ///
    /// The iteration count is not bounded here (the header is); callers reading untrusted headers go
    /// through ``ContainerStructure`` first.
    package static func deriveKey(passphrase: Passphrase, salt: [UInt8], iterations: UInt32) throws
        -> SecretBytes
    {
        try AES256GCM.prepare()
        return try passphrase.bytes.withUnsafeBytes { password in
            try FastPBKDF2.deriveSHA256(
                password: password, salt: salt, iterations: iterations, length: AES256GCM.keyLength)
        }
    }

    /// How many iterations pass between two ``ProgressEvent/keyDerivation(iterationsDone:iterationsTotal:)``.
    package static let progressInterval: UInt32 = 50_000

    /// Derives the key for `salt` and `iterations`, reporting its start, its progress and its end to
    /// `progress`.
    package static func deriveKey(
        passphrase: Passphrase, salt: [UInt8], iterations: UInt32, progress: ProgressHandler?
    ) throws -> SecretBytes {
        if let known = passphrase.derivedKeys.key(salt: salt, iterations: iterations) { return known }
        // OpenSSL set up here, before any chunk buffer, by the thread that derives the key.
        try AES256GCM.prepare()
        progress?(.keyDerivationStarted(iterations: iterations))
        let key = try passphrase.bytes.withUnsafeBytes { password in
            try FastPBKDF2.deriveSHA256(
                password: password, salt: salt, iterations: iterations, length: AES256GCM.keyLength,
                progressInterval: progress == nil ? 0 : progressInterval
            ) { done in progress?(.keyDerivation(iterationsDone: done, iterationsTotal: iterations)) }
        }
        progress?(.keyDerivationFinished)
        passphrase.derivedKeys.remember(key, salt: salt, iterations: iterations)
        return key
    }
}
