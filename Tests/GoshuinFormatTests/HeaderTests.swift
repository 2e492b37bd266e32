import GoshuinFormat
import GoshuinTestSupport
import Testing

@Suite struct HeaderTests {
    static func decodeError(_ bytes: [UInt8]) -> GoshuinError.Code? {
        do {
            _ = try Header.decode(bytes)
            return nil
        } catch let error as GoshuinError {
            return error.code
        } catch {
            return .io
        }
    }

    @Test func roundTripIsByteExact() throws {
        let header = try Header(
            kdfIterations: 600_000, salt: Array(0..<16), nonceBase: Array(100..<108), chunkSize: 4_194_304,
            plaintextLength: 0x0102_0304_0506)
        let bytes = header.encode()
        #expect(bytes.count == 45)
        #expect(Array(bytes[0..<5]) == [0x47, 0x53, 0x48, 0x4E, 0x01])
        #expect(Array(bytes[5..<9]) == [0x00, 0x09, 0x27, 0xC0])
        #expect(Array(bytes[9..<25]) == Array(0..<16))
        #expect(Array(bytes[25..<33]) == Array(100..<108))
        #expect(Array(bytes[33..<37]) == [0x00, 0x40, 0x00, 0x00])
        #expect(Array(bytes[37..<45]) == [0, 0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        #expect(try Header.decode(bytes) == header)
        #expect(try Header.decode(bytes + [0xFF, 0xFF]) == header, "bytes after the header are not the header's")
    }

    @Test(arguments: [
        (UInt32(0), GoshuinError.Code?.some(.iterationsOutOfRange)),
        (999, .iterationsOutOfRange),
        (1_000, nil),
        (2_000_000, nil),
        (2_000_001, .iterationsOutOfRange),
        (UInt32.max, .iterationsOutOfRange),
    ])
    func iterationBounds(iterations: UInt32, expected: GoshuinError.Code?) {
        #expect(Self.decodeError(Fixtures.headerBytes(iterations: iterations)) == expected)
    }

    @Test(arguments: [
        (UInt32(0), GoshuinError.Code?.some(.chunkSizeOutOfRange)),
        (1_023, .chunkSizeOutOfRange),
        (1_024, nil),
        (67_108_864, nil),
        (67_108_865, .chunkSizeOutOfRange),
        (UInt32.max, .chunkSizeOutOfRange),
    ])
    func chunkSizeBounds(chunkSize: UInt32, expected: GoshuinError.Code?) {
        #expect(Self.decodeError(Fixtures.headerBytes(chunkSize: chunkSize)) == expected)
    }

    @Test(arguments: [
        (UInt64(0), GoshuinError.Code?.some(.emptyPayload)),
        (1, nil),
        (UInt64(1_024) << 32, nil),
        ((UInt64(1_024) << 32) + 1, .tooManyChunks),
        (UInt64.max, .tooManyChunks),
    ])
    func lengthAndChunkCountBounds(length: UInt64, expected: GoshuinError.Code?) {
        #expect(Self.decodeError(Fixtures.headerBytes(chunkSize: 1_024, plaintextLength: length)) == expected)
    }

    @Test func maximumLengthAtMaximumChunkSizeHasExactly2To32Chunks() throws {
        let header = try Header.decode(
            Fixtures.headerBytes(chunkSize: 67_108_864, plaintextLength: UInt64(67_108_864) << 32))
        #expect(header.layout.chunkCount == 1 << 32)
        #expect(header.layout.expectedFileSize == 45 + 20 * (1 << 32) + (UInt64(67_108_864) << 32))
    }

    @Test func checksRunInTheSpecifiedOrder() {
        // Every field wrong at once: the earliest check decides.
        var bytes = Fixtures.headerBytes(
            magic: Array("GSHX".utf8), version: 2, iterations: 0, chunkSize: 0, plaintextLength: 0)
        #expect(Self.decodeError(bytes) == .badMagic)
        bytes.replaceSubrange(0..<4, with: Array("GSHN".utf8))
        #expect(Self.decodeError(bytes) == .unsupportedVersion)
        bytes[4] = 1
        #expect(Self.decodeError(bytes) == .iterationsOutOfRange)
        bytes = bytes.replacingUInt32(at: 5, with: 1_000)
        #expect(Self.decodeError(bytes) == .chunkSizeOutOfRange)
        bytes = bytes.replacingUInt32(at: 33, with: 1_024)
        #expect(Self.decodeError(bytes) == .emptyPayload)
    }

    @Test(arguments: [0, 1, 44])
    func shortInputIsShortHeader(length: Int) {
        #expect(Self.decodeError(Array(Fixtures.headerBytes().prefix(length))) == .shortHeader)
    }

    @Test(arguments: [UInt8(0), 2, 255])
    func otherVersionsAreRefused(version: UInt8) {
        #expect(Self.decodeError(Fixtures.headerBytes(version: version)) == .unsupportedVersion)
    }

    @Test func writerRefusesWhatTheReaderRefuses() {
        let salt = [UInt8](repeating: 0, count: 16)
        let nonce = [UInt8](repeating: 0, count: 8)
        #expect(throws: GoshuinError(.iterationsOutOfRange, "")) {
            try Header(kdfIterations: 999, salt: salt, nonceBase: nonce, chunkSize: 1_024, plaintextLength: 1)
        }
        #expect(throws: GoshuinError(.chunkSizeOutOfRange, "")) {
            try Header(kdfIterations: 1_000, salt: salt, nonceBase: nonce, chunkSize: 1_023, plaintextLength: 1)
        }
        #expect(throws: GoshuinError(.emptyPayload, "")) {
            try Header(kdfIterations: 1_000, salt: salt, nonceBase: nonce, chunkSize: 1_024, plaintextLength: 0)
        }
        #expect(throws: GoshuinError(.invalidArgument, "")) {
            try Header(kdfIterations: 1_000, salt: [1], nonceBase: nonce, chunkSize: 1_024, plaintextLength: 1)
        }
    }

    @Test func freshSaltAndNonceForEveryHeader() throws {
        let parameters = SealParameters(iterations: 1_000)
        let passphrase = Passphrase("fresh")
        let first = try parameters.draft(plaintextLength: 1).key(with: passphrase).header(plaintextLength: 1)
        let second = try parameters.draft(plaintextLength: 1).key(with: passphrase).header(plaintextLength: 1)
        #expect(first.salt != second.salt)
        #expect(first.nonceBase != second.nonceBase)
        #expect(first.kdfIterations == 1_000 && first.chunkSize == 4_194_304 && first.version == .v1)
        var v2 = parameters
        v2.version = .v2
        let third = try v2.draft(plaintextLength: 1).key(with: passphrase).header(plaintextLength: 1)
        let fourth = try v2.draft(plaintextLength: 1).key(with: passphrase).header(plaintextLength: 1)
        #expect(
            third.salt != fourth.salt && third.payloadSalt != fourth.payloadSalt && third.headerMac != fourth.headerMac)
        #expect(SealParameters().iterations == 600_000 && SealParameters().version == .v1, "version 1 by default")
    }
}
