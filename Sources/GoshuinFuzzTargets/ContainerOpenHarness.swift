import GoshuinFormat

extension FuzzHarness {
    /// A full open of the input as a `.goshuin` file through the streaming API, with a fixed passphrase: it
    /// never crashes or hangs, fails only with a reading code of §7, with exactly the code the spec's restated
    /// checks 1–9 give, and releases only whole authenticated chunks (all of them exactly when it succeeds).
    /// The parallel open of `GoshuinFile.decrypt` gives the same error, or writes the same payload, and the
    /// key-free `ContainerInspection` (`goshuin-tool inspect`) gives the verdict of checks 1–8.
    @_spi(Fuzzing) public static let containerOpen = FuzzHarness(name: "container-open") { input in
        _ = ContainerOpenChecking.openAndCheck(input, invariants: InvariantCheck(harness: "container-open"))
    }
}

/// Opens a file through the public streaming API and checks what came out against `Spec/container-v1.md` §7
/// and against the parallel open.
enum ContainerOpenChecking {
    /// The passphrase of most known-answer vectors, so their files open.
    static let passphrase = "correct horse battery staple"
    /// Above this many iterations the key is not derived from the header (it would cost up to a second): the
    /// structure is checked alone, then the chunks are opened with ``keyForCostlyHeaders``, which fails to
    /// authenticate them just as a key derived from a changed header would.
    static let largestDerivedIterationCount: UInt64 = 10_000
    static let keyForCostlyHeaders = SecretBytes(copying: [UInt8](repeating: 0x6B, count: 32))

    /// Workers of the parallel open: more than the chunks of most inputs' files, so some get none.
    static let parallelWorkerCount = 3

    /// What an open gave.
    struct Outcome {
        var released: [UInt8]
        var error: GoshuinError?
        /// The parallel open of the same file, when it ran.
        var parallel: ParallelOutcome? = nil
        /// What `goshuin-tool inspect` says of the file.
        var inspection: ContainerInspection? = nil
    }

    /// What the parallel open gave.
    struct ParallelOutcome {
        var written: [UInt8]
        var error: GoshuinError?
    }

    /// Opens `file` and checks the outcome; returns it for further checks.
    static func openAndCheck(_ file: [UInt8], invariants: InvariantCheck) -> Outcome {
        let outcome = open(file, invariants: invariants)
        let released = UInt64(outcome.released.count)
        if let parallel = outcome.parallel {
            invariants.require(
                parallel.error == outcome.error,
                "the parallel open gives \(parallel.error?.description ?? "success"), the streaming one"
                    + " \(outcome.error?.description ?? "success")")
            invariants.require(
                outcome.error != nil || parallel.written == outcome.released,
                "the parallel open wrote other bytes than the streaming one released")
        }
        if let inspection = outcome.inspection { checkInspection(inspection, of: file, invariants: invariants) }
        if let error = outcome.error {
            invariants.require(
                ContainerSpecRestatement.readingErrorCodes.contains(error.code.rawValue),
                "open failed with \(error.code.rawValue), which is not a reading code of §7")
        }
        switch ContainerSpecRestatement.checkStructure(of: file) {
        case .failure(let rejection):
            let actual = outcome.error.map {
                ContainerSpecRestatement.Rejection(code: $0.code.rawValue, chunkIndex: $0.chunkIndex)
            }
            invariants.require(
                actual == rejection, "open gave \(actual?.description ?? "success"), checks 1–9 give \(rejection)")
            invariants.require(released == 0, "\(released) bytes released from a file refused before any key")
        case .success(let layout):
            guard let error = outcome.error else {
                invariants.require(
                    UInt64(file.count) == 45 + 20 * layout.chunkCount + layout.plaintextLength,
                    "a file of \(file.count) bytes opened but its header describes another size")
                invariants.require(
                    released == layout.plaintextLength,
                    "open succeeded releasing \(released) of \(layout.plaintextLength) bytes")
                return outcome
            }
            invariants.require(
                released % layout.chunkSize == 0 && released < layout.plaintextLength,
                "\(released) bytes released before \(error.code.rawValue): not whole chunks short of the payload")
            switch error.code.rawValue {
            case "auth_failed":
                invariants.require(error.chunkIndex == nil, "auth_failed names a chunk")
                invariants.require(released == 0, "\(released) bytes released before auth_failed")
            case "chunk_damaged":
                guard let index = error.chunkIndex, index < layout.chunkCount else {
                    invariants.fail("chunk_damaged names chunk \(error.chunkIndex.map(String.init) ?? "none")")
                }
                invariants.require(
                    released == index * layout.chunkSize, "\(released) bytes released before chunk \(index) failed")
            default:
                invariants.fail("a file that passes checks 1–9 failed with \(error.code.rawValue)")
            }
        }
        return outcome
    }

    /// The key-free inspection: its verdict is that of checks 1–8, its numbers those of §3.
    static func checkInspection(_ inspection: ContainerInspection, of file: [UInt8], invariants: InvariantCheck) {
        let verdict = ContainerSpecRestatement.checkHeaderAndSize(of: file)
        let expected: String
        switch verdict {
        case .success: expected = "consistent"
        case .failure(let rejection): expected = rejection.code
        }
        invariants.require(
            inspection.verdict == expected, "inspection says \(inspection.verdict), checks 1–8 say \(expected)")
        invariants.require(inspection.fileSize == UInt64(file.count), "inspection's file size")
        invariants.require(
            (inspection.fields == nil) == (file.count < ContainerSpecRestatement.headerLength),
            "inspection shows fields exactly for files of 45 bytes or more")
        invariants.require(
            inspection.chunkCount.map { UInt128($0) } == ContainerSpecRestatement.impliedChunkCount(ofHeader: file),
            "inspection's chunk count \(inspection.chunkCount.map(String.init) ?? "none") differs from §3")
        if case .success(let layout) = ContainerSpecRestatement.checkHeader(file) {
            invariants.require(
                inspection.expectedFileSize == layout.expectedFileSize, "inspection's expected file size")
        } else {
            invariants.require(inspection.expectedFileSize == nil, "an expected size for a refused header")
        }
    }

    /// Opens `file` through `ContainerOpener`, collecting what it releases; when the key is derived and the
    /// structure is valid, also decrypts it into a file with the parallel workers. Any error other
    /// than a ``GoshuinError`` breaks an invariant.
    static func open(_ file: [UInt8], invariants: InvariantCheck) -> Outcome {
        ScratchFile.withFile(containing: file, invariants: invariants) { input in
            let iterations = file.count >= 9 ? ContainerSpecRestatement.bigEndian(file[5..<9]) : 0
            let derivesKey = iterations <= largestDerivedIterationCount
            var released: [UInt8] = []
            let error = goshuinError(of: "the streaming open", invariants: invariants) {
                if derivesKey {
                    try ContainerOpener.open(input, passphrase: Passphrase(passphrase)) { released += $0 }
                } else {
                    let header = try ContainerStructure.validate(input)
                    try ChunkPipeline.inOrder(input, header: header, key: keyForCostlyHeaders, progress: nil) {
                        released += $0
                    }
                }
            }
            var outcome = Outcome(released: released, error: error)
            do {
                outcome.inspection = try ContainerInspection(input)
            } catch {
                invariants.fail("inspecting a regular file threw \(error)")
            }
            if derivesKey, (try? ContainerStructure.validate(input)) != nil {
                outcome.parallel = decryptInParallel(input, invariants: invariants)
            }
            return outcome
        }
    }

    /// The open into a scratch file with several workers: its error, and what it wrote.
    static func decryptInParallel(_ input: FileDescriptor, invariants: InvariantCheck) -> ParallelOutcome {
        ScratchFile.withFile(containing: [], invariants: invariants) { output in
            let error = goshuinError(of: "the parallel open", invariants: invariants) {
                try ContainerOpener.open(
                    input, to: output, passphrase: Passphrase(passphrase), workerCount: parallelWorkerCount)
            }
            return ParallelOutcome(written: ScratchFile.contents(of: output, invariants: invariants), error: error)
        }
    }

    /// The ``GoshuinError`` `body` throws, `nil` when it returns; any other error breaks an invariant.
    static func goshuinError(
        of operation: String, invariants: InvariantCheck, _ body: () throws -> Void
    ) -> GoshuinError? {
        do {
            try body()
            return nil
        } catch let error as GoshuinError {
            return error
        } catch {
            invariants.fail("\(operation) threw \(error), not a GoshuinError")
        }
    }
}
