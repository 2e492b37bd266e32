/// A header about to be written, before the passphrase: the parameters checked and the salts drawn. The
/// one way to seal with it is ``key(with:progress:)``, which checks the passphrase for sealing and derives
/// the keys (and, in version 2, the header MAC, which depends on them): a writer's "check, then ask, then
/// key" is an order the compiler keeps, as ``LockedContainer`` keeps a reader's.
package struct HeaderDraft: Sendable {
    private enum Draft: Sendable {
        case v1(Header)
        case v2(HeaderFieldsV2, plaintextLength: UInt64?)
    }
    private let draft: Draft

    init(v1 header: Header) { draft = .v1(header) }
    init(v2 fields: HeaderFieldsV2, plaintextLength: UInt64?) { draft = .v2(fields, plaintextLength: plaintextLength) }

    /// Where records lie.
    package var geometry: ChunkGeometry {
        switch draft {
        case .v1(let header): return header.layout.geometry
        case .v2(let fields, _): return ChunkGeometry(version: .v2, chunkSize: fields.chunkSize)
        }
    }

    /// The payload's length, when it was given.
    package var plaintextLength: UInt64? {
        switch draft {
        case .v1(let header): return header.plaintextLength
        case .v2(_, let length): return length
        }
    }

    /// The size of the file to be written, when the payload's length was given.
    package var fileSize: UInt64? {
        plaintextLength.map { ContainerLayout(geometry: geometry, plaintextLength: $0).expectedFileSize }
    }

    /// Checks `passphrase` for sealing (``checkedForSealing(_:)``), derives the keys, and completes the
    /// header.
    package func key(with passphrase: Passphrase, progress: ProgressHandler? = nil) throws -> KeyedHeader {
        let passphrase = try Self.checkedForSealing(passphrase)
        switch draft {
        case .v1(let header):
            return KeyedHeader(
                bytes: header.encode(), geometry: geometry, nonceBase: header.nonceBase,
                keys: try ContainerKeys(passphrase: passphrase, header: header, progress: progress), v2Fields: nil)
        case .v2(let fields, _):
            let keys = try ContainerKeys(
                passphrase: passphrase, version: .v2, salt: fields.kdfSalt, payloadSalt: fields.payloadSalt,
                iterations: fields.kdfIterations, progress: progress)
            let complete = fields.withMac(try keys.headerMac(of: fields))
            return KeyedHeader(
                bytes: complete.encode(), geometry: geometry, nonceBase: [], keys: keys, v2Fields: complete)
        }
    }

    /// `passphrase`, if a writer may seal with it: `empty_passphrase` for an empty one (it protects nothing),
    /// `passphrase_too_long` past ``Passphrase/maximumLength`` bytes (no source could give it to open).
    package static func checkedForSealing(_ passphrase: Passphrase) throws -> Passphrase {
        guard !passphrase.isEmpty else {
            throw GoshuinError(.emptyPassphrase, "an empty passphrase protects nothing; nothing was written")
        }
        guard passphrase.bytes.count <= Passphrase.maximumLength else {
            throw GoshuinError(
                .passphraseTooLong,
                "the passphrase is longer than \(Passphrase.maximumLength) bytes, the most any source takes")
        }
        return passphrase
    }
}

/// A header with its keys: its bytes as they are written, and what seals its records.
package struct KeyedHeader: Sendable {
    /// The header's bytes, the additional data of every record.
    package let bytes: [UInt8]
    /// Where records lie.
    package let geometry: ChunkGeometry
    /// Version 1's nonce base; empty in version 2.
    package let nonceBase: [UInt8]
    /// The keys.
    package let keys: ContainerKeys
    /// Version 2's complete fields.
    let v2Fields: HeaderFieldsV2?

    /// A cipher for the records, one per thread.
    func cipher() throws -> ChunkCipher {
        try ChunkCipher(key: keys.payloadKey, geometry: geometry, headerBytes: bytes, nonceBase: nonceBase)
    }

    /// The header of the file once its payload, `plaintextLength` bytes, is sealed.
    package func header(plaintextLength: UInt64) throws -> Header {
        if let v2Fields { return try Header(validating: v2Fields, plaintextLength: plaintextLength) }
        let header = try Header.decode(bytes)
        guard header.plaintextLength == plaintextLength else {
            throw GoshuinError(
                .io,
                "the payload has \(plaintextLength) bytes where \(header.plaintextLength) were announced; it changed"
                    + " while being sealed")
        }
        return header
    }
}
