import GoshuinFormat

/// Which set, and which of its files, a file is, by what the set says the file held (`Spec/decisions/0048`):
/// a set that describes this very file (its 16 KiB MD5 and length) first, the one with the most usable
/// recovery slices; otherwise the candidate under which most of the file's bytes are intact. The choice then
/// needs evidence that the file is a copy of the set's file, intact or damaged: a part of it, not all zeros,
/// that holds at its place what the set's file held there. Without any, the set is for another file
/// (`recovery_set_mismatch`): a backup sealed again under the same name, beside the old backup's set.
struct SetMatching {
    /// The file, open for reading.
    let file: FileDescriptor
    /// Its path, for messages.
    let path: String
    /// Its length.
    let length: UInt64
    /// Its first 16 KiB (the whole file when shorter).
    let start: [UInt8]
    /// The workers of each pass.
    let workers: Int

    /// The file checked against the candidate it is a copy of.
    ///
    /// - Throws: `recovery_set_mismatch` when it is a copy of none; `io`, `interrupted`, `out_of_memory`.
    func survey(
        _ candidates: [RecoveryIndex], hashingWholeFile: Bool, progress: RecoveryProgressHandler?
    ) throws -> SliceSurvey {
        precondition(!candidates.isEmpty, "a set to match")
        let hash16k = try MD5Hasher.hash(start[...])
        let chosen: SliceSurvey
        let described = candidates.filter { $0.describes(hash16k: hash16k, length: length) }
        if let best = described.max(by: { $0.recoverySlices.count < $1.recoverySlices.count }) {
            chosen = try survey(best, hashingWholeFile: hashingWholeFile, progress: progress)
        } else {
            // The whole file's MD5 cannot match a set that does not describe the file: no candidate needs it.
            var surveys: [SliceSurvey] = []
            do {
                for candidate in candidates {
                    surveys.append(try survey(candidate, hashingWholeFile: false, progress: progress))
                }
            } catch {
                for other in surveys { other.close() }
                throw error
            }
            let best = bestIndex(surveys)
            for (position, other) in surveys.enumerated() where position != best { other.close() }
            chosen = surveys[best]
        }
        do {
            guard try hasEvidence(chosen, hash16k: hash16k) || isAllZero() else {
                throw Self.anotherFile(chosen, path: path)
            }
        } catch {
            chosen.close()
            throw error
        }
        return chosen
    }

    /// `recovery_set_mismatch` for a file none of whose parts the set's file held.
    static func anotherFile(_ survey: SliceSurvey, path: String) -> GoshuinError {
        let name = String(decoding: survey.index.targetFile.description.name, as: UTF8.self)
        return GoshuinError(
            .recoverySetMismatch,
            "the recovery set was made for another file: no part of \(DisplayText.quoted(path)) is what the set"
                + " describes (the file it protects, named \(DisplayText.quoted(name)), of"
                + " \(survey.index.targetFile.description.length) bytes, was replaced, by a new backup sealed under"
                + " the same name, for example)")
    }

    private func survey(
        _ candidate: RecoveryIndex, hashingWholeFile: Bool, progress: RecoveryProgressHandler?
    ) throws -> SliceSurvey {
        try SliceSurvey.survey(
            file: file, path: path, actualLength: length, index: candidate, hashingWholeFile: hashingWholeFile,
            workers: workers, progress: progress)
    }

    /// The survey with the most intact bytes, then the most usable recovery slices, then the first.
    private func bestIndex(_ surveys: [SliceSurvey]) -> Int {
        var best = 0
        for index in surveys.indices.dropFirst() {
            let (one, other) = (surveys[index], surveys[best])
            if (one.intactBytes, one.index.recoverySlices.count) > (other.intactBytes, other.index.recoverySlices.count)
            {
                best = index
            }
        }
        return best
    }

    /// Whether some part of the file that is not all zeros is what the set's file held there: its first
    /// 16 KiB, an intact slice, or, when the set can rebuild every unknown slice, a 512-byte block of one.
    private func hasEvidence(_ survey: SliceSurvey, hash16k: [UInt8]) throws -> Bool {
        let target = survey.index.targetFile
        let startIsZero = start.withUnsafeBytes { ByteSearch.isAllZero($0) }
        if target.description.hash16k == hash16k, !startIsZero { return true }
        if survey.states.contains(.intact), let checksums = target.checksums {
            let zero = try Self.zeroSliceChecksum(sliceSize: survey.index.sliceSize)
            for (slice, state) in survey.states.enumerated() where state == .intact {
                if checksums.checksums[slice] != zero { return true }
            }
        }
        guard survey.damagedCount > 0 else { return false }
        let rebuild: SliceRebuild
        do {
            rebuild = try SliceRebuild(survey, path: path)
        } catch let error as GoshuinError where error.code == .notRepairable || error.code == .truncated {
            return false
        }
        return try rebuild.someBlockMatches(file: file, path: path, workers: workers)
    }

    /// Whether every byte of the file is zero (an empty file too): such a file holds nothing of another one.
    private func isAllZero() throws -> Bool {
        let buffer = try AllocatedBytes(count: SequentialHashChain.blockSize, wipesOnRelease: false)
        var offset: UInt64 = 0
        while offset < length {
            try Interruption.check()
            let count = Int(min(UInt64(buffer.bytes.count), length - offset))
            let received = try describingFailure("cannot read \(DisplayText.quoted(path))") {
                try file.readFully(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<count]), atOffset: Int64(offset))
            }
            guard ByteSearch.isAllZero(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<received])) else {
                return false
            }
            guard received == count else { return true }
            offset += UInt64(count)
        }
        return true
    }

    /// The MD5 and CRC-32 of a slice of zeros: a slice that matches it is no evidence of anything.
    static func zeroSliceChecksum(sliceSize: UInt64) throws -> SliceChecksumPacket.Checksum {
        let hasher = try MD5Hasher()
        var crc = CRC32()
        let zeros = try AllocatedBytes(
            count: Int(min(sliceSize, UInt64(SequentialHashChain.blockSize))), wipesOnRelease: false)
        zeros.bytes.initializeMemory(as: UInt8.self, repeating: 0)
        var done: UInt64 = 0
        while done < sliceSize {
            try Interruption.check()
            let count = Int(min(UInt64(zeros.bytes.count), sliceSize - done))
            let part = UnsafeRawBufferPointer(rebasing: zeros.bytes[0..<count])
            try hasher.update(part)
            crc.update(part)
            done += UInt64(count)
        }
        return SliceChecksumPacket.Checksum(md5: try hasher.finalize(), crc32: crc.value)
    }
}
