/// Where chunk records lie and how a record is built, from the version and the chunk size alone: what a
/// writer needs before it knows the payload's length (`Spec/container-v1.md` §3, `Spec/container-v2.md` §3).
package struct ChunkGeometry: Equatable, Sendable {
    /// The format version.
    package let version: FormatVersion
    /// Plaintext bytes per chunk (the last chunk may hold fewer).
    package let chunkSize: UInt32

    /// The geometry of `version` records of `chunkSize` bytes.
    package init(version: FormatVersion, chunkSize: UInt32) {
        self.version = version
        self.chunkSize = chunkSize
    }

    /// The size of version 1's length prefix.
    package static let v1PrefixLength = 4

    /// Where a record's plaintext (its ciphertext, once sealed) starts: after version 1's length prefix,
    /// at once in version 2.
    package var plaintextStart: Int { version == .v1 ? Self.v1PrefixLength : 0 }

    /// Bytes of a record beyond its plaintext: the prefix, if any, and the tag.
    package var recordOverhead: Int { plaintextStart + AES256GCM.tagLength }

    /// The length of a record holding `plaintextLength` bytes.
    package func recordLength(plaintextLength: Int) -> Int { plaintextLength + recordOverhead }

    /// The length of a full record: `chunkSize` plaintext bytes.
    package var fullRecordLength: Int { Int(chunkSize) + recordOverhead }

    /// The file offset of chunk `index`'s record.
    package func recordOffset(ofChunk index: UInt64) -> UInt64 {
        UInt64(version.headerLength) + index * UInt64(fullRecordLength)
    }

    /// The payload offset of chunk `index`'s first plaintext byte.
    package func plaintextOffset(ofChunk index: UInt64) -> UInt64 { index * UInt64(chunkSize) }

    /// The chunk holding payload byte `offset`.
    package func chunkIndex(containing offset: UInt64) -> UInt64 { offset / UInt64(chunkSize) }
}
