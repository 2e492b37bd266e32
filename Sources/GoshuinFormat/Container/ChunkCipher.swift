/// Seals and opens the chunk records of one file, in place in one buffer: AES-256-GCM under the file's
/// payload key with its whole header as additional data.
///
/// - Version 1 (`Spec/container-v1.md` §3, §5): a record is the u32be length prefix, the ciphertext, the
///   16-byte tag; nonce `nonceBase ‖ u32be(index)`.
/// - Version 2 (`Spec/container-v2.md` §5): a record is the ciphertext and the tag; nonce
///   `00×7 ‖ u32be(index) ‖ f`, `f` = 01 for the final record only.
///
/// Every reader and writer of chunks goes through ``sealRecord(_:index:final:)`` and
/// ``openRecord(_:index:final:)``. A record's plaintext length is its length less the overhead, so the
/// caller sizes it. An instance is not thread-safe: use one per thread.
final class ChunkCipher {
    private let cipher: AES256GCM
    private let geometry: ChunkGeometry
    private let headerBytes: [UInt8]
    private var nonce: [UInt8]

    /// A cipher for records of `geometry` under `key`, with `headerBytes` as additional data and, in version
    /// 1, `nonceBase` before each index.
    init(key: SecretBytes, geometry: ChunkGeometry, headerBytes: [UInt8], nonceBase: [UInt8]) throws {
        cipher = try AES256GCM(key: key)
        self.geometry = geometry
        self.headerBytes = headerBytes
        switch geometry.version {
        case .v1: nonce = nonceBase + [0, 0, 0, 0]
        case .v2: nonce = [UInt8](repeating: 0, count: AES256GCM.nonceLength)
        }
    }

    /// A cipher for the records of the file whose header is `header`, under its payload key `key`.
    convenience init(key: SecretBytes, header: Header) throws {
        try self.init(
            key: key, geometry: header.layout.geometry, headerBytes: header.encode(), nonceBase: header.nonceBase)
    }

    /// The part of `record` that holds its plaintext: after version 1's length prefix, before the tag.
    func plaintextPart(of record: UnsafeMutableRawBufferPointer) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(
            rebasing: record[geometry.plaintextStart..<record.count - AES256GCM.tagLength])
    }

    /// Seals chunk `index` in place: `record` is its whole record, with the plaintext already in
    /// ``plaintextPart(of:)``; version 1's length prefix is written, the plaintext encrypted, the tag
    /// appended. `final` says whether it is the file's final record (version 2's flag).
    func sealRecord(_ record: UnsafeMutableRawBufferPointer, index: UInt64, final: Bool) throws {
        precondition(record.count >= geometry.recordOverhead, "a chunk record shorter than its overhead")
        let plaintext = plaintextPart(of: record)
        if geometry.version == .v1 {
            record.storeBytes(of: UInt32(plaintext.count + AES256GCM.tagLength).bigEndian, as: UInt32.self)
        }
        setNonce(index, final: final)
        try nonce.withUnsafeBytes { nonceBytes in
            try headerBytes.withUnsafeBytes { aad in
                try cipher.seal(
                    UnsafeRawBufferPointer(plaintext), nonce: nonceBytes, additionalData: aad, ciphertext: plaintext,
                    tag: UnsafeMutableRawBufferPointer(rebasing: record[(record.count - AES256GCM.tagLength)...]))
            }
        }
    }

    /// Opens chunk `index` in place from its whole `record`: in version 1 checks the length prefix
    /// (`chunk_length_invalid`), then authenticates and decrypts; returns the plaintext (within `record`), or
    /// `nil`, with the plaintext wiped, when the chunk does not authenticate as record `index`, final or not.
    func openRecord(_ record: UnsafeMutableRawBufferPointer, index: UInt64, final: Bool) throws
        -> UnsafeMutableRawBufferPointer?
    {
        precondition(record.count >= geometry.recordOverhead, "a chunk record shorter than its overhead")
        let plaintext = plaintextPart(of: record)
        if geometry.version == .v1 {
            let prefix = UInt32(bigEndian: UnsafeRawBufferPointer(record).loadUnaligned(as: UInt32.self))
            let expected = UInt32(plaintext.count + AES256GCM.tagLength)
            guard prefix == expected else {
                throw GoshuinError.chunkLengthInvalid(index, prefix: prefix, expected: expected)
            }
        }
        setNonce(index, final: final)
        let authenticated = try nonce.withUnsafeBytes { nonceBytes in
            try headerBytes.withUnsafeBytes { aad in
                try cipher.open(
                    UnsafeRawBufferPointer(plaintext),
                    tag: UnsafeRawBufferPointer(rebasing: record[(record.count - AES256GCM.tagLength)...]),
                    nonce: nonceBytes, additionalData: aad, plaintext: plaintext)
            }
        }
        return authenticated ? plaintext : nil
    }

    /// Writes chunk `index` (and, in version 2, the final flag) into the nonce.
    private func setNonce(_ index: UInt64, final: Bool) {
        precondition(index < Header.maximumChunkCount, "chunk index beyond u32")
        // The index's four bytes: bytes 8–11 in version 1 (after the nonce base), 7–10 in version 2.
        let start = geometry.version == .v1 ? 8 : 7
        for byteIndex in 0..<4 {
            nonce[start + byteIndex] = UInt8(truncatingIfNeeded: index >> (24 - 8 * UInt64(byteIndex)))
        }
        if geometry.version == .v2 { nonce[11] = final ? 1 : 0 }
    }
}
