/// The keys of one file, derived from its passphrase's key `K_pw` (``KeyDerivation``): version 1 seals its
/// chunks under `K_pw` itself (`Spec/container-v1.md` §4); version 2 derives `K_header` for the header MAC
/// and `K_payload` for the records, each by HKDF-SHA256 with the file's `payloadSalt`
/// (`Spec/container-v2.md` §4).
package struct ContainerKeys: Sendable {
    /// `K_pw`.
    package let passphraseKey: SecretBytes
    /// Version 2's `K_header`; `nil` in version 1.
    package let headerKey: SecretBytes?
    /// The key the chunks are sealed under: `K_pw` in version 1, `K_payload` in version 2.
    package let payloadKey: SecretBytes

    /// The keys of a `version` file from its passphrase's key; version 2 needs the file's `payloadSalt`.
    package init(passphraseKey: SecretBytes, version: FormatVersion, payloadSalt: [UInt8]) throws {
        self.passphraseKey = passphraseKey
        switch version {
        case .v1:
            headerKey = nil
            payloadKey = passphraseKey
        case .v2:
            let length = AES256GCM.keyLength
            headerKey = try HKDFSHA256.derive(
                key: passphraseKey, salt: payloadSalt, info: HeaderFieldsV2.headerKeyInfo, length: length)
            payloadKey = try HKDFSHA256.derive(
                key: passphraseKey, salt: payloadSalt, info: HeaderFieldsV2.payloadKeyInfo, length: length)
        }
    }

    /// Derives the keys of a file with `header`'s salts and iteration count from `passphrase`, reporting the
    /// key derivation to `progress`.
    package init(passphrase: Passphrase, header: Header, progress: ProgressHandler? = nil) throws {
        try self.init(
            passphrase: passphrase, version: header.version, salt: header.salt, payloadSalt: header.payloadSalt,
            iterations: header.kdfIterations, progress: progress)
    }

    /// Derives the keys of a `version` file with these salts and iteration count from `passphrase`.
    package init(
        passphrase: Passphrase, version: FormatVersion, salt: [UInt8], payloadSalt: [UInt8], iterations: UInt32,
        progress: ProgressHandler? = nil
    ) throws {
        let key = try KeyDerivation.deriveKey(
            passphrase: passphrase, salt: salt, iterations: iterations, progress: progress)
        try self.init(passphraseKey: key, version: version, payloadSalt: payloadSalt)
    }

    /// Version 2's header MAC of `fields`: HMAC-SHA256(K_header, header bytes 0 … 44).
    package func headerMac(of fields: HeaderFieldsV2) throws -> [UInt8] {
        guard let headerKey else { preconditionFailure("version 1 has no header MAC") }
        return try HMACSHA256.authenticate(fields.authenticatedBytes, key: headerKey).exposedBytes
    }

    /// Whether `fields`' stored MAC is the one these keys give, compared in constant time (check 9 of
    /// `Spec/container-v2.md` §7).
    package func verifiesHeader(_ fields: HeaderFieldsV2) throws -> Bool {
        guard let headerKey else { preconditionFailure("version 1 has no header MAC") }
        let computed = try HMACSHA256.authenticate(fields.authenticatedBytes, key: headerKey)
        return computed.withUnsafeBytes { mac in
            fields.headerMac.withUnsafeBytes { HMACSHA256.constantTimeEqual(mac, $0) }
        }
    }
}
