import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// Container version 2 (`Spec/container-v2.md`) through the library's real readers and writers: the
/// layout and the empty final record, the header MAC and what it tells apart, cuts, appended bytes, the
/// three sealers agreeing byte for byte, the flagged record written last, salvage's unknown end.
@Suite struct ContainerV2Tests {
    let directory = TemporaryDirectory()
    static let passphrase = Passphrase(Fixtures.passphrase)

    /// Fixed salts, so the three sealers can be compared byte for byte.
    static func parameters(chunkSize: UInt32 = 1_024) -> SealParameters {
        SealParameters(
            iterations: 1_000, chunkSize: chunkSize, fixedSalt: [UInt8](repeating: 3, count: 16),
            fixedPayloadSalt: [UInt8](repeating: 5, count: 16))
    }

    /// `plaintext` sealed as version 2 by the parallel path (between regular files).
    func seal(_ plaintext: [UInt8], chunkSize: UInt32 = 1_024, fixed: Bool = true) throws -> [UInt8] {
        let input = directory.write("plain-\(UUID().uuidString)", plaintext)
        let output = directory.file("sealed-\(UUID().uuidString).goshuin")
        var parameters = fixed ? Self.parameters(chunkSize: chunkSize) : Fixtures.parameters(chunkSize: chunkSize)
        parameters.version = .v2
        try GoshuinFile.seal(inputPath: input, outputPath: output, passphrase: Self.passphrase, parameters: parameters)
        return Fixtures.readBytes(output)
    }

    /// `plaintext` sealed by the piecewise sealer without its length announced, as `seal -` does.
    func sealAsAStream(_ plaintext: [UInt8], chunkSize: UInt32 = 1_024, pieces: Int = 7) throws -> [UInt8] {
        let output = try FileSystem.anonymousFile()
        return try output.closeAfter {
            let keyed = try Self.parameters(chunkSize: chunkSize).draft(plaintextLength: nil).key(with: Self.passphrase)
            let sealer = try StreamingSealer(
                into: output, header: keyed, plaintextLength: nil, workerCount: 2, observer: nil, progress: nil)
            // Pieces of uneven sizes, as a pipe hands them over.
            var offset = 0
            var piece = 1
            while offset < plaintext.count {
                let end = min(plaintext.count, offset + piece * 97 % 1_500 + 1)
                try plaintext[offset..<end].withUnsafeBytes { try sealer.write($0) }
                offset = end
                piece = piece % pieces + 1
            }
            let header = try sealer.finish()
            #expect(header.plaintextLength == UInt64(plaintext.count) && header.version == .v2)
            let size = try ContainerStructure.regularFileSize(of: output)
            return try FileSystem.read(output, at: 0, count: Int(size))
        }
    }

    @Test(arguments: [0, 1, 1_023, 1_024, 1_025, 3 * 1_024, 3 * 1_024 + 500])
    func everyLengthRoundTripsWithItsFinalRecord(length: Int) throws {
        let plaintext = Fixtures.payload(length)
        let file = try seal(plaintext)
        let records = length / 1_024 + 1
        #expect(file.count == 77 + length + 16 * records, "77 + P + 16·n bytes (§3)")
        #expect(Array(file[4..<5]) == [2])
        let opened = Fixtures.open(file)
        #expect(opened.error == nil && opened.released == plaintext)
        #expect(try sealAsAStream(plaintext) == file, "the piecewise sealer without a length writes the same bytes")
        let sequential = try FileSystem.anonymousFile()
        try sequential.closeAfter {
            let keyed = try Self.parameters().draft(plaintextLength: UInt64(length)).key(with: Self.passphrase)
            let input = try FileSystem.anonymousFile()
            try input.closeAfter {
                try input.writeAll(plaintext)
                try input.seek(to: 0)
                try ContainerSealer.seal(
                    from: input, to: sequential, key: keyed.keys.payloadKey,
                    header: try keyed.header(plaintextLength: UInt64(length)))
            }
            let size = try ContainerStructure.regularFileSize(of: sequential)
            #expect(try FileSystem.read(sequential, at: 0, count: Int(size)) == file)
        }
    }

    @Test func aWrongPassphraseIsToldFromDamageByTheMacAlone() throws {
        let file = try seal(Fixtures.payload(100))
        #expect(file.count == 77 + 116, "one record")
        let wrong = Fixtures.open(file, passphrase: "Correct horse battery staple")
        #expect(wrong.error?.code == .authFailed && wrong.released.isEmpty)
        #expect(wrong.error?.message.contains("MAC") == true)
        let damaged = Fixtures.open(file.flippingBit(at: 77 + 50))
        #expect(
            damaged.error == GoshuinError(.chunkDamaged, "", chunkIndex: 0),
            "the MAC verified, so the one record's failure is damage")
    }

    @Test func everyHeaderByteIsAuthenticatedBeforeAnyRecord() throws {
        let file = try seal(Fixtures.payload(2_500))
        for offset in [5, 8, 9, 24, 25, 40, 41, 44, 45, 60, 76] {
            let changed = file.flippingBit(at: offset)
            let opened = Fixtures.open(changed)
            let checked = try? Header.decode(changed, fileSize: UInt64(changed.count))
            if checked == nil {
                #expect(opened.error?.code != .authFailed, "a bound check comes first at offset \(offset)")
            } else {
                #expect(opened.error?.code == .authFailed, "offset \(offset): \(String(describing: opened.error))")
            }
            #expect(opened.released.isEmpty, "nothing released for a changed header byte at \(offset)")
        }
    }

    @Test func everyCutAtARecordBoundaryIsTruncatedAndEveryOtherCutDamagesTheLastRecord() throws {
        let file = try seal(Fixtures.payload(3 * 1_024 + 10))
        let recordLength = 1_024 + 16
        for records in 0...3 {
            let cut = Array(file[..<(77 + records * recordLength)])
            #expect(Fixtures.open(cut).error?.code == .truncated, "cut after \(records) records")
            let nearly = Array(file[..<(77 + records * recordLength + 15)])
            #expect(Fixtures.open(nearly).error?.code == .truncated, "a last record shorter than a tag")
        }
        let inside = Array(file[..<(77 + 2 * recordLength + 500)])
        let opened = Fixtures.open(inside)
        #expect(
            opened.error == GoshuinError(.chunkDamaged, "", chunkIndex: 2),
            "the cut record is read as the final one and fails")
        #expect(opened.released == Array(Fixtures.payload(2_048)), "records 0 and 1 released, in order")
    }

    @Test func appendedBytesAreNeverSkipped() throws {
        let file = try seal(Fixtures.payload(1_500))
        for extra in [1, 15, 16, 500, 1_040, 1_056] {
            let opened = Fixtures.open(file + [UInt8](repeating: 0xAB, count: extra))
            #expect(opened.error != nil, "\(extra) bytes appended open")
            #expect(opened.error?.code != .trailingData, "version 2 has no trailing_data")
        }
    }

    @Test func aFileIsOpenedByTheRulesOfItsVersionByteAlone() throws {
        var asVersion1 = try seal(Fixtures.payload(200))
        asVersion1[4] = 1
        let opened = Fixtures.open(asVersion1)
        #expect(opened.error != nil && opened.released.isEmpty, "no fallback to version 2")
        var version3 = asVersion1
        version3[4] = 3
        #expect(Fixtures.open(version3).error?.code == .unsupportedVersion)
        // A version 1 seal of 1,500 bytes: its bytes 41–44 (the low half of plaintextLength) are a chunk size
        // in bounds, so read as version 2 it passes checks 1–8 and fails the MAC.
        var asVersion2 = try Fixtures.seal(Fixtures.payload(1_500), in: directory, chunkSize: 2_048)
        asVersion2[4] = 2
        #expect(Fixtures.open(asVersion2).error?.code == .authFailed, "a version 1 seal read as version 2")
        var small = try Fixtures.seal(Fixtures.payload(200), in: directory, name: "small.goshuin")
        small[4] = 2
        #expect(Fixtures.open(small).error?.code == .chunkSizeOutOfRange, "200 is not a chunk size")
    }

    @Test func theRandomAccessReaderConfirmsAnEmptyFinalRecord() throws {
        let file = try seal(Fixtures.payload(2_048))
        // The empty final record's tag damaged: every byte of the payload is readable, but its end is false.
        let damaged = file.flippingBit(at: file.count - 3)
        let path = directory.write("damaged.goshuin", damaged)
        let input = try FileDescriptor.openForReading(path)
        try input.closeAfter {
            #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 2)) {
                _ = try DecryptingReader(input, passphrase: Self.passphrase)
            }
            let reader = try DecryptingReader(input, passphrase: Self.passphrase, authenticatingFinalChunkFirst: false)
            #expect(try reader.read(at: 0, count: 2_048) == Fixtures.payload(2_048))
            #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 2)) { try reader.confirmEnd() }
        }
        let empty = try seal([])
        #expect(empty.count == 93)
        let emptyPath = directory.write("empty.goshuin", empty.flippingBit(at: 80))
        let emptyInput = try FileDescriptor.openForReading(emptyPath)
        try emptyInput.closeAfter {
            #expect(
                throws: GoshuinError(.chunkDamaged, "", chunkIndex: 0),
                "an empty payload's only record is authenticated at once"
            ) {
                _ = try DecryptingReader(emptyInput, passphrase: Self.passphrase, authenticatingFinalChunkFirst: false)
            }
        }
    }

    @Test func salvageKnowsTheEndOnlyFromTheFinalRecord() throws {
        let plaintext = Fixtures.payload(3 * 1_024 + 100)
        let file = try seal(plaintext)
        func salvage(_ bytes: [UInt8], passphrase: Passphrase = Self.passphrase) throws -> ContainerSalvage {
            let input = try FileDescriptor.openForReading(directory.write("salvage-\(UUID()).goshuin", bytes))
            return try input.closeAfter { try ContainerSalvage(input, passphrase: passphrase) }
        }
        let damaged = try salvage(file.flippingBit(at: 77 + 1_040 + 10))
        #expect(damaged.damagedChunks == [1] && damaged.firstMissingChunk == nil)
        #expect(damaged.lostRanges.map(\.bytes) == [1_024..<2_048])
        // Cut at a record boundary: three full records, the final one missing, the end unknown.
        let cut = try salvage(Array(file[..<(77 + 3 * 1_040)]))
        #expect(cut.damagedChunks.isEmpty && cut.firstMissingChunk == 3)
        #expect(cut.header.plaintextLength == 3 * 1_024)
        // Cut inside the final record: it is read as the final one and fails.
        let inside = try salvage(Array(file[..<(file.count - 30)]))
        #expect(inside.damagedChunks == [3])
        #expect(throws: GoshuinError(.authFailed, "")) {
            _ = try salvage(file.flippingBit(at: 77 + 10), passphrase: Passphrase("not it"))
        }
        // Every record damaged but the MAC intact: the passphrase is right, nothing is auth_failed.
        var everyRecord = file
        for index in 0..<4 { everyRecord[77 + index * 1_040 + 5] ^= 1 }
        let all = try salvage(everyRecord)
        #expect(all.damagedChunks == [0, 1, 2, 3])
    }

    @Test func salvageSurveysAnEmptyPayloadWhoseOnlyRecordIsLost() throws {
        func salvage(_ bytes: [UInt8]) throws -> ContainerSalvage {
            let input = try FileDescriptor.openForReading(directory.write("empty-\(UUID()).goshuin", bytes))
            return try input.closeAfter { try ContainerSalvage(input, passphrase: Self.passphrase) }
        }
        let file = try seal([])
        // The only record fails: damage (the MAC holds), the end unknown, nothing to lend.
        let damaged = try salvage(file.flippingBit(at: 77 + 3))
        #expect(damaged.damagedChunks == [0] && damaged.firstMissingChunk == nil)
        #expect(damaged.header.plaintextLength == 0)
        // Cut to the header: the final record is missing.
        let cut = try salvage(Array(file[..<77]))
        #expect(cut.damagedChunks.isEmpty && cut.firstMissingChunk == 0)
        #expect(cut.header.plaintextLength == 0 && cut.lostRanges.map(\.chunks) == [0...0])
    }

    @Test func theMacUsesHKDFKeysAsTheSpecSays() throws {
        // container-v2.md §4 recomputed with HMAC-SHA256 alone (RFC 5869 with L = 32 is two HMACs).
        let file = try seal(Fixtures.payload(10))
        let kdfSalt = Array(file[9..<25])
        let payloadSalt = Array(file[25..<41])
        let passphraseKey = try KeyDerivation.deriveKey(passphrase: Self.passphrase, salt: kdfSalt, iterations: 1_000)
        let prk = try passphraseKey.withUnsafeBytes { ikm in
            try payloadSalt.withUnsafeBytes { try HMACSHA256.authenticate(ikm, key: $0) }
        }
        let headerKey = try HMACSHA256.authenticate(Array("goshuin/v2/header-mac".utf8) + [1], key: prk)
        let mac = try HMACSHA256.authenticate(Array(file[0..<45]), key: headerKey)
        #expect(mac.exposedBytes == Array(file[45..<77]))
        let keys = try ContainerKeys(passphraseKey: passphraseKey, version: .v2, payloadSalt: payloadSalt)
        #expect(keys.headerKey?.exposedBytes == headerKey.exposedBytes)
        let payloadKey = try HMACSHA256.authenticate(Array("goshuin/v2/payload".utf8) + [1], key: prk)
        #expect(keys.payloadKey.exposedBytes == payloadKey.exposedBytes)
        let cipher = try AES256GCM(key: payloadKey)
        let nonce = [UInt8](repeating: 0, count: 11) + [1]
        let opened = try cipher.open(
            Array(file[77..<87]), tag: Array(file[87..<103]), nonce: nonce, additionalData: Array(file[0..<77]))
        #expect(opened == Fixtures.payload(10), "record 0, final: nonce 00×7 ‖ u32be(0) ‖ 01, the 77 bytes as AAD")
    }

    @Test func freshSaltsMakeEveryFileDifferent() throws {
        let first = try seal(Fixtures.payload(10), fixed: false)
        let second = try seal(Fixtures.payload(10), fixed: false)
        #expect(first[9..<41] != second[9..<41] && first[45..<77] != second[45..<77])
        #expect(Fixtures.open(first).released == Fixtures.payload(10))
    }
}
