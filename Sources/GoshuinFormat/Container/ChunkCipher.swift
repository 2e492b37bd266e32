/// Seals and opens the chunk records of one file (`Spec/container-v1.md` §3, §5): a record is the u32be
/// length prefix, then the chunk's ciphertext, then its 16-byte tag; AES-256-GCM under the file's key, nonce
/// `nonceBase ‖ u32be(index)`, the 45 header bytes as additional data. Every reader and writer of chunks goes
/// through ``sealRecord(_:index:)`` and ``openRecord(_:index:)``, in place in one buffer.
///
/// An instance is not thread-safe: use one per thread.
final class ChunkCipher {
    private let cipher: AES256GCM
    private let layout: ContainerLayout
    private let headerBytes: [UInt8]
    private var nonce: [UInt8]

    init(key: SecretBytes, header: Header) throws {
        cipher = try AES256GCM(key: key)
        layout = header.layout
        headerBytes = header.encode()
        nonce = header.nonceBase + [0, 0, 0, 0]
    }

    /// The part of `record`, chunk `index`'s record, that holds its plaintext: after the length prefix.
    func plaintextPart(of record: UnsafeMutableRawBufferPointer, index: UInt64) -> UnsafeMutableRawBufferPointer {
        let start = ContainerLayout.prefixLength
        return UnsafeMutableRawBufferPointer(rebasing: record[start..<start + layout.plaintextLength(ofChunk: index)])
    }

    /// Seals chunk `index` in place: `record` is its whole record, with the plaintext already in
    /// ``plaintextPart(of:index:)``; the length prefix is written, the plaintext encrypted and the tag
    /// appended.
    func sealRecord(_ record: UnsafeMutableRawBufferPointer, index: UInt64) throws {
        precondition(record.count == layout.recordLength(ofChunk: index), "a chunk record of the wrong size")
        record.storeBytes(of: layout.expectedPrefix(ofChunk: index).bigEndian, as: UInt32.self)
        let plaintext = plaintextPart(of: record, index: index)
        setIndex(index)
        try nonce.withUnsafeBytes { nonceBytes in
            try headerBytes.withUnsafeBytes { aad in
                try cipher.seal(
                    UnsafeRawBufferPointer(plaintext), nonce: nonceBytes, additionalData: aad, ciphertext: plaintext,
                    tag: UnsafeMutableRawBufferPointer(
                        rebasing: record[(ContainerLayout.prefixLength + plaintext.count)...]))
            }
        }
    }

    /// Opens chunk `index` in place from its whole `record`: checks the length prefix (`chunk_length_invalid`),
    /// then authenticates and decrypts; returns the plaintext (within `record`), or `nil`, with the plaintext
    /// wiped, when the chunk does not authenticate.
    func openRecord(_ record: UnsafeMutableRawBufferPointer, index: UInt64) throws -> UnsafeMutableRawBufferPointer? {
        precondition(record.count == layout.recordLength(ofChunk: index), "a chunk record of the wrong size")
        let prefix = UInt32(bigEndian: UnsafeRawBufferPointer(record).loadUnaligned(as: UInt32.self))
        try layout.checkPrefix(prefix, ofChunk: index)
        let plaintext = plaintextPart(of: record, index: index)
        setIndex(index)
        let authenticated = try nonce.withUnsafeBytes { nonceBytes in
            try headerBytes.withUnsafeBytes { aad in
                try cipher.open(
                    UnsafeRawBufferPointer(plaintext),
                    tag: UnsafeRawBufferPointer(rebasing: record[(ContainerLayout.prefixLength + plaintext.count)...]),
                    nonce: nonceBytes, additionalData: aad, plaintext: plaintext)
            }
        }
        return authenticated ? plaintext : nil
    }

    private func setIndex(_ index: UInt64) {
        precondition(index < Header.maximumChunkCount, "chunk index beyond u32")
        for byteIndex in 0..<4 {
            nonce[8 + byteIndex] = UInt8(truncatingIfNeeded: index >> (24 - 8 * UInt64(byteIndex)))
        }
    }
}
