import GoshuinFormat
import GoshuinSystem

extension FuzzHarness {
    /// Seals a plaintext as version 2 with parameters the fuzzer chooses (fixed salts, 1,000 iterations), applies
    /// up to three fuzzer-chosen changes (bytes flipped, overwritten, inserted or deleted; cuts, at record
    /// boundaries too; appends; records copied, duplicated, deleted or swapped), then opens it through every
    /// reader and requires exactly the verdict `Spec/container-v2.md` gives. Knowing the seal, the harness knows
    /// the truth: the MAC verifies exactly when the 77 header bytes are unchanged, and a record authenticates
    /// exactly when it is the sealer's record of that index, with the same finality, unchanged. So every reader
    /// gives checks 1–8's code, else `auth_failed` for any header change, else `chunk_damaged` at the lowest
    /// record not the sealer's, else success (exactly for the unchanged file); what each releases is that many
    /// bytes of the plaintext (§8); the salvage finds exactly the changed records damaged (§7.3); a lone append
    /// gives what §10.4 says; a version byte changed to 1 is read by version 1's rules alone.
    ///
    /// Input: chunk size choice (u16), length choice (u16), change count (u8), the changes (9 bytes each:
    /// kind, position u32, operand u32), then the bytes the plaintext repeats.
    @_spi(Fuzzing) public static let sealedContainerV2Mutation = FuzzHarness(name: "sealed-container-v2-mutation") {
        input in
        SealedContainerV2MutationHarness.check(input)
    }
}

/// The checks of ``FuzzHarness/sealedContainerV2Mutation``.
enum SealedContainerV2MutationHarness {
    /// The messages' prefix.
    static let invariants = InvariantCheck(harness: "sealed-container-v2-mutation")
    /// The iterations of every seal: the least the format allows, so that every reader's key is cheap.
    static let iterations: UInt32 = 1_000
    /// The fixed `kdfSalt`.
    static let kdfSalt = [UInt8](repeating: 0x5A, count: 16)
    /// The fixed `payloadSalt`. Its bytes 8–15 are `00 00 04 00 00 00 00 00`: read as version 1 (the version
    /// byte changed to 1), they are a chunk size of 1,024 at bytes 33–36 and, with the chunk size, a payload
    /// length of 1,024 … 2,048 at bytes 37–44, so such a file passes version 1's checks 1–7 and goes on to its
    /// size, prefixes and chunks rather than stopping at its bounds.
    static let payloadSalt: [UInt8] = Array("payload-".utf8) + [0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00]
    /// The keyed header of each chunk size used so far: the header of a version 2 file does not depend on the
    /// payload's length, so its keys are derived once per chunk size.
    static let keyedHeaders = LockedState<[UInt32: KeyedHeader]>([:])

    /// A sealed file and its changed copy, as the input describes them.
    struct Case {
        /// The plaintext sealed.
        let plaintext: [UInt8]
        /// Its chunk size.
        let chunkSize: UInt32
        /// The file the sealer wrote.
        let sealed: [UInt8]
        /// The file after the changes.
        let file: [UInt8]
        /// The changes.
        let mutations: [FileMutation]
    }

    /// Seals, changes, reads with every reader, and checks.
    static func check(_ input: [UInt8]) {
        let made = makeCase(input)
        let sealedLayout = checkSeal(made)
        let file = made.file
        guard ContainerOpenChecking.derivesKeyCheaply(file) else {
            // A change raised the iterations past what every reader can derive for every input: checked as
            // `container-open` checks such a file, which it opens with a key it does not derive.
            let outcome = ContainerOpenChecking.openAndCheck(file, invariants: invariants)
            invariants.require(outcome.error != nil, "a file whose iterations changed opened")
            return
        }
        let outcomes = ContainerReaderOutcomes.read(
            file, passphrase: ContainerOpenChecking.passphrase,
            recordRanges: ContainerV2ReaderChecking.recordRanges(of: file), invariants: invariants)
        invariants.require(
            (outcomes.streamingError == nil) == (file == made.sealed),
            file == made.sealed
                ? "the unchanged file fails with \(outcomes.streamingError.verdictText)"
                : "a changed file opened: \(made.mutations)")
        if case .success(.one) = ContainerReaderRestatement.checkVersion(
            headerBytes: file, fileSize: UInt64(file.count))
        {
            checkReadAsVersionOne(file, outcomes)
            return
        }
        let headerUnchanged = file.count >= 77 && file[0..<77] == made.sealed[0..<77]
        ContainerV2ReaderChecking.check(
            file, outcomes,
            knowledge: ContainerV2ReaderChecking.Knowledge(
                macVerifies: headerUnchanged,
                recordAuthenticates: { place in
                    headerUnchanged && isSealersRecord(place, in: file, sealed: made.sealed, layout: sealedLayout)
                }, plaintext: made.plaintext),
            invariants: invariants)
        if made.mutations.count == 1, made.mutations[0].kind == .appendBytes, file.count > made.sealed.count {
            let expected = ContainerV2SpecRestatement.verdictAfterAppending(
                UInt64(file.count - made.sealed.count), to: sealedLayout)
            invariants.require(
                outcomes.streamingError.asRejection == expected,
                "appending \(file.count - made.sealed.count) bytes gives \(outcomes.streamingError.verdictText),"
                    + " §10.4 says \(expected)")
        }
    }

    /// Whether the record at `place` of `file` is the sealer's record of that index, as final or not as the
    /// sealer made it, byte for byte: the only records that authenticate (the nonce fixes the index and the
    /// flag, the additional data the header, and GCM the bytes).
    static func isSealersRecord(
        _ place: ContainerV2SpecRestatement.RecordPlace, in file: [UInt8], sealed: [UInt8],
        layout: ContainerV2SpecRestatement.Layout
    ) -> Bool {
        guard place.index < layout.recordCount else { return false }
        let original = layout.record(place.index)
        guard original.isFinal == place.isFinal, original.length == place.length,
            place.offset + place.length <= UInt64(file.count)
        else { return false }
        return file[Int(place.offset)..<Int(place.offset + place.length)]
            == sealed[Int(original.offset)..<Int(original.offset + original.length)]
    }

    /// A version 2 seal whose version byte became 1 is read by version 1's rules alone (`Spec/decisions/0030`):
    /// version 1's checks 1–9 (7 for the salvage) give their code, and past them every reader gives
    /// `auth_failed`, since no version 1 chunk was ever sealed, so neither chunk 0 nor any of the probe window
    /// authenticates (`Spec/container-v1.md` §7.1, §7.4).
    static func checkReadAsVersionOne(_ file: [UInt8], _ outcomes: ContainerReaderOutcomes) {
        ContainerV2ReaderChecking.requireReadingCodes(outcomes, invariants: invariants)
        let structure = ContainerReaderRestatement.checkStructure(of: file)
        let expected: SpecRejection
        switch structure {
        case .failure(let rejection): expected = rejection
        case .success: expected = SpecRejection(code: "auth_failed")
        }
        for (reader, error) in outcomes.openingErrors {
            invariants.require(
                error.asRejection == expected,
                "\(reader) gives \(error.verdictText) for a version 2 seal read as version 1: \(expected) expected")
        }
        invariants.require(
            outcomes.streamed.isEmpty && outcomes.parallelWritten.isEmpty,
            "bytes released from a version 2 seal read as version 1")
        let salvageExpected: SpecRejection
        switch ContainerSpecRestatement.checkFields(file) {
        case .failure(let rejection): salvageExpected = rejection
        case .success: salvageExpected = SpecRejection(code: "auth_failed")
        }
        invariants.require(
            outcomes.salvage.error.asRejection == salvageExpected,
            "the salvage gives \(outcomes.salvage.error.verdictText) for a version 2 seal read as version 1:"
                + " \(salvageExpected) expected")
    }

    /// The writer's side (§3, §5, §6): the sealed file has the header of the parameters and
    /// `77 + P + 16·(⌊P / chunkSize⌋ + 1)` bytes, and passes checks 1–8 with the layout of its payload. Returns
    /// that layout.
    static func checkSeal(_ made: Case) -> ContainerV2SpecRestatement.Layout {
        let sealed = made.sealed
        let length = UInt64(made.plaintext.count)
        let chunkSize = UInt64(made.chunkSize)
        let records = length / chunkSize + 1
        invariants.require(
            UInt64(sealed.count) == 77 + length + 16 * records,
            "a payload of \(length) bytes was sealed into \(sealed.count) bytes, §3 says \(77 + length + 16 * records)")
        invariants.require(
            Array(sealed[0..<5]) == ContainerReaderRestatement.magic + [2]
                && ContainerReaderRestatement.bigEndian(sealed[5..<9]) == UInt64(iterations)
                && Array(sealed[9..<25]) == kdfSalt && Array(sealed[25..<41]) == payloadSalt
                && ContainerReaderRestatement.bigEndian(sealed[41..<45]) == chunkSize,
            "the sealed header's fields are not the parameters")
        guard case .success(.two(let layout)) = ContainerReaderRestatement.checkStructure(of: sealed) else {
            invariants.fail("the sealed file fails the checks before the key")
        }
        invariants.require(
            layout.recordCount == records && layout.payloadLength == length,
            "the sealed file's size implies \(layout.recordCount) records of a \(layout.payloadLength)-byte payload")
        return layout
    }

    /// Reads the input's parameters, seals the plaintext and applies the changes.
    static func makeCase(_ input: [UInt8]) -> Case {
        var reader = ByteCursor(input)
        // 1,024 … 2,048-byte chunks and 0 … 6 full chunks' worth of payload: 1 … 7 records, the last one empty
        // for a multiple of the chunk size.
        let chunkSize = 1_024 + UInt32((reader.bigEndian(UInt16.self) ?? 0) % 1_025)
        let plaintextLength = Int((reader.bigEndian(UInt16.self) ?? 0)) % (6 * Int(chunkSize) + 1)
        let mutations = (0..<(reader.bigEndian(UInt8.self) ?? 0) % 4).map { _ in
            FileMutation(
                kind: (reader.bigEndian(UInt8.self) ?? 0), position: (reader.bigEndian(UInt32.self) ?? 0),
                operand: (reader.bigEndian(UInt32.self) ?? 0), kinds: FileMutation.Kind.allCases)
        }
        let plaintext = FileMutation.plaintext(repeating: Array(reader.remaining), length: plaintextLength)
        let sealed = seal(plaintext, chunkSize: chunkSize)
        var file = sealed
        for mutation in mutations { mutation.apply(to: &file, grid: .versionTwo(chunkSize: Int(chunkSize))) }
        return Case(plaintext: plaintext, chunkSize: chunkSize, sealed: sealed, file: file, mutations: mutations)
    }

    /// The keyed header of `chunkSize`: `SealParameters` → `draft(plaintextLength:)` → `key(with:)`, derived the
    /// first time.
    static func keyedHeader(chunkSize: UInt32) -> KeyedHeader {
        keyedHeaders.withLock { cache in
            if let keyed = cache[chunkSize] { return keyed }
            let parameters = SealParameters(
                iterations: iterations, chunkSize: chunkSize, fixedSalt: kdfSalt, fixedPayloadSalt: payloadSalt)
            do {
                let keyed = try parameters.draft(plaintextLength: nil).key(
                    with: Passphrase(ContainerOpenChecking.passphrase))
                cache[chunkSize] = keyed
                return keyed
            } catch {
                invariants.fail("cannot key a version 2 header of \(chunkSize)-byte chunks: \(error)")
            }
        }
    }

    /// `plaintext` sealed as version 2 in chunks of `chunkSize` by the in-order sealer.
    static func seal(_ plaintext: [UInt8], chunkSize: UInt32) -> [UInt8] {
        let keyed = keyedHeader(chunkSize: chunkSize)
        do {
            let header = try keyed.header(plaintextLength: UInt64(plaintext.count))
            return try ScratchFile.withFile(containing: plaintext, invariants: invariants) { input in
                try ScratchFile.withFile(containing: [], invariants: invariants) { output in
                    try ContainerSealer.seal(from: input, to: output, key: keyed.keys.payloadKey, header: header)
                    return ScratchFile.contents(of: output, invariants: invariants)
                }
            }
        } catch {
            invariants.fail("sealing \(plaintext.count) bytes in chunks of \(chunkSize) failed: \(error)")
        }
    }
}
