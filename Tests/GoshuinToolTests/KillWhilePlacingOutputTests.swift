import Foundation
import GoshuinTestSupport
import Testing

/// A run killed at any step of putting its output in place (syncing, linking or renaming, unlinking the
/// temporary name, taking the mark off) leaves no copy of the data that a later run cannot sweep: every
/// name of the temporary shape left behind carries the toolkit's mark, or holds nothing
/// (`Spec/decisions/0011`).
///
/// The kills are real SIGKILLs, delivered by `strace -e inject=SYSCALL:signal=KILL:when=N` at the entry of
/// the N-th call of each system call of that sequence, so every instant between two of those calls is hit.
@Suite(.slowTier) struct KillWhilePlacingOutputTests {
    static let strace = "/usr/bin/strace"
    /// The system calls between the last write and the end of a run.
    static let placingCalls = ["fsync", "fdatasync", "linkat", "unlinkat", "renameat", "renameat2", "fremovexattr"]
    let environment = ["GOSHUIN_PASSPHRASE": "kill at the worst moment"]

    /// An output a command makes: its arguments and the name it appears under.
    struct Output: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let destination: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let outputs = [
        Output(
            arguments: ["seal", "in/IMG_0001.jpg", "-o", "one.goshuin", "--iterations", "1000"],
            destination: "one.goshuin"),
        Output(
            arguments: ["seal", "in", "-o", "folder.goshuin", "--iterations", "1000"], destination: "folder.goshuin"),
        Output(arguments: ["open", "backup.goshuin", "-o", "payload.zip"], destination: "payload.zip"),
        Output(arguments: ["open", "backup.goshuin", "-o", "payload.zip", "--force"], destination: "payload.zip"),
        Output(arguments: ["open", "backup.goshuin", "--extract", "restored"], destination: "restored"),
    ]

    @Test(arguments: outputs)
    func aKillAtAnyStepLeavesOnlyMarkedTemporaries(_ output: Output) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.strace), "strace is needed (Debian's strace)")
        let directory = Scratch()
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: false)
        directory.write("in/records.csv", Array("date,shrine\n2026-11-01,Meiji Jingu\n".utf8))
        directory.write("in/IMG_0001.jpg", (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let sealed = try ToolRunner.run(
            ["seal", "in", "-o", "backup.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        try #require(sealed.status == 0, "\(sealed.stderr)")
        let isForce = output.arguments.contains("--force")
        let counts = try callCounts(output, in: directory, replacing: isForce)
        #expect(counts["fremovexattr", default: 0] >= 1, "the run takes a mark off: \(counts)")
        var killed = 0
        for (call, count) in counts.sorted(by: { $0.key < $1.key }) {
            for occurrence in 1...count {
                reset(directory, output, replacing: isForce)
                let run = try ToolRunner.run(
                    output.arguments, in: directory.path, environment: environment,
                    wrapper: [
                        Self.strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(call)",
                        "-e", "inject=\(call):signal=KILL:when=\(occurrence)",
                    ])
                guard run.status != 0 else { continue }
                killed += 1
                let at = "killed at \(call) #\(occurrence)"
                for name in temporaries(in: directory) {
                    let path = directory.path + "/" + name
                    #expect(
                        LeftoverSweepTests.isMarked(path) || isEmpty(path),
                        "\(at): \(name) is left holding data without the mark")
                    age(path)
                }
                // The next run sweeps what the killed one left, and nothing of the temporary shape remains.
                reset(directory, output, replacing: isForce, keepingTemporaries: true)
                let next = try ToolRunner.run(output.arguments, in: directory.path, environment: environment)
                #expect(next.status == 0, "\(at): \(next.stderr)")
                #expect(temporaries(in: directory).allSatisfy { isEmpty(directory.path + "/" + $0) }, "\(at)")
                removeEmptyTemporaries(directory)
            }
        }
        #expect(killed >= 3, "the kills reached the placing steps: \(counts)")
    }

    /// How many times a clean run makes each of ``placingCalls``, from `strace -c`.
    func callCounts(_ output: Output, in directory: Scratch, replacing: Bool) throws -> [String: Int] {
        reset(directory, output, replacing: replacing)
        let summary = directory.path + "/../" + UUID().uuidString + ".strace"
        defer { try? FileManager.default.removeItem(atPath: summary) }
        let run = try ToolRunner.run(
            output.arguments, in: directory.path, environment: environment,
            wrapper: [
                Self.strace, "-f", "-c", "-U", "calls,name", "-o", summary,
                "-e", "trace=" + Self.placingCalls.joined(separator: ","),
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let text = (try? String(contentsOfFile: summary, encoding: .utf8)) ?? ""
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let calls = Int(fields[0]), Self.placingCalls.contains(String(fields[1])) {
                counts[String(fields[1])] = calls
            }
        }
        return counts
    }

    /// Removes the output (and, unless kept, every temporary) so that a run starts as the first did; with
    /// `replacing`, puts an older file at the destination for `--force` to replace.
    func reset(_ directory: Scratch, _ output: Output, replacing: Bool, keepingTemporaries: Bool = false) {
        try? FileManager.default.removeItem(atPath: directory.path + "/" + output.destination)
        if !keepingTemporaries {
            for name in temporaries(in: directory) {
                try? FileManager.default.removeItem(atPath: directory.path + "/" + name)
            }
        }
        if replacing { directory.write(output.destination, Array("an older file".utf8)) }
    }

    func temporaries(in directory: Scratch) -> [String] { directory.entries.filter { $0.contains(".goshuin-tmp-") } }

    func removeEmptyTemporaries(_ directory: Scratch) {
        for name in temporaries(in: directory) {
            try? FileManager.default.removeItem(atPath: directory.path + "/" + name)
        }
    }

    /// Whether `path` holds no data: an empty file, or a folder with nothing in it.
    func isEmpty(_ path: String) -> Bool {
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: path) { return entries.isEmpty }
        return ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0
    }

    /// Sets `path`'s modification time an hour back, as if the killed run were that old.
    func age(_ path: String) {
        var times = [timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }
}
