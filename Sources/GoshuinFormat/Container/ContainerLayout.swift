/// Where every chunk of a v1 file is and how long it is (`Spec/container-v1.md` §3), derived from the
/// chunk size and the payload length alone.
///
/// Made from a validated ``Header``, so `1 ≤ chunkCount ≤ 2^32` and every value fits in a `UInt64`.
package struct ContainerLayout: Equatable, Sendable {
    /// The size of the length prefix.
    package static let prefixLength = 4
    /// Bytes of a chunk record beyond its plaintext: the length prefix and the tag.
    package static let recordOverhead = UInt64(prefixLength + AES256GCM.tagLength)

    /// Plaintext bytes per chunk.
    package let chunkSize: UInt32
    /// Payload bytes in all.
    package let plaintextLength: UInt64

    /// The layout of a payload of `plaintextLength` bytes (at least 1) in chunks of `chunkSize` bytes.
    package init(chunkSize: UInt32, plaintextLength: UInt64) {
        self.chunkSize = chunkSize
        self.plaintextLength = plaintextLength
    }

    /// `ceil(plaintextLength / chunkSize)`.
    package var chunkCount: UInt64 { (plaintextLength - 1) / UInt64(chunkSize) + 1 }

    /// `45 + 20·chunkCount + plaintextLength`: the only size a valid file can have.
    package var expectedFileSize: UInt64 {
        UInt64(Header.byteCount) + Self.recordOverhead * chunkCount + plaintextLength
    }

    /// The plaintext length of chunk `index`: `chunkSize`, except for the last chunk.
    package func plaintextLength(ofChunk index: UInt64) -> Int {
        precondition(index < chunkCount, "chunk index out of range")
        let start = index * UInt64(chunkSize)
        return Int(Swift.min(UInt64(chunkSize), plaintextLength - start))
    }

    /// The plaintext length of the largest chunk, chunk 0: `min(chunkSize, plaintextLength)`. Buffers are
    /// sized by it, so a one-byte payload in 64 MiB chunks does not allocate 64 MiB.
    package var largestChunkLength: Int { plaintextLength(ofChunk: 0) }

    /// The length of the largest chunk record: its plaintext plus the 20 bytes of prefix and tag.
    package var largestRecordLength: Int { largestChunkLength + Int(Self.recordOverhead) }

    /// The length of chunk `index`'s record: prefix, ciphertext and tag.
    package func recordLength(ofChunk index: UInt64) -> Int {
        plaintextLength(ofChunk: index) + Int(Self.recordOverhead)
    }

    /// The value chunk `index`'s length prefix must hold: its plaintext length plus the 16-byte tag.
    package func expectedPrefix(ofChunk index: UInt64) -> UInt32 {
        UInt32(plaintextLength(ofChunk: index) + AES256GCM.tagLength)
    }

    /// Throws `chunk_length_invalid` unless `prefix` is the one chunk `index` must have (check 9 of
    /// `Spec/container-v1.md` §7).
    package func checkPrefix(_ prefix: UInt32, ofChunk index: UInt64) throws {
        let expected = expectedPrefix(ofChunk: index)
        guard prefix == expected else {
            throw GoshuinError.chunkLengthInvalid(index, prefix: prefix, expected: expected)
        }
    }

    /// The file offset of chunk `index`'s length prefix.
    package func recordOffset(ofChunk index: UInt64) -> UInt64 {
        UInt64(Header.byteCount) + index * (UInt64(chunkSize) + Self.recordOverhead)
    }

    /// The payload offset of chunk `index`'s first plaintext byte.
    package func plaintextOffset(ofChunk index: UInt64) -> UInt64 {
        index * UInt64(chunkSize)
    }

    /// The chunk holding payload byte `offset`.
    package func chunkIndex(containing offset: UInt64) -> UInt64 {
        offset / UInt64(chunkSize)
    }
}
