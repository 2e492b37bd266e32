import Foundation
import GoshuinTestSupport
import Testing

/// The README's Swift example is `Sources/goshuin-readme-example/main.swift`, character for character: built
/// with the package, compiled again against the public API alone (a program using the library sees no
/// `package` declaration), and run in a folder holding the files it names.
@Suite struct ReadmeSwiftExampleTests {
    static let source = ToolRunner.packageRoot + "/Sources/goshuin-readme-example"
    static let passphrase = "correct horse battery staple"
    /// The folder of the test bundle: the built executables and, in `Modules`, the built modules.
    static let buildFolder = URL(
        fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    ).deletingLastPathComponent()

    /// The ```swift block of the README's library section.
    static func readmeBlock() throws -> String {
        let readme = try String(contentsOfFile: ToolRunner.packageRoot + "/README.md", encoding: .utf8)
        let section = readme.components(separatedBy: "\n### The library\n").dropFirst().first ?? ""
        let block = section.components(separatedBy: "```swift\n").dropFirst().first ?? ""
        return block.components(separatedBy: "```\n").first ?? ""
    }

    @Test func readmeShowsTheExampleAsBuilt() throws {
        let example = try String(contentsOfFile: Self.source + "/main.swift", encoding: .utf8)
        let shown = try Self.readmeBlock()
        #expect(!shown.isEmpty, "README.md has a ```swift block under ### The library")
        #expect(shown == example, "README.md's library example is Sources/goshuin-readme-example/main.swift")
    }

    /// `swiftc -typecheck` of the example against the built modules, without the package's name: what a
    /// program depending on the library can see.
    @Test func exampleUsesOnlyThePublicAPI() throws {
        let modules = Self.buildFolder.appendingPathComponent("Modules")
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.source).filter { $0.hasSuffix(".swift") }
        let cModules = try FileManager.default.contentsOfDirectory(atPath: ToolRunner.packageRoot + "/Sources").filter {
            FileManager.default.fileExists(atPath: ToolRunner.packageRoot + "/Sources/\($0)/module.modulemap")
        }
        // The C targets built by the package (CGaloisRegion) have module maps SwiftPM writes into the build.
        let builtMaps = try FileManager.default.contentsOfDirectory(atPath: Self.buildFolder.path)
            .map { Self.buildFolder.path + "/" + $0 + "/module.modulemap" }
            .filter { $0.hasSuffix(".build/module.modulemap") && FileManager.default.fileExists(atPath: $0) }
        let maps: [String] =
            cModules.map { "\(ToolRunner.packageRoot)/Sources/\($0)/module.modulemap" } + builtMaps
        var arguments: [String] = ["swiftc", "-typecheck", "-I", modules.path]
        for map in maps { arguments += ["-Xcc", "-fmodule-map-file=" + map] }
        arguments += sources.map { Self.source + "/" + $0 }
        let (status, output) = try ToolRunner.runCommand("/usr/bin/env", arguments)
        #expect(status == 0, "\(output)")
        #expect(cModules.count >= 4, "the C modules' maps were found: \(cModules)")
    }

    /// A file sealed, opened, verified, streamed and read at random; a journal sealed as it is made; a
    /// backup folder sealed, listed and extracted: every file the example writes holds what it should.
    @Test(.slowTier) func exampleRuns() throws {
        let directory = Scratch()
        let notes = Array("PK\u{3}\u{4}".utf8) + (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        directory.write("notes.zip", notes)
        let sample = ToolRunner.packageRoot + "/Documentation/sample-backup"
        try FileManager.default.copyItem(atPath: sample, toPath: directory.path + "/my-backup")
        let process = Process()
        process.executableURL = Self.buildFolder.appendingPathComponent("goshuin-readme-example")
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let run = try ToolRunner.execute(process, stdin: Array((Self.passphrase + "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.hasPrefix(
                "notes.goshuin: format version 1, \(notes.count) bytes\nread \(notes.count) bytes in order; a ZIP\n"
                    + "journal.goshuin: 25 bytes sealed, format version 2\n"
                    + "my-backup: records.csv and 3 photos, "), "\(run.stdout)")
        #expect(directory.bytes("notes-again.zip") == notes)
        for name in try FileManager.default.contentsOfDirectory(atPath: sample) {
            #expect(directory.bytes("restored/" + name) == directory.bytes("my-backup/" + name), "\(name)")
        }
        #expect(directory.exists("restored/manifest.json"))
        // The journal, opened by the tool: version 2, sealed as it came.
        let opened = try ToolRunner.run(
            ["open", "journal.goshuin", "-o", "-"], in: directory.path,
            environment: ["GOSHUIN_PASSPHRASE": Self.passphrase])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout == "first entry\nsecond entry\n")
        #expect(directory.entries.filter { $0.contains("goshuin-tmp") }.isEmpty)
    }
}
