import GoshuinFormat

extension FuzzHarness {
    /// A full open of the input as a `.goshuin` file of either version through the streaming API, with a fixed
    /// passphrase: it never crashes or hangs, fails only with a reading code, with exactly the code the spec's
    /// restated checks give before the key (version 1's 1–9, version 2's 1–8, chosen by the version byte alone),
    /// and releases only whole authenticated chunks (all of them exactly when it succeeds). The parallel open
    /// gives the same error, or writes the same payload, and the key-free `ContainerInspection`
    /// (`goshuin-tool inspect`) gives the verdict of checks 1–8 and the layout of §3.
    @_spi(Fuzzing) public static let containerOpen = FuzzHarness(name: "container-open") { input in
        _ = ContainerOpenChecking.openAndCheck(input, invariants: InvariantCheck(harness: "container-open"))
    }
}

/// Opens a file of either version through the public streaming API and checks what came out against
/// `Spec/container-v1.md` §7 or `Spec/container-v2.md` §7 and §8, and against the parallel open.
enum ContainerOpenChecking {
    /// The passphrase of most known-answer vectors, so their files open.
    static let passphrase = "correct horse battery staple"
    /// Above this many iterations the key is not derived from the header (it would cost up to a second): the
    /// structure is checked alone, then the chunks are opened with ``keyForCostlyHeaders``, which fails to
    /// authenticate them (and, in version 2, the header MAC) just as a key derived from a changed header would.
    static let largestDerivedIterationCount: UInt64 = 10_000
    /// The passphrase's key `K_pw` used instead of one derived from a costly header.
    static let keyForCostlyHeaders = SecretBytes(copying: [UInt8](repeating: 0x6B, count: 32))

    /// Workers of the parallel open: more than the chunks of most inputs' files, so some get none.
    static let parallelWorkerCount = 3

    /// What an open gave.
    struct Outcome {
        /// The bytes the streaming open released, in order.
        var released: [UInt8]
        /// Its error, `nil` when it succeeded.
        var error: GoshuinError?
        /// The parallel open of the same file, when it ran.
        var parallel: ParallelOutcome? = nil
        /// What `goshuin-tool inspect` says of the file.
        var inspection: ContainerInspection? = nil
    }

    /// What the parallel open gave.
    struct ParallelOutcome {
        /// The bytes it wrote.
        var written: [UInt8]
        /// Its error, `nil` when it succeeded.
        var error: GoshuinError?
    }

    /// Whether a reader derives the key of a file starting with `file` at a cost a fuzzer can pay for every
    /// input: at most ``largestDerivedIterationCount`` iterations (fewer are refused before the key anyway).
    static func derivesKeyCheaply(_ file: [UInt8]) -> Bool {
        file.count < 9 || ContainerReaderRestatement.bigEndian(file[5..<9]) <= largestDerivedIterationCount
    }

    /// Opens `file` and checks the outcome; returns it for further checks.
    static func openAndCheck(_ file: [UInt8], invariants: InvariantCheck) -> Outcome {
        let outcome = open(file, invariants: invariants)
        let released = UInt64(outcome.released.count)
        if let parallel = outcome.parallel {
            invariants.require(
                parallel.error == outcome.error,
                "the parallel open gives \(parallel.error.verdictText), the streaming one \(outcome.error.verdictText)")
            invariants.require(
                outcome.error != nil || parallel.written == outcome.released,
                "the parallel open wrote other bytes than the streaming one released")
        }
        if let inspection = outcome.inspection {
            ContainerInspectionChecking.check(inspection, of: file, invariants: invariants)
        }
        if let error = outcome.error {
            invariants.require(
                ContainerReaderRestatement.readingErrorCodes.contains(error.code.rawValue),
                "open failed with \(error.code.rawValue), which is not a reading code of §7")
        }
        switch ContainerReaderRestatement.checkStructure(of: file) {
        case .failure(let rejection):
            invariants.require(
                outcome.error.asRejection == rejection,
                "open gave \(outcome.error.verdictText), the checks before the key give \(rejection)")
            invariants.require(released == 0, "\(released) bytes released from a file refused before any key")
        case .success(.one(let layout)):
            checkVersionOneOutcome(outcome, of: file, layout: layout, invariants: invariants)
        case .success(.two(let layout)):
            checkVersionTwoOutcome(outcome, of: file, layout: layout, invariants: invariants)
        }
        return outcome
    }

    /// A version 1 file that passed checks 1–9: success releases the whole payload of a file of the size §3
    /// gives, `auth_failed` releases nothing, `chunk_damaged` at i releases chunks 0 … i − 1 (§7.1, §7.3).
    static func checkVersionOneOutcome(
        _ outcome: Outcome, of file: [UInt8], layout: ContainerSpecRestatement.Layout, invariants: InvariantCheck
    ) {
        let released = UInt64(outcome.released.count)
        guard let error = outcome.error else {
            invariants.require(
                UInt64(file.count) == 45 + 20 * layout.chunkCount + layout.plaintextLength,
                "a file of \(file.count) bytes opened but its header describes another size")
            invariants.require(
                released == layout.plaintextLength,
                "open succeeded releasing \(released) of \(layout.plaintextLength) bytes")
            return
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
            invariants.fail("a version 1 file that passes checks 1–9 failed with \(error.code.rawValue)")
        }
    }

    /// A version 2 file that passed checks 1–8: success releases the whole payload the size implies (the file
    /// has `77 + P + 16·n` bytes, §3), `auth_failed` (the MAC, check 9) releases nothing, `chunk_damaged` at
    /// L < n releases records 0 … L − 1, `L · chunkSize` bytes (§7.1, §8); no other code.
    static func checkVersionTwoOutcome(
        _ outcome: Outcome, of file: [UInt8], layout: ContainerV2SpecRestatement.Layout, invariants: InvariantCheck
    ) {
        let released = UInt64(outcome.released.count)
        let verdict: ContainerV2SpecRestatement.Verdict
        switch outcome.error.asRejection {
        case nil:
            invariants.require(
                UInt64(file.count) == 77 + layout.payloadLength + 16 * layout.recordCount,
                "a version 2 file of \(file.count) bytes opened, but \(layout.recordCount) records of a"
                    + " \(layout.payloadLength)-byte payload take another size")
            verdict = .success
        case SpecRejection(code: "auth_failed")?:
            verdict = .authFailed
        case let rejection? where rejection.code == "chunk_damaged":
            guard let index = rejection.chunkIndex, index < layout.recordCount else {
                invariants.fail("chunk_damaged names record \(rejection.chunkIndex.map(String.init) ?? "none")")
            }
            verdict = .chunkDamaged(index)
        case let rejection?:
            invariants.fail("a version 2 file that passes checks 1–8 failed with \(rejection)")
        }
        let expected = ContainerV2SpecRestatement.releasedLength(by: verdict, of: layout)
        invariants.require(
            released == expected, "\(released) bytes released for \(verdict), §8 says \(expected)")
    }

    /// Opens `file` through `ContainerOpener`, collecting what it releases; when the key is derived and the
    /// structure is valid, also decrypts it into a file with the parallel workers. Any error other
    /// than a ``GoshuinError`` breaks an invariant.
    static func open(_ file: [UInt8], invariants: InvariantCheck) -> Outcome {
        ScratchFile.withFile(containing: file, invariants: invariants) { input in
            let derivesKey = derivesKeyCheaply(file)
            var released: [UInt8] = []
            let error = goshuinError(of: "the streaming open", invariants: invariants) {
                if derivesKey {
                    try ContainerOpener.open(input, passphrase: Passphrase(passphrase)) { released += $0 }
                } else {
                    try openWithoutDerivingKey(input) { released += $0 }
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

    /// What a reader does with a costly header once it has a key: the structure checked, then the keys made
    /// from ``keyForCostlyHeaders`` in place of a derived `K_pw`, version 2's header MAC verified with them, and
    /// the chunks authenticated in order.
    static func openWithoutDerivingKey(_ input: FileDescriptor, release: (UnsafeRawBufferPointer) throws -> Void)
        throws
    {
        let header = try ContainerStructure.validate(input)
        let keys = try ContainerKeys(
            passphraseKey: keyForCostlyHeaders, version: header.version, payloadSalt: header.payloadSalt)
        if case .v2(let fields, _) = header.fields, try !keys.verifiesHeader(fields) {
            throw GoshuinError.headerMacFailed
        }
        try ChunkPipeline.inOrder(input, header: header, key: keys.payloadKey, progress: nil, release: release)
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
