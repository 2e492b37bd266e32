import Foundation
import GoshuinTestSupport
import Testing

/// Sealing a folder in one pass: the free space needed is the backup's size, photos keep their dates, and
/// what the tool says from the first second.
@Suite struct SealInOnePassTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "one pass, no temporary"]

    func makeFolder() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/folder", withIntermediateDirectories: false)
        directory.write("folder/records.csv", Array("date,photo\n2025-05-05,IMG_0001.jpg\n".utf8))
        for index in 1...3 {
            directory.write(
                "folder/IMG_000\(index).jpg", (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* (index + 7)) })
        }
    }

    /// A file system with room for the backup and one page more: the seal writes the backup alone there,
    /// with no packed ZIP beside it (before, it needed room for the backup twice and failed with no_space).
    @Test(.slowTier) func aFolderSealsOntoAFileSystemWithRoomForTheBackupAlone() throws {
        try makeFolder()
        let probe = try ToolRunner.run(
            ["seal", "folder", "-o", "probe.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(probe.status == 0, "\(probe.stderr)")
        let size = directory.bytes("probe.goshuin").count
        let room = (size + 4_095) / 4_096 * 4_096 + 4_096
        try FileManager.default.createDirectory(atPath: directory.path + "/small", withIntermediateDirectories: false)
        // A tmpfs of that size, mounted in a namespace of its own (no privilege needed), gone with it.
        let script = """
            mount -t tmpfs -o size=\(room) tmpfs small && \
            "$0" seal folder -o small/b.goshuin --iterations 1000 && \
            "$0" verify small/b.goshuin --backup && df -B1 small | tail -n 1
            """
        let result = try ToolRunner.run(
            [], in: directory.path, environment: environment,
            wrapper: ["/usr/bin/unshare", "-rm", "/bin/sh", "-c", script])
        // verify --backup exits 0 only when every entry matches the manifest.
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The folder check says what it found before the passphrase is asked; the restored photos have the
    /// folder's modification times.
    @Test(.slowTier) func photosKeepTheirDatesAndTheCheckSpeaksFirst() throws {
        try makeFolder()
        var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, directory.path + "/folder/IMG_0002.jpg", &times, 0) == 0)
        let sealed = try ToolRunner.runOnTerminal(
            ["seal", "folder", "-o", "b.goshuin", "--iterations", "1000"], in: directory.path,
            answers: ["one pass, no temporary", "one pass, no temporary"])
        #expect(sealed.status == 0, "\(sealed.screen)")
        // The notice of what the folder holds (seal-a-folder.txt), before the first prompt.
        let found = try #require(sealed.screen.range(of: "goshuin-tool: folder holds "))
        let asked = try #require(sealed.screen.range(of: "Passphrase:"))
        #expect(found.lowerBound < asked.lowerBound, "the check speaks before the prompt: \(sealed.screen)")
        let restored = try ToolRunner.run(
            ["open", "b.goshuin", "--extract", "restored"], in: directory.path, environment: environment)
        #expect(restored.status == 0, "\(restored.stderr)")
        var info = stat()
        #expect(stat(directory.path + "/restored/IMG_0002.jpg", &info) == 0)
        #expect(info.st_mtim.tv_sec == 1_600_000_000)
        var original = stat()
        #expect(stat(directory.path + "/folder/IMG_0001.jpg", &original) == 0)
        #expect(
            stat(directory.path + "/restored/IMG_0001.jpg", &info) == 0
                && info.st_mtim.tv_sec == original.st_mtim.tv_sec)
        // Python's zipfile and Info-ZIP read the same dates.
        let opened = try ToolRunner.run(
            ["open", "b.goshuin", "-o", "b.zip"], in: directory.path, environment: environment)
        #expect(opened.status == 0)
        let listed = try ToolRunner.runCommand("/usr/bin/unzip", ["-Z", "-T", directory.path + "/b.zip"]).output
        #expect(listed.contains("20200913.122640 IMG_0002.jpg"), "\(listed)")
    }
}
