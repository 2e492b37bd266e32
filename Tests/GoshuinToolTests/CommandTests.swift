import Foundation
import GoshuinTestSupport
import Testing

/// End-to-end: the built tool run as a user would, on real files.
@Suite struct CommandTests {
    let directory = Scratch()
    let passphraseFile: String
    let plaintext = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    init() {
        passphraseFile = directory.write("pw.txt", Array("s3cret passphrase\n".utf8))
        directory.write("plain.bin", plaintext)
    }

    func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:]) throws
        -> ToolRunner.Result
    {
        try ToolRunner.run(arguments, in: directory.path, stdin: stdin, environment: environment)
    }

    func seal(_ extra: [String] = []) throws -> ToolRunner.Result {
        try run(
            [
                "seal", "plain.bin", "-o", "plain.goshuin", "--passphrase-file", "pw.txt", "--iterations", "1000",
                "--chunk-size", "1KiB",
            ] + extra)
    }

    @Test func sealThenOpenRoundTrips() throws {
        let sealed = try seal()
        #expect(sealed.status == 0, "\(sealed.stderr)")
        // Its result line: seal-and-open-a-file.txt.
        #expect(sealed.stdout.isEmpty && !sealed.stderr.isEmpty)
        #expect(directory.bytes("plain.goshuin").count == 45 + 20 * 10 + 10_000)
        let opened = try run(["open", "plain.goshuin", "-o", "out.bin", "--passphrase-file", "pw.txt"])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(directory.bytes("out.bin") == plaintext)
    }

    @Test func everyPassphraseSourceGivesTheSameKey() throws {
        #expect(try seal().status == 0)
        let viaEnvironment = try run(
            ["open", "plain.goshuin", "-o", "a"], environment: ["GOSHUIN_PASSPHRASE": "s3cret passphrase"])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
        let viaDescriptor = try run(
            ["open", "plain.goshuin", "-o", "b", "--passphrase-fd", "0"], stdin: Array("s3cret passphrase\r\n".utf8))
        #expect(viaDescriptor.status == 0, "\(viaDescriptor.stderr)")
        directory.write("crlf.txt", Array("s3cret passphrase\r\nsecond line\n".utf8))
        let viaCRLFFile = try run(["open", "plain.goshuin", "-o", "c", "--passphrase-file", "crlf.txt"])
        #expect(viaCRLFFile.status == 0, "\(viaCRLFFile.stderr)")
        #expect(
            directory.bytes("a") == plaintext && directory.bytes("b") == plaintext && directory.bytes("c") == plaintext)
        // Nothing is trimmed but the line ending: a trailing space is part of the passphrase.
        let withSpace = try run(
            ["open", "plain.goshuin", "-o", "d"], environment: ["GOSHUIN_PASSPHRASE": "s3cret passphrase "])
        #expect(withSpace.status == 65)
    }

    @Test func noPassphraseSourceAndNoTerminalIsAUsageErrorAtOnce() throws {
        let result = try run(["seal", "plain.bin", "-o", "x.goshuin"])
        #expect(result.status == 64 && result.errorCode == "usage", "\(result.stderr)")
        #expect(!directory.exists("x.goshuin"))
    }

    @Test func emptyPassphraseIsRefusedWhenSealing() throws {
        directory.write("empty.txt", Array("\n".utf8))
        let result = try run(["seal", "plain.bin", "-o", "x.goshuin", "--passphrase-file", "empty.txt"])
        #expect(result.status == 64 && result.errorCode == "empty_passphrase")
        #expect(!directory.exists("x.goshuin"))
    }

    @Test func standardInputAndStandardOutput() throws {
        let sealed = try run(
            ["seal", "-", "-o", "-", "--iterations", "1000"], stdin: plaintext,
            environment: ["GOSHUIN_PASSPHRASE": "pipe"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(sealed.stdoutBytes.count == 45 + 20 + 10_000)
        directory.write("piped.goshuin", sealed.stdoutBytes)
        let opened = try run(["open", "piped.goshuin", "-o", "-"], environment: ["GOSHUIN_PASSPHRASE": "pipe"])
        #expect(opened.status == 0)
        #expect(opened.stdoutBytes == plaintext)
    }

    @Test func failedOpenToStandardOutputWritesNothing() throws {
        #expect(try seal().status == 0)
        var damaged = directory.bytes("plain.goshuin")
        damaged[damaged.count - 1] ^= 1
        directory.write("damaged.goshuin", damaged)
        let result = try run(["open", "damaged.goshuin", "-o", "-", "--passphrase-file", "pw.txt"])
        #expect(result.status == 65)
        #expect(result.stdoutBytes.isEmpty, "no unauthenticated or partial payload reaches standard output")
        #expect(result.errorCode == "chunk_damaged")
    }

    @Test func exitCodes() throws {
        #expect(try seal().status == 0)
        let plain = ["--passphrase-file", "pw.txt"]
        // 65: wrong passphrase, cut file, not a .goshuin file.
        let wrong = try run(["open", "plain.goshuin", "-o", "o1"], environment: ["GOSHUIN_PASSPHRASE": "nope"])
        #expect(wrong.status == 65 && wrong.errorCode == "auth_failed")
        directory.write("cut.goshuin", Array(directory.bytes("plain.goshuin").dropLast(5)))
        let cut = try run(["open", "cut.goshuin", "-o", "o2"] + plain)
        #expect(cut.status == 65 && cut.errorCode == "truncated")
        let notGoshuin = try run(["open", "plain.bin", "-o", "o3"] + plain)
        #expect(notGoshuin.status == 65 && notGoshuin.errorCode == "bad_magic")
        // 66: missing input.
        let missing = try run(["open", "absent.goshuin", "-o", "o4"] + plain)
        #expect(missing.status == 66 && missing.errorCode == "input_not_found")
        // 73: existing output, or an output directory that does not exist.
        let exists = try run(["open", "plain.goshuin", "-o", "plain.bin"] + plain)
        #expect(exists.status == 73 && exists.errorCode == "output_exists")
        let noDirectory = try run(["open", "plain.goshuin", "-o", "no/such/dir/out"] + plain)
        #expect(noDirectory.status == 73 && noDirectory.errorCode == "cannot_create_output")
        // 64: usage.
        let usage = try run(["open", "plain.goshuin"] + plain)
        #expect(usage.status == 64 && usage.errorCode == "usage")
        let badIterations = try run(["seal", "plain.bin", "-o", "o5", "--iterations", "999"] + plain)
        #expect(badIterations.status == 64 && badIterations.errorCode == "iterations_out_of_range")
        let badSize = try run(["seal", "plain.bin", "-o", "o5", "--chunk-size", "70MiB"] + plain)
        #expect(badSize.status == 64 && badSize.errorCode == "chunk_size_out_of_range")
        #expect(["o1", "o2", "o3", "o4", "o5"].allSatisfy { !directory.exists($0) })
        #expect(directory.bytes("plain.bin") == plaintext)
    }

    @Test(.notUnderSanitizer) func diskFullFailsWith74AndLeavesNothing() throws {
        // RLIMIT_FSIZE of 64 blocks of 512 bytes: the 10 KiB payload cannot be written.
        let result = try ToolRunner.run(
            ["open", "plain.goshuin", "-o", "out.bin", "--passphrase-file", "pw.txt"], in: directory.path,
            wrapper: ["/bin/sh", "-c", "ulimit -f 8 && exec \"$@\"", "sh"])
        #expect(result.status == 66, "the sealed file does not exist yet")
        #expect(try seal().status == 0)
        let full = try ToolRunner.run(
            ["open", "plain.goshuin", "-o", "out.bin", "--passphrase-file", "pw.txt"], in: directory.path,
            wrapper: ["/bin/sh", "-c", "ulimit -f 8 && exec \"$@\"", "sh"])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.errorCode == "no_space")
        #expect(directory.entries == ["plain.bin", "plain.goshuin", "pw.txt"])
    }

    @Test func refusals() throws {
        #expect(try seal().status == 0)
        let same = try run(["seal", "plain.bin", "-o", "plain.bin", "--force", "--passphrase-file", "pw.txt"])
        #expect(same.status == 64 && same.errorCode == "same_file")
        #expect(directory.bytes("plain.bin") == plaintext)
        let noForce = try seal()
        #expect(noForce.status == 73)
        let forced = try seal(["--force"])
        #expect(forced.status == 0)
        // A folder is packed as a backup: this one holds files a backup may not.
        let directoryInput = try run(["seal", ".", "-o", "x.goshuin", "--passphrase-file", "pw.txt"])
        #expect(directoryInput.status == 65 && directoryInput.errorCode == "unexpected_file")
        directory.write("empty.bin", [])
        let empty = try run(["seal", "empty.bin", "-o", "e.goshuin", "--passphrase-file", "pw.txt"])
        #expect(empty.status == 65 && empty.errorCode == "empty_payload")
        #expect(!directory.exists("e.goshuin"))
    }

    @Test func jsonOutput() throws {
        let sealed = try seal(["--json"])
        #expect(sealed.status == 0)
        let summary = try JSONSerialization.jsonObject(with: Data(sealed.stdout.utf8)) as? [String: Any]
        #expect(summary?["ok"] as? Bool == true)
        #expect(summary?["chunkCount"] as? Int == 10)
        let failed = try run(["open", "plain.goshuin", "-o", "x", "--json"], environment: ["GOSHUIN_PASSPHRASE": "no"])
        #expect(failed.status == 65)
        let failure = try JSONSerialization.jsonObject(with: Data(failed.stdout.utf8)) as? [String: Any]
        #expect(failure?["ok"] as? Bool == false)
        #expect((failure?["error"] as? [String: Any])?["code"] as? String == "auth_failed")
        #expect(!failed.stdout.contains("\"no\"") && !failed.stderr.contains(" no "), "the passphrase is never echoed")
    }

    @Test func inspectNeedsNoPassphraseAndGivesAVerdict() throws {
        #expect(try seal().status == 0)
        let consistent = try run(["inspect", "plain.goshuin", "--json"])
        #expect(consistent.status == 0)
        let summary = try JSONSerialization.jsonObject(with: Data(consistent.stdout.utf8)) as? [String: Any]
        #expect(summary?["verdict"] as? String == "consistent")
        #expect(summary?["chunkCount"] as? Int == 10)
        #expect(summary?["expectedFileSize"] as? Int == 10_245 && summary?["actualFileSize"] as? Int == 10_245)
        let header = summary?["header"] as? [String: Any]
        #expect(header?["authenticated"] as? Bool == false && header?["kdfIterations"] as? Int == 1_000)
        // The text of each: inspect.txt.
        directory.write("long.goshuin", directory.bytes("plain.goshuin") + [0])
        let long = try run(["inspect", "long.goshuin", "--json"])
        #expect(long.status == 65)
        let longSummary = try JSONSerialization.jsonObject(with: Data(long.stdout.utf8)) as? [String: Any]
        #expect(longSummary?["verdict"] as? String == "trailing_data")
        #expect(longSummary?["ok"] as? Bool == false)
        directory.write("short.goshuin", Array("GSHN".utf8))
        let short = try run(["inspect", "short.goshuin", "--json"])
        #expect(short.status == 65 && short.json?["verdict"] as? String == "short_header")
    }

    @Test(.slowTier) func checkReportsEachVectorAndFails1() throws {
        let committed = try run(["check", ToolRunner.packageRoot + "/KnownAnswer", "--json"])
        #expect(committed.status == 0, "\(committed.stdout.suffix(500))")
        let passed = try #require(committed.json?["passed"] as? Int)
        #expect(passed >= 48 && committed.json?["failed"] as? Int == 0 && committed.json?["malformed"] as? Int == 0)
        directory.write("bad-vector.json", Array("{\"format\": \"goshuin-known-answer\"}".utf8))
        // Its text: check.txt.
        let bad = try run(["check", "bad-vector.json", "--json"])
        #expect(bad.status == 1)
        let vectors = try #require(bad.json?["vectors"] as? [[String: Any]])
        #expect(
            vectors.map { $0["name"] as? String } == ["bad-vector"]
                && vectors.first?["outcome"] as? String == "malformed")
        #expect(bad.json?["malformed"] as? Int == 1 && bad.json?["passed"] as? Int == 0)
        let missing = try run(["check", "nowhere"])
        #expect(missing.status == 66)
    }

    /// A name that is not UTF-8 is refused as given, never repaired into another name (U+FFFD) that the
    /// tool would then read or write.
    @Test func argumentsThatAreNotUTF8AreRefusedNotRepaired() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        let output = try plain.run(["open", "plain.goshuin", "-o"], shell: "exec \"$@\" \"$(printf 'out\\351.bin')\"")
        #expect(output.status == 64 && output.errorCode == "usage", "\(output.stderr)")
        // The byte that is not UTF-8 is shown escaped: the escaping is what is checked.
        #expect(output.stderr.contains("\\xe9"), "\(output.stderr)")
        let input = try plain.run(["verify"], shell: "exec \"$@\" \"$(printf 'in\\351.goshuin')\"")
        #expect(input.status == 64)
        #expect(directory.entries == ["plain.bin", "plain.goshuin"], "nothing written under another name")
    }

    /// `--json` asks for a JSON error wherever it stands, also after an argument that is refused.
    @Test func jsonAfterAnArgumentThatIsNotUTF8StillGetsJSON() throws {
        let plain = try SealedPlainFile()
        let output = try plain.run(["seal", "plain.bin", "-o"], shell: "exec \"$@\" \"$(printf 'z\\377')\" --json")
        #expect(output.status == 64)
        #expect(
            output.json?["ok"] as? Bool == false && output.jsonError?["code"] as? String == "usage", "\(output.stdout)")
    }
}

/// A scratch directory for one test, removed afterwards.
final class Scratch {
    let path: String

    /// A scratch directory in the temporary directory, or on `/dev/shm` (memory) when it has `needed`
    /// bytes free.
    init(needing needed: UInt64 = .max) {
        var info = statvfs()
        let roomInMemory = statvfs("/dev/shm", &info) == 0 && UInt64(info.f_bavail) * UInt64(info.f_frsize) > needed
        path = (roomInMemory ? "/dev/shm/" : NSTemporaryDirectory()) + "goshuin-tool-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data(bytes))
        return path + "/" + name
    }

    func bytes(_ name: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path + "/" + name) ?? Data()) }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + name) }

    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// A signal stops the tool cleanly: exit 130, no output, no temporary file.
@Suite struct InterruptionTests {
    @Test func sigtermDuringASlowSealLeavesNothing() throws {
        let directory = Scratch()
        directory.write("pw.txt", Array("interrupt\n".utf8))
        // The payload comes through a pipe that stays open, so the tool is still spooling when signalled.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = ["seal", "-", "-o", "out.goshuin", "--passphrase-file", "pw.txt", "--iterations", "1000"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let input = Pipe()
        process.standardInput = input
        process.standardError = Pipe()
        try process.run()
        ChildInput.write(Data(repeating: 7, count: 1_000_000), to: input.fileHandleForWriting)
        Thread.sleep(forTimeInterval: 0.5)
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationStatus == 130)
        #expect(directory.entries == ["pw.txt"], "\(directory.entries)")
    }

    /// Stopping the key derivation frees its memory once: with glibc's checking allocator, a double free
    /// (as there was, in the derived key's storage) aborts instead of exiting 130.
    @Test func sigintDuringTheKeyDerivationFreesEverythingOnce() throws {
        let checkingAllocator = "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"
        let directory = Scratch()
        directory.write("plain.bin", [1, 2, 3])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = ["seal", "plain.bin", "-o", "out.goshuin", "--iterations", "2000000"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        var environment = ["GOSHUIN_PASSPHRASE": "a long derivation", "MALLOC_CHECK_": "3"]
        if FileManager.default.fileExists(atPath: checkingAllocator) { environment["LD_PRELOAD"] = checkingAllocator }
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 0.5)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
        #expect(directory.entries == ["plain.bin"], "\(directory.entries)")
    }
}
