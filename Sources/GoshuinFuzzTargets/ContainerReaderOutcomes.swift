import GoshuinFormat

/// What every reader of the library made of one file under one passphrase: the streaming opener, the parallel
/// opener, the random-access reader authenticating the final chunk first and the one reading from the start
/// (then confirming the end), the salvaging reader, and the key-free inspection. Each is run through the entry point a caller uses, so
/// each derives the key itself; the harnesses compare their outcomes with the spec's restatement and with each
/// other.
struct ContainerReaderOutcomes {
    /// What one random-access reader gave.
    struct RandomAccess {
        /// The error that refused the file when the reader was made; `nil` when it opened.
        var openingError: GoshuinError?
        /// For each record read (by index): its plaintext, or the error reading it threw.
        var reads: [UInt64: Result<[UInt8], GoshuinError>] = [:]
        /// What `confirmEnd()` gave, when it was called (the reader reading from the start, once it opened).
        var endConfirmation: GoshuinError?? = nil
    }

    /// What the salvaging reader gave.
    struct Salvage {
        /// The error that refused the file; `nil` when it was surveyed.
        var error: GoshuinError?
        /// The damaged chunks, ascending.
        var damagedChunks: [UInt64] = []
        /// The first missing chunk.
        var firstMissingChunk: UInt64? = nil
        /// The bytes it ignored after the last chunk.
        var trailingBytes: UInt64 = 0
        /// The payload length it places chunks in.
        var plaintextLength: UInt64 = 0
        /// Its lost ranges, as the restatement writes them.
        var lostRanges: [ContainerV2SalvageRestatement.LostRange] = []
        /// The payload it wrote: every intact chunk at its offset, zeros elsewhere.
        var written: [UInt8] = []
    }

    /// The bytes `ContainerOpener.open(_:passphrase:release:)` released, in order.
    var streamed: [UInt8] = []
    /// Its error.
    var streamingError: GoshuinError?
    /// The bytes `ContainerOpener.open(_:to:passphrase:workerCount:)` wrote.
    var parallelWritten: [UInt8] = []
    /// Its error.
    var parallelError: GoshuinError?
    /// `DecryptingReader` authenticating the final chunk first, its records read from the last to the first.
    var finalChunkFirst = RandomAccess()
    /// `DecryptingReader` not authenticating the final chunk first, its records read in order, then
    /// `confirmEnd()`.
    var fromTheStart = RandomAccess()
    /// `ContainerSalvage`, then `write(into:)`.
    var salvage = Salvage()
    /// Each reader that opens the file as a whole, named, with the error it gave when it opened.
    var openingErrors: [(reader: String, error: GoshuinError?)] {
        [
            ("the streaming open", streamingError), ("the parallel open", parallelError),
            ("the final-chunk-first reader", finalChunkFirst.openingError),
            ("the from-the-start reader", fromTheStart.openingError),
        ]
    }
    /// `ContainerInspection`, which needs no key.
    var inspection: ContainerInspection?

    /// Workers of the parallel open: more than the records of most inputs' files, so some get none.
    static let parallelWorkerCount = 3

    /// Runs every reader on `file` with `passphrase`; the random-access readers read the records whose payload
    /// ranges are `recordRanges` (by index, the empty ones skipped). Any error other than a ``GoshuinError``
    /// breaks an invariant.
    static func read(
        _ file: [UInt8], passphrase: String, recordRanges: [Range<UInt64>], invariants: InvariantCheck
    ) -> ContainerReaderOutcomes {
        ScratchFile.withFile(containing: file, invariants: invariants) { input in
            var outcomes = ContainerReaderOutcomes()
            var streamed: [UInt8] = []
            outcomes.streamingError = error(of: "the streaming open", invariants) {
                try ContainerOpener.open(input, passphrase: Passphrase(passphrase)) { streamed += $0 }
            }
            outcomes.streamed = streamed
            (outcomes.parallelWritten, outcomes.parallelError) = ScratchFile.withFile(
                containing: [], invariants: invariants
            ) { output in
                let error = error(of: "the parallel open", invariants) {
                    try ContainerOpener.open(
                        input, to: output, passphrase: Passphrase(passphrase), workerCount: parallelWorkerCount)
                }
                return (ScratchFile.contents(of: output, invariants: invariants), error)
            }
            let indices = recordRanges.indices.filter { !recordRanges[$0].isEmpty }
            outcomes.finalChunkFirst = readAtRandom(
                input, passphrase: passphrase, finalChunkFirst: true, ranges: recordRanges,
                order: indices.reversed(), invariants: invariants)
            outcomes.fromTheStart = readAtRandom(
                input, passphrase: passphrase, finalChunkFirst: false, ranges: recordRanges, order: indices,
                invariants: invariants)
            outcomes.salvage = salvage(input, passphrase: passphrase, invariants: invariants)
            do {
                outcomes.inspection = try ContainerInspection(input)
            } catch {
                invariants.fail("inspecting a regular file threw \(error)")
            }
            return outcomes
        }
    }

    /// A `DecryptingReader` of `input`: made, then asked for each record of `order`, then (when it does not
    /// authenticate the final chunk first) asked to confirm the end.
    static func readAtRandom(
        _ input: FileDescriptor, passphrase: String, finalChunkFirst: Bool, ranges: [Range<UInt64>], order: [Int],
        invariants: InvariantCheck
    ) -> RandomAccess {
        var outcome = RandomAccess()
        let reader: DecryptingReader
        do {
            reader = try DecryptingReader(
                input, passphrase: Passphrase(passphrase), authenticatingFinalChunkFirst: finalChunkFirst)
        } catch let error as GoshuinError {
            outcome.openingError = error
            return outcome
        } catch {
            invariants.fail("making the random-access reader threw \(error), not a GoshuinError")
        }
        for index in order {
            let range = ranges[index]
            do {
                let bytes = try reader.read(at: range.lowerBound, count: Int(range.count))
                outcome.reads[UInt64(index)] = .success(bytes)
            } catch let error as GoshuinError {
                outcome.reads[UInt64(index)] = .failure(error)
            } catch {
                invariants.fail("a random-access read threw \(error), not a GoshuinError")
            }
        }
        if !finalChunkFirst {
            outcome.endConfirmation = .some(error(of: "confirmEnd()", invariants) { try reader.confirmEnd() })
        }
        return outcome
    }

    /// `ContainerSalvage` of `input`, and the payload it writes.
    static func salvage(_ input: FileDescriptor, passphrase: String, invariants: InvariantCheck) -> Salvage {
        var outcome = Salvage()
        let salvage: ContainerSalvage
        do {
            salvage = try ContainerSalvage(input, passphrase: Passphrase(passphrase))
        } catch let error as GoshuinError {
            outcome.error = error
            return outcome
        } catch {
            invariants.fail("the salvage threw \(error), not a GoshuinError")
        }
        outcome.damagedChunks = salvage.damagedChunks
        outcome.firstMissingChunk = salvage.firstMissingChunk
        outcome.trailingBytes = salvage.trailingBytes
        outcome.plaintextLength = salvage.header.plaintextLength
        outcome.lostRanges = salvage.lostRanges.map { range in
            ContainerV2SalvageRestatement.LostRange(
                bytes: range.bytes, chunks: range.chunks, state: range.state.rawValue)
        }
        outcome.written = ScratchFile.withFile(containing: [], invariants: invariants) { output in
            if let error = error(of: "the salvage's write", invariants, { try salvage.write(into: output) }) {
                invariants.fail("the salvage of a surveyed file failed to write its payload: \(error)")
            }
            return ScratchFile.contents(of: output, invariants: invariants)
        }
        return outcome
    }

    /// The ``GoshuinError`` `body` throws, `nil` when it returns; any other error breaks an invariant.
    static func error(of operation: String, _ invariants: InvariantCheck, _ body: () throws -> Void) -> GoshuinError? {
        ContainerOpenChecking.goshuinError(of: operation, invariants: invariants, body)
    }
}
