import GoshuinFormat

/// One vector run through every reader and sealer of the toolkit, collecting each disagreement with what
/// the vector says (`Spec/vectors-v1.md` §3): the key; the verdict, chunk index and released plaintext of
/// the streaming, parallel and random-access readers; that opening to a file leaves nothing; and, for a
/// success vector, the bytes of the streaming, the parallel and the piecewise sealer.
struct VectorRun {
    let vector: KnownAnswerVector
    /// The vector's folder, where its plaintext file is.
    let folder: VectorFolder
    /// The vector's `.goshuin` file, open; every reader reads it at offsets.
    let file: FileDescriptor

    /// Workers for the parallel reader and sealer: more than one, so the parallel paths really run.
    static let workerCount = 4

    /// The readers every vector goes through, in the order they are run and reported.
    static let readerNames = [
        "streaming reader", "parallel reader", "random-access reader (in order)",
        "random-access reader (final chunk first)",
    ]

    private var passphrase: Passphrase { Passphrase(bytes: vector.passphraseBytes) }

    /// What a pass means for this vector, naming what ran: the verdict every reader gave, and the sealers
    /// (or why they did not run).
    var passDescription: String {
        let verdict: String
        switch vector.expect {
        case .success: verdict = "success"
        case .failure(let code): verdict = code.rawValue + (vector.chunkIndex.map { " at chunk \($0)" } ?? "")
        }
        let readers = verdict + " from all \(Self.readerNames.count) readers"
        guard vector.expect == .success else { return readers }
        return readers + (resealRefusal.map { "; \($0)" } ?? ", re-sealed by all \(Sealer.allCases.count) sealers")
    }

    /// Runs the vector through every reader and, for a success vector, every sealer, adding each
    /// disagreement once to `problems` (readers or sealers that computed the same are one problem) and to
    /// `notes` what it could not check.
    func compute(fileSha256: [UInt8], problems: inout [VectorProblem], notes: inout [String]) -> VectorComputation {
        let key =
            (try? KeyDerivation.deriveKey(passphrase: passphrase, salt: vector.salt, iterations: vector.iterations))?
            .exposedBytes ?? []
        if key != vector.key {
            problems.append(
                VectorProblem(
                    check: "key (PBKDF2-HMAC-SHA256 of the passphrase, salt and iterations)",
                    expected: Hex.encode(vector.key), computed: Hex.encode(key)))
        }
        if vector.containerVersion == .v2 { checkDerivedKeys(problems: &problems) }
        let readers = [
            streaming(), parallel(), randomAccess(finalChunkFirst: false), randomAccess(finalChunkFirst: true),
        ]
        assert(readers.map(\.reader) == Self.readerNames, "the readers as listed")
        problems += compare(readers)
        if case .failure = vector.expect { checkNoOutputLeft(problems: &problems) }
        var reseals: [(sealer: String, sha256: [UInt8], firstDifference: String?)] = []
        if case .success = vector.expect {
            if let refusal = resealRefusal {
                notes.append(refusal)
            } else {
                var outcomes: [(subject: String, computed: String)] = []
                for sealer in Sealer.allCases {
                    do {
                        let result = try reseal(with: sealer)
                        reseals.append((sealer.rawValue, result.sha256, result.firstDifference))
                        if let difference = result.firstDifference {
                            outcomes.append(
                                (
                                    sealer.rawValue,
                                    "SHA-256 \(Hex.encode(result.sha256)), first different byte \(difference)"
                                ))
                        }
                    } catch {
                        outcomes.append((sealer.rawValue, "an error: \(error)"))
                    }
                }
                for group in Self.grouped(outcomes) {
                    let sealers = Self.naming(group.by, among: Sealer.allCases.map(\.rawValue), all: "every sealer")
                    problems.append(
                        VectorProblem(
                            check: "re-seal by \(sealers) of the plaintext with the vector's parameters",
                            expected: "the bytes of \(vector.file), SHA-256 \(Hex.encode(vector.fileSha256))",
                            computed: group.computed, by: group.by))
                }
            }
        }
        return VectorComputation(key: key, fileSha256: fileSha256, readers: readers, reseals: reseals)
    }

    /// Why the toolkit's sealers cannot re-seal this success vector, when they cannot: its passphrase is one
    /// they refuse (empty, as every writer must; or past the toolkit's own bound). Its file is still opened by
    /// every reader, which is what a reader of the format owes it (`Spec/vectors-v1.md` §3, step 5).
    private var resealRefusal: String? {
        do {
            _ = try HeaderDraft.checkedForSealing(passphrase)
            return nil
        } catch let error as GoshuinError where error.code == .emptyPassphrase {
            return "not re-sealed: its passphrase is empty, which every writer must refuse (container-v1.md §4);"
                + " a reader must open such a file, and every reader here was run on it"
        } catch {
            return "not re-sealed: its passphrase has \(vector.passphraseBytes.count) bytes, more than the"
                + " \(Passphrase.maximumLength) goshuin-toolkit seals with (its own bound, not the format's:"
                + " container-v1.md §4.1); every reader here was run on it"
        }
    }

    /// The known mistakes of another implementation that the vector's file shows (``VectorDiagnosis``),
    /// under `key`, the one the vector's passphrase gives.
    func diagnose(key: [UInt8]) -> [VectorDiagnosis] {
        guard key.count == AES256GCM.keyLength else { return [] }
        return VectorDiagnoser(file: file, passphraseKey: SecretBytes(copying: key)).diagnose()
    }

    /// `every NOUN (a, b, c)` when `subjects` are all of `among` (more than one), else `a, b` after
    /// `article`.
    static func naming(_ subjects: [String], among: [String], all: String, article: String = "the ") -> String {
        let list = subjects.joined(separator: ", ")
        return subjects.count > 1 && subjects == among ? "\(all) (\(list))" : article + list
    }

    /// What each subject (a reader, a sealer) computed, grouped: each value once, in the order first met,
    /// with the subjects that computed it.
    static func grouped(_ outcomes: [(subject: String, computed: String)]) -> [(computed: String, by: [String])] {
        var groups: [(computed: String, by: [String])] = []
        for outcome in outcomes {
            if let index = groups.firstIndex(where: { $0.computed == outcome.computed }) {
                groups[index].by.append(outcome.subject)
            } else {
                groups.append((outcome.computed, [outcome.subject]))
            }
        }
        return groups
    }

    /// Version 2's HKDF steps, each from the vector's stated `key`, so an HKDF mistake is told from a PBKDF2
    /// one (`Spec/vectors-v1.md` §5.3).
    private func checkDerivedKeys(problems: inout [VectorProblem]) {
        let keys = try? ContainerKeys(
            passphraseKey: SecretBytes(copying: vector.key), version: .v2, payloadSalt: vector.payloadSalt)
        let derived: [(name: String, info: String, stated: [UInt8], computed: [UInt8])] = [
            ("headerKey", "goshuin/v2/header-mac", vector.headerKey, keys?.headerKey?.exposedBytes ?? []),
            ("payloadKey", "goshuin/v2/payload", vector.payloadKey, keys?.payloadKey.exposedBytes ?? []),
        ]
        for key in derived where key.stated != key.computed {
            problems.append(
                VectorProblem(
                    check: "\(key.name) (HKDF-SHA256 of the stated key, payloadSalt, \"\(key.info)\")",
                    expected: Hex.encode(key.stated), computed: Hex.encode(key.computed)))
        }
    }

    // MARK: - Readers

    private typealias ReaderResult = VectorComputation.ReaderResult

    private static func result(_ reader: String, _ error: Error?, released: (length: UInt64, sha256: [UInt8])?)
        -> ReaderResult
    {
        guard let error else {
            return ReaderResult(reader: reader, verdict: "success", chunkIndex: nil, released: released)
        }
        guard let error = error as? GoshuinError else {
            return ReaderResult(reader: reader, verdict: "error: \(error)", chunkIndex: nil, released: released)
        }
        return ReaderResult(
            reader: reader, verdict: error.code.rawValue, chunkIndex: error.chunkIndex, released: released)
    }

    /// ``ContainerOpener``: chunks in order, each released as it authenticates.
    private func streaming() -> ReaderResult {
        guard let sink = try? DigestSink() else { return Self.result("streaming reader", nil, released: nil) }
        do {
            try ContainerOpener.open(file, passphrase: passphrase) { try sink.update($0) }
            return Self.result("streaming reader", nil, released: try? sink.finish())
        } catch {
            return Self.result("streaming reader", error, released: try? sink.finish())
        }
    }

    /// ``ParallelChunks`` through ``ContainerOpener/open(_:to:passphrase:workerCount:progress:)``: the chunks
    /// below a failure are the ones it wrote and authenticated.
    private func parallel() -> ReaderResult {
        do {
            let output = try FileSystem.anonymousFile()
            return try output.closeAfter {
                do {
                    try ContainerOpener.open(file, to: output, passphrase: passphrase, workerCount: Self.workerCount)
                    return Self.result("parallel reader", nil, released: try VectorChecker.digest(of: output, from: 0))
                } catch let error as GoshuinError {
                    var releasedLength: UInt64 = 0
                    if error.code == .chunkDamaged, let index = error.chunkIndex {
                        releasedLength = index * UInt64(vector.chunkSize)
                    }
                    let released = try VectorChecker.digest(of: output, from: 0, count: releasedLength)
                    return Self.result("parallel reader", error, released: released)
                }
            }
        } catch {
            return Self.result("parallel reader", error, released: nil)
        }
    }

    /// ``DecryptingReader``, read chunk by chunk from the start; with `finalChunkFirst` it authenticates the
    /// final chunk when opened, as it does for a backup, and its verdict alone is compared.
    private func randomAccess(finalChunkFirst: Bool) -> ReaderResult {
        let name = finalChunkFirst ? "random-access reader (final chunk first)" : "random-access reader (in order)"
        guard let sink = try? DigestSink() else { return Self.result(name, nil, released: nil) }
        do {
            let reader = try DecryptingReader(
                file, passphrase: passphrase, authenticatingFinalChunkFirst: finalChunkFirst)
            let layout = reader.header.layout
            let buffer = try AllocatedBytes(count: layout.largestChunkLength, wipesOnRelease: true)
            for index in 0..<layout.chunkCount {
                let piece = UnsafeMutableRawBufferPointer(
                    rebasing: buffer.bytes[0..<layout.plaintextLength(ofChunk: index)])
                guard try reader.readExactly(at: layout.plaintextOffset(ofChunk: index), into: piece) else {
                    throw GoshuinError(.io, "the random-access reader came back short")
                }
                try sink.update(UnsafeRawBufferPointer(piece))
            }
            try reader.confirmEnd()
            return Self.result(name, nil, released: finalChunkFirst ? nil : try? sink.finish())
        } catch {
            return Self.result(name, error, released: finalChunkFirst ? nil : try? sink.finish())
        }
    }

    /// The readers' disagreements with the vector, each once: the verdicts that differ from the expected
    /// one, then the released plaintexts that differ, each naming the readers that computed it.
    private func compare(_ readers: [ReaderResult]) -> [VectorProblem] {
        let expectedVerdict: String
        let expectedReleased: (length: UInt64, sha256: [UInt8])?
        switch vector.expect {
        case .success:
            expectedVerdict = "success"
            expectedReleased = (vector.plaintextLength, vector.plaintextSha256)
        case .failure(let code):
            expectedVerdict = code.rawValue + (vector.chunkIndex.map { " at chunk \($0)" } ?? "")
            expectedReleased = vector.releasedLength.flatMap { length in vector.releasedSha256.map { (length, $0) } }
        }
        let verdicts = readers.map { reader in
            (reader.reader, reader.verdict + (reader.chunkIndex.map { " at chunk \($0)" } ?? ""))
        }
        var problems = Self.grouped(verdicts.filter { $0.1 != expectedVerdict }).map { group in
            VectorProblem(
                check: Self.naming(group.by, among: Self.readerNames, all: "every reader", article: ""),
                expected: expectedVerdict, computed: group.computed, by: group.by)
        }
        guard let expectedReleased else { return problems }
        let inOrder = readers.filter { $0.released != nil }.map(\.reader)
        let released = readers.compactMap { reader in
            reader.released.flatMap { released in
                released.length != expectedReleased.length || released.sha256 != expectedReleased.sha256
                    ? (reader.reader, VectorChecker.describe(released.length, released.sha256)) : nil
            }
        }
        let what = vector.expect == .success ? "plaintext opened by" : "plaintext released before failing by"
        problems += Self.grouped(released).map { group in
            VectorProblem(
                check: "\(what) \(Self.naming(group.by, among: inOrder, all: "every in-order reader"))",
                expected: VectorChecker.describe(expectedReleased.length, expectedReleased.sha256),
                computed: group.computed, by: group.by)
        }
        return problems
    }

    /// Opening to a path must fail and leave nothing in the destination's directory.
    private func checkNoOutputLeft(problems: inout [VectorProblem]) {
        guard let scratch = try? FileSystem.makeTemporaryDirectory(prefix: "goshuin-check-") else { return }
        defer { FileSystem.removeEmptyDirectory(scratch) }
        _ = try? GoshuinFile.open(file, outputPath: scratch + "/payload", passphrase: passphrase)
        let leftovers = (try? FileSystem.directoryEntries(scratch)) ?? []
        for leftover in leftovers { FileSystem.removeFile(scratch + "/" + leftover) }
        if !leftovers.isEmpty {
            problems.append(
                VectorProblem(
                    check: "opening to a file", expected: "nothing left behind",
                    computed: leftovers.joined(separator: ", ")))
        }
    }

    // MARK: - Sealers

    /// The toolkit's sealers, each run on every success vector.
    package enum Sealer: String, CaseIterable {
        /// ``ContainerSealer``'s sequential path: chunks in order, for streams of known length.
        case sequential = "streaming sealer"
        /// ``ParallelChunks``: chunks on every core at their offsets.
        case parallel = "parallel sealer"
        /// ``StreamingSealer``: the payload handed over piece by piece, as a folder or a pipe is sealed; in
        /// version 2 without its length announced.
        case piecewise = "piecewise sealer"
    }

    /// Seals the plaintext with the vector's parameters through `sealer`; returns the output's SHA-256 and,
    /// where it differs from the vector's file, the first different byte.
    private func reseal(with sealer: Sealer) throws -> (sha256: [UInt8], firstDifference: String?) {
        let plaintext = try plaintextDescriptor()
        return try plaintext.closeAfter {
            let output = try FileSystem.anonymousFile()
            return try output.closeAfter {
                let parameters =
                    vector.containerVersion == .v1
                    ? SealParameters(
                        iterations: vector.iterations, chunkSize: vector.chunkSize, fixedSalt: vector.salt,
                        fixedNonceBase: vector.nonceBase)
                    : SealParameters(
                        iterations: vector.iterations, chunkSize: vector.chunkSize, fixedSalt: vector.salt,
                        fixedPayloadSalt: vector.payloadSalt)
                let announced = vector.containerVersion == .v1 || sealer != .piecewise ? vector.plaintextLength : nil
                let keyed = try parameters.draft(plaintextLength: announced).key(with: passphrase)
                let header: Header
                switch sealer {
                case .sequential, .parallel:
                    header = try keyed.header(plaintextLength: vector.plaintextLength)
                    if sealer == .parallel {
                        try ParallelChunks.seal(
                            from: plaintext, to: output, key: keyed.keys.payloadKey, header: header,
                            workerCount: Self.workerCount, progress: nil)
                    } else {
                        try ContainerSealer.seal(
                            from: plaintext, to: output, key: keyed.keys.payloadKey, header: header)
                    }
                case .piecewise:
                    let streaming = try StreamingSealer(
                        into: output, header: keyed, plaintextLength: announced, workerCount: Self.workerCount,
                        observer: nil, progress: nil)
                    _ = try streaming.append(readingFrom: plaintext, count: announced ?? .max)
                    header = try streaming.finish()
                }
                let sha256 = try VectorChecker.digest(of: output, from: 0).sha256
                guard sha256 != vector.fileSha256 else { return (sha256, nil) }
                let offset = try Self.firstDifference(output, file)
                return (sha256, offset.map { Self.location(of: $0, header: header) })
            }
        }
    }

    private func plaintextDescriptor() throws -> FileDescriptor {
        switch vector.plaintext {
        case .file(let name):
            return try folder.openRegularFile(name)
        case .bytes(let bytes):
            let descriptor = try FileSystem.anonymousFile()
            do {
                try describingFailure("cannot write a temporary file") {
                    try descriptor.writeAll(bytes)
                    try descriptor.seek(to: 0)
                }
            } catch {
                try? descriptor.close()
                throw error
            }
            return descriptor
        }
    }

    /// The first offset at which the two files differ (one ending first counts), `nil` if they are equal.
    private static func firstDifference(_ one: FileDescriptor, _ other: FileDescriptor) throws -> UInt64? {
        let first = try AllocatedBytes(count: 1 << 16, wipesOnRelease: false)
        let second = try AllocatedBytes(count: 1 << 16, wipesOnRelease: false)
        var offset: UInt64 = 0
        while true {
            let count = try one.readFully(into: first.bytes, atOffset: Int64(offset))
            let otherCount = try other.readFully(into: second.bytes, atOffset: Int64(offset))
            let common = min(count, otherCount)
            if let index = (0..<common).first(where: { first.bytes[$0] != second.bytes[$0] }) {
                return offset + UInt64(index)
            }
            if count != otherCount { return offset + UInt64(common) }
            if count == 0 { return nil }
            offset += UInt64(count)
        }
    }

    /// Where `offset` falls in a file with `header`.
    static func location(of offset: UInt64, header: Header) -> String {
        VectorRunLocation.describe(offset, layout: header.layout)
    }
}
