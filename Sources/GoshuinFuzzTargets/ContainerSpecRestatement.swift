/// `Spec/container-v1.md` §2, §3 and §7 written out again from the text, sharing no code and no constant
/// with `GoshuinFormat`, so that a harness compares the library's verdict with the spec's own.
enum ContainerSpecRestatement {
    static let headerLength = 45
    static let magic: [UInt8] = [0x47, 0x53, 0x48, 0x4E]
    static let iterationBounds: ClosedRange<UInt64> = 1_000...2_000_000
    static let chunkSizeBounds: ClosedRange<UInt64> = 1_024...67_108_864
    static let maximumChunkCount: UInt128 = 4_294_967_296
    static let tagLength: UInt64 = 16
    /// The length prefix and the tag around every chunk's ciphertext.
    static let recordOverhead: UInt64 = 20

    /// The codes of §8 a reader can fail with (checks 1–11 of §7).
    static let readingErrorCodes: Set<String> = [
        "short_header", "bad_magic", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range",
        "empty_payload", "too_many_chunks", "truncated", "trailing_data", "chunk_length_invalid", "auth_failed",
        "chunk_damaged",
    ]

    /// The first failing check of §7: its code, and the chunk for `chunk_length_invalid`.
    struct Rejection: Error, Equatable, CustomStringConvertible {
        let code: String
        var chunkIndex: UInt64? = nil

        var description: String { chunkIndex.map { "\(code) (chunk \($0))" } ?? code }
    }

    /// The layout §3 derives from a header that passes checks 1–7.
    struct Layout {
        let chunkSize: UInt64
        let plaintextLength: UInt64
        let chunkCount: UInt64
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

    /// Checks 1–7 on the first 45 bytes of `bytes`, in order.
    static func checkHeader(_ bytes: [UInt8]) -> Result<Layout, Rejection> {
        guard bytes.count >= headerLength else { return .failure(Rejection(code: "short_header")) }
        guard Array(bytes[0..<4]) == magic else { return .failure(Rejection(code: "bad_magic")) }
        guard bytes[4] == 1 else { return .failure(Rejection(code: "unsupported_version")) }
        guard iterationBounds.contains(bigEndian(bytes[5..<9])) else {
            return .failure(Rejection(code: "iterations_out_of_range"))
        }
        let chunkSize = bigEndian(bytes[33..<37])
        guard chunkSizeBounds.contains(chunkSize) else { return .failure(Rejection(code: "chunk_size_out_of_range")) }
        let plaintextLength = bigEndian(bytes[37..<45])
        guard plaintextLength != 0 else { return .failure(Rejection(code: "empty_payload")) }
        // ceil(plaintextLength / chunkSize) in 128 bits: no overflow to reason about.
        let chunkCount = (UInt128(plaintextLength) + UInt128(chunkSize) - 1) / UInt128(chunkSize)
        guard chunkCount <= maximumChunkCount else { return .failure(Rejection(code: "too_many_chunks")) }
        let expectedFileSize = 45 + 20 * chunkCount + UInt128(plaintextLength)
        return .success(
            Layout(
                chunkSize: chunkSize, plaintextLength: plaintextLength, chunkCount: UInt64(chunkCount),
                expectedFileSize: UInt64(expectedFileSize)))
    }

    /// Checks 1 and 8 for a file of `fileSize` bytes whose header gives `layout`: shorter than the header
    /// comes first, then the size against the expected one.
    static func checkSize(_ fileSize: UInt64, of layout: Layout) -> Rejection? {
        if fileSize < UInt64(headerLength) { return Rejection(code: "short_header") }
        if fileSize < layout.expectedFileSize { return Rejection(code: "truncated") }
        if fileSize > layout.expectedFileSize { return Rejection(code: "trailing_data") }
        return nil
    }

    /// Checks 1–8 on a whole file, in order: the header and the file size.
    static func checkHeaderAndSize(of file: [UInt8]) -> Result<Layout, Rejection> {
        checkHeader(file).flatMap { layout in
            checkSize(UInt64(file.count), of: layout).map { .failure($0) } ?? .success(layout)
        }
    }

    /// Checks 1–9 on a whole file, in order: what every reader must report before it derives a key.
    static func checkStructure(of file: [UInt8]) -> Result<Layout, Rejection> {
        checkHeaderAndSize(of: file).flatMap { layout in
            for index in 0..<layout.chunkCount {
                let offset = Int(layout.prefixOffset(ofChunk: index))
                guard bigEndian(file[offset..<offset + 4]) == layout.plaintextLength(ofChunk: index) + tagLength else {
                    return .failure(Rejection(code: "chunk_length_invalid", chunkIndex: index))
                }
            }
            return .success(layout)
        }
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
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
