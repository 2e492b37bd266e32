import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// Someone who can rename entries beside the destination, or in the folder being packed, races the
/// toolkit: nothing is written or deleted outside the destination, and no link is followed.
@Suite struct RaceTests {
    /// A sealed backup of `BackupRoundTripTests.makeFolder` and a reader over it.
    static func reader(_ directory: TemporaryDirectory, damagingLastPhoto: Bool = false) throws -> (
        DecryptingReader, FileDescriptor
    ) {
        let folder = BackupRoundTripTests.makeFolder(directory)
        let manifest = try BackupRoundTripTests.sealBackup(folder, in: directory)
        if damagingLastPhoto {
            // A manifest that lies about the last photo's hash: extraction fails after writing the others.
            var photos = manifest.photos
            let last = photos.removeLast()
            photos.append(
                Manifest.FileEntry(name: last.name, size: last.size, sha256: [UInt8](repeating: 0, count: 32)))
            let lying = try Manifest(createdAt: manifest.createdAt, records: manifest.records, photos: photos)
            directory.write("folder/manifest.json", lying.encode())
            try FileManager.default.removeItem(atPath: directory.file("backup.goshuin"))
            let zip = try Self.zip(ofFolder: folder, replacingManifestWith: lying)
            let zipPath = directory.write("lying.zip", zip)
            try GoshuinFile.seal(
                inputPath: zipPath, outputPath: directory.file("backup.goshuin"), passphrase: Passphrase("pw"),
                parameters: SealParameters(iterations: 1_000, chunkSize: 4_096))
        }
        let input = try FileDescriptor.openForReading(directory.file("backup.goshuin"))
        return (try DecryptingReader(input, passphrase: Passphrase("pw")), input)
    }

    /// The folder's files as a ZIP whose manifest is `manifest` (built byte by byte: the packer refuses lies).
    static func zip(ofFolder folder: String, replacingManifestWith manifest: Manifest) throws -> [UInt8] {
        let records = Fixtures.readBytes(folder + "/records.csv")
        let photos = manifest.photos.map { ($0.name, Fixtures.readBytes(folder + "/" + $0.name)) }
        return ZipFixture.backup(
            records: records, photos: photos, manifestText: String(decoding: manifest.encode(), as: UTF8.self)
        ).build()
    }

    /// A folder `victim` beside the destination, holding files named like the backup's entries.
    static func makeVictim(_ directory: TemporaryDirectory) throws -> [String: [UInt8]] {
        try FileManager.default.createDirectory(atPath: directory.file("victim"), withIntermediateDirectories: false)
        var files: [String: [UInt8]] = [:]
        for name in ["records.csv", "IMG_0001.jpg", "keep.txt"] {
            let bytes = Array("victim's own \(name)\n".utf8)
            files[name] = bytes
            directory.write("victim/" + name, bytes)
        }
        return files
    }

    static func contents(of folder: String) -> [String: [UInt8]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return Dictionary(uniqueKeysWithValues: names.map { ($0, Fixtures.readBytes(folder + "/" + $0)) })
    }

    /// Swaps the staging folder for a link to `victim` as soon as it is made.
    static func swapForLink(_ directory: TemporaryDirectory) -> (String) -> Void {
        { staging in
            _ = rename(staging, directory.file("moved-away"))
            _ = symlink(directory.file("victim"), staging)
        }
    }

    @Test func aSwappedStagingFolderReceivesNothing() throws {
        let directory = TemporaryDirectory()
        let victim = try Self.makeVictim(directory)
        let (reader, input) = try Self.reader(directory)
        defer { try? input.close() }
        #expect(throws: GoshuinError.self) {
            try BackupExtractor.extract(
                from: reader, into: try ExtractionDestination(directory.file("out")),
                afterStagingFolderMade: Self.swapForLink(directory))
        }
        #expect(Self.contents(of: directory.file("victim")) == victim, "nothing written into the link's target")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
        #expect(Self.contents(of: directory.file("moved-away")).isEmpty, "what was written is removed")
    }

    @Test func aFailingExtractionCleansUpWithoutFollowingTheLink() throws {
        let directory = TemporaryDirectory()
        let victim = try Self.makeVictim(directory)
        let (reader, input) = try Self.reader(directory, damagingLastPhoto: true)
        defer { try? input.close() }
        #expect(throws: GoshuinError(.manifestMismatch, "")) {
            try BackupExtractor.extract(
                from: reader, into: try ExtractionDestination(directory.file("out")),
                afterStagingFolderMade: Self.swapForLink(directory))
        }
        #expect(Self.contents(of: directory.file("victim")) == victim, "the cleanup deleted nothing of the target")
        #expect(Self.contents(of: directory.file("moved-away")).isEmpty)
    }

    @Test(.slowTier) func aPhotoSwappedForALinkIsNeverSealed() throws {
        let directory = TemporaryDirectory()
        let folder = BackupRoundTripTests.makeFolder(directory)
        let secret = Array("the secret that must never be sealed: 5f1d3c9a7b".utf8)
        directory.write("secret.txt", secret)
        let photo = folder + "/Z9.webp"
        let secretPath = directory.file("secret.txt")
        // The photo itself comes back each time (a hard link kept aside): a pack that checked it and opens
        // it while it is in place seals it; one that meets the link is refused. Every link and rename
        // changes the photo's status change time, which the check compares too, so the photo is left in
        // place a while after every eighth swap (long enough on a loaded machine), for some packs to find it
        // unchanged.
        let kept = directory.file("Z9.kept")
        #expect(link(photo, kept) == 0)
        let stop = Atomic(false)
        let swapper = Thread {
            var round = 0
            while !stop.value {
                unlink(photo + ".new")
                _ = symlink(secretPath, photo + ".new")
                rename(photo + ".new", photo)
                _ = link(kept, photo + ".new")
                rename(photo + ".new", photo)
                round += 1
                usleep(round % 8 == 0 ? 20_000 : 200)
            }
        }
        swapper.start()
        defer { stop.value = true }
        var sealed = 0
        for _ in 0..<300 {
            let output = try FileSystem.anonymousFile()
            defer { try? output.close() }
            guard (try? BackupFolder(checking: folder).pack(into: output)) != nil else { continue }
            sealed += 1
            let size = Int(try #require(try output.regularFileSize()))
            let zip = try #require(try FileSource(output).readExactly(at: 0, count: size))
            #expect(!zip.indices.dropLast(secret.count).contains { zip[$0..<$0 + secret.count].elementsEqual(secret) })
        }
        stop.value = true
        #expect(sealed > 0, "some packs ran while the photo was a regular file")
    }
}

/// A flag shared between a test and the thread it races with.
final class Atomic<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
