import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinSystem
import GoshuinTestSupport
import Testing

/// The paths that handle a system call's failure, met through the fault seam of debug builds
/// (``FaultInjection``): `EINTR` and short transfers change nothing; `ENOSPC` and `EIO` end the work with
/// their code and leave nothing behind; a sweep that cannot remove a leftover goes on.
@Suite struct FaultInjectionTests {
    let directory = TemporaryDirectory()
    let passphrase = Passphrase(Fixtures.passphrase)

    typealias Rule = FaultInjection.Rule

    /// A backup folder of records.csv and three photos, in 4 KiB chunks: many reads and writes.
    func makeFolder() -> String {
        let folder = directory.file("folder")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        directory.write("folder/records.csv", Array("date,photo\n2026-01-01,IMG_0001.jpg\n".utf8))
        for index in 1...3 {
            directory.write("folder/IMG_000\(index).jpg", Fixtures.payload(90_000, seed: UInt8(index)))
        }
        return folder
    }

    func seal(_ folder: String, to name: String) throws {
        try BackupFile.seal(
            folder: folder, outputPath: directory.file(name), passphrase: passphrase,
            parameters: Fixtures.parameters(chunkSize: 4_096))
    }

    /// Whether the folder `restored` holds exactly the files of `folder`.
    func sameFiles(_ restored: String, _ folder: String) -> Bool {
        let names = { (path: String) in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
        return names(folder) == names(restored).filter { $0 != "manifest.json" }
            && names(folder).allSatisfy {
                Fixtures.readBytes(folder + "/" + $0) == Fixtures.readBytes(restored + "/" + $0)
            }
    }

    @Test func interruptedAndShortTransfersChangeNothing() throws {
        let folder = makeFolder()
        let everyCall: [Rule] = [
            Rule(.read, .interrupted), Rule(.write, .interrupted), Rule(.read, .shortTransfer(maximum: 997)),
            Rule(.write, .shortTransfer(maximum: 1_013)), Rule(.open, .interrupted), Rule(.sync, .interrupted),
            Rule(.link, .interrupted), Rule(.rename, .interrupted), Rule(.remove, .interrupted),
            Rule(.makeDirectory, .interrupted),
        ]
        let sealed = try FaultInjection.with(everyCall) { try seal(folder, to: "b.goshuin") }
        #expect(sealed.faults > 1_000, "the faults were met: \(sealed.faults)")
        let extracted = try FaultInjection.with(everyCall) {
            try BackupFile.extract(
                inputPath: directory.file("b.goshuin"), into: directory.file("out"), passphrase: passphrase)
        }
        #expect(extracted.faults > 1_000, "the faults were met: \(extracted.faults)")
        #expect(sameFiles(directory.file("out"), folder))
        #expect(directory.entries == ["b.goshuin", "folder", "out"], "no temporary left: \(directory.entries)")
    }

    /// `ENOSPC` and `EIO` at every tenth write of a seal, every fifth read, the sync of the output: the seal
    /// fails with the code they mean, and nothing is left.
    @Test(arguments: [
        (Rule(.write, .fails(errno: ENOSPC), skip: 10), "no_space"),
        (Rule(.write, .fails(errno: EIO), skip: 40), "io"),
        (Rule(.read, .fails(errno: EIO), skip: 5), "io"),
        (Rule(.sync, .fails(errno: EIO)), "io"),
        (Rule(.link, .fails(errno: EIO)), "io"),
    ])
    func aFailingCallWhileSealingLeavesNothing(_ rule: Rule, _ code: String) throws {
        let folder = makeFolder()
        let before = directory.entries
        let outcome = FaultInjection.with([rule]) { () -> GoshuinError? in
            do {
                try seal(folder, to: "b.goshuin")
                return nil
            } catch {
                return error as? GoshuinError
            }
        }
        #expect(outcome.faults >= 1)
        #expect(outcome.result?.code.rawValue == code, "\(String(describing: outcome.result))")
        #expect(directory.entries == before, "nothing left: \(directory.entries)")
    }

    @Test(arguments: [
        (Rule(.write, .fails(errno: ENOSPC), skip: 3), "no_space"),
        (Rule(.write, .fails(errno: EIO), skip: 2), "io"),
        (Rule(.read, .fails(errno: EIO), skip: 8), "io"),
        (Rule(.sync, .fails(errno: EIO), skip: 2), "io"),
        (Rule(.rename, .fails(errno: EIO)), "io"),
    ])
    func aFailingCallWhileExtractingLeavesNothing(_ rule: Rule, _ code: String) throws {
        let folder = makeFolder()
        try seal(folder, to: "b.goshuin")
        let before = directory.entries
        let outcome = FaultInjection.with([rule]) { () -> GoshuinError? in
            do {
                try BackupFile.extract(
                    inputPath: directory.file("b.goshuin"), into: directory.file("out"), passphrase: passphrase)
                return nil
            } catch {
                return error as? GoshuinError
            }
        }
        #expect(outcome.faults >= 1)
        #expect(outcome.result?.code.rawValue == code, "\(String(describing: outcome.result))")
        #expect(directory.entries == before, "no folder, no staging left: \(directory.entries)")
    }

    /// A leftover the sweep cannot remove (`EIO` on its unlink) stays, and the sweep goes on to the next;
    /// a later sweep takes it.
    @Test func aSweepThatCannotRemoveALeftoverGoesOn() throws {
        let folder = try OpenDirectory(path: directory.path)
        let names = [".a.goshuin-tmp-00000000000000a1", ".b.goshuin-tmp-00000000000000b2"]
        for name in names {
            let file = try folder.openFile(name, [.writeOnly, .create, .exclusive])
            try file.writeAll([1, 2, 3])
            Temporaries.mark(file, name: name)
            try file.close()
            var times = [
                timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0),
            ]
            #expect(utimensat(AT_FDCWD, directory.file(name), &times, 0) == 0)
        }
        let first = FaultInjection.with([Rule(.remove, .fails(errno: EIO), times: 1)]) {
            Temporaries.sweepLeftovers(in: directory.path)
        }
        #expect(first.faults == 1 && first.result.count == 1, "one removed, one refused: \(first.result)")
        #expect(directory.entries.count == 1)
        #expect(Temporaries.sweepLeftovers(in: directory.path).count == 1, "the next sweep takes the other")
        #expect(directory.entries.isEmpty)
    }
}
