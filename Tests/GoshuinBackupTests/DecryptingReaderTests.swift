import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The random-access decrypting reader: exact bytes at any offset, failures as the spec says, and a
/// listing that decrypts only the final chunks.
@Suite struct DecryptingReaderTests {
    static func sealed(_ plaintext: [UInt8], chunkSize: UInt32 = 1_024) throws -> (TemporaryDirectory, String) {
        let directory = TemporaryDirectory()
        _ = try Fixtures.seal(plaintext, in: directory, chunkSize: chunkSize)
        return (directory, directory.file("sealed.goshuin"))
    }

    @Test func readsAnyRangeExactly() throws {
        let plaintext = Fixtures.payload(10_000)
        let (directory, path) = try Self.sealed(plaintext)
        _ = directory
        let input = try FileDescriptor.openForReading(path)
        try input.closeAfter {
            let reader = try DecryptingReader(input, passphrase: Passphrase(Fixtures.passphrase))
            #expect(reader.size == 10_000)
            #expect(reader.lowestChunkDecrypted == 9, "the final chunk is verified first")
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<200 {
                let offset = Int.random(in: 0..<10_000, using: &generator)
                let count = Int.random(in: 0...3_000, using: &generator)
                let expected = Array(plaintext[offset..<min(offset + count, 10_000)])
                #expect(try reader.readExactly(at: UInt64(offset), count: expected.count) == expected)
            }
            #expect(try reader.readExactly(at: 9_999, count: 2) == nil)
        }
    }

    @Test func failuresFollowTheSpec() throws {
        let (directory, path) = try Self.sealed(Fixtures.payload(10_000))
        let input = try FileDescriptor.openForReading(path)
        try input.closeAfter {
            #expect(throws: GoshuinError(.authFailed, "")) {
                try DecryptingReader(input, passphrase: Passphrase("wrong"))
            }
        }
        var bytes = Fixtures.readBytes(path)
        bytes[bytes.count - 1] ^= 1
        let damaged = directory.write("damaged.goshuin", bytes)
        let damagedInput = try FileDescriptor.openForReading(damaged)
        try damagedInput.closeAfter {
            #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 9)) {
                try DecryptingReader(damagedInput, passphrase: Passphrase(Fixtures.passphrase))
            }
        }
        bytes[bytes.count - 1] ^= 1
        bytes[45 + 3 * 1_044 + 10] ^= 1
        let middle = directory.write("middle.goshuin", bytes)
        let middleInput = try FileDescriptor.openForReading(middle)
        try middleInput.closeAfter {
            let reader = try DecryptingReader(middleInput, passphrase: Passphrase(Fixtures.passphrase))
            #expect(try reader.readExactly(at: 0, count: 100) != nil)
            #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 3)) {
                try reader.readExactly(at: 3 * 1_024, count: 10)
            }
        }
    }

    @Test func listingABackupDecryptsOnlyTheFinalChunks() throws {
        // minizip searches the last 64 KiB for ZIP64 records, so chunks of 64 KiB (the default is 4 MiB)
        // show what a listing reads: the final two chunks (end records, central directory, manifest).
        let directory = TemporaryDirectory()
        let folder = BackupRoundTripTests.makeFolder(directory)
        for index in 0..<10 {
            directory.write("folder/extra\(index).jpg", Fixtures.payload(150_000, seed: UInt8(index)))
        }
        try BackupRoundTripTests.sealBackup(folder, in: directory, chunkSize: 65_536)
        let input = try FileDescriptor.openForReading(directory.file("backup.goshuin"))
        try input.closeAfter {
            let reader = try DecryptingReader(input, passphrase: Passphrase("pw"))
            let chunkCount = reader.header.layout.chunkCount
            #expect(chunkCount > 20)
            let archive = try BackupArchive(reader)
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            #expect(manifest.photos.count == 14)
            let lowest = try #require(reader.lowestChunkDecrypted)
            #expect(lowest >= chunkCount - 2, "listing decrypted chunk \(lowest) of \(chunkCount)")
            #expect(reader.decryptionCount <= 4)
        }
    }
}
