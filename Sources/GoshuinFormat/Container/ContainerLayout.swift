/// Where every chunk of a file is and how long it is (`Spec/container-v1.md` §3, `Spec/container-v2.md`
/// §3), from the version, the chunk size and the payload's length.
///
/// Version 1 has `ceil(length / chunkSize)` chunks, at least one (an empty payload is refused); version 2
/// has `floor(length / chunkSize) + 1`, its final chunk holding 0 … chunkSize − 1 bytes. Made from a
/// validated ``Header``, so `1 ≤ chunkCount ≤ 2^32` and every value fits in a `UInt64`.
package struct ContainerLayout: Equatable, Sendable {
    /// The version and the chunk size.
    package let geometry: ChunkGeometry
    /// Payload bytes in all.
    package let plaintextLength: UInt64

    /// The layout of a payload of `plaintextLength` bytes (at least 1 in version 1).
    package init(geometry: ChunkGeometry, plaintextLength: UInt64) {
        self.geometry = geometry
        self.plaintextLength = plaintextLength
    }

    /// The layout of a version 1 payload of `plaintextLength` bytes (at least 1).
    package init(chunkSize: UInt32, plaintextLength: UInt64) {
        self.init(geometry: ChunkGeometry(version: .v1, chunkSize: chunkSize), plaintextLength: plaintextLength)
    }

    /// The format version.
    package var version: FormatVersion { geometry.version }
    /// Plaintext bytes per chunk.
    package var chunkSize: UInt32 { geometry.chunkSize }

    /// The number of chunks.
    package var chunkCount: UInt64 {
        switch version {
        case .v1: return (plaintextLength - 1) / UInt64(chunkSize) + 1
        case .v2: return plaintextLength / UInt64(chunkSize) + 1
        }
    }

    /// The index of the final chunk.
    package var finalChunk: UInt64 { chunkCount - 1 }

    /// The only size a valid file with this layout can have: the header, every record's overhead, the
    /// payload.
    package var expectedFileSize: UInt64 {
        UInt64(version.headerLength) + UInt64(geometry.recordOverhead) * chunkCount + plaintextLength
    }

    /// The plaintext length of chunk `index`: `chunkSize`, except for the final chunk.
    package func plaintextLength(ofChunk index: UInt64) -> Int {
        precondition(index < chunkCount, "chunk index out of range")
        let start = index * UInt64(chunkSize)
        return Int(Swift.min(UInt64(chunkSize), plaintextLength - start))
    }

    /// The plaintext length of the largest chunk, chunk 0: `min(chunkSize, plaintextLength)`. Buffers are
    /// sized by it, so a one-byte payload in 64 MiB chunks does not allocate 64 MiB.
    package var largestChunkLength: Int { plaintextLength(ofChunk: 0) }

    /// The length of the largest chunk record.
    package var largestRecordLength: Int { geometry.recordLength(plaintextLength: largestChunkLength) }

    /// The length of chunk `index`'s record.
    package func recordLength(ofChunk index: UInt64) -> Int {
        geometry.recordLength(plaintextLength: plaintextLength(ofChunk: index))
    }

    /// The file offset of chunk `index`'s record.
    package func recordOffset(ofChunk index: UInt64) -> UInt64 { geometry.recordOffset(ofChunk: index) }

    /// The payload offset of chunk `index`'s first plaintext byte.
    package func plaintextOffset(ofChunk index: UInt64) -> UInt64 { geometry.plaintextOffset(ofChunk: index) }

    /// The chunk holding payload byte `offset`.
    package func chunkIndex(containing offset: UInt64) -> UInt64 { geometry.chunkIndex(containing: offset) }

    /// The value chunk `index`'s version 1 length prefix must hold: its plaintext length plus the tag.
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

    /// The version 2 layout a file of `fileSize` bytes implies (`Spec/container-v2.md` §3, checks 7–8).
    ///
    /// - Throws: `too_many_chunks` past 2^32 records, `truncated` when the last record is shorter than a tag.
    package static func v2(chunkSize: UInt32, fileSize: UInt64) throws -> ContainerLayout {
        let geometry = ChunkGeometry(version: .v2, chunkSize: chunkSize)
        let body = fileSize - UInt64(FormatVersion.v2.headerLength)
        let record = UInt64(geometry.fullRecordLength)
        let records = body / record + 1
        guard records <= Header.maximumChunkCount else {
            throw GoshuinError(
                .tooManyChunks,
                "the file's size implies \(records) records of \(record) bytes; the record index allows at most 2^32")
        }
        let last = body - (records - 1) * record
        guard last >= UInt64(AES256GCM.tagLength) else {
            throw GoshuinError(
                .truncated,
                "the file has \(fileSize) bytes, which leaves its last record \(last) bytes, shorter than a tag: it"
                    + " was cut short (an interrupted copy or download?)")
        }
        return ContainerLayout(
            geometry: geometry,
            plaintextLength: (records - 1) * UInt64(chunkSize) + last - UInt64(AES256GCM.tagLength))
    }
}
