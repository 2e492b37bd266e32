/// Seals and opens single chunks of one file: AES-256-GCM under the file's key, nonce
/// `nonceBase ‖ u32be(index)` and the 45 header bytes as additional data (`Spec/container-v1.md` §5).
final class ChunkCipher {
    private let cipher: AES256GCM
    private let headerBytes: [UInt8]
    private var nonce: [UInt8]

    init(key: SecretBytes, header: Header) throws {
        cipher = try AES256GCM(key: key)
        headerBytes = header.encode()
        nonce = header.nonceBase + [0, 0, 0, 0]
    }

    private func setIndex(_ index: UInt64) {
        precondition(index < Header.maximumChunkCount, "chunk index beyond u32")
        for byteIndex in 0..<4 {
            nonce[8 + byteIndex] = UInt8(truncatingIfNeeded: index >> (24 - 8 * UInt64(byteIndex)))
        }
    }

    /// Encrypts `plaintext` as chunk `index`; `record` receives `ciphertext ‖ tag` and must be 16 bytes
    /// longer than `plaintext`.
    func seal(
        _ plaintext: UnsafeRawBufferPointer, index: UInt64, into record: UnsafeMutableRawBufferPointer
    ) throws {
        setIndex(index)
        let ciphertextLength = plaintext.count
        try nonce.withUnsafeBytes { nonceBytes in
            try headerBytes.withUnsafeBytes { aad in
                try cipher.seal(
                    plaintext, nonce: nonceBytes, additionalData: aad,
                    ciphertext: UnsafeMutableRawBufferPointer(rebasing: record[0..<ciphertextLength]),
                    tag: UnsafeMutableRawBufferPointer(rebasing: record[ciphertextLength...]))
            }
        }
    }

    /// Authenticates and decrypts `record` (`ciphertext ‖ tag`) as chunk `index` into `plaintext`, which
    /// must be 16 bytes shorter; returns false if the chunk does not authenticate.
    func open(
        _ record: UnsafeRawBufferPointer, index: UInt64, into plaintext: UnsafeMutableRawBufferPointer
    ) throws -> Bool {
        setIndex(index)
        let ciphertextLength = record.count - AES256GCM.tagLength
        return try nonce.withUnsafeBytes { nonceBytes in
            try headerBytes.withUnsafeBytes { aad in
                try cipher.open(
                    UnsafeRawBufferPointer(rebasing: record[0..<ciphertextLength]),
                    tag: UnsafeRawBufferPointer(rebasing: record[ciphertextLength...]), nonce: nonceBytes,
                    additionalData: aad, plaintext: plaintext)
            }
        }
    }
}
