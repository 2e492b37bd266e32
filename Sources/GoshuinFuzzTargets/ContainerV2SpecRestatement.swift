/// `Spec/container-v2.md` §2, §3, §7, §8 and §10.4 written out again from the text, sharing no code and no
/// constant with `GoshuinFormat`, so that a harness compares the library's verdicts with the spec's own.
///
/// Checks 1–3 are those both versions share (``ContainerReaderRestatement``), which sent the file here because
/// its version byte is 2; here are checks 4–8, the layout the file size gives, and the verdict once the keys
/// are derived: the header MAC (check 9), then the lowest record that fails (§7.1), and what an in-order reader
/// has released by then (§8). Every value derived from the file size is computed in 128 bits.
enum ContainerV2SpecRestatement {
    /// §2: the header's length, the MAC included.
    static let headerLength: UInt64 = 77
    /// §5: the GCM tag that ends every record.
    static let tagLength: UInt64 = 16
    /// §2.1: the bounds of `kdfIterations`.
    static let iterationBounds: ClosedRange<UInt64> = 1_000...2_000_000
    /// §2.1: the bounds of `chunkSize`.
    static let chunkSizeBounds: ClosedRange<UInt64> = 1_024...67_108_864
    /// §3: at most 2^32 records, the record index being a u32 in the nonce.
    static let maximumRecordCount: UInt128 = 4_294_967_296
    /// §2: bytes 5–8, `kdfIterations`.
    static let iterationsBytes = 5..<9
    /// §2: bytes 9–24, `kdfSalt`.
    static let kdfSaltBytes = 9..<25
    /// §2: bytes 25–40, `payloadSalt`.
    static let payloadSaltBytes = 25..<41
    /// §2: bytes 41–44, `chunkSize`.
    static let chunkSizeBytes = 41..<45
    /// §2: bytes 45–76, `headerMac`, over bytes 0–44.
    static let headerMacBytes = 45..<77

    /// One record's place in a file: where it lies and whether it is sealed as the final one (`f = 01`, §5).
    struct RecordPlace: Equatable {
        /// Its index `i`.
        let index: UInt64
        /// `recordOffset(i)`.
        let offset: UInt64
        /// `recordLength(i)`.
        let length: UInt64
        /// Whether its nonce's flag is `01`: it is the last record.
        let isFinal: Bool
    }

    /// The layout §3 derives from the chunk size and the size of a file that passes checks 1–8.
    struct Layout: Equatable {
        /// `chunkSize`.
        let chunkSize: UInt64
        /// `n`, 1 … 2^32.
        let recordCount: UInt64
        /// `r`, 16 … S − 1.
        let lastRecordLength: UInt64

        /// `S`, the size of every record but the last.
        var fullRecordLength: UInt64 { chunkSize + ContainerV2SpecRestatement.tagLength }
        /// The size of the file: the header and every record.
        var fileSize: UInt64 {
            ContainerV2SpecRestatement.headerLength + (recordCount - 1) * fullRecordLength + lastRecordLength
        }
        /// `payloadLength = (n − 1)·chunkSize + r − 16`.
        var payloadLength: UInt64 {
            (recordCount - 1) * chunkSize + lastRecordLength - ContainerV2SpecRestatement.tagLength
        }
        /// The index of the last record, `n − 1`.
        var finalRecord: UInt64 { recordCount - 1 }

        /// Record `index`'s place: at `77 + i·S`, `S` bytes long but the last (`r`), flagged when last.
        func record(_ index: UInt64) -> RecordPlace {
            RecordPlace(
                index: index, offset: ContainerV2SpecRestatement.headerLength + index * fullRecordLength,
                length: index < finalRecord ? fullRecordLength : lastRecordLength, isFinal: index == finalRecord)
        }

        /// The payload bytes record `index` holds: `[i·chunkSize, i·chunkSize + recordLength(i) − 16)`.
        func payloadRange(ofRecord index: UInt64) -> Range<UInt64> {
            let start = index * chunkSize
            return start..<start + record(index).length - ContainerV2SpecRestatement.tagLength
        }
    }

    /// §3's `n` and `r` for any chunk size and a file of at least 77 bytes, before any check on them:
    /// `B = fileSize − 77`, `n = ⌊B / S⌋ + 1`, `r = B − (n − 1)·S`.
    static func impliedRecords(chunkSize: UInt64, fileSize: UInt64) -> (count: UInt128, last: UInt128) {
        let body = UInt128(fileSize) - UInt128(headerLength)
        let fullRecord = UInt128(chunkSize) + UInt128(tagLength)
        let count = body / fullRecord + 1
        return (count, body - (count - 1) * fullRecord)
    }

    /// Checks 4–7 of a file of `fileSize` bytes starting with `headerBytes` (checks 1–3 passed: version 2):
    /// the whole header, the bounds, at most 2^32 records. Returns `n` and `r`, with `r` possibly below 16.
    static func checkHeader(headerBytes: [UInt8], fileSize: UInt64) -> Result<
        (chunkSize: UInt64, recordCount: UInt64, lastRecordLength: UInt64), SpecRejection
    > {
        guard min(fileSize, UInt64(headerBytes.count)) >= headerLength else {
            return .failure(SpecRejection(code: "short_header"))
        }
        guard iterationBounds.contains(bigEndian(headerBytes[iterationsBytes])) else {
            return .failure(SpecRejection(code: "iterations_out_of_range"))
        }
        let chunkSize = bigEndian(headerBytes[chunkSizeBytes])
        guard chunkSizeBounds.contains(chunkSize) else {
            return .failure(SpecRejection(code: "chunk_size_out_of_range"))
        }
        let (count, last) = impliedRecords(chunkSize: chunkSize, fileSize: fileSize)
        guard count <= maximumRecordCount else { return .failure(SpecRejection(code: "too_many_chunks")) }
        return .success((chunkSize, UInt64(count), UInt64(last)))
    }

    /// Checks 4–8, in order: ``checkHeader(headerBytes:fileSize:)``, then a last record of at least a tag.
    static func checkHeaderAndSize(headerBytes: [UInt8], fileSize: UInt64) -> Result<Layout, SpecRejection> {
        checkHeader(headerBytes: headerBytes, fileSize: fileSize).flatMap { records in
            guard records.lastRecordLength >= tagLength else { return .failure(SpecRejection(code: "truncated")) }
            return .success(
                Layout(
                    chunkSize: records.chunkSize, recordCount: records.recordCount,
                    lastRecordLength: records.lastRecordLength))
        }
    }

    /// The verdict of a file that passed checks 1–8 (§7 check 9, §7.1).
    enum Verdict: Equatable, CustomStringConvertible {
        /// Every record authenticated.
        case success
        /// The header MAC did not verify (check 9): nothing is released.
        case authFailed
        /// The MAC verified and record `index` is the lowest that fails.
        case chunkDamaged(UInt64)

        /// The error a reader throws for it, `nil` for success.
        var rejection: SpecRejection? {
            switch self {
            case .success: return nil
            case .authFailed: return SpecRejection(code: "auth_failed")
            case .chunkDamaged(let index): return SpecRejection(code: "chunk_damaged", chunkIndex: index)
            }
        }

        /// `success`, or the error's description.
        var description: String { rejection?.description ?? "success" }
    }

    /// §7.1: `auth_failed` when the MAC fails, whatever the records; once it verified, `chunk_damaged` at the
    /// lowest record that does not authenticate in its place, never `auth_failed`, and no probe.
    static func verdict(
        of layout: Layout, macVerifies: Bool, recordAuthenticates: (RecordPlace) -> Bool
    ) -> Verdict {
        guard macVerifies else { return .authFailed }
        for index in 0..<layout.recordCount where !recordAuthenticates(layout.record(index)) {
            return .chunkDamaged(index)
        }
        return .success
    }

    /// §8: the bytes an in-order reader released when it gave `verdict`: all of the payload on success,
    /// records 0 … L − 1 (`L · chunkSize` bytes) for `chunk_damaged` at L, nothing after `auth_failed`.
    static func releasedLength(by verdict: Verdict, of layout: Layout) -> UInt64 {
        switch verdict {
        case .success: return layout.payloadLength
        case .authFailed: return 0
        case .chunkDamaged(let index): return index * layout.chunkSize
        }
    }

    /// §10.4: the result of appending `count` (≥ 1) bytes to an intact file of `layout`: `chunk_damaged` at the
    /// old final index when `r + k < S` (the last record is read longer) or `(r + k) mod S ≥ 16` (the old final
    /// record is read as a full record), `truncated` otherwise.
    static func verdictAfterAppending(_ count: UInt64, to layout: Layout) -> SpecRejection {
        let last = UInt128(layout.lastRecordLength) + UInt128(count)
        let fullRecord = UInt128(layout.fullRecordLength)
        if last < fullRecord || last % fullRecord >= UInt128(tagLength) {
            return SpecRejection(code: "chunk_damaged", chunkIndex: layout.finalRecord)
        }
        return SpecRejection(code: "truncated")
    }

    /// The unsigned big-endian integer in `bytes` (at most 8 of them).
    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        ContainerReaderRestatement.bigEndian(bytes)
    }
}
