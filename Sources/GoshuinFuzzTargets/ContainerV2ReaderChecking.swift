import GoshuinFormat

/// The invariants of every reader (``ContainerReaderOutcomes``) on a file whose version byte is 2, or that is
/// refused before its version's rules: `Spec/container-v2.md` §7 (checks 1–8, then the MAC, then the lowest
/// failing record, the same from every reader whatever its order), §8 (what an in-order reader released),
/// §9.1 (a random-access read returns authenticated bytes or the file's verdict) and §7.3 (salvage).
///
/// Which records authenticate is what the reader reading from the start saw, record by record; a harness that
/// knows (it sealed the file) also requires that to be the truth.
enum ContainerV2ReaderChecking {
    /// What the harness knows of the file beyond its bytes.
    struct Knowledge {
        /// Whether the header MAC verifies under the passphrase (the harness made it, or knows the header is the
        /// sealer's); it matters only to a file that passes checks 1–7.
        let macVerifies: Bool
        /// Whether a record authenticates in a place, when the harness knows; `nil` when only the readers can
        /// tell.
        let recordAuthenticates: ((ContainerV2SpecRestatement.RecordPlace) -> Bool)?
        /// The payload the file was sealed from, when known: a byte any reader gives at an offset is its byte
        /// there.
        let plaintext: [UInt8]?
    }

    /// The payload ranges of the records of `file`, by index, when it passes checks 1–8 as version 2: what the
    /// random-access readers read; none otherwise.
    static func recordRanges(of file: [UInt8]) -> [Range<UInt64>] {
        guard case .success(.two(let layout)) = ContainerReaderRestatement.checkStructure(of: file) else { return [] }
        return (0..<layout.recordCount).map { layout.payloadRange(ofRecord: $0) }
    }

    /// Checks `outcomes` of `file`. A file whose version byte is 1 is its caller's to judge (after checks 1–3,
    /// version 1's rules apply).
    static func check(
        _ file: [UInt8], _ outcomes: ContainerReaderOutcomes, knowledge: Knowledge, invariants: InvariantCheck
    ) {
        requireReadingCodes(outcomes, invariants: invariants)
        if let inspection = outcomes.inspection {
            ContainerInspectionChecking.check(inspection, of: file, invariants: invariants)
        }
        switch ContainerReaderRestatement.checkStructure(of: file) {
        case .failure(let rejection):
            for (reader, error) in outcomes.openingErrors {
                invariants.require(
                    error.asRejection == rejection,
                    "\(reader) gives \(error.verdictText), the checks before the key give \(rejection)")
            }
            invariants.require(
                outcomes.streamed.isEmpty && outcomes.parallelWritten.isEmpty,
                "bytes released from a file refused before any key")
        case .success(.one):
            return
        case .success(.two(let layout)):
            checkVersionTwo(file, outcomes, layout: layout, knowledge: knowledge, invariants: invariants)
        }
        if case .success(.two) = ContainerReaderRestatement.checkVersion(
            headerBytes: file, fileSize: UInt64(file.count))
        {
            checkSalvage(file, outcomes, knowledge: knowledge, invariants: invariants)
        } else if case .failure(let rejection) = ContainerReaderRestatement.checkVersion(
            headerBytes: file, fileSize: UInt64(file.count))
        {
            invariants.require(
                outcomes.salvage.error.asRejection == rejection,
                "the salvage gives \(outcomes.salvage.error.verdictText), checks 1–3 give \(rejection)")
        }
    }

    /// Every error any reader threw has a reading code.
    static func requireReadingCodes(_ outcomes: ContainerReaderOutcomes, invariants: InvariantCheck) {
        var errors = [
            outcomes.streamingError, outcomes.parallelError, outcomes.finalChunkFirst.openingError,
            outcomes.fromTheStart.openingError, outcomes.salvage.error, outcomes.fromTheStart.endConfirmation ?? nil,
        ]
        for reads in [outcomes.finalChunkFirst.reads, outcomes.fromTheStart.reads] {
            for case .failure(let error) in reads.values { errors.append(error) }
        }
        for case let error? in errors {
            invariants.require(
                ContainerReaderRestatement.readingErrorCodes.contains(error.code.rawValue),
                "a reader failed with \(error), which is not a reading code")
        }
    }

    /// A version 2 file that passed checks 1–8: the MAC decides `auth_failed`; once it verified, every reader
    /// gives `chunk_damaged` at the lowest record that fails, or success, and only authenticated bytes.
    static func checkVersionTwo(
        _ file: [UInt8], _ outcomes: ContainerReaderOutcomes, layout: ContainerV2SpecRestatement.Layout,
        knowledge: Knowledge, invariants: InvariantCheck
    ) {
        guard knowledge.macVerifies else {
            for (reader, error) in [
                ("the streaming open", outcomes.streamingError), ("the parallel open", outcomes.parallelError),
                ("the final-chunk-first reader", outcomes.finalChunkFirst.openingError),
                ("the from-the-start reader", outcomes.fromTheStart.openingError),
            ] {
                invariants.require(
                    error.asRejection == SpecRejection(code: "auth_failed"),
                    "\(reader) gives \(error.verdictText) for a header whose MAC fails: check 9 says auth_failed")
            }
            invariants.require(
                outcomes.streamed.isEmpty && outcomes.parallelWritten.isEmpty, "bytes released before auth_failed")
            return
        }
        let authentic = observedAuthenticity(outcomes.fromTheStart, layout: layout, invariants: invariants)
        if let truth = knowledge.recordAuthenticates {
            for index in 0..<layout.recordCount {
                invariants.require(
                    authentic[Int(index)] == truth(layout.record(index)),
                    "record \(index) \(authentic[Int(index)] ? "authenticates" : "fails") in a random-access read,"
                        + " but the sealer's records say otherwise")
            }
        }
        let verdict = ContainerV2SpecRestatement.verdict(of: layout, macVerifies: true) { authentic[Int($0.index)] }
        let expected = verdict.rejection
        let released = ContainerV2SpecRestatement.releasedLength(by: verdict, of: layout)
        // The payload as the from-the-start reader read it, record by record.
        let recordBytes = outcomes.fromTheStart.reads.compactMapValues { try? $0.get() }

        invariants.require(
            outcomes.streamingError.asRejection == expected,
            "the streaming open gives \(outcomes.streamingError.verdictText), §7.1 says \(verdict)")
        invariants.require(
            UInt64(outcomes.streamed.count) == released,
            "the streaming open released \(outcomes.streamed.count) bytes for \(verdict), §8 says \(released)")
        let lowestFailing: UInt64 = {
            if case .chunkDamaged(let index) = verdict { index } else { layout.recordCount }
        }()
        let authenticPrefix = (0..<lowestFailing).flatMap { recordBytes[$0] ?? [] }
        invariants.require(
            outcomes.streamed == authenticPrefix,
            "the streaming open released other bytes than the records a random-access read authenticated")
        invariants.require(
            outcomes.parallelError.asRejection == expected,
            "the parallel open gives \(outcomes.parallelError.verdictText), §7.1 says \(verdict)")
        invariants.require(
            expected != nil || outcomes.parallelWritten == outcomes.streamed,
            "the parallel open wrote other bytes than the streaming one released")

        let finalIsAuthentic = authentic[Int(layout.finalRecord)]
        let finalFirst = outcomes.finalChunkFirst
        invariants.require(
            finalFirst.openingError.asRejection == (finalIsAuthentic ? nil : expected),
            "the final-chunk-first reader opens with \(finalFirst.openingError.verdictText) when the final record"
                + " \(finalIsAuthentic ? "authenticates" : "fails"): §7.1 says \(finalIsAuthentic ? "success" : verdict.description)"
        )
        for (index, read) in finalFirst.reads {
            switch read {
            case .success(let bytes):
                invariants.require(
                    authentic[Int(index)] && bytes == recordBytes[index],
                    "the final-chunk-first reader read record \(index) otherwise than the from-the-start one")
            case .failure(let error):
                invariants.require(
                    !authentic[Int(index)] && SpecRejection(error) == expected,
                    "reading record \(index) at random gives \(error.code.rawValue), §7.1 says \(verdict)")
            }
        }
        for case .failure(let error) in outcomes.fromTheStart.reads.values {
            invariants.require(
                SpecRejection(error) == expected, "a read from the start gives \(error), §7.1 says \(verdict)")
        }
        if let plaintext = knowledge.plaintext {
            for (index, bytes) in recordBytes {
                let range = layout.payloadRange(ofRecord: index)
                invariants.require(
                    range.upperBound <= UInt64(plaintext.count)
                        && bytes == Array(plaintext[Int(range.lowerBound)..<Int(range.upperBound)]),
                    "record \(index) authenticated but its bytes are not the sealed plaintext's")
            }
        }
    }

    /// Which records authenticate, as the random-access reader reading from the start saw them: a read of each
    /// record holding bytes, `confirmEnd()` for an empty final one (or the opening itself, for an empty payload,
    /// which the reader authenticates at once). Its errors are checked against the verdict by the caller.
    static func observedAuthenticity(
        _ reader: ContainerReaderOutcomes.RandomAccess, layout: ContainerV2SpecRestatement.Layout,
        invariants: InvariantCheck
    ) -> [Bool] {
        if let error = reader.openingError {
            invariants.require(
                layout.payloadLength == 0
                    && SpecRejection(error) == SpecRejection(code: "chunk_damaged", chunkIndex: 0),
                "the from-the-start reader of a file whose MAC verifies refused it with \(error)")
            return [false]
        }
        var authentic: [Bool] = []
        for index in 0..<layout.recordCount {
            if let read = reader.reads[index] {
                if case .success(let bytes) = read {
                    invariants.require(
                        UInt64(bytes.count) == layout.payloadRange(ofRecord: index).count,
                        "a read of record \(index) returned \(bytes.count) bytes")
                    authentic.append(true)
                } else {
                    authentic.append(false)
                }
            } else {
                invariants.require(
                    index == layout.finalRecord && layout.payloadRange(ofRecord: index).isEmpty,
                    "record \(index) was not read")
                guard case .some(let confirmation) = reader.endConfirmation else {
                    invariants.fail("the from-the-start reader did not confirm the end")
                }
                authentic.append(confirmation == nil)
            }
        }
        if case .some(.some(let error)) = reader.endConfirmation, authentic[Int(layout.finalRecord)] {
            invariants.fail("confirmEnd() gives \(error) although the final record authenticated when read")
        }
        if case .some(nil) = reader.endConfirmation, !authentic[Int(layout.finalRecord)] {
            invariants.fail("confirmEnd() succeeds although reading the final record failed")
        }
        return authentic
    }

    /// §7.3: the salvage of a file whose version byte is 2: refused by checks 1–7, `auth_failed` by the MAC,
    /// otherwise every present record judged in its place, the final one missing when the last record is shorter
    /// than a tag, and the payload written with zeros in the lost ranges.
    static func checkSalvage(
        _ file: [UInt8], _ outcomes: ContainerReaderOutcomes, knowledge: Knowledge, invariants: InvariantCheck
    ) {
        let salvage = outcomes.salvage
        let survey: ContainerV2SalvageRestatement.Survey
        switch ContainerV2SalvageRestatement.checkHeader(headerBytes: file, fileSize: UInt64(file.count)) {
        case .failure(let rejection):
            invariants.require(
                salvage.error.asRejection == rejection,
                "the salvage gives \(salvage.error.verdictText), checks 1–7 give \(rejection)")
            return
        case .success(let surveyed):
            survey = surveyed
        }
        guard knowledge.macVerifies else {
            invariants.require(
                salvage.error.asRejection == SpecRejection(code: "auth_failed"),
                "the salvage gives \(salvage.error.verdictText) for a header whose MAC fails: §7.3 says auth_failed")
            return
        }
        invariants.require(
            salvage.error == nil,
            "the salvage of a file of \(file.count) bytes whose MAC verifies gives \(salvage.error.verdictText):"
                + " §7.3 reports its \(survey.presentRecordCount) present records and"
                + " \(survey.finalRecordIsMissing ? "the final one missing" : "no missing one")")
        // Which present records authenticate: the sealer's truth, or what the from-the-start reader saw (the same
        // places when the final record is present), or else the salvage's own word.
        let authentic: (ContainerV2SpecRestatement.RecordPlace) -> Bool
        if let truth = knowledge.recordAuthenticates {
            authentic = truth
        } else if case .success(.two(let layout)) = ContainerReaderRestatement.checkStructure(of: file),
            outcomes.fromTheStart.openingError == nil || layout.payloadLength == 0
        {
            let observed = observedAuthenticity(outcomes.fromTheStart, layout: layout, invariants: invariants)
            authentic = { observed[Int($0.index)] }
        } else {
            authentic = { !salvage.damagedChunks.contains($0.index) }
        }
        let expected = ContainerV2SalvageRestatement.report(of: survey, recordAuthenticates: authentic)
        invariants.require(
            salvage.damagedChunks == expected.damagedChunks,
            "the salvage finds records \(salvage.damagedChunks) damaged, §7.3 says \(expected.damagedChunks)")
        invariants.require(
            salvage.firstMissingChunk == expected.firstMissingChunk,
            "the salvage's first missing record \(salvage.firstMissingChunk.map(String.init) ?? "none"),"
                + " §7.3 says \(expected.firstMissingChunk.map(String.init) ?? "none")")
        invariants.require(
            salvage.lostRanges == expected.lostRanges,
            "the salvage's lost ranges \(salvage.lostRanges), §7.3 says \(expected.lostRanges)")
        invariants.require(salvage.trailingBytes == 0, "the salvage ignores bytes after a version 2 file's records")
        invariants.require(
            salvage.plaintextLength == survey.payloadLength && UInt64(salvage.written.count) == survey.payloadLength,
            "the salvage places \(salvage.plaintextLength) bytes and writes \(salvage.written.count),"
                + " the present records hold \(survey.payloadLength)")
        guard UInt64(salvage.written.count) == survey.payloadLength else { return }
        for index in 0..<survey.presentRecordCount {
            let range = survey.payloadRange(ofRecord: index)
            let written = Array(salvage.written[Int(range.lowerBound)..<Int(range.upperBound)])
            if !authentic(survey.record(index)) {
                invariants.require(written.allSatisfy { $0 == 0 }, "the salvage wrote bytes of damaged record \(index)")
            } else if let plaintext = knowledge.plaintext {
                invariants.require(
                    range.upperBound <= UInt64(plaintext.count)
                        && written == Array(plaintext[Int(range.lowerBound)..<Int(range.upperBound)]),
                    "the salvage wrote other bytes than the sealed plaintext's for record \(index)")
            } else if case .success(let bytes)? = outcomes.fromTheStart.reads[index] {
                invariants.require(
                    written == bytes, "the salvage wrote other bytes than a random-access read for record \(index)")
            }
        }
    }
}
