import GoshuinFormat

/// Which set, and which of its files, a file is, by what the set says the file held (`Spec/decisions/0048`):
/// the candidates that describe this very file (its 16 KiB MD5 and length) first, the one with the most usable
/// recovery slices before the others; otherwise the candidates by how much of the file is intact under them.
/// The first candidate with evidence that the file is a copy of its file, intact or damaged, is taken:
/// bytes of the file, at least ``evidenceBytes`` of them not zero, that are what the set's file held at their
/// place. Without any, the set is for another file (`recovery_set_mismatch`): a backup sealed again under the
/// same name, beside the old backup's set.
///
/// The work is bounded (`Spec/decisions/0049`): at most ``RecoveryIndex/candidateLimit`` candidates, the
/// file's slices hashed once per slice size for at most ``sliceSizeLimit`` of them, and at most
/// ``rebuildLimit`` rebuilds to compare blocks with.
struct SetMatching {
    /// The bytes not zero that evidence must hold: a piece of the file matching by chance is then as likely
    /// as an MD5 collision (a slice or a block of one byte matches one time in 256).
    static let evidenceBytes = 16
    /// The most slice sizes the file is hashed at to weigh candidates.
    static let sliceSizeLimit = 4
    /// The most candidates rebuilt to look for an equal block (rule 3).
    static let rebuildLimit = 4
    /// The blocks compared with a rebuilt file.
    static let blockSize: UInt64 = 512

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

    /// The file checked against the candidate it is a copy of, with the other files of that set.
    ///
    /// - Throws: `recovery_set_mismatch` when it is a copy of none; `io`, `interrupted`, `out_of_memory`.
    func survey(
        _ candidates: [RecoveryIndex], hashingWholeFile: Bool, progress: RecoveryProgressHandler?
    ) throws -> SliceSurvey {
        precondition(!candidates.isEmpty, "a set to match")
        let hash16k = try MD5Hasher.hash(start[...])
        let startIsEvidence = start.lazy.filter { $0 != 0 }.prefix(Self.evidenceBytes).count == Self.evidenceBytes
        var hashed: [SliceKey: FileSlices] = [:]
        func slices(for candidate: RecoveryIndex) throws -> FileSlices? {
            let key = SliceKey(candidate, actualLength: length)
            if let known = hashed[key] { return known }
            guard hashed.count < Self.sliceSizeLimit else { return nil }
            let computed = try FileSlices.hash(
                file, path: path, sliceSize: key.sliceSize, readable: key.readable,
                hashingWholeFile: hashingWholeFile && key.readable == length, workers: workers, progress: progress)
            hashed[key] = computed
            return computed
        }
        // Weighed without the other files of their sets: those are read only for the candidate taken.
        var weighed: [(candidate: RecoveryIndex, slices: FileSlices, survey: SliceSurvey)] = []
        let described = candidates.filter { $0.describes(hash16k: hash16k, length: length) }
        for candidate in described.isEmpty ? candidates : described {
            guard let fileSlices = try slices(for: candidate) else { continue }
            let survey = try SliceSurvey.survey(
                fileSlices, file: file, path: path, actualLength: length, index: candidate, otherFiles: false,
                workers: workers, progress: progress)
            weighed.append((candidate, fileSlices, survey))
        }
        // Stable: the first read wins a tie.
        let ranked = weighed.indices.sorted { one, other in
            let (first, second) = (weighed[one].survey, weighed[other].survey)
            let firstWeight = (first.intactBytes, first.index.recoverySlices.count)
            let secondWeight = (second.intactBytes, second.index.recoverySlices.count)
            return firstWeight == secondWeight ? one < other : firstWeight > secondWeight
        }.map { weighed[$0] }
        var rebuilds = 0
        for (candidate, fileSlices, weighedSurvey) in ranked {
            let described = candidate.describes(hash16k: hash16k, length: length) && startIsEvidence
            if described || weighedSurvey.nonZeroIntactBytes >= Self.evidenceBytes {
                return try full(candidate, fileSlices, progress: progress)
            }
            guard rebuilds < Self.rebuildLimit, weighedSurvey.damagedCount > 0 else { continue }
            rebuilds += 1
            let survey = try full(candidate, fileSlices, progress: progress)
            do {
                if try someBlocksMatch(survey) { return survey }
            } catch {
                survey.close()
                throw error
            }
            survey.close()
        }
        guard let first = ranked.first else {
            throw Self.anotherFile(candidates[0], path: path)
        }
        guard try isAllZero() else { throw Self.anotherFile(first.candidate, path: path) }
        // A file of zeros holds nothing of another file: a damaged copy of the first candidate's.
        return try full(first.candidate, first.slices, progress: progress)
    }

    /// `recovery_set_mismatch` for a file none of whose parts the set's file held.
    static func anotherFile(_ index: RecoveryIndex, path: String) -> GoshuinError {
        let name = String(decoding: index.targetFile.description.name, as: UTF8.self)
        return GoshuinError(
            .recoverySetMismatch,
            "the recovery set was made for another file: no part of \(DisplayText.quoted(path)) is what the set"
                + " describes (the file it protects, named \(DisplayText.quoted(name)), of"
                + " \(index.targetFile.description.length) bytes, was replaced, by a new backup sealed under the"
                + " same name, for example)")
    }

    /// The survey of the candidate taken, with the other files of its set.
    private func full(_ candidate: RecoveryIndex, _ slices: FileSlices, progress: RecoveryProgressHandler?) throws
        -> SliceSurvey
    {
        try SliceSurvey.survey(
            slices, file: file, path: path, actualLength: length, index: candidate, otherFiles: true,
            workers: workers, progress: progress)
    }

    /// Rule 3: when the set can rebuild every unknown slice, whether blocks of the file that are what the
    /// rebuilt file holds at their place hold ``evidenceBytes`` bytes that are not zero.
    private func someBlocksMatch(_ survey: SliceSurvey) throws -> Bool {
        let rebuild: SliceRebuild
        do {
            rebuild = try SliceRebuild(survey, path: path)
        } catch let error as GoshuinError where error.code == .notRepairable || error.code == .truncated {
            return false
        }
        return try rebuild.blocksMatch(
            file: file, path: path, blockSize: Self.blockSize, nonZeroBytes: Self.evidenceBytes, workers: workers)
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
}

/// What the file's slices are hashed for: a slice size, as far as the file and the set's description both
/// reach.
private struct SliceKey: Hashable {
    let sliceSize: UInt64
    let readable: UInt64

    init(_ candidate: RecoveryIndex, actualLength: UInt64) {
        sliceSize = candidate.sliceSize
        readable = SliceSurvey.readableLength(of: candidate, actualLength: actualLength)
    }
}
