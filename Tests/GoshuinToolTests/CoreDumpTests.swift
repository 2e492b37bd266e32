import Foundation
import Glibc
import Testing

/// A crash while secrets are in memory leaves no core: the tool makes itself non-dumpable at start.
@Suite struct CoreDumpTests {
    let directory = Scratch()

    /// The tool waits for its passphrase on a pipe that never delivers it (so the key material and the
    /// output's temporary exist), then gets SIGABRT, as an abort would give it, with core dumps allowed by
    /// the limit: no core is dumped and no core file appears.
    @Test func anAbortWhileWaitingForThePassphraseDumpsNoCore() throws {
        directory.write("plain.bin", Array("secret payload".utf8))
        directory.write("pw.txt", Array("core dump test\n".utf8))
        let sealed = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "p.goshuin", "--passphrase-file", "pw.txt", "--iterations", "1000"],
            in: directory.path)
        #expect(sealed.status == 0, "\(sealed.stderr)")

        // Dumps allowed for the child: the soft limit at the hard limit.
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        let saved = limit
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        defer {
            var restore = saved
            setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &restore)
        }
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let errorPath = directory.path + "/stderr.txt"
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // The shell moves into the scratch folder, where a core would be written, then becomes the tool.
        let arguments = [
            "/bin/sh", "-c", "cd \"$1\" && exec \"$2\" open p.goshuin -o out.bin --passphrase-fd 0", "sh",
            directory.path, ToolRunner.toolPath,
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { for variable in environment { free(variable) } }
        // The test runner's threads may block signals; the tool starts with none blocked, as from a shell.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &environment) == 0)
        close(pipeEnds[0])
        // Waits until the tool sleeps in its read of the pipe.
        let deadline = Date().addingTimeInterval(10)
        var state = ""
        while Date() < deadline {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            state = stat.split(separator: ")").last.map { String($0.dropFirst().prefix(1)) } ?? ""
            if stat.contains("(goshuin-tool") && state == "S" { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 0.2)
        kill(pid, SIGABRT)
        var status: Int32 = 0
        // Not waited for forever: a tool that did not end fails the test.
        var ended = false
        for _ in 0..<200 where !ended {
            ended = waitpid(pid, &status, WNOHANG) == pid
            if !ended { Thread.sleep(forTimeInterval: 0.05) }
        }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(ended, "the tool did not end on SIGABRT")
        let signal = status & 0x7F
        let dumpedCore = status & 0x80 != 0
        #expect(signal == SIGABRT, "the tool ended by SIGABRT (status \(status))")
        #expect(!dumpedCore, "the kernel dumped a core of the tool")
        #expect(!directory.entries.contains { $0.hasPrefix("core") }, "\(directory.entries)")
        // Nor a backtrace, with the memory the registers point at, on standard error.
        let printed = String(decoding: directory.bytes("stderr.txt"), as: UTF8.self)
        #expect(!printed.contains("Backtrac") && !printed.contains("Registers"), "\(printed.prefix(400))")
    }
}
