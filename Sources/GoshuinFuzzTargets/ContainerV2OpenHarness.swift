import GoshuinFormat

extension FuzzHarness {
    /// A whole file read as version 2 past its header MAC: when the input's version byte is 2 and its fields are
    /// in bounds (at most 10,000 iterations), its MAC is made the one the passphrase gives, so that every reader
    /// reaches the records; then every reader (streaming, parallel, random-access with and without the final
    /// chunk first, salvage) gives the verdict of `Spec/container-v2.md` §7 for what the records are: checks
    /// 1–8, then never `auth_failed`, `chunk_damaged` at the lowest failing record, the same from each, only
    /// authenticated bytes (§8, §9.1), and the salvage of §7.3. Other inputs are checked as ``containerOpen``
    /// checks them.
    @_spi(Fuzzing) public static let containerV2Open = FuzzHarness(name: "container-v2-open") { input in
        ContainerV2OpenHarness.check(input)
    }
}

/// The checks of ``FuzzHarness/containerV2Open``.
enum ContainerV2OpenHarness {
    /// The messages' prefix.
    static let invariants = InvariantCheck(harness: "container-v2-open")

    /// Makes the MAC valid where it can, runs every reader and checks them.
    static func check(_ input: [UInt8]) {
        guard input.count >= 5, input[4] == 2, ContainerOpenChecking.derivesKeyCheaply(input) else {
            _ = ContainerOpenChecking.openAndCheck(input, invariants: invariants)
            return
        }
        let macMade = withValidMac(input)
        let file = macMade ?? input
        let outcomes = ContainerReaderOutcomes.read(
            file, passphrase: ContainerOpenChecking.passphrase,
            recordRanges: ContainerV2ReaderChecking.recordRanges(of: file), invariants: invariants)
        ContainerV2ReaderChecking.check(
            file, outcomes,
            knowledge: ContainerV2ReaderChecking.Knowledge(
                macVerifies: macMade != nil, recordAuthenticates: nil, plaintext: nil),
            invariants: invariants)
    }

    /// `file` with bytes 45–76 replaced by HMAC-SHA256(K_header, bytes 0–44) under
    /// ``ContainerOpenChecking/passphrase`` (`Spec/container-v2.md` §4), made as a writer makes it; `nil` when the
    /// file is shorter than the header or its iterations or chunk size are out of bounds (checks 4–6 refuse it
    /// before any key).
    static func withValidMac(_ file: [UInt8]) -> [UInt8]? {
        guard file.count >= 77,
            ContainerV2SpecRestatement.iterationBounds.contains(ContainerReaderRestatement.bigEndian(file[5..<9])),
            ContainerV2SpecRestatement.chunkSizeBounds.contains(ContainerReaderRestatement.bigEndian(file[41..<45])),
            let fields = HeaderFieldsV2(parsing: file)
        else { return nil }
        do {
            let keys = try ContainerKeys(
                passphrase: Passphrase(ContainerOpenChecking.passphrase), version: .v2, salt: fields.kdfSalt,
                payloadSalt: fields.payloadSalt, iterations: fields.kdfIterations)
            var made = file
            made.replaceSubrange(45..<77, with: try keys.headerMac(of: fields))
            return made
        } catch {
            invariants.fail("cannot make the header MAC of fields in bounds: \(error)")
        }
    }
}
