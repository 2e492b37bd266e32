/// `Spec/container-v1.md` §2, §3 and §7 written out again from the text, sharing no code and no constant
/// with `GoshuinFormat`, so that a harness compares the library's verdict with the spec's own.
///
/// Checks 1–3 are those every reader of both versions shares (``ContainerReaderRestatement``); here are
/// version 1's own checks 4–9 and its layout, and ``checkHeader(_:)``, the checks 1–7 of a reader of version 1
/// alone (the library's `Header.decode(_:)`), for which a version byte 2 is `unsupported_version`.
enum ContainerSpecRestatement {
    /// §2: the header's length.
    static let headerLength = 45
    /// §2.1: the bounds of `kdfIterations`.
    static let iterationBounds: ClosedRange<UInt64> = 1_000...2_000_000
    /// §2.1: the bounds of `chunkSize`.
    static let chunkSizeBounds: ClosedRange<UInt64> = 1_024...67_108_864
    /// §3: at most 2^32 chunks, the chunk index being a u32 in the nonce.
    static let maximumChunkCount: UInt128 = 4_294_967_296
    /// §5: the GCM tag after every chunk's ciphertext.
    static let tagLength: UInt64 = 16
    /// The length prefix and the tag around every chunk's ciphertext.
    static let recordOverhead: UInt64 = 20

    /// The layout §3 derives from a header that passes checks 1–7.
    struct Layout {
        /// `chunkSize`.
        let chunkSize: UInt64
        /// `plaintextLength`.
        let plaintextLength: UInt64
        /// `chunkCount`, 1 … 2^32.
        let chunkCount: UInt64
        /// `expectedFileSize`, below 2^59.
        let expectedFileSize: UInt64

        /// `chunkPlaintext(i)`.
        func plaintextLength(ofChunk index: UInt64) -> UInt64 {
            index < chunkCount - 1 ? chunkSize : plaintextLength - chunkSize * (chunkCount - 1)
        }

        /// `chunkOffset(i)`, where chunk `index`'s length prefix is.
        func prefixOffset(ofChunk index: UInt64) -> UInt64 {
            45 + index * (chunkSize + ContainerSpecRestatement.recordOverhead)
        }
    }

    /// Checks 1–7 of a reader of version 1 alone, on the first 45 bytes of `bytes`, in order: a version byte
    /// other than 1 is `unsupported_version` (check 3 as version 1 writes it).
    static func checkHeader(_ bytes: [UInt8]) -> Result<Layout, SpecRejection> {
        guard bytes.count >= headerLength else { return .failure(SpecRejection(code: "short_header")) }
        guard Array(bytes[0..<4]) == ContainerReaderRestatement.magic else {
            return .failure(SpecRejection(code: "bad_magic"))
        }
        guard bytes[4] == 1 else { return .failure(SpecRejection(code: "unsupported_version")) }
        return checkFields(bytes)
    }

    /// Checks 4–7 on the first 45 bytes of `bytes` (there are that many: check 1 passed), in order.
    static func checkFields(_ bytes: [UInt8]) -> Result<Layout, SpecRejection> {
        guard iterationBounds.contains(bigEndian(bytes[5..<9])) else {
            return .failure(SpecRejection(code: "iterations_out_of_range"))
        }
        let chunkSize = bigEndian(bytes[33..<37])
        guard chunkSizeBounds.contains(chunkSize) else {
            return .failure(SpecRejection(code: "chunk_size_out_of_range"))
        }
        let plaintextLength = bigEndian(bytes[37..<45])
        guard plaintextLength != 0 else { return .failure(SpecRejection(code: "empty_payload")) }
        // ceil(plaintextLength / chunkSize) in 128 bits: no overflow to reason about.
        let chunkCount = (UInt128(plaintextLength) + UInt128(chunkSize) - 1) / UInt128(chunkSize)
        guard chunkCount <= maximumChunkCount else { return .failure(SpecRejection(code: "too_many_chunks")) }
        let expectedFileSize = 45 + 20 * chunkCount + UInt128(plaintextLength)
        return .success(
            Layout(
                chunkSize: chunkSize, plaintextLength: plaintextLength, chunkCount: UInt64(chunkCount),
                expectedFileSize: UInt64(expectedFileSize)))
    }

    /// Checks 1 and 8 for a file of `fileSize` bytes whose header gives `layout`: shorter than the header
    /// comes first, then the size against the expected one.
    static func checkSize(_ fileSize: UInt64, of layout: Layout) -> SpecRejection? {
        if fileSize < UInt64(headerLength) { return SpecRejection(code: "short_header") }
        if fileSize < layout.expectedFileSize { return SpecRejection(code: "truncated") }
        if fileSize > layout.expectedFileSize { return SpecRejection(code: "trailing_data") }
        return nil
    }

    /// Check 9 on a whole file that passed checks 1–8: the first length prefix that differs from its chunk's
    /// plaintext length plus 16.
    static func checkPrefixes(of file: [UInt8], layout: Layout) -> SpecRejection? {
        for index in 0..<layout.chunkCount {
            let offset = Int(layout.prefixOffset(ofChunk: index))
            guard bigEndian(file[offset..<offset + 4]) == layout.plaintextLength(ofChunk: index) + tagLength else {
                return SpecRejection(code: "chunk_length_invalid", chunkIndex: index)
            }
        }
        return nil
    }

    /// `ceil(plaintextLength / chunkSize)` for any header fields, `nil` when either is 0.
    static func impliedChunkCount(ofHeader bytes: [UInt8]) -> UInt128? {
        guard bytes.count >= headerLength else { return nil }
        let chunkSize = UInt128(bigEndian(bytes[33..<37]))
        let plaintextLength = UInt128(bigEndian(bytes[37..<45]))
        guard chunkSize > 0, plaintextLength > 0 else { return nil }
        return (plaintextLength + chunkSize - 1) / chunkSize
    }

    /// The unsigned big-endian integer in `bytes` (at most 8 of them).
    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        ContainerReaderRestatement.bigEndian(bytes)
    }
}
