import Foundation
import GoshuinTestSupport
import Testing

/// A run killed with SIGKILL (or a power loss) leaves its temporaries; a later run writing into the same
/// folder removes those no live run holds, and says so.
@Suite struct LeftoverSweepTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "killed with kill -9"]

    /// Starts `arguments`, waits until an entry whose name starts with `prefix` appears and carries the
    /// toolkit's mark (a run killed between making its temporary and marking it leaves a file no later run
    /// may remove, by design: a loaded machine made that window visible), then kills the run.
    func killWhenPresent(_ arguments: [String], prefix: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var leftover: String?
        while leftover == nil, process.isRunning, Date() < deadline {
            leftover = directory.entries.first { $0.hasPrefix(prefix) && Self.isMarked(directory.path + "/" + $0) }
            if leftover == nil { usleep(2_000) }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return try #require(leftover, "the run made no temporary before it ended")
    }

    /// Whether the file at `path` carries the toolkit's mark, by the C library's `getxattr` (which Glibc's
    /// Swift module does not export).
    static func isMarked(_ path: String) -> Bool {
        typealias GetExtendedAttribute =
            @convention(c) (
                UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int
            ) -> Int
        guard let symbol = dlsym(nil, "getxattr") else { return false }
        let getExtendedAttribute = unsafeBitCast(symbol, to: GetExtendedAttribute.self)
        return getExtendedAttribute(path, "user.goshuin-toolkit.temporary", nil, 0) > 0
    }

    /// Sets `name`'s modification time `seconds` in the past, as if the killed run were that old.
    func age(_ name: String, by seconds: Int) {
        var times = [
            timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), timespec(tv_sec: time(nil) - seconds, tv_nsec: 0),
        ]
        #expect(utimensat(AT_FDCWD, directory.path + "/" + name, &times, AT_SYMLINK_NOFOLLOW) == 0)
    }

    @Test(.slowTier) func aKilledSealsTemporaryIsRemovedByTheNextRun() throws {
        directory.write("big.bin", [UInt8](repeating: 1, count: 64 << 20))
        // 2,000,000 iterations: the temporary exists for the whole key derivation.
        let leftover = try killWhenPresent(
            ["seal", "big.bin", "-o", "big.goshuin", "--iterations", "2000000"], prefix: ".big.goshuin.goshuin-tmp-")
        #expect(directory.exists(leftover), "SIGKILL leaves the temporary file")
        let tooRecent = try ToolRunner.run(
            ["seal", "big.bin", "-o", "other.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(tooRecent.status == 0 && directory.exists(leftover), "a fresh temporary may be a live run's")
        age(leftover, by: 120)
        let later = try ToolRunner.run(
            ["seal", "big.bin", "-o", "third.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(!directory.exists(leftover))
        // The notice that names it: leftovers.txt.
        #expect(ToolRunner.notices(in: later.stderr).count == 1 && later.stderr.contains(leftover), "\(later.stderr)")
        let quiet = try ToolRunner.run(
            ["seal", "big.bin", "-o", "fourth.goshuin", "--iterations", "1000", "-q"], in: directory.path,
            environment: environment)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
    }

    @Test(.slowTier) func aKilledExtractionsFolderIsRemovedByTheNextRun() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        directory.write("in/records.csv", Array("a\n".utf8))
        directory.write("in/IMG_0001.jpg", [UInt8](repeating: 9, count: 256 << 20))
        let sealed = try ToolRunner.run(
            ["seal", "in", "-o", "b.goshuin", "--iterations", "1000"], in: directory.path, environment: environment)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let leftover = try killWhenPresent(["open", "b.goshuin", "--extract", "out"], prefix: ".out.goshuin-tmp-")
        var info = stat()
        #expect(lstat(directory.path + "/" + leftover, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR)
        age(leftover, by: 120)
        let later = try ToolRunner.run(
            ["open", "b.goshuin", "--extract", "out"], in: directory.path, environment: environment)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(!directory.exists(leftover), "\(directory.entries)")
        #expect(ToolRunner.notices(in: later.stderr).count == 1, "\(later.stderr)")
    }

    /// Marks `name` as the toolkit's temporary, as a run does when it makes one (the marker attribute
    /// holding the name), with Python's `os.setxattr`.
    func mark(_ name: String, as markedName: String? = nil) throws {
        let result = try ToolRunner.runCommand(
            "/usr/bin/python3",
            [
                "-c",
                "import os, sys; os.setxattr(sys.argv[1], 'user.goshuin-toolkit.temporary', sys.argv[2].encode())",
                directory.path + "/" + name, markedName ?? name,
            ])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func aTemporaryUnderLockOrOfAnotherShapeIsLeftAlone() throws {
        directory.write("plain.bin", [1, 2, 3])
        let held = ".x.goshuin-tmp-0123456789abcdef"
        let unrelated = [".x.goshuin-tmp-", "x.goshuin-tmp-0123", ".x.goshuin-tmp-01234567890abcdef0", ".notes"]
        for name in [held] + unrelated {
            directory.write(name, [7])
            try mark(name)
            age(name, by: 3_600)
        }
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/.y.goshuin-tmp-00000000000000aa", withDestinationPath: "plain.bin")
        let descriptor = open(directory.path + "/" + held, O_RDONLY)
        #expect(flock(descriptor, LOCK_EX) == 0)
        let run = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        for name in [held, ".y.goshuin-tmp-00000000000000aa"] + unrelated { #expect(directory.exists(name), "\(name)") }
        close(descriptor)
        let after = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "q.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(after.status == 0 && !directory.exists(held), "unlocked, it is a leftover: \(after.stderr)")
        for name in unrelated { #expect(directory.exists(name), "\(name)") }
    }

    /// The sweep recognises a temporary by its mark, not its name: a person's files and folders named like
    /// one, aged and unlocked, are never taken; nor a marked file under a POSIX record lock, a marked file
    /// whose mark names another file, or the run's own input.
    @Test func onlyWhatTheToolkitMarkedIsEverSwept() throws {
        directory.write("plain.bin", [1, 2, 3])
        let persons = ".notes.goshuin-tmp-1"
        let personsFolder = ".photos.goshuin-tmp-2"
        let copied = ".copy.goshuin-tmp-3"
        let recordLocked = ".locked.goshuin-tmp-4"
        let marked = ".left.goshuin-tmp-5"
        directory.write(persons, Array("a person's notes".utf8))
        try FileManager.default.createDirectory(
            atPath: directory.path + "/" + personsFolder, withIntermediateDirectories: false)
        directory.write(personsFolder + "/IMG_0001.jpg", [1])
        for name in [copied, recordLocked, marked] { directory.write(name, [7]) }
        try mark(copied, as: ".other.goshuin-tmp-9")
        try mark(recordLocked)
        try mark(marked)
        for name in [persons, personsFolder, copied, recordLocked, marked] { age(name, by: 3_600) }
        // A live process's POSIX lock (this test's), which flock(2) alone does not see.
        let descriptor = open(directory.path + "/" + recordLocked, O_RDWR)
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        #expect(fcntl(descriptor, F_SETLK, &lock) == 0)
        let run = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        for name in [persons, personsFolder, personsFolder + "/IMG_0001.jpg", copied, recordLocked] {
            #expect(directory.exists(name), "\(name) was swept")
        }
        #expect(!directory.exists(marked), "a marked leftover is swept")
        // The notice names the one it removed (the name is the subject), and no other.
        #expect(run.stderr.contains(marked) && !run.stderr.contains(persons), "\(run.stderr)")
    }

    /// The very input of a run is never swept, even shaped and marked like a leftover; output names of
    /// the temporaries' shape are refused before anything happens.
    @Test func theInputIsNeverSweptAndTemporaryNamesAreRefusedAsOutputs() throws {
        directory.write("pw.txt", Array("kill -9\n".utf8))
        directory.write("plain.bin", [1, 2, 3])
        let backup = ".backup.goshuin-tmp-old"
        let sealed = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "b.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        try FileManager.default.moveItem(atPath: directory.path + "/b.goshuin", toPath: directory.path + "/" + backup)
        try mark(backup)
        age(backup, by: 3_600)
        let opened = try ToolRunner.run(
            ["open", backup, "-o", "out.bin"], in: directory.path, environment: environment)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(directory.exists(backup), "the input was swept")
        for arguments in [
            ["open", backup, "-o", ".notes.goshuin-tmp-1"], ["seal", "plain.bin", "-o", ".b.goshuin-tmp-2"],
            ["open", backup, "--extract", ".photos.goshuin-tmp-1"],
        ] {
            let refused = try ToolRunner.run(arguments, in: directory.path, environment: environment)
            // Its words: leftovers.txt.
            #expect(refused.status == 64 && refused.errorCode == "usage", "\(arguments): \(refused.stderr)")
        }
        #expect(!directory.entries.contains { $0.hasPrefix(".notes") || $0.hasPrefix(".photos") })
    }

    /// The sweep removes only a flat folder of regular files, whole; a leftover holding a subfolder is
    /// left as it is, not emptied in part.
    @Test func theSweepNeverEmptiesAFolderInPart() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        let leftover = directory.path + "/.album.goshuin-tmp-1a2b"
        try FileManager.default.createDirectory(atPath: leftover + "/sub", withIntermediateDirectories: true)
        for name in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            directory.write(".album.goshuin-tmp-1a2b/IMG_\(name).jpg", [1, 2, 3])
        }
        let old = Date(timeIntervalSinceNow: -600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: leftover)
        #expect(try plain.run(["open", "plain.goshuin", "-o", "out.bin"]).status == 0)
        let remaining = try FileManager.default.contentsOfDirectory(atPath: leftover).sorted()
        #expect(
            remaining == [
                "IMG_a.jpg", "IMG_b.jpg", "IMG_c.jpg", "IMG_d.jpg", "IMG_e.jpg", "IMG_f.jpg", "IMG_g.jpg", "IMG_h.jpg",
                "sub",
            ])
    }
}
