import Foundation
import GoshuinTestSupport
import Testing

/// Recovery that can never cost a backup, through the tool as people run it (issue 34): a set made for an
/// earlier backup under the same name is named and left aside, never repairs the new backup into the old one;
/// what the tool suggests runs on that file and nothing else; a person is told what the file is and what to
/// do.
@Suite struct RecoveryIssue34Tests {
    let directory = Scratch()
    static let passphrase = "recovery, issue 34"

    func run(_ arguments: [String], passphrase: Bool = false) throws -> ToolRunner.Result {
        try ToolRunner.run(
            arguments, in: directory.path, environment: passphrase ? ["GOSHUIN_PASSPHRASE": Self.passphrase] : [:])
    }

    /// A backup folder of a records.csv of `recordsSize` bytes and `photoSize` bytes of one photo.
    func backupFolder(_ name: String, recordsSize: Int, photoSize: Int, seed: UInt8) throws {
        let folder = directory.path + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let records = "date,note\n" + String(repeating: "2026-12-0\(seed % 9 + 1),a note\n", count: recordsSize / 20)
        directory.write(name + "/records.csv", Array(records.utf8))
        if photoSize > 0 { directory.write(name + "/IMG_0001.jpg", Fixtures.payload(photoSize, seed: seed)) }
    }

    func seal(_ folder: String, to output: String, _ more: [String] = []) throws -> ToolRunner.Result {
        let result = try run(
            ["seal", folder, "-o", output, "--iterations", "1000", "--chunk-size", "1KiB"] + more,
            passphrase: true)
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    /// Issue 34 A.1: at every size, the old set never repairs the new backup into the old one.
    @Test(arguments: [(0, 300), (3_000, 900), (200_000, 600)])
    func aSetOfTheBackupSealedOverIsLeftAside(photoSize: Int, recordsSize: Int) throws {
        try backupFolder("first", recordsSize: recordsSize, photoSize: photoSize, seed: 1)
        try backupFolder("second", recordsSize: recordsSize, photoSize: photoSize, seed: 2)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        let old = Array(directory.entries.filter { $0.hasPrefix("b.goshuin.") })
        // Today's bytes of the old set, put back after the --force seal below removes it (as a copy kept by a
        // sync client would be).
        let oldBytes = old.map { directory.bytes($0) }
        // What it says of the set it removed: repair-another-files-set.txt.
        let resealed = try seal("second", to: "b.goshuin", ["--force", "--json"])
        let stale = try #require(resealed.json?["staleRecoveryFiles"] as? [String: Any], "\(resealed.stdout)")
        #expect(stale["removed"] as? Bool == true && (stale["files"] as? [String])?.count == old.count)
        #expect(directory.entries.filter { $0.hasPrefix("b.goshuin.") }.isEmpty, "no stale set is left")
        for (name, bytes) in zip(old, oldBytes) { directory.write(name, bytes) }
        let newer = directory.bytes("b.goshuin")
        let verify = try run(["verify", "b.goshuin", "--backup", "--json"], passphrase: true)
        #expect(verify.status == 0, "the new backup is intact: \(verify.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
        let recovery = try #require(summary["recovery"] as? [String: Any])
        #expect(recovery["usable"] as? Bool == false && recovery["code"] as? String == "recovery_set_mismatch")
        #expect(recovery["next"] as? String == "goshuin-tool protect b.goshuin --force")
        // The notice that names the set: repair-another-files-set.txt.
        let repair = try run(["repair", "b.goshuin", "--in-place"])
        #expect(repair.status == 65 && repair.errorCode == "recovery_set_mismatch", "\(repair.stderr)")
        #expect(directory.bytes("b.goshuin") == newer, "the new backup is as it was")
        #expect(!directory.exists("b.repaired.goshuin"))
    }

    @Test func sealingOverAStaleSetWithoutForceNamesIt() throws {
        try backupFolder("first", recordsSize: 300, photoSize: 0, seed: 3)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        try FileManager.default.removeItem(atPath: directory.path + "/b.goshuin")
        // The notice, with the command that replaces the set: recovery-notices.txt.
        let sealed = try seal("first", to: "b.goshuin", ["--json"])
        let stale = try #require(sealed.json?["staleRecoveryFiles"] as? [String: Any], "\(sealed.stdout)")
        #expect(stale["removed"] as? Bool == false && (stale["files"] as? [String])?.isEmpty == false)
        #expect(directory.exists("b.goshuin.par2"), "without --force nothing is removed")
    }

    @Test func suggestedCommandsAreQuotedForAShell() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 4)
        for name in ["x;touch PWNED;.goshuin", "My Backup.goshuin", "-n.goshuin", "it's.goshuin"] {
            _ = try seal("first", to: name.hasPrefix("-") ? "./" + name : name, ["--recovery", "5%"])
            var bytes = directory.bytes(name)
            bytes[20_000] ^= 1
            directory.write(name, bytes)
            let verify = try run(["verify", ShellQuoting.argument(name), "--json"])
            #expect(verify.status == 65, "\(verify.stderr)")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
            let recovery = try #require(summary["recovery"] as? [String: Any])
            let next = try #require(recovery["next"] as? String)
            #expect(recovery["nextArguments"] as? [String] == ["goshuin-tool", "repair", ShellQuoting.argument(name)])
            // Pasted into a shell, the command names this file, and runs nothing else.
            let echoed = try ToolRunner.runCommand(
                "/bin/sh", ["-c", "cd \"$1\" && printf '%s\\n' " + next, "sh", directory.path])
            #expect(
                echoed.output == "goshuin-tool\nrepair\n\(ShellQuoting.argument(name))\n", "\(next): \(echoed.output)")
            #expect(!directory.exists("PWNED"))
            let repaired = try ToolRunner.runCommand(
                "/bin/sh",
                [
                    "-c", "cd \"$1\" && PATH=\"$2:$PATH\" " + next + " --in-place -q", "sh", directory.path,
                    URL(fileURLWithPath: ToolRunner.toolPath).deletingLastPathComponent().path,
                ])
            #expect(repaired.status == 0, "\(next): \(repaired.output)")
            #expect(!directory.exists("PWNED"))
        }
    }

    @Test func aRecoveryFileWhereTheFileIsExpected() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 5)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        let original = directory.bytes("b.goshuin")
        var bytes = original
        bytes[30_000] ^= 1
        directory.write("b.goshuin", bytes)
        // par2's own syntax: the file it protects is repaired.
        // What it says: repair-damaged.txt.
        let repair = try run(["repair", "b.goshuin.par2", "-o", "fixed.goshuin", "--json"])
        #expect(repair.status == 0 && repair.json?["file"] as? String == "b.goshuin", "\(repair.stderr)")
        #expect(directory.bytes("fixed.goshuin") == original)
        // A recovery file is never protected.
        // What each says, and the command it suggests (--force, which protect has, not -o): protect.txt.
        let protect = try run(["protect", "b.goshuin.par2"])
        #expect(protect.status == 64 && protect.errorCode == "usage", "\(protect.stderr)")
        #expect(!directory.exists("b.goshuin.par2.par2"))
        let again = try run(["protect", "b.goshuin"])
        #expect(again.status == 73 && again.errorCode == "output_exists", "\(again.stderr)")
    }

    @Test func onlyTheIndexBesideADamagedBackupNamesTheMissingVolume() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 6)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        for name in directory.entries where name.contains(".vol") {
            try FileManager.default.removeItem(atPath: directory.path + "/" + name)
        }
        var bytes = directory.bytes("b.goshuin")
        bytes[30_000] ^= 1
        directory.write("b.goshuin", bytes)
        // Where the recovery data is, in words: recovery-notices.txt.
        let verify = try run(["verify", "b.goshuin", "--json"])
        #expect(verify.status == 65 && verify.errorCode == "chunk_damaged")
        let recovery = try #require(verify.json?["recovery"] as? [String: Any], "\(verify.stdout)")
        #expect(recovery["repairable"] as? Bool == false && recovery["recoverySlicesAvailable"] as? Int == 0)
        // The index records neither the volume's exact name nor how many parts it held (Spec/recovery-par2.md
        // §2): the message says so, names the pattern, and says how many parts a volume must rebuild.
        let needed = try #require(recovery["recoverySlicesNeeded"] as? Int)
        let message = try #require(verify.jsonError?["message"] as? String)
        #expect(message.contains("b.goshuin.vol…par2, which is not beside it"), "\(message)")
        #expect(message.contains("the index records neither that file's exact name nor how many parts"), "\(message)")
        #expect(message.hasSuffix("at least \(RecoveryIssue34Tests.parts(needed))"), "\(message)")
        // Named with --recovery under another name, the volume is named after the index, not the file.
        try FileManager.default.moveItem(atPath: directory.path + "/b.goshuin.par2", toPath: directory.path + "/a.par2")
        let named = try run(["verify", "b.goshuin", "--recovery", "a.par2", "--json"])
        let namedMessage = try #require(named.jsonError?["message"] as? String)
        #expect(named.status == 65 && namedMessage.contains(" a.vol…par2, which"), "\(namedMessage)")
        #expect(!namedMessage.contains("b.goshuin.vol"), "\(namedMessage)")
    }

    static func parts(_ count: Int) -> String { count == 1 ? "1 part" : "\(count) parts" }

    @Test func aDamagedStartWithItsSetBesideIsDamagedAndRepairable() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 7)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        let original = directory.bytes("b.goshuin")
        var bytes = original
        bytes.replaceSubrange(0..<4_096, with: [UInt8](repeating: 0, count: 4_096))
        directory.write("b.goshuin", bytes)
        for arguments in [
            ["open", "b.goshuin", "-o", "out.zip"], ["open", "b.goshuin", "--extract", "out"],
            ["inspect", "b.goshuin"],
        ] {
            // Damaged, as its recovery files find, and what to run: repair-damaged.txt.
            let result = try run(arguments + ["--json"], passphrase: true)
            #expect(result.status == 65 && result.errorCode == "chunk_damaged", "\(arguments): \(result.stderr)")
            #expect(result.jsonError?["code"] as? String == "chunk_damaged", "\(arguments): \(result.stdout)")
        }
        // inspect says it on standard output too, as verify does (issue 34, item 12): the header's own verdict
        // stays, and the recovery files' verdict comes beside it. The lines: repair-damaged.txt.
        let inspected = try run(["inspect", "b.goshuin", "--json"])
        #expect(inspected.json?["verdict"] as? String == "bad_magic" && inspected.json?["header"] is NSNull)
        let recovery = try #require(inspected.json?["recovery"] as? [String: Any], "\(inspected.stdout)")
        #expect(recovery["intact"] as? Bool == false && recovery["repairable"] as? Bool == true)
        #expect(
            (recovery["damagedSlices"] as? Int ?? 0) > 0
                && recovery["next"] as? String == "goshuin-tool repair b.goshuin"
        )
        let text = try run(["inspect", "b.goshuin"])
        #expect(text.status == 65 && text.errorCode == "chunk_damaged")
        #expect(text.stdout.contains("\nrecovery           damaged and repairable: "), "\(text.stdout)")
        #expect(!text.stdout.contains("not a .goshuin file"), "\(text.stdout)")
        // Without the set: bad_magic, and a hint for someone who kept the set elsewhere.
        for name in directory.entries where name.hasPrefix("b.goshuin.") {
            try FileManager.default.removeItem(atPath: directory.path + "/" + name)
        }
        let alone = try run(["open", "b.goshuin", "-o", "out.zip"], passphrase: true)
        // With the hint for a set kept elsewhere: inspect.txt.
        #expect(alone.status == 65 && alone.errorCode == "bad_magic", "\(alone.stderr)")
        let inspectedAlone = try run(["inspect", "b.goshuin", "--json"])
        #expect(inspectedAlone.json?["verdict"] as? String == "bad_magic" && inspectedAlone.json?["recovery"] == nil)
    }

    /// Issue 34, "Noticed": a stop (Ctrl-C) while the passphrase authenticates a file its set has just found
    /// damaged is the run's error, exit 130 and `interrupted`; it was swallowed, and the set's "damaged" (65)
    /// said instead. An `out_of_memory` takes the same path (`VerifyCommand.authenticatedUnlessDamaged`).
    @Test func ctrlCWhileThePassphraseOutranksADamagedVerdictIsAStop() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 9)
        _ = try run(
            [
                "seal", "first", "-o", "b.goshuin", "--iterations", "2000000", "--chunk-size", "1KiB", "--recovery",
                "5%",
            ],
            passphrase: true)
        var bytes = directory.bytes("b.goshuin")
        bytes[30_000] ^= 1
        directory.write("b.goshuin", bytes)
        let result = try ToolRunner.runOnTerminal(
            ["verify", "b.goshuin"], in: directory.path, answers: [],
            environment: ["GOSHUIN_PASSPHRASE": Self.passphrase], interruptWhenShown: "iterations, ")
        #expect(result.status == 130, "\(result.screen)")
        #expect(ToolRunner.errorCode(in: result.screen) == "interrupted", "\(result.screen)")
        #expect(!result.screen.contains("damaged"), "\(result.screen)")
        // Not stopped, the set's verdict stands: damaged, and repairable.
        let damaged = try run(["verify", "b.goshuin"], passphrase: true)
        #expect(damaged.status == 65 && damaged.errorCode == "chunk_damaged", "\(damaged.stderr)")
    }

    /// Issue 34, item 9, through the tool: a backup renamed with its recovery files renamed alike, and one
    /// repaired with --recovery naming its set under the old name, are both repaired, byte for byte (the
    /// lines: repair-a-renamed-backup.txt).
    @Test func aRenamedBackupIsRepairedByItsRenamedSetAndByItsSetUnderTheOldName() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 10)
        _ = try seal("first", to: "old.goshuin", ["--recovery", "5%"])
        let original = directory.bytes("old.goshuin")
        let setFiles = directory.entries.filter { $0.hasPrefix("old.goshuin.") }
        #expect(setFiles.count == 2, "\(setFiles)")
        var damaged = original
        damaged[30_000] ^= 1
        directory.write("new.goshuin", damaged)
        try FileManager.default.removeItem(atPath: directory.path + "/old.goshuin")
        // Its set under the old name, named by --recovery.
        let named = try run(["repair", "new.goshuin", "--recovery", "old.goshuin.par2", "-o", "named.goshuin"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(directory.bytes("named.goshuin") == original)
        // Its set renamed alike: found beside it.
        for name in setFiles {
            try FileManager.default.moveItem(
                atPath: directory.path + "/" + name,
                toPath: directory.path + "/new" + name.dropFirst("old".count))
        }
        let beside = try run(["repair", "new.goshuin", "--in-place", "--json"])
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(directory.bytes("new.goshuin") == original)
        let verified = try run(["verify", "new.goshuin", "--backup", "--json"], passphrase: true)
        #expect(verified.status == 0 && (verified.json?["recovery"] as? [String: Any])?["intact"] as? Bool == true)
    }

    @Test func aWrongPassphraseOnAFileItsSetConfirmsIsSaidToBeOne() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 8)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        for arguments in [["verify", "b.goshuin"], ["open", "b.goshuin", "-o", "out.zip"]] {
            let result = try ToolRunner.run(
                arguments, in: directory.path, environment: ["GOSHUIN_PASSPHRASE": "not the passphrase"])
            // Said to be the passphrase, not damage: repair-intact.txt.
            #expect(result.status == 65 && result.errorCode == "auth_failed", "\(result.stderr)")
        }
    }

    @Test func aFileCutBeyondItsSetsReachIsTruncatedWhoeverSaysIt() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 200_000, seed: 9)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        let bytes = directory.bytes("b.goshuin")
        directory.write("b.goshuin", Array(bytes.prefix(bytes.count / 2)))
        for arguments in [["verify", "b.goshuin"], ["repair", "b.goshuin"], ["open", "b.goshuin", "-o", "o.zip"]] {
            let result = try run(arguments, passphrase: true)
            // With the advice to copy it again: repair-a-cut-file.txt.
            #expect(result.status == 65 && result.errorCode == "truncated", "\(arguments): \(result.stderr)")
        }
    }

    @Test func anIntactFileIsSaidToBeSoWhateverIsAtTheOutput() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 10)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        directory.write("b.repaired.goshuin", [1, 2, 3])
        let repair = try run(["repair", "b.goshuin", "--json"])
        #expect(repair.status == 0 && repair.json?["intact"] as? Bool == true, "\(repair.stderr)")
        #expect(directory.bytes("b.repaired.goshuin") == [1, 2, 3])
    }

    @Test func strayNamesOfASetFilesShapeAreLeftAsideWithANotice() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 11)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        try FileManager.default.createDirectory(
            atPath: directory.path + "/b.goshuin.vol7+1.par2", withIntermediateDirectories: false)
        #expect(mkfifo(directory.path + "/b.goshuin.vol8+1.par2", 0o600) == 0)
        // The notice for each: recovery-notices.txt.
        let verify = try run(["verify", "b.goshuin", "--json"])
        #expect(verify.status == 0, "\(verify.stderr)")
        let recovery = try #require(verify.json?["recovery"] as? [String: Any], "\(verify.stdout)")
        #expect((recovery["filesLeftAside"] as? [String])?.count == 2, "\(recovery)")
        var bytes = directory.bytes("b.goshuin")
        bytes[30_000] ^= 1
        directory.write("b.goshuin", bytes)
        let repair = try run(["repair", "b.goshuin", "--in-place"])
        #expect(repair.status == 0, "\(repair.stderr)")
    }

    @Test func repairInPlaceAndProtectSweepAKilledRunsTemporary() throws {
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 12)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        var bytes = directory.bytes("b.goshuin")
        bytes[30_000] ^= 1
        directory.write("b.goshuin", bytes)
        for (arguments, leftover) in [
            (["repair", "b.goshuin", "--in-place"], ".b.goshuin.goshuin-tmp-0123456789abcdef"),
            (["protect", "b.goshuin", "--force"], ".b.goshuin.par2.goshuin-tmp-0123456789abcdef"),
        ] {
            directory.write(leftover, [UInt8](repeating: 7, count: 10_000))
            let marked = try ToolRunner.runCommand(
                "/usr/bin/python3",
                [
                    "-c",
                    "import os, sys; os.setxattr(sys.argv[1], 'user.goshuin-toolkit.temporary', sys.argv[2].encode());"
                        + " os.utime(sys.argv[1], (0, 0))",
                    directory.path + "/" + leftover, leftover,
                ])
            #expect(marked.status == 0, "\(marked.output)")
            let result = try run(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!directory.exists(leftover), "\(arguments): the killed run's temporary is swept")
            // What it says: leftovers.txt.
            #expect(ToolRunner.notices(in: result.stderr).count == 1, "\(result.stderr)")
        }
    }

    @Test func rootRepairingAPersonsBackupInPlaceKeepsItTheirs() throws {
        guard getuid() == 0 else { return }
        try backupFolder("first", recordsSize: 3_000, photoSize: 60_000, seed: 13)
        _ = try seal("first", to: "b.goshuin", ["--recovery", "5%"])
        let path = directory.path + "/b.goshuin"
        var bytes = directory.bytes("b.goshuin")
        bytes[30_000] ^= 1
        directory.write("b.goshuin", bytes)
        #expect(chown(path, 1_234, 5_678) == 0 && chmod(path, 0o600) == 0)
        let repair = try run(["repair", "b.goshuin", "--in-place"])
        #expect(repair.status == 0, "\(repair.stderr)")
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_uid == 1_234 && status.st_gid == 5_678 && status.st_mode & 0o7777 == 0o600)
    }
}

extension RecoveryIssue34Tests {
    /// Issue 34 B.5: the hostile shape of 4,096 damaged 4-byte slices and 4,096 recovery slices (made as a
    /// genuine set by par2cmdline-turbo), repaired under memory limits from tight to ample: the tool ends with
    /// 0, or 71 (out_of_memory) when the limit is too tight, never with a signal (it aborted with SIGABRT).
    @Test(.slowTier, .notUnderSanitizer) func aMemoryLimitIsOutOfMemoryNeverATrap() throws {
        let data = Fixtures.payload(32_768, seed: 9)
        directory.write("data.bin", data)
        let created = try ToolRunner.runCommand(
            "/bin/sh", ["-c", "cd \"$1\" && par2 create -q -q -s4 -c4096 data.bin", "sh", directory.path])
        try #require(created.status == 0, "\(created.output)")
        var damaged = data
        for slice in stride(from: 0, to: 8_192, by: 2) { damaged[4 * slice + 1] ^= 0x5A }
        directory.write("data.bin", damaged)
        var statuses: [Int32] = []
        for kilobytes in [40_000, 80_000, 120_000, 400_000] {
            let limited = try ToolRunner.run(
                ["repair", "data.bin", "-o", "fixed.bin", "--force", "-q"], in: directory.path,
                wrapper: ["/bin/sh", "-c", "ulimit -v \(kilobytes) && exec \"$0\" \"$@\""])
            statuses.append(limited.status)
            #expect([0, 71].contains(limited.status), "ulimit -v \(kilobytes): \(limited.status) \(limited.stderr)")
            if limited.status == 0 { #expect(directory.bytes("fixed.bin") == data) }
            if limited.status == 71 { #expect(limited.errorCode == "out_of_memory", "\(limited.stderr)") }
        }
        #expect(statuses.last == 0, "repaired with room: \(statuses)")
    }

    /// Issue 34 B.4, through the tool: Ctrl-C (SIGINT) sent to `verify` and to `repair` halfway through their
    /// work on a large hostile-but-bounded set (4,096 damaged 4-byte slices, 4,096 recovery slices) ends them
    /// within a second, exit 130 (`interrupted`), with nothing written and the damaged file as it was.
    @Test(.slowTier) func ctrlCAnswersWithinASecondDuringALongVerifyOrRepair() throws {
        let data = Fixtures.payload(32_768, seed: 11)
        directory.write("data.bin", data)
        let created = try ToolRunner.runCommand(
            "/bin/sh", ["-c", "cd \"$1\" && par2 create -q -q -n1 -s4 -c4096 data.bin", "sh", directory.path])
        try #require(created.status == 0, "\(created.output)")
        var damaged = data
        for slice in stride(from: 0, to: 8_192, by: 2) { damaged[4 * slice + 1] ^= 0x5A }
        directory.write("data.bin", damaged)
        let before = directory.entries
        for arguments in [["verify", "data.bin"], ["repair", "data.bin", "-o", "fixed.bin"]] {
            // The signal lands halfway through the work, however fast this machine does it: timed whole first.
            let started = Date()
            let whole = try run(arguments)
            let duration = Date().timeIntervalSince(started)
            #expect([0, 65].contains(whole.status), "\(arguments): \(whole.stderr)")
            try? FileManager.default.removeItem(atPath: directory.path + "/fixed.bin")
            let stopped = try Self.interrupted(arguments, in: directory.path, after: duration / 2)
            let answer = try #require(stopped.answer, "\(arguments) ended before the signal: \(stopped.stderr)")
            #expect(stopped.status == 130, "\(arguments): \(stopped.status) \(stopped.stderr)")
            #expect(ToolRunner.errorCode(in: stopped.stderr) == "interrupted", "\(arguments): \(stopped.stderr)")
            #expect(answer < 1 * Sanitizer.timeScale, "\(arguments): \(answer) s from the signal to the exit")
            print("\(arguments[0]): SIGINT answered in \(answer) s")
            #expect(directory.entries == before, "\(arguments): \(directory.entries)")
            #expect(directory.bytes("data.bin") == damaged)
        }
    }

    /// The caps of a repair (`Spec/recovery-par2.md` §7.3): a set whose second volume is gone leaves exponents
    /// 0-511 and 1024-2047; 1,000 damaged slices are rebuilt from the run of 1,024, but 1,025 have no run of
    /// their length and are more than elimination takes: not repairable, and said so as the toolkit's limit
    /// (par2cmdline repairs it), never as a singular matrix.
    @Test(.slowTier) func moreUnknownsThanEliminationTakesAreTheToolkitsLimitNotASingularMatrix() throws {
        let data = Fixtures.payload(16_384, seed: 12)
        directory.write("data.bin", data)
        let created = try ToolRunner.runCommand(
            "/bin/sh", ["-c", "cd \"$1\" && par2 create -q -q -n4 -u -s4 -c2048 data.bin", "sh", directory.path])
        try #require(created.status == 0, "\(created.output)")
        try FileManager.default.removeItem(atPath: directory.path + "/data.bin.vol0512+512.par2")
        func damaged(_ slices: Int) -> [UInt8] {
            var bytes = data
            for slice in stride(from: 0, to: 2 * slices, by: 2) { bytes[4 * slice + 1] ^= 0x5A }
            return bytes
        }
        directory.write("data.bin", damaged(1_000))
        let repaired = try run(["repair", "data.bin", "-o", "fixed.bin"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(directory.bytes("fixed.bin") == data)
        directory.write("data.bin", damaged(1_025))
        let verified = try run(["verify", "data.bin", "--json"])
        #expect(verified.status == 65, "\(verified.stderr)")
        let recovery = try #require(verified.json?["recovery"] as? [String: Any])
        #expect(recovery["repairable"] as? Bool == false && recovery["recoverySlicesAvailable"] as? Int == 1_536)
        let refused = try run(["repair", "data.bin", "-o", "refused.bin"])
        #expect(refused.status == 65 && !directory.exists("refused.bin"), "\(refused.stderr)")
        #expect(refused.stderr.contains("at most 1024 parts at once"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("singular"), "\(refused.stderr)")
    }

    /// Runs the tool with `arguments` in `folder`, sends it SIGINT once it has run for `after` seconds, and
    /// returns its exit status, the seconds from the signal to its exit (`nil` when it had ended before), and
    /// its standard error.
    static func interrupted(_ arguments: [String], in folder: String, after: TimeInterval) throws -> (
        status: Int32, answer: TimeInterval?, stderr: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = ["PATH": "/usr/bin:/bin"]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let box = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            box.data = error.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        Thread.sleep(forTimeInterval: after)
        var answer: TimeInterval?
        if process.isRunning {
            let signalled = Date()
            kill(process.processIdentifier, SIGINT)
            // A run that never answers fails the test instead of hanging it.
            let deadline = signalled.addingTimeInterval(60)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            answer = Date().timeIntervalSince(signalled)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        group.wait()
        return (process.terminationStatus, answer, String(decoding: box.data, as: UTF8.self))
    }
}

/// The quoting the tool uses, restated for the tests (a word of plain characters as it is, others in single
/// quotes, a leading `-` behind `./`).
enum ShellQuoting {
    static func argument(_ path: String) -> String { path.hasPrefix("-") ? "./" + path : path }
}
