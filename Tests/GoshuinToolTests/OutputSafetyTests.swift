import Foundation
import GoshuinTestSupport
import Testing

/// What the tool writes, where, and with what code, when its outputs and descriptors are not what a
/// careful user would give it.
@Suite struct OutputSafetyTests {
    let directory = Scratch()
    let plaintext = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }

    init() throws {
        directory.write("pw.txt", Array("safety first\n".utf8))
        directory.write("plain.bin", plaintext)
        let sealed = try run([
            "seal", "plain.bin", "-o", "plain.goshuin", "--iterations", "1000", "--chunk-size", "1KiB",
        ])
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    func run(_ arguments: [String], shell: String? = nil, environment: [String: String] = [:]) throws
        -> ToolRunner.Result
    {
        let hasSource = environment["GOSHUIN_PASSPHRASE"] != nil || arguments.contains { $0.hasPrefix("--passphrase") }
        let passphrase = hasSource ? [] : ["--passphrase-file", "pw.txt"]
        return try ToolRunner.run(
            arguments + passphrase, in: directory.path, environment: environment,
            wrapper: shell.map { ["/bin/sh", "-c", $0, "sh"] } ?? [])
    }

    /// A reader that stops early (`open -o - | head`) is not an error to report: no message, and the tool
    /// ends as a program ended by SIGPIPE does (141), which `set -o pipefail` still sees.
    @Test func aReaderThatStopsEarlyGetsNoErrorMessage() throws {
        directory.write("big.bin", (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let sealed = try run(["seal", "big.bin", "-o", "big.goshuin", "--iterations", "1000"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let result = try ToolRunner.run(
            ["open", "big.goshuin", "-o", "-", "--force", "--passphrase-file", "pw.txt"], in: directory.path,
            wrapper: ["/bin/bash", "-c", "\"$0\" \"$@\" | head -c 10 >/dev/null; echo \"status ${PIPESTATUS[0]}\" >&2"])
        #expect(result.stderr == "status 141\n", "\(result.stderr)")
    }

    @Test func forceNeverReplacesWhatIsNotARegularFile() throws {
        #expect(mkfifo(directory.path + "/pipe", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link", withDestinationPath: "plain.bin")
        for name in ["pipe", "link"] {
            let result = try run(["open", "plain.goshuin", "-o", name, "--force"])
            // What each is, in words: output-exists.txt.
            #expect(result.status == 73 && result.errorCode == "output_exists", "\(name): \(result.stderr)")
        }
        var info = stat()
        #expect(lstat(directory.path + "/pipe", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(directory.path + "/link", &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(directory.bytes("plain.bin") == plaintext)
        let replaced = try run(["open", "plain.goshuin", "-o", "plain.bin", "--force"])
        #expect(replaced.status == 0, "a regular file is still replaced: \(replaced.stderr)")
    }

    @Test func aClosedPassphraseDescriptorIsAUsageErrorBeforeAnythingIsOpened() throws {
        // Closed, fd 3 would be the next descriptor the tool opens: the input, read as the passphrase.
        let result = try run(
            ["open", "plain.goshuin", "-o", "out", "--passphrase-fd", "3"], shell: "exec 3<&-; exec \"$@\"")
        #expect(result.status == 64 && result.errorCode == "usage", "\(result.stderr)")
        #expect(!directory.exists("out"))
    }

    @Test func standardOutputThatIsTheInputIsRefused() throws {
        let before = directory.bytes("plain.goshuin")
        let opened = try run(["open", "plain.goshuin", "-o", "-"], shell: "exec \"$@\" >> plain.goshuin")
        #expect(opened.status == 64 && opened.errorCode == "same_file", "\(opened.stderr)")
        #expect(directory.bytes("plain.goshuin") == before)
        let sealed = try run(
            ["seal", "plain.bin", "-o", "-", "--iterations", "1000"], shell: "exec \"$@\" >> plain.bin")
        #expect(sealed.status == 64 && sealed.errorCode == "same_file", "\(sealed.stderr)")
        #expect(directory.bytes("plain.bin") == plaintext)
    }

    @Test func aClosedStandardOutputIsAnError() throws {
        let before = directory.bytes("plain.goshuin")
        let opened = try run(["open", "plain.goshuin", "-o", "-"], shell: "exec \"$@\" >&-")
        #expect(opened.status == 74, "\(opened.stderr)")
        #expect(directory.bytes("plain.goshuin") == before, "the input is not written to")
        let inspected = try run(["inspect", "plain.goshuin"], shell: "exec \"$@\" >&-")
        #expect(inspected.status == 74, "\(inspected.stderr)")
        let json = try run(["open", "plain.goshuin", "-o", "out", "--json"], shell: "exec \"$@\" >&-")
        #expect(json.status == 74, "\(json.stderr)")
        #expect(directory.entries.filter { $0.contains("goshuin-tmp") }.isEmpty)
    }

    @Test func aFullDiskMidWriteIsNoSpace() throws {
        let result = try run(["open", "plain.goshuin", "-o", "-"], shell: "exec \"$@\" > /dev/full")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.errorCode == "no_space", "\(result.stderr)")
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small file system needs root"))
    func aFullFileSystemLeavesNothing() throws {
        let mountPoint = directory.path + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mounted = try ToolRunner.runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=8k", "tmpfs", mountPoint])
        #expect(mounted.status == 0, "\(mounted.output)")
        defer { _ = try? ToolRunner.runCommand("/bin/umount", [mountPoint]) }
        let result = try run(["open", "plain.goshuin", "-o", "small/out.bin", "--force"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.errorCode == "no_space")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: mountPoint)) == [])
    }

    @Test func onePassphraseLimitForEverySource() throws {
        let long = String(repeating: "p", count: 4_097)
        directory.write("long.txt", Array((long + "\n").utf8))
        let fromFile = try run(["seal", "plain.bin", "-o", "a.goshuin", "--passphrase-file", "long.txt"])
        let fromEnvironment = try run(
            ["seal", "plain.bin", "-o", "b.goshuin"], environment: ["GOSHUIN_PASSPHRASE": long])
        for result in [fromFile, fromEnvironment] {
            #expect(result.status == 64 && result.errorCode == "passphrase_too_long", "\(result.stderr)")
        }
        let atTheLimit = try run(
            ["seal", "plain.bin", "-o", "c.goshuin", "--iterations", "1000"],
            environment: ["GOSHUIN_PASSPHRASE": String(long.dropLast())])
        #expect(atTheLimit.status == 0, "\(atTheLimit.stderr)")
        #expect(!directory.exists("a.goshuin") && !directory.exists("b.goshuin"))
    }

    @Test func namesAtTheLongestAFileSystemAllows() throws {
        let name = String(repeating: "n", count: 247) + ".goshuin"
        let sealed = try run(["seal", "plain.bin", "-o", name, "--iterations", "1000"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let folder = String(repeating: "f", count: 255)
        let backup = Scratch()
        try FileManager.default.createDirectory(atPath: backup.path + "/in", withIntermediateDirectories: false)
        backup.write("in/records.csv", Array("a\n".utf8))
        let environment = ["GOSHUIN_PASSPHRASE": "long names"]
        #expect(
            try ToolRunner.run(
                ["seal", "in", "-o", "b.goshuin", "--iterations", "1000"], in: backup.path,
                environment: environment
            ).status == 0)
        let extracted = try ToolRunner.run(
            ["open", "b.goshuin", "--extract", folder], in: backup.path, environment: environment)
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(backup.bytes(folder + "/records.csv") == Array("a\n".utf8))
        let tooLong = try ToolRunner.run(
            ["open", "b.goshuin", "--extract", folder + "x"], in: backup.path, environment: environment)
        #expect(tooLong.status == 64, "refused before the key is derived: \(tooLong.stderr)")
    }

    /// Under a virtual-memory limit, 64 MiB chunks run with fewer workers, or fail cleanly: never a trap.
    @Test(.slowTier, .notUnderSanitizer) func aMemoryLimitIsNeverACrash() throws {
        directory.write("big.bin", [UInt8](repeating: 0x5A, count: 150_000_000))
        let limited = "ulimit -v 150000 && exec \"$@\""
        let sealed = try run(
            ["seal", "big.bin", "-o", "big.goshuin", "--iterations", "1000", "--chunk-size", "64MiB"], shell: limited)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let opened = try run(["open", "big.goshuin", "-o", "big.out"], shell: limited)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(directory.bytes("big.out") == directory.bytes("big.bin"))
        // verify keeps open's budget: the look at the payload's end costs its final chunk, and is gone
        // before the pass over every chunk.
        let verified = try run(["verify", "big.goshuin", "--json"], shell: limited)
        #expect(verified.status == 0 && verified.json?["backup"] is NSNull, "not a backup: \(verified.stderr)")
        let starved = try run(["open", "big.goshuin", "-o", "starved.out"], shell: "ulimit -v 60000 && exec \"$@\"")
        #expect(starved.status == 71 && starved.errorCode == "out_of_memory", "\(starved.stderr)")
        #expect(!directory.exists("starved.out"))
        #expect(directory.entries.filter { $0.contains("goshuin-tmp") }.isEmpty)
    }

    /// Near the limit where a worker thread's stack no longer fits, a run finishes (with fewer workers) or
    /// fails with 71: it never waits forever for a thread the system will not start.
    @Test(.slowTier, .notUnderSanitizer) func aMemoryLimitNeverHangs() throws {
        directory.write("ten.bin", (0..<10_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        #expect(try run(["seal", "ten.bin", "-o", "ten.goshuin", "--iterations", "1000"]).status == 0)
        for limit in stride(from: 30_000, through: 45_000, by: 3_000) {
            let shell = "ulimit -v \(limit) && exec timeout 60 \"$@\""
            let opened = try run(["open", "ten.goshuin", "-o", "out-\(limit)"], shell: shell)
            let sealed = try run(
                ["seal", "ten.bin", "-o", "sealed-\(limit).goshuin", "--iterations", "1000"], shell: shell)
            for result in [opened, sealed] {
                #expect([0, 71].contains(result.status), "ulimit -v \(limit): \(result.status) \(result.stderr)")
            }
            if opened.status == 0 { #expect(directory.bytes("out-\(limit)") == directory.bytes("ten.bin")) }
        }
        #expect(directory.entries.filter { $0.contains("goshuin-tmp") }.isEmpty)
    }

    /// Exit codes that say what happened: a missing folder is 73 for every output, a name too long is a
    /// usage error for every output, a full standard output is `no_space`, and help or the version printed
    /// nowhere is a failure.
    @Test func outputFailuresHaveTheirOwnCodes() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        #expect(try plain.run(["open", "plain.goshuin", "-o", "nowhere/x.bin"]).status == 73)
        let missingFolder = try plain.run(["open", "plain.goshuin", "--extract", "nowhere/x"])
        #expect(missingFolder.status == 73 && missingFolder.errorCode == "cannot_create_output")
        let longName = String(repeating: "n", count: 256)
        #expect(try plain.run(["open", "plain.goshuin", "-o", longName]).status == 64)
        #expect(try plain.run(["seal", "plain.bin", "-o", longName, "--iterations", "1000"]).status == 64)
        #expect(try plain.run(["open", "plain.goshuin", "--extract", longName]).status == 64)
        let full = try plain.run(["verify", "plain.goshuin", "--json"], shell: "exec \"$@\" > /dev/full")
        #expect(full.status == 74 && full.errorCode == "no_space", "\(full.stderr)")
        #expect(try plain.run(["--help"], shell: "exec \"$@\" > /dev/full").status == 74)
        #expect(try plain.run(["--version"], shell: "exec \"$@\" >&-").status == 74)
        #expect(directory.entries == ["plain.bin", "plain.goshuin"])
    }

    /// `--force` does not replace what is not a regular file, and the message does not suggest it would.
    @Test func forceIsNotSuggestedWhenItCannotHelp() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        try FileManager.default.createDirectory(atPath: directory.path + "/folder", withIntermediateDirectories: false)
        let refused = try plain.run(["open", "plain.goshuin", "-o", "folder", "--force"])
        // Its words, which do not suggest --force: output-exists.txt.
        #expect(refused.status == 73 && refused.errorCode == "output_exists")
    }
}
