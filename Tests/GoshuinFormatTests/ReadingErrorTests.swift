import GoshuinFormat
import GoshuinTestSupport
import Testing

/// Every reading error of `Spec/container-v1.md` §7, each from a real crafted file.
@Suite struct ReadingErrorTests {
    /// A sealed 5,000-byte payload in 1 KiB chunks: chunks of 1024, 1024, 1024, 1024, 904 bytes.
    static func sealedFile() throws -> (file: [UInt8], plaintext: [UInt8]) {
        let directory = TemporaryDirectory()
        let plaintext = Fixtures.payload(5_000)
        return (try Fixtures.seal(plaintext, in: directory), plaintext)
    }

    static func recordOffset(_ index: Int) -> Int { 45 + index * 1_044 }

    static func expectFailure(
        _ bytes: [UInt8], _ code: GoshuinError.Code, chunkIndex: UInt64? = nil, released: [UInt8] = [],
        passphrase: String = Fixtures.passphrase
    ) {
        let result = Fixtures.open(bytes, passphrase: passphrase)
        #expect(result.error?.code == code, "\(result.error?.description ?? "opened")")
        #expect(result.error?.chunkIndex == chunkIndex)
        #expect(result.released == released, "only authenticated chunks are released")
    }

    @Test func shortHeader() throws {
        Self.expectFailure([], .shortHeader)
        Self.expectFailure(Array(try Self.sealedFile().file.prefix(44)), .shortHeader)
    }

    @Test func headerErrors() throws {
        let file = try Self.sealedFile().file
        Self.expectFailure(file.flippingBit(at: 0), .badMagic)
        Self.expectFailure(file.flippingBit(at: 4, bit: 1), .unsupportedVersion)
        Self.expectFailure(file.replacingUInt32(at: 5, with: 999), .iterationsOutOfRange)
        Self.expectFailure(file.replacingUInt32(at: 5, with: UInt32.max), .iterationsOutOfRange)
        Self.expectFailure(file.replacingUInt32(at: 33, with: 1_023), .chunkSizeOutOfRange)
        Self.expectFailure(file.replacingUInt32(at: 33, with: 67_108_865), .chunkSizeOutOfRange)
    }

    @Test func emptyPayloadHeaderOpensUnderNoPassphrase() {
        Self.expectFailure(Fixtures.headerBytes(plaintextLength: 0), .emptyPayload)
    }

    @Test func tooManyChunks() {
        Self.expectFailure(
            Fixtures.headerBytes(chunkSize: 1_024, plaintextLength: (UInt64(1_024) << 32) + 1), .tooManyChunks)
    }

    @Test func truncatedAndTrailingDataAreDecidedBySize() throws {
        let file = try Self.sealedFile().file
        Self.expectFailure(Array(file.dropLast()), .truncated)
        Self.expectFailure(Array(file.prefix(Self.recordOffset(4))), .truncated, passphrase: "wrong")
        Self.expectFailure(Array(file.prefix(45)), .truncated)
        Self.expectFailure(file + [0], .trailingData)
        Self.expectFailure(file + file[45..<1_089], .trailingData)
    }

    @Test func lengthPrefixesAreCheckedBeforeAnyTag() throws {
        let file = try Self.sealedFile().file
        Self.expectFailure(file.replacingUInt32(at: Self.recordOffset(0), with: 0), .chunkLengthInvalid, chunkIndex: 0)
        Self.expectFailure(
            file.replacingUInt32(at: Self.recordOffset(2), with: 1_039), .chunkLengthInvalid, chunkIndex: 2)
        Self.expectFailure(
            file.replacingUInt32(at: Self.recordOffset(4), with: UInt32.max), .chunkLengthInvalid, chunkIndex: 4)
        // A damaged tag in chunk 0 and a bad prefix in chunk 3: the prefix is reported, before the key.
        let both = file.flippingBit(at: Self.recordOffset(0) + 100).replacingUInt32(at: Self.recordOffset(3), with: 1)
        Self.expectFailure(both, .chunkLengthInvalid, chunkIndex: 3, passphrase: "wrong")
    }

    @Test func wrongPassphraseAndAlteredHeaderAreAuthFailed() throws {
        let file = try Self.sealedFile().file
        Self.expectFailure(file, .authFailed, passphrase: "Correct horse battery staple")
        Self.expectFailure(file.flippingBit(at: 12), .authFailed)  // salt
        Self.expectFailure(file.flippingBit(at: 30), .authFailed)  // nonce base
        Self.expectFailure(file.replacingUInt32(at: 5, with: 1_001), .authFailed)  // iterations
    }

    @Test func damageInChunkZeroIsNotAWrongPassphrase() throws {
        let file = try Self.sealedFile().file
        Self.expectFailure(file.flippingBit(at: Self.recordOffset(0) + 4), .chunkDamaged, chunkIndex: 0)
        // Chunks 0-2 damaged, chunk 3 authenticates: still inside the probe of four chunks.
        var damaged = file
        for index in 0..<3 { damaged = damaged.flippingBit(at: Self.recordOffset(index) + 10) }
        Self.expectFailure(damaged, .chunkDamaged, chunkIndex: 0)
        // Chunks 0-3 damaged: nothing in the probe authenticates.
        Self.expectFailure(damaged.flippingBit(at: Self.recordOffset(3) + 10), .authFailed)
    }

    @Test func laterDamageReleasesOnlyTheChunksBefore() throws {
        let (file, plaintext) = try Self.sealedFile()
        Self.expectFailure(
            file.flippingBit(at: Self.recordOffset(2) + 4 + 1_024), .chunkDamaged, chunkIndex: 2,
            released: Array(plaintext.prefix(2_048)))
        Self.expectFailure(
            file.flippingBit(at: file.count - 1), .chunkDamaged, chunkIndex: 4, released: Array(plaintext.prefix(4_096))
        )
    }

    @Test func swappedChunksAreDamage() throws {
        let file = try Self.sealedFile().file
        var swapped = file
        swapped.replaceSubrange(
            Self.recordOffset(1)..<Self.recordOffset(2), with: file[Self.recordOffset(2)..<Self.recordOffset(3)])
        swapped.replaceSubrange(
            Self.recordOffset(2)..<Self.recordOffset(3), with: file[Self.recordOffset(1)..<Self.recordOffset(2)])
        let (_, plaintext) = try Self.sealedFile()
        Self.expectFailure(swapped, .chunkDamaged, chunkIndex: 1, released: Array(plaintext.prefix(1_024)))
    }

    @Test func structureIsJudgedWithoutAKey() throws {
        let file = try Self.sealedFile().file
        let directory = TemporaryDirectory()
        let path = directory.write("cut.goshuin", Array(file.dropLast(3)))
        let input = try FileDescriptor.openForReading(path)
        try input.closeAfter {
            #expect(throws: GoshuinError(.truncated, "")) { try ContainerStructure.validate(input) }
        }
    }

    @Test func openRefusesAnythingButARegularFile() throws {
        let input = try FileDescriptor.openForReading("/dev/null")
        try input.closeAfter {
            #expect(throws: GoshuinError(.invalidArgument, "")) {
                try ContainerOpener.open(input, passphrase: Passphrase("x")) { _ in }
            }
        }
    }
}
