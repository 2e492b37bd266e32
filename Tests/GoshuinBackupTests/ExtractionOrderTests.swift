import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// A central directory that lists entries out of file order cannot make extraction decrypt the same
/// chunks again and again: the scan and the extraction both visit entries in file order.
@Suite struct ExtractionOrderTests {
    @Test func aStridingDirectoryDecryptsEachChunkAtMostTwice() throws {
        let photos = (0..<200).map { index in
            (String(format: "IMG_%04d.jpg", index), Fixtures.payload(100, seed: UInt8(index % 256)))
        }
        var fixture = ZipFixture.backup(photos: photos)
        // Records, then the photos striding across the file 10 at a time, then the manifest.
        let photoOrder = (0..<10).flatMap { start in stride(from: start, to: 200, by: 10).map { $0 + 1 } }
        fixture.centralOrder = [0] + photoOrder + [201]
        let directory = TemporaryDirectory()
        let zipPath = directory.write("payload.zip", fixture.build())
        try GoshuinFile.seal(
            inputPath: zipPath, outputPath: directory.file("backup.goshuin"), passphrase: Passphrase("pw"),
            parameters: SealParameters(iterations: 1_000, chunkSize: 1_024))
        let input = try FileDescriptor.openForReading(directory.file("backup.goshuin"))
        try input.closeAfter {
            let reader = try DecryptingReader(input, passphrase: Passphrase("pw"))
            let manifest = try BackupExtractor.extract(
                from: reader, into: try ExtractionDestination(directory.file("out")))
            #expect(manifest.photos.count == 200)
            let chunkCount = Int(reader.header.layout.chunkCount)
            #expect(chunkCount > 30)
            // The end (central directory and manifest) first, then one pass over the entries in file order.
            #expect(reader.decryptionCount <= 2 * chunkCount, "\(reader.decryptionCount) for \(chunkCount) chunks")
            // The order is hostile: the same entries read in directory order cost far more.
            let naive = try DecryptingReader(input, passphrase: Passphrase("pw"))
            let archive = try BackupArchive(naive)
            for entry in archive.directory.entries { try archive.read(entry) { _ in } }
            #expect(naive.decryptionCount > 3 * chunkCount, "\(naive.decryptionCount) for \(chunkCount) chunks")
        }
        for (name, bytes) in photos { #expect(Fixtures.readBytes(directory.file("out/" + name)) == bytes) }
    }
}
