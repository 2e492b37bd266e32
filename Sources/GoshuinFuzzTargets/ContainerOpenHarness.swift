import GoshuinFormat

extension FuzzHarness {
    /// A full open of the input as a `.goshuin` file through the streaming API, with a fixed passphrase: it
    /// never crashes or hangs, fails only with a reading code of §7, with exactly the code the spec's restated
    /// checks 1–9 give, and releases only whole authenticated chunks (all of them exactly when it succeeds).
    public static let containerOpen = FuzzHarness(name: "container-open") { input in
        _ = ContainerOpenChecking.openAndCheck(input, invariants: InvariantCheck(harness: "container-open"))
    }
}

/// Opens a file through the public streaming API and checks what came out against `Spec/container-v1.md` §7.
enum ContainerOpenChecking {
    /// The passphrase of most known-answer vectors, so their files open.
    static let passphrase = "correct horse battery staple"
    /// Above this many iterations the key is not derived from the header (it would cost up to a second): the
    /// structure is checked alone, then the chunks are opened with ``keyForCostlyHeaders``, which fails to
    /// authenticate them just as a key derived from a changed header would.
    static let largestDerivedIterationCount: UInt64 = 10_000
    static let keyForCostlyHeaders = SecretBytes(copying: [UInt8](repeating: 0x6B, count: 32))

    /// What an open gave.
    struct Outcome {
        var released: [UInt8] = []
        var error: GoshuinError?
    }

    /// Opens `file` and checks the outcome; returns it for further checks.
    static func openAndCheck(_ file: [UInt8], invariants: InvariantCheck) -> Outcome {
        let outcome = open(file, invariants: invariants)
        let released = UInt64(outcome.released.count)
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

    /// Opens `file` through `ContainerOpener`, collecting what it releases; any error other than a
    /// ``GoshuinError`` breaks an invariant.
    static func open(_ file: [UInt8], invariants: InvariantCheck) -> Outcome {
        ScratchFile.withFile(containing: file, invariants: invariants) { input in
            var outcome = Outcome()
            do {
                let iterations = file.count >= 9 ? ContainerSpecRestatement.bigEndian(file[5..<9]) : 0
                if iterations > largestDerivedIterationCount {
                    let header = try ContainerStructure.validate(input)
                    try ContainerOpener.open(input, header: header, key: keyForCostlyHeaders) {
                        outcome.released += $0
                    }
                } else {
                    try ContainerOpener.open(input, passphrase: Passphrase(passphrase)) { outcome.released += $0 }
                }
            } catch let error as GoshuinError {
                outcome.error = error
            } catch {
                invariants.fail("open threw \(error), not a GoshuinError")
            }
            return outcome
        }
    }
}
