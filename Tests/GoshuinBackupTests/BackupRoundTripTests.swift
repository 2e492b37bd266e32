import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// A folder of photos survives pack → seal → open → extract unchanged; other ZIP readers accept what we write.
@Suite struct BackupRoundTripTests {
    static func makeFolder(_ directory: TemporaryDirectory) -> String {
        let folder = directory.file("folder")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: folder + "/records.csv", contents: Data("id,text\n1,旅の記録\n".utf8))
        for (index, name) in ["IMG_0001.jpg", "b-2.png", "c_3.heic", "Z9.webp"].enumerated() {
            let photo = [0xFF, 0xD8, 0xFF] + Fixtures.payload(20_000 + index * 7_000, seed: UInt8(index))
            _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(photo))
        }
        return folder
    }

    /// Packs `folder` and seals the ZIP into `directory/backup.goshuin` under "pw"; returns the manifest.
    @discardableResult
    static func sealBackup(_ folder: String, in directory: TemporaryDirectory, chunkSize: UInt32 = 4_096) throws
        -> Manifest
    {
        let packed = try FileSystem.anonymousFile(in: directory.path)
        return try packed.closeAfter {
            let manifest = try BackupFolder(checking: folder).pack(into: packed)
            try packed.seek(to: 0)
            let size = try #require(try packed.regularFileSize())
            try withAtomicOutput(to: directory.file("backup.goshuin"), replaceExisting: false) { output in
                try ContainerSealer.seal(
                    from: packed, plaintextLength: UInt64(size), to: output, passphrase: Passphrase("pw"),
                    parameters: SealParameters(iterations: 1_000, chunkSize: chunkSize))
            }
            return manifest
        }
    }

    @Test func folderSurvivesPackSealOpenExtract() throws {
        let directory = TemporaryDirectory()
        let folder = Self.makeFolder(directory)
        let manifest = try Self.sealBackup(folder, in: directory)
        #expect(manifest.photos.map(\.name) == ["IMG_0001.jpg", "Z9.webp", "b-2.png", "c_3.heic"])
        try BackupFile.extract(
            inputPath: directory.file("backup.goshuin"), into: directory.file("out"), passphrase: Passphrase("pw"))
        for name in ["records.csv", "IMG_0001.jpg", "b-2.png", "c_3.heic", "Z9.webp"] {
            #expect(
                Fixtures.readBytes(folder + "/" + name) == Fixtures.readBytes(directory.file("out/" + name)), "\(name)")
        }
        let extracted = try Manifest.parse(Fixtures.readBytes(directory.file("out/manifest.json")))
        #expect(extracted == manifest)
        // Packing the extracted folder gives the same ZIP: createdAt is kept from its manifest.
        let first = try FileSystem.anonymousFile()
        let second = try FileSystem.anonymousFile()
        try BackupFolder(checking: directory.file("out")).pack(into: first)
        try BackupFolder(checking: directory.file("out")).pack(into: second)
        let firstBytes = try #require(try FileSource(first).readExactly(at: 0, count: Int(try FileSource(first).size)))
        let secondBytes = try #require(
            try FileSource(second).readExactly(at: 0, count: Int(try FileSource(second).size)))
        #expect(firstBytes == secondBytes)
        try first.close()
        try second.close()
    }

    @Test func failedExtractionLeavesNothing() throws {
        let directory = TemporaryDirectory()
        let folder = Self.makeFolder(directory)
        try Self.sealBackup(folder, in: directory)
        var bytes = Fixtures.readBytes(directory.file("backup.goshuin"))
        bytes[45 + 4 + 100] ^= 1
        directory.write("damaged.goshuin", bytes)
        #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 0)) {
            try BackupFile.extract(
                inputPath: directory.file("damaged.goshuin"), into: directory.file("out"), passphrase: Passphrase("pw"))
        }
        #expect(throws: GoshuinError(.authFailed, "")) {
            try BackupFile.extract(
                inputPath: directory.file("backup.goshuin"), into: directory.file("out"), passphrase: Passphrase("no"))
        }
        #expect(directory.entries == ["backup.goshuin", "damaged.goshuin", "folder"])
        try FileManager.default.createDirectory(atPath: directory.file("full"), withIntermediateDirectories: false)
        directory.write("full/x", [1])
        #expect(throws: GoshuinError(.destinationNotEmpty, "")) {
            try BackupFile.extract(
                inputPath: directory.file("backup.goshuin"), into: directory.file("full"), passphrase: Passphrase("pw"))
        }
    }

    @Test func packingRefusesAnythingElseByName() throws {
        let directory = TemporaryDirectory()
        let folder = Self.makeFolder(directory)
        for name in ["notes.txt", "CON.jpg", "-rf.jpg", "a.b.jpg", "photo.gif"] {
            directory.write("folder/" + name, [1])
            let output = try FileSystem.anonymousFile()
            #expect {
                try output.closeAfter { try BackupFolder(checking: folder).pack(into: output) }
            } throws: { error in
                let error = error as? GoshuinError
                return error?.code == .unexpectedFile && error?.details.count == 1
                    && error?.details.first?.hasPrefix("\"\(name)\"") == true
            }
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.jpg", withDestinationPath: "/etc/passwd")
        let output = try FileSystem.anonymousFile()
        #expect(throws: GoshuinError(.unexpectedFile, "")) {
            try output.closeAfter { try BackupFolder(checking: folder).pack(into: output) }
        }
    }

    @Test func pythonZipfileAndInfoZipAcceptWhatWeWrite() throws {
        let directory = TemporaryDirectory()
        let folder = Self.makeFolder(directory)
        let zipPath = directory.file("backup.zip")
        try withAtomicOutput(to: zipPath, replaceExisting: false) { output in
            // The packer re-reads what it wrote, so it needs a readable descriptor: pack, then copy.
            let packed = try FileSystem.anonymousFile()
            try packed.closeAfter {
                try BackupFolder(checking: folder).pack(into: packed)
                try packed.seek(to: 0)
                try output.copyAll(from: packed, reading: "the packed ZIP", writing: "the copy")
            }
        }
        let python = try Self.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(len(z.namelist()))",
                zipPath,
            ])
        #expect(python.status == 0 && python.output.hasPrefix("6"), "\(python.output)")
        let unzip = try Self.run("/usr/bin/env", ["unzip", "-t", zipPath])
        #expect(unzip.status == 0 && unzip.output.contains("No errors detected"), "\(unzip.output)")
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A photo that changes between the folder check and its reading is refused, and nothing is left: the
/// size, the time, the file itself (swapped), for a photo read once and for one read twice (over 16 MiB).
@Suite struct ChangedWhileSealingTests {
    let directory = TemporaryDirectory()

    /// A photo read once; in the slow tier also one read twice (over 16 MiB).
    static let photoSizes = TestTier.includesSlowTier ? [1_000, 17 << 20] : [1_000]

    func seal(_ change: (String) throws -> Void, photoSize: Int = 1_000) throws -> GoshuinError? {
        let folder = directory.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        directory.write("folder/records.csv", Array("a\n".utf8))
        directory.write("folder/IMG_0001.jpg", Fixtures.payload(photoSize))
        let checked = try BackupFolder(checking: folder)
        try change(folder + "/IMG_0001.jpg")
        let output = directory.file("b.goshuin")
        defer { try? FileManager.default.removeItem(atPath: output) }
        do {
            try checked.seal(
                to: output, passphrase: Passphrase(Fixtures.passphrase), parameters: Fixtures.parameters())
        } catch let error as GoshuinError {
            #expect(!FileManager.default.fileExists(atPath: output), "nothing is left")
            #expect(directory.entries == ["folder"], "no temporary: \(directory.entries)")
            return error
        }
        return nil
    }

    @Test(arguments: ChangedWhileSealingTests.photoSizes)
    func aPhotoChangedAfterTheCheckIsRefused(photoSize: Int) throws {
        #expect(try seal({ _ in }, photoSize: photoSize) == nil, "unchanged, it seals")
        let grown = try seal(
            { path in
                let handle = try #require(FileHandle(forWritingAtPath: path))
                handle.seekToEndOfFile()
                handle.write(Data([1]))
                try handle.close()
            }, photoSize: photoSize)
        #expect(grown?.code == .io && grown?.message.contains("changed while the backup was being made") == true)
        let touched = try seal(
            { path in
                var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            }, photoSize: photoSize)
        #expect(touched?.code == .io, "\(String(describing: touched))")
        let swapped = try seal(
            { path in
                let bytes = Fixtures.readBytes(path)
                try FileManager.default.removeItem(atPath: path)
                _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            }, photoSize: photoSize)
        #expect(swapped?.code == .io && swapped?.message.contains("replaced") == true, "\(String(describing: swapped))")
    }

    /// A photo rewritten in place at the same size with its modification time put back (`touch -r`, `cp -p`,
    /// `rsync -t`), or deleted and made again under the same inode number and time: size, inode and
    /// modification time all match the check; the status change time does not (backup-v1.md §5).
    @Test(arguments: ChangedWhileSealingTests.photoSizes)
    func aPhotoRewrittenWithItsTimePutBackIsRefused(photoSize: Int) throws {
        func restoringTime(_ path: String, _ rewrite: () throws -> Void) throws {
            var before = stat()
            #expect(stat(path, &before) == 0)
            try rewrite()
            var times = [before.st_atim, before.st_mtim]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            var after = stat()
            #expect(stat(path, &after) == 0)
            #expect(after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec)
            #expect(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec, "the time is put back to the nanosecond")
        }
        let rewritten = try seal(
            { path in
                try restoringTime(path) {
                    let handle = try #require(FileHandle(forWritingAtPath: path))
                    handle.write(Data(repeating: 0x55, count: 16))
                    try handle.close()
                }
            }, photoSize: photoSize)
        #expect(rewritten?.code == .io, "\(String(describing: rewritten))")
        // tmpfs and ext4 give a freed inode number to the next file made; where another is given, the swap is
        // refused by its identity as well.
        let recreated = try seal(
            { path in
                try restoringTime(path) {
                    let bytes = Fixtures.readBytes(path)
                    try FileManager.default.removeItem(atPath: path)
                    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes.reversed()))
                }
            }, photoSize: photoSize)
        #expect(recreated?.code == .io, "\(String(describing: recreated))")
    }

    /// An empty photo and records.csv too large to hold in memory (stored, read as it is written) seal and
    /// extract whole.
    @Test(.slowTier) func anEmptyPhotoAndLargeRecordsRoundTrip() throws {
        let folder = directory.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let records = Fixtures.payload((16 << 20) + 5)
        directory.write("folder/records.csv", records)
        directory.write("folder/IMG_0001.jpg", [])
        directory.write("folder/IMG_0002.jpg", Fixtures.payload(5_000))
        try BackupFile.seal(
            folder: folder, outputPath: directory.file("b.goshuin"), passphrase: Passphrase(Fixtures.passphrase),
            parameters: Fixtures.parameters(chunkSize: 1 << 20))
        try BackupFile.extract(
            inputPath: directory.file("b.goshuin"), into: directory.file("out"),
            passphrase: Passphrase(Fixtures.passphrase))
        #expect(Fixtures.readBytes(directory.file("out/records.csv")) == records)
        #expect(Fixtures.readBytes(directory.file("out/IMG_0001.jpg")).isEmpty)
        #expect(Fixtures.readBytes(directory.file("out/IMG_0002.jpg")) == Fixtures.payload(5_000))
    }
}
