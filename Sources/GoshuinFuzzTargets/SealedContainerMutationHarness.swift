import GoshuinFormat

extension FuzzHarness {
    /// Seals a plaintext with parameters the fuzzer chooses, applies up to three fuzzer-chosen changes to the
    /// file, then opens it like ``containerOpen`` (same invariants), so that files whose tags pass are reached.
    /// Also: what is released is a prefix of the plaintext, and the file opens exactly when it is unchanged.
    ///
    /// Input: chunk size choice (u16), length choice (u16), change count (u8), the changes (9 bytes each:
    /// kind, position u32, operand u32), then the bytes the plaintext repeats.
    @_spi(Fuzzing) public static let sealedContainerMutation = FuzzHarness(name: "sealed-container-mutation") { input in
        SealedContainerMutationHarness.check(input)
    }
}

enum SealedContainerMutationHarness {
    static let invariants = InvariantCheck(harness: "sealed-container-mutation")
    static let iterations: UInt32 = 1_000
    static let salt = [UInt8](repeating: 0x5A, count: 16)
    static let nonceBase: [UInt8] = [0x6E, 0x6F, 0x6E, 0x63, 0x65, 0x00, 0x00, 0x01]
    /// The sealing key, derived once; opening derives it again from the header like any reader.
    static let key: SecretBytes? = try? KeyDerivation.deriveKey(
        passphrase: Passphrase(ContainerOpenChecking.passphrase), salt: salt, iterations: iterations)

    /// A sealed file and its changed copy, as the input describes them.
    struct Case {
        let plaintext: [UInt8]
        let sealed: [UInt8]
        let file: [UInt8]
        let mutations: [FileMutation]
    }

    static func check(_ input: [UInt8]) {
        let made = makeCase(input)
        let (plaintext, sealed, file, mutations) = (made.plaintext, made.sealed, made.file, made.mutations)

        let outcome = ContainerOpenChecking.openAndCheck(file, invariants: invariants)
        invariants.require(
            outcome.released == Array(plaintext.prefix(outcome.released.count)),
            "the released bytes are not a prefix of the sealed plaintext")
        if file == sealed {
            invariants.require(
                outcome.error == nil, "the unchanged file fails with \(outcome.error?.description ?? "")")
            invariants.require(outcome.released == plaintext, "the unchanged file released other bytes")
        } else {
            invariants.require(outcome.error != nil, "a changed file opened: \(mutations)")
        }
    }

    /// Reads the input's parameters, seals the plaintext and applies the changes.
    static func makeCase(_ input: [UInt8]) -> Case {
        var reader = ByteCursor(input)
        // 1,024 … 2,048-byte chunks and up to 6 of them: every branch of §7.1 with a few KiB.
        let chunkSize = 1_024 + UInt32((reader.bigEndian(UInt16.self) ?? 0) % 1_025)
        let plaintextLength = 1 + Int((reader.bigEndian(UInt16.self) ?? 0)) % (6 * Int(chunkSize))
        let mutations = (0..<(reader.bigEndian(UInt8.self) ?? 0) % 4).map { _ in
            FileMutation(
                kind: (reader.bigEndian(UInt8.self) ?? 0), position: (reader.bigEndian(UInt32.self) ?? 0),
                operand: (reader.bigEndian(UInt32.self) ?? 0), kinds: FileMutation.versionOneKinds)
        }
        let plaintext = FileMutation.plaintext(repeating: Array(reader.remaining), length: plaintextLength)
        let sealed = seal(plaintext, chunkSize: chunkSize)
        var file = sealed
        for mutation in mutations { mutation.apply(to: &file, grid: .versionOne(chunkSize: Int(chunkSize))) }
        return Case(plaintext: plaintext, sealed: sealed, file: file, mutations: mutations)
    }

    static func seal(_ plaintext: [UInt8], chunkSize: UInt32) -> [UInt8] {
        guard let key else { invariants.fail("cannot derive the sealing key") }
        do {
            let header = try Header(
                kdfIterations: iterations, salt: salt, nonceBase: nonceBase, chunkSize: chunkSize,
                plaintextLength: UInt64(plaintext.count))
            return try ScratchFile.withFile(containing: plaintext, invariants: invariants) { input in
                try ScratchFile.withFile(containing: [], invariants: invariants) { output in
                    try ContainerSealer.seal(from: input, to: output, key: key, header: header)
                    return ScratchFile.contents(of: output, invariants: invariants)
                }
            }
        } catch {
            invariants.fail("sealing \(plaintext.count) bytes in chunks of \(chunkSize) failed: \(error)")
        }
    }
}
