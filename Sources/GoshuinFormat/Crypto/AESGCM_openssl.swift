internal import COpenSSL

/// AES-256-GCM with a 96-bit nonce and a 128-bit tag (OpenSSL EVP), for one key and many messages.
///
/// The key schedule is set up once; each call sets a new nonce. An instance is not thread-safe: use one
/// per thread.
package final class AES256GCM {
    /// The tag length in bytes.
    package static let tagLength = 16
    /// The nonce length in bytes.
    package static let nonceLength = 12
    /// The key length in bytes.
    package static let keyLength = 32

    private let encryptContext: OpaquePointer
    private let decryptContext: OpaquePointer

    /// The address of AES-256-GCM fetched from OpenSSL's default provider, once (0 when OpenSSL refused).
    /// Fetching is what sets OpenSSL itself up (its configuration, its providers): done at the first key
    /// derivation (``prepare()``), on the calling thread and before any chunk buffer is taken, rather than
    /// on a worker beside buffers that left a memory limit no room for it. Kept as an address, which is
    /// `Sendable`; the cipher it names is immutable and shared by every context.
    private static let fetchedCipher = Int(bitPattern: EVP_CIPHER_fetch(nil, "AES-256-GCM", nil))

    /// Sets OpenSSL up for AES-256-GCM now, if it is not yet.
    ///
    /// - Throws: `out_of_memory` (or `io`) when OpenSSL cannot be set up.
    package static func prepare() throws {
        _ = try cipher()
    }

    private static func cipher() throws -> OpaquePointer {
        guard let cipher = OpaquePointer(bitPattern: fetchedCipher) else {
            throw openSSLFailure("EVP_CIPHER_fetch")
        }
        return cipher
    }

    /// Prepares encryption and decryption under `key`, which must be 32 bytes.
    package init(key: SecretBytes) throws {
        guard key.count == Self.keyLength else {
            throw GoshuinError(.invalidArgument, "an AES-256 key is 32 bytes, not \(key.count)")
        }
        let cipher = try Self.cipher()
        guard let encryptContext = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        guard let decryptContext = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(encryptContext)
            throw openSSLFailure("EVP_CIPHER_CTX_new")
        }
        self.encryptContext = encryptContext
        self.decryptContext = decryptContext
        try key.withUnsafeBytes { keyBytes in
            let keyPointer = keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            try requireOpenSSLSuccess(
                EVP_EncryptInit_ex(encryptContext, cipher, nil, keyPointer, nil), "EVP_EncryptInit_ex")
            try requireOpenSSLSuccess(
                EVP_DecryptInit_ex(decryptContext, cipher, nil, keyPointer, nil), "EVP_DecryptInit_ex")
        }
    }

    deinit {
        // EVP_CIPHER_CTX_free cleanses the key schedule.
        EVP_CIPHER_CTX_free(encryptContext)
        EVP_CIPHER_CTX_free(decryptContext)
    }

    /// Encrypts `plaintext` into `ciphertext` (same length) and writes the 16-byte tag into `tag`.
    package func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, additionalData: UnsafeRawBufferPointer,
        ciphertext: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) throws {
        try checkSizes(input: plaintext.count, output: ciphertext.count, nonce: nonce.count, tag: tag.count)
        let context = encryptContext
        try requireOpenSSLSuccess(
            EVP_EncryptInit_ex(context, nil, nil, nil, bytePointer(nonce)), "EVP_EncryptInit_ex")
        var written: Int32 = 0
        if additionalData.count > 0 {
            try requireOpenSSLSuccess(
                EVP_EncryptUpdate(context, nil, &written, bytePointer(additionalData), Int32(additionalData.count)),
                "EVP_EncryptUpdate")
        }
        var produced = 0
        if plaintext.count > 0 {
            try requireOpenSSLSuccess(
                EVP_EncryptUpdate(
                    context, mutableBytePointer(ciphertext), &written, bytePointer(plaintext), Int32(plaintext.count)),
                "EVP_EncryptUpdate")
            produced = Int(written)
        }
        var scratch = [UInt8](repeating: 0, count: 16)
        try requireOpenSSLSuccess(
            EVP_EncryptFinal_ex(context, &scratch, &written), "EVP_EncryptFinal_ex")
        guard produced + Int(written) == plaintext.count else {
            throw GoshuinError(.io, "AES-GCM produced an unexpected length")
        }
        try requireOpenSSLSuccess(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), tag.baseAddress),
            "EVP_CTRL_GCM_GET_TAG")
    }

    /// Decrypts `ciphertext` into `plaintext` (same length) if `tag` authenticates it with
    /// `additionalData`; returns false, with `plaintext` wiped, if it does not.
    package func open(
        _ ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        additionalData: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) throws -> Bool {
        try checkSizes(input: ciphertext.count, output: plaintext.count, nonce: nonce.count, tag: tag.count)
        let context = decryptContext
        try requireOpenSSLSuccess(
            EVP_DecryptInit_ex(context, nil, nil, nil, bytePointer(nonce)), "EVP_DecryptInit_ex")
        var written: Int32 = 0
        if additionalData.count > 0 {
            try requireOpenSSLSuccess(
                EVP_DecryptUpdate(context, nil, &written, bytePointer(additionalData), Int32(additionalData.count)),
                "EVP_DecryptUpdate")
        }
        if ciphertext.count > 0 {
            try requireOpenSSLSuccess(
                EVP_DecryptUpdate(
                    context, mutableBytePointer(plaintext), &written, bytePointer(ciphertext), Int32(ciphertext.count)),
                "EVP_DecryptUpdate")
        }
        var expectedTag = [UInt8](tag)
        try requireOpenSSLSuccess(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), &expectedTag),
            "EVP_CTRL_GCM_SET_TAG")
        var scratch = [UInt8](repeating: 0, count: 16)
        // A failed tag check is an answer, not an OpenSSL fault: judged here, not by requireOpenSSLSuccess.
        let authenticated = EVP_DecryptFinal_ex(context, &scratch, &written) > 0
        if !authenticated {
            ERR_clear_error()
            secureZero(plaintext)
        }
        return authenticated
    }

    private func checkSizes(input: Int, output: Int, nonce: Int, tag: Int) throws {
        guard nonce == Self.nonceLength, tag == Self.tagLength, output == input, Int32(exactly: input) != nil else {
            throw GoshuinError(.invalidArgument, "AES-GCM buffer sizes do not match")
        }
    }
}

@inline(__always)
private func bytePointer(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
    buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
}

@inline(__always)
private func mutableBytePointer(_ buffer: UnsafeMutableRawBufferPointer) -> UnsafeMutablePointer<UInt8>? {
    buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
}

extension AES256GCM {
    /// Encrypts `plaintext`; returns the ciphertext (same length) and the 16-byte tag.
    package func seal(_ plaintext: [UInt8], nonce: [UInt8], additionalData: [UInt8]) throws -> (
        ciphertext: [UInt8], tag: [UInt8]
    ) {
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        try plaintext.withUnsafeBytes { input in
            try nonce.withUnsafeBytes { nonceBytes in
                try additionalData.withUnsafeBytes { aad in
                    try ciphertext.withUnsafeMutableBytes { output in
                        try tag.withUnsafeMutableBytes { tagOutput in
                            try seal(input, nonce: nonceBytes, additionalData: aad, ciphertext: output, tag: tagOutput)
                        }
                    }
                }
            }
        }
        return (ciphertext, tag)
    }

    /// Decrypts `ciphertext` if `tag` authenticates it with `additionalData`; `nil` if it does not.
    package func open(_ ciphertext: [UInt8], tag: [UInt8], nonce: [UInt8], additionalData: [UInt8]) throws -> [UInt8]? {
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let authenticated = try ciphertext.withUnsafeBytes { input in
            try tag.withUnsafeBytes { tagBytes in
                try nonce.withUnsafeBytes { nonceBytes in
                    try additionalData.withUnsafeBytes { aad in
                        try plaintext.withUnsafeMutableBytes { output in
                            try open(input, tag: tagBytes, nonce: nonceBytes, additionalData: aad, plaintext: output)
                        }
                    }
                }
            }
        }
        return authenticated ? plaintext : nil
    }
}
