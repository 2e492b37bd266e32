import GoshuinFormat
import GoshuinTestSupport
import Testing

@Suite struct LayoutTests {
    static let chunkSize = 1_024

    @Test(arguments: [1, chunkSize - 1, chunkSize, chunkSize + 1, 2 * chunkSize, 7 * chunkSize + 3])
    func sealedFileHasTheExactLayout(length: Int) throws {
        let directory = TemporaryDirectory()
        let plaintext = Fixtures.payload(length)
        let file = try Fixtures.seal(plaintext, in: directory, chunkSize: UInt32(Self.chunkSize))
        let header = try Header.decode(file)
        let layout = header.layout
        let chunkCount = (length + Self.chunkSize - 1) / Self.chunkSize
        #expect(layout.chunkCount == UInt64(chunkCount))
        #expect(file.count == 45 + 20 * chunkCount + length)
        #expect(UInt64(file.count) == layout.expectedFileSize)
        for index in 0..<chunkCount {
            let offset = Int(layout.recordOffset(ofChunk: UInt64(index)))
            let prefix = file[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let expected = min(Self.chunkSize, length - index * Self.chunkSize) + 16
            #expect(prefix == UInt32(expected), "chunk \(index)")
        }
        let opened = Fixtures.open(file)
        #expect(opened.error == nil)
        #expect(opened.released == plaintext)
    }

    @Test func chunkCiphertextIsAESGCMWithIndexedNonceAndHeaderAAD() throws {
        // Recompute chunk 1 of a sealed file by hand from the spec's definition.
        let directory = TemporaryDirectory()
        let plaintext = Fixtures.payload(3_000)
        let file = try Fixtures.seal(plaintext, in: directory)
        let header = try Header.decode(file)
        let key = try KeyDerivation.deriveKey(
            passphrase: Passphrase(Fixtures.passphrase), salt: header.salt, iterations: header.kdfIterations)
        let cipher = try AES256GCM(key: key)
        let offset = Int(header.layout.recordOffset(ofChunk: 1)) + 4
        let record = Array(file[offset..<offset + 1_024 + 16])
        let sealed = try cipher.seal(
            Array(plaintext[1_024..<2_048]), nonce: header.nonceBase + [0, 0, 0, 1], additionalData: Array(file[0..<45])
        )
        #expect(sealed.ciphertext + sealed.tag == record)
    }

    @Test func sameParametersGiveTheSameBytes() throws {
        let directory = TemporaryDirectory()
        let input = directory.write("plain", Fixtures.payload(5_000))
        let parameters = SealParameters(
            iterations: 1_000, chunkSize: 2_048, fixedSalt: Array(0..<16), fixedNonceBase: Array(0..<8))
        for name in ["a", "b"] {
            try GoshuinFile.seal(
                inputPath: input, outputPath: directory.file(name), passphrase: Passphrase("p"), parameters: parameters)
        }
        #expect(Fixtures.readBytes(directory.file("a")) == Fixtures.readBytes(directory.file("b")))
    }

    @Test func layoutMathAtTheLimits() throws {
        let header = try Header.decode(Fixtures.headerBytes(chunkSize: 1_024, plaintextLength: UInt64(1_024) << 32))
        let layout = header.layout
        let last = layout.chunkCount - 1
        #expect(last == UInt64(UInt32.max))
        #expect(layout.plaintextLength(ofChunk: last) == 1_024)
        #expect(layout.recordOffset(ofChunk: last) == 45 + last * 1_044)
    }
}
