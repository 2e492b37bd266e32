import GoshuinFormat

extension FuzzHarness {
    /// The random-access reader on a crafted file, with the fixed passphrase "fuzz": every error has a
    /// reading code; it never refuses a file the streaming opener accepts; and on such a file, reads at
    /// fuzzer-chosen offsets return exactly the bytes the streaming opener released there.
    ///
    /// Input: a 4-byte seed for the read offsets, then the file.
    public static let decryptingReader = FuzzHarness(name: "decrypting-reader") { input in
        DecryptingReaderHarness.check(input)
    }
}

enum DecryptingReaderHarness {
    static let invariants = InvariantCheck(harness: "decrypting-reader")
    static let passphrase = "fuzz"

    static func check(_ input: [UInt8]) {
        guard input.count > 4 else { return }
        let seed = input[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let file = Array(input[4...])
        ScratchFile.withFile(containing: file, invariants: invariants) { descriptor in
            var streamed: [UInt8] = []
            var streamingError: GoshuinError?
            do {
                try ContainerOpener.open(descriptor, passphrase: Passphrase(passphrase)) { streamed += $0 }
            } catch {
                streamingError = error as? GoshuinError
                invariants.require(streamingError != nil, "the streaming open threw \(error)")
            }
            let reader: DecryptingReader
            do {
                reader = try DecryptingReader(descriptor, passphrase: Passphrase(passphrase))
            } catch {
                guard let error = error as? GoshuinError else { invariants.fail("the reader threw \(error)") }
                invariants.require(
                    ContainerSpecRestatement.readingErrorCodes.contains(error.code.rawValue),
                    "the reader failed with \(error.code.rawValue)")
                invariants.require(streamingError != nil, "the reader refused a file the streaming open accepts")
                return
            }
            invariants.require(reader.size == reader.header.plaintextLength, "size is not plaintextLength")
            var offsetSeed = seed
            for _ in 0..<4 {
                offsetSeed = offsetSeed &* 1_103_515_245 &+ 12_345
                let offset = UInt64(offsetSeed) % max(reader.size, 1)
                let count = Int(offsetSeed >> 20) % 4_096
                do {
                    let bytes = try reader.readExactly(at: offset, count: min(count, Int(reader.size - offset)))
                    let end = Int(offset) + (bytes?.count ?? 0)
                    if streamingError == nil, let bytes {
                        invariants.require(
                            Array(streamed[Int(offset)..<end]) == bytes, "a read differs from the stream")
                    }
                } catch {
                    guard let error = error as? GoshuinError else { invariants.fail("a read threw \(error)") }
                    invariants.require(error.code == .chunkDamaged, "a read failed with \(error.code.rawValue)")
                    invariants.require(streamingError != nil, "a read failed on a file the streaming open accepts")
                }
            }
        }
    }
}
