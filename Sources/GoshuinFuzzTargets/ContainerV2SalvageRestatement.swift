/// `Spec/container-v2.md` §7.3 (with `Spec/container-v1.md` §7.4, step 6) written out again from the text:
/// what a salvaging reader of a version 2 file reports. Checks 1–7 as always; check 8 is not a verdict (a last
/// record shorter than a tag is the final record **missing**); then the header MAC; then every record present
/// is authenticated in its place, and the ones that fail are **damaged**.
enum ContainerV2SalvageRestatement {
    /// The records a salvaging reader finds in a file that passed checks 1–7.
    struct Survey: Equatable {
        /// `chunkSize`.
        let chunkSize: UInt64
        /// `n`, from the file size as §3 says.
        let recordCount: UInt64
        /// `r`, 0 … S − 1.
        let lastRecordLength: UInt64

        /// `S`.
        var fullRecordLength: UInt64 { chunkSize + ContainerV2SpecRestatement.tagLength }
        /// Whether the final record is missing: the last record is shorter than a tag (step 2).
        var finalRecordIsMissing: Bool { lastRecordLength < ContainerV2SpecRestatement.tagLength }
        /// The records present: all `n`, or records 0 … n − 2 when the final one is missing.
        var presentRecordCount: UInt64 { finalRecordIsMissing ? recordCount - 1 : recordCount }
        /// The payload bytes the file still places: up to the end of the last present record's plaintext.
        var payloadLength: UInt64 {
            finalRecordIsMissing
                ? (recordCount - 1) * chunkSize
                : (recordCount - 1) * chunkSize + lastRecordLength - ContainerV2SpecRestatement.tagLength
        }

        /// Record `index` (present) in its place: a record of `S` bytes with `f = 00`, the last one of
        /// 16 … S − 1 bytes with `f = 01` (step 4).
        func record(_ index: UInt64) -> ContainerV2SpecRestatement.RecordPlace {
            let isFinal = index == recordCount - 1
            return ContainerV2SpecRestatement.RecordPlace(
                index: index, offset: ContainerV2SpecRestatement.headerLength + index * fullRecordLength,
                length: isFinal ? lastRecordLength : fullRecordLength, isFinal: isFinal)
        }

        /// The payload bytes record `index` holds, or held: empty for a missing final record.
        func payloadRange(ofRecord index: UInt64) -> Range<UInt64> {
            let start = index * chunkSize
            guard index == recordCount - 1 else { return start..<start + chunkSize }
            return start..<start + (finalRecordIsMissing ? 0 : lastRecordLength - ContainerV2SpecRestatement.tagLength)
        }
    }

    /// A run of lost payload bytes: its range, its records, and whether they are damaged or missing.
    struct LostRange: Equatable, CustomStringConvertible {
        /// The payload's bytes.
        let bytes: Range<UInt64>
        /// The records, first to last.
        let chunks: ClosedRange<UInt64>
        /// `damaged` or `missing`.
        let state: String

        /// `chunks 2…3 damaged, bytes 2048..<4096`.
        var description: String { "chunks \(chunks) \(state), bytes \(bytes)" }
    }

    /// What the salvage reports once the MAC verified.
    struct Report: Equatable {
        /// The present records that fail, ascending.
        let damagedChunks: [UInt64]
        /// The final record's index when it is missing.
        let firstMissingChunk: UInt64?
        /// The lost ranges, ascending, adjacent records of one state merged.
        let lostRanges: [LostRange]
    }

    /// Step 1, checks 1–7 (checks 1–3 passed: version 2), and the records the file size gives.
    static func checkHeader(headerBytes: [UInt8], fileSize: UInt64) -> Result<Survey, SpecRejection> {
        ContainerV2SpecRestatement.checkHeader(headerBytes: headerBytes, fileSize: fileSize).map { records in
            Survey(
                chunkSize: records.chunkSize, recordCount: records.recordCount,
                lastRecordLength: records.lastRecordLength)
        }
    }

    /// Steps 4–5 once the MAC verified: the present records that do not authenticate in their place are damaged,
    /// a missing final record is reported by its index with an empty range.
    static func report(
        of survey: Survey, recordAuthenticates: (ContainerV2SpecRestatement.RecordPlace) -> Bool
    ) -> Report {
        let damaged = (0..<survey.presentRecordCount).filter { !recordAuthenticates(survey.record($0)) }
        var runs: [(chunks: ClosedRange<UInt64>, state: String)] = []
        for index in damaged {
            if let last = runs.last, last.chunks.upperBound + 1 == index {
                runs[runs.count - 1].chunks = last.chunks.lowerBound...index
            } else {
                runs.append((index...index, "damaged"))
            }
        }
        let missing = survey.finalRecordIsMissing ? survey.recordCount - 1 : nil
        if let missing { runs.append((missing...missing, "missing")) }
        let ranges = runs.map { run in
            LostRange(
                bytes: survey.payloadRange(ofRecord: run.chunks.lowerBound)
                    .lowerBound..<survey.payloadRange(ofRecord: run.chunks.upperBound).upperBound,
                chunks: run.chunks, state: run.state)
        }
        return Report(damagedChunks: damaged, firstMissingChunk: missing, lostRanges: ranges)
    }
}
