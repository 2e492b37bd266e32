import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// Every example in the README, the man page and `--help` runs, as written, in a folder holding what the
/// examples name; and the man page lists every error code the tool can print.
@Suite struct DocumentationExampleTests {
    static let passphrase = "correct horse battery staple"

    /// The examples, with where each comes from.
    static var examples: [(source: String, command: String)] {
        var found: [(String, String)] = []
        // README: every line of every ```sh block but the first (the setup and test commands).
        let readme = (try? String(contentsOfFile: ToolRunner.packageRoot + "/README.md", encoding: .utf8)) ?? ""
        let blocks = readme.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        for block in blocks.dropFirst() {
            for line in block.split(separator: "\n") where !line.hasPrefix("#") {
                found.append(("README", String(line)))
            }
        }
        // The man page: the lines between .EX and .EE.
        let manual =
            (try? String(contentsOfFile: ToolRunner.packageRoot + "/Documentation/goshuin-tool.1", encoding: .utf8))
            ?? ""
        var inExample = false
        for line in manual.split(separator: "\n") {
            if line == ".EX" {
                inExample = true
            } else if line == ".EE" {
                inExample = false
            } else if inExample {
                found.append(("man page", line.replacingOccurrences(of: "\\-", with: "-")))
            }
        }
        // --help: the EXAMPLES section of the overview and of every command.
        for arguments in [["help"]] + HelpTests.commands.map({ ["help", $0] }) {
            let help = (try? ToolRunner.run(arguments, in: "/")).map(\.stdout) ?? ""
            let section = help.components(separatedBy: "\nEXAMPLES\n").dropFirst().first ?? ""
            for line in section.components(separatedBy: "\n\n")[0].split(separator: "\n") {
                found.append(("help \(arguments.dropFirst().first ?? "")", line.trimmingCharacters(in: .whitespaces)))
            }
        }
        return found
    }

    /// A folder with every file the examples name: a backup folder, its sealed backup and its recovery set, a
    /// damaged backup with the set made before the damage, a single file sealed, a tar of photos sealed, a
    /// passphrase file, another implementation's vectors, and `KnownAnswer/`.
    static func makeFixture() throws -> Scratch {
        let fixture = Scratch()
        let environment = ["GOSHUIN_PASSPHRASE": passphrase]
        func run(_ arguments: [String]) throws {
            let result = try ToolRunner.run(
                arguments + ["--iterations", "1000"], in: fixture.path, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        func protect(_ file: String) throws {
            let result = try ToolRunner.run(["protect", file], in: fixture.path)
            #expect(result.status == 0, "protect \(file): \(result.stderr)")
        }
        fixture.write("key.txt", Array((passphrase + "\n").utf8))
        fixture.write("new.txt", Array("a passphrase for the family\n".utf8))
        try FileManager.default.createDirectory(atPath: fixture.path + "/my-backup", withIntermediateDirectories: true)
        fixture.write("my-backup/records.csv", Array("date,shrine\n2026-01-01,Meiji Jingu\n".utf8))
        fixture.write("my-backup/IMG_0001.jpg", [0xFF, 0xD8, 0xFF] + Array(repeating: 1, count: 300))
        try run(["seal", "my-backup", "-o", "backup.goshuin"])
        try run(["seal", "my-backup", "-o", "v2.goshuin", "--format", "2"])
        try protect("backup.goshuin")
        // A backup in 1 KiB chunks with one chunk damaged: a photo of it is lost, the others salvaged.
        try FileManager.default.createDirectory(atPath: fixture.path + "/whole", withIntermediateDirectories: true)
        fixture.write("whole/records.csv", Array("date,shrine\n2026-01-01,Meiji Jingu\n".utf8))
        for index in 1...6 { fixture.write("whole/IMG_000\(index).jpg", Array(repeating: UInt8(index), count: 3_000)) }
        try run(["seal", "whole", "-o", "damaged.goshuin", "--chunk-size", "1KiB"])
        // Its recovery set, made while it was intact: the examples repair it.
        try protect("damaged.goshuin")
        var damaged = fixture.bytes("damaged.goshuin")
        damaged[45 + 8 * 1_044 + 14] ^= 0x40
        fixture.write("damaged.goshuin", damaged)
        try FileManager.default.removeItem(atPath: fixture.path + "/whole")
        fixture.write("notes.zip", Array("PK not really a zip, any bytes do".utf8))
        try run(["seal", "notes.zip", "-o", "notes.goshuin"])
        try FileManager.default.createDirectory(atPath: fixture.path + "/photos", withIntermediateDirectories: true)
        fixture.write("photos/IMG_0002.png", Array(repeating: 2, count: 100))
        let tar = try ToolRunner.runCommand(
            "/bin/tar", ["-C", fixture.path, "-cf", fixture.path + "/photos.tar", "photos"])
        #expect(tar.status == 0)
        try run(["seal", "photos.tar", "-o", "photos.goshuin"])
        try FileManager.default.removeItem(atPath: fixture.path + "/photos.tar")
        try FileManager.default.createDirectory(
            atPath: fixture.path + "/their-vectors", withIntermediateDirectories: true)
        for file in ["success-1-byte.json", "success-1-byte.goshuin"] {
            try FileManager.default.copyItem(
                atPath: ToolRunner.packageRoot + "/KnownAnswer/" + file, toPath: fixture.path + "/their-vectors/" + file
            )
        }
        // The root of a clone, where `check` with no folder checks the clone's KnownAnswer/.
        try FileManager.default.createSymbolicLink(
            atPath: fixture.path + "/KnownAnswer", withDestinationPath: ToolRunner.packageRoot + "/KnownAnswer")
        try FileManager.default.createSymbolicLink(
            atPath: fixture.path + "/Package.swift", withDestinationPath: ToolRunner.packageRoot + "/Package.swift")
        return fixture
    }

    @Test func theDocumentationHasExamplesFromEverySource() {
        let sources = Set(Self.examples.map(\.source))
        #expect(sources.contains("README") && sources.contains("man page") && sources.contains("help seal"))
        #expect(Self.examples.count >= 25)
    }

    /// One documented example: where it comes from and the command line as written.
    struct Example: CustomTestStringConvertible, Sendable {
        let source: String
        let command: String
        var testDescription: String { "\(source): \(command)" }
    }

    /// Each example is a test case of its own, so they run in parallel and a failure names its example.
    @Test(.slowTier, arguments: examples.map { Example(source: $0.source, command: $0.command) })
    func theExampleRuns(_ example: Example) throws {
        let (source, command) = (example.source, example.command)
        let toolDirectory = URL(fileURLWithPath: ToolRunner.toolPath).deletingLastPathComponent().path
        // In a fixture of its own without what the example writes, as a reader would start.
        let scratch = try Self.makeFixture()
        let words = command.split(separator: " ").map(String.init)
        for (index, word) in words.enumerated() where ["-o", "--extract"].contains(word) && index + 1 < words.count {
            try? FileManager.default.removeItem(atPath: scratch.path + "/" + words[index + 1])
        }
        // `protect FILE` without --force writes FILE's recovery set: the fixture's is taken away first.
        if words.count > 2, words[1] == "protect", !words.contains("--force") {
            for name in scratch.entries where name.hasPrefix(words[2] + ".") && name.hasSuffix(".par2") {
                try FileManager.default.removeItem(atPath: scratch.path + "/" + name)
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-o", "pipefail", "-c", command]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.environment = ["PATH": toolDirectory + ":/usr/bin:/bin", "GOSHUIN_PASSPHRASE": Self.passphrase]
        let result = try ToolRunner.execute(process, stdin: [])
        // Salvaging the damaged backup restores what is whole and, honestly, exits 65: a photo is lost; so
        // does saving what is whole as a new backup.
        let rescues = command.contains("damaged.goshuin") && words.count > 1 && words[1] == "rescue"
        let salvagesDamage = command.contains("damaged.goshuin") && command.contains("--salvage") || rescues
        #expect(result.status == (salvagesDamage ? 65 : 0), "\(source): \(command)\n\(result.stderr)")
        if salvagesDamage, !rescues { #expect(result.stderr.contains("restored records.csv and 5 of 6 photos")) }
        if rescues {
            let said = result.stderr + result.stdout
            #expect(said.contains("saved records.csv and 5 photos into") || said.contains("\"photoCount\":5"))
        }
    }

    @Test func theManPageListsEveryCodeTheToolPrints() throws {
        let manual = try String(
            contentsOfFile: ToolRunner.packageRoot + "/Documentation/goshuin-tool.1", encoding: .utf8
        )
        .replacingOccurrences(of: "\\-", with: "-")
        let toolError = try String(
            contentsOfFile: ToolRunner.packageRoot + "/Sources/goshuin-tool/ToolError.swift", encoding: .utf8)
        let enumBody = try #require(toolError.components(separatedBy: "enum ToolCode").dropFirst().first)
            .components(separatedBy: "\n}")[0]
        let toolCodes = enumBody.matches(of: /case (\w+)(?: = "(\w+)")?/).map { String($0.output.2 ?? $0.output.1) }
        #expect(toolCodes.count >= 6)
        // The library's codes, declared as data by each module (GoshuinErrorCodeSet).
        let libraryCodes = GoshuinError.Code.allLibraryCodes.map(\.rawValue)
        #expect(libraryCodes.count >= 30)
        for code in Set(toolCodes + libraryCodes) {
            #expect(manual.contains(".B \(code)\n"), "the man page's DIAGNOSTICS lack \(code)")
        }
    }
}
