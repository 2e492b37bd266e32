/// What `Benchmarks/` measures that users never call: the two PBKDF2 implementations side by side, and
/// sealing and opening with a chosen number of workers. Behind `@_spi(Benchmarks)`, outside the API.
@_spi(Benchmarks) public enum Benchmarking {
    /// PBKDF2-HMAC-SHA256 of `password` and `salt` through OpenSSL's `PKCS5_PBKDF2_HMAC`: 32 bytes.
    public static func openSSLKey(password: [UInt8], salt: [UInt8], iterations: UInt32) throws -> [UInt8] {
        try password.withUnsafeBytes {
            try PBKDF2.deriveSHA256(password: $0, salt: salt, iterations: iterations, length: 32).exposedBytes
        }
    }

    /// The same key through ``FastPBKDF2``, the toolkit's key derivation.
    public static func fastKey(password: [UInt8], salt: [UInt8], iterations: UInt32) throws -> [UInt8] {
        try password.withUnsafeBytes {
            try FastPBKDF2.deriveSHA256(password: $0, salt: salt, iterations: iterations, length: 32).exposedBytes
        }
    }

    /// ``GoshuinFile/seal(inputPath:outputPath:passphrase:parameters:replaceExisting:progress:)`` with
    /// `workerCount` workers, replacing `outputPath`.
    public static func seal(
        inputPath: String, outputPath: String, passphrase: Passphrase, parameters: SealParameters, workerCount: Int
    ) throws {
        let input = try FileSystem.openInput(inputPath)
        try input.closeAfter {
            let length = try ContainerStructure.regularFileSize(of: input)
            try withAtomicOutput(to: outputPath, replaceExisting: true) { output in
                try ContainerSealer.seal(
                    from: input, plaintextLength: length, to: output, passphrase: passphrase, parameters: parameters,
                    workerCount: workerCount)
            }
        }
    }

    /// ``GoshuinFile/open(inputPath:outputPath:passphrase:replaceExisting:progress:)`` with `workerCount`
    /// workers, replacing `outputPath`.
    public static func open(inputPath: String, outputPath: String, passphrase: Passphrase, workerCount: Int) throws {
        let input = try FileSystem.openInput(inputPath)
        try input.closeAfter {
            try withAtomicOutput(to: outputPath, replaceExisting: true) { output in
                try ContainerOpener.open(input, to: output, passphrase: passphrase, workerCount: workerCount)
            }
        }
    }
}
