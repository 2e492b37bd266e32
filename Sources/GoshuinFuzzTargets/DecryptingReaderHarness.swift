import GoshuinFormat

extension FuzzHarness {
    /// The random-access reader on sealed files changed as in ``sealedContainerMutation`` (same input):
    /// every error has a reading code; it opens an unchanged file and never refuses one the streaming opener
    /// accepts; reads at offsets taken from the plaintext return exactly the bytes the streaming opener
    /// released there; a read never returns a byte of a chunk that fails (it throws `chunk_damaged`).
    @_spi(Fuzzing) public static let decryptingReader = FuzzHarness(name: "decrypting-reader") { input in
        DecryptingReaderHarness.check(input)
    }
}

enum DecryptingReaderHarness {
    static let invariants = InvariantCheck(harness: "decrypting-reader")

    static func check(_ input: [UInt8]) {
        let made = SealedContainerMutationHarness.makeCase(input)
        ScratchFile.withFile(containing: made.file, invariants: invariants) { descriptor in
            var streamed: [UInt8] = []
            var streamingFailed = false
            do {
                try ContainerOpener.open(descriptor, passphrase: Passphrase(ContainerOpenChecking.passphrase)) {
                    streamed += $0
                }
            } catch {
                invariants.require(error is GoshuinError, "the streaming open threw \(error)")
                streamingFailed = true
            }
            let reader: DecryptingReader
            do {
                reader = try DecryptingReader(descriptor, passphrase: Passphrase(ContainerOpenChecking.passphrase))
            } catch {
                requireReadingCode(error, "opening the reader")
                invariants.require(streamingFailed, "the reader refused a file the streaming open accepts")
                return
            }
            invariants.require(made.file != made.sealed || !streamingFailed, "an unchanged file failed to stream")
            invariants.require(reader.size == reader.header.plaintextLength, "size is not plaintextLength")
            readAtChosenOffsets(reader, made: made, streamed: streamed, streamingFailed: streamingFailed)
        }
    }

    /// Reads where the plaintext's bytes point (so the fuzzer steers them), from the end backwards too.
    static func readAtChosenOffsets(
        _ reader: DecryptingReader, made: SealedContainerMutationHarness.Case, streamed: [UInt8],
        streamingFailed: Bool
    ) {
        let size = Int(reader.size)
        for step in 0..<4 {
            let pick = made.plaintext.isEmpty ? step : Int(made.plaintext[step % made.plaintext.count]) * 37
            let offset = step % 2 == 0 ? pick % size : max(0, size - 1 - pick % size)
            let count = min(1 + pick % 3_000, size - offset)
            do {
                guard let bytes = try reader.readExactly(at: UInt64(offset), count: count) else {
                    invariants.fail("a read inside the payload came back short")
                }
                if !streamingFailed {
                    invariants.require(
                        Array(streamed[offset..<offset + count]) == bytes, "a read differs from the stream")
                } else if made.file.count == made.sealed.count {
                    invariants.require(
                        bytes == Array(made.plaintext[offset..<offset + count])
                            || made.file.prefix(45) != made.sealed.prefix(45),
                        "an authenticated read returned bytes that are not the plaintext")
                }
            } catch {
                requireReadingCode(error, "a read")
                invariants.require(streamingFailed, "a read failed on a file the streaming open accepts")
            }
        }
    }

    static func requireReadingCode(_ error: Error, _ stage: String) {
        guard let error = error as? GoshuinError else { invariants.fail("\(stage) threw \(error)") }
        invariants.require(
            ContainerReaderRestatement.readingErrorCodes.contains(error.code.rawValue),
            "\(stage) failed with \(error.code.rawValue)")
    }
}
