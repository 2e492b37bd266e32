import Foundation
import Testing

/// What a person sees: a folder from a phone, diagnoses that point the right way, a line that says what
/// happened, a prompt and help that behave, on the built tool (a pseudo-terminal where a terminal matters).
@Suite struct UserExperienceTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "a person's passphrase"]

    func run(_ arguments: [String], environment: [String: String]? = nil) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, in: directory.path, environment: environment ?? self.environment)
    }

    @Test func aFolderFromAPhoneIsJudgedWholeInOneRun() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/iphone", withIntermediateDirectories: false)
        directory.write("iphone/records.csv", Array("photo\nIMG_0001.HEIC\n".utf8))
        for name in [
            ".DS_Store", "._IMG_0001.HEIC", "Thumbs.db", "IMG 0002.jpg", "IMG_0001.HEIC", "IMG_0003.JPG", "御朱印.jpg",
        ] {
            directory.write("iphone/" + name, Array(name.utf8))
        }
        let first = try run(["seal", "iphone", "-o", "iphone.goshuin", "--iterations", "1000"])
        #expect(first.status == 65 && first.stderr.contains("error: unexpected_file:"), "\(first.stderr)")
        // Both problems at once, each with its rule; a name that would pass where there is one; names as text.
        #expect(first.stderr.contains("\n  \"IMG 0002.jpg\": a photo's name holds only the letters"))
        #expect(first.stderr.contains("rename it to \"IMG_0002.jpg\", and wherever records.csv names it"))
        #expect(first.stderr.contains("\n  \"御朱印.jpg\": a photo's name holds only"))
        #expect(
            !first.stderr.contains("IMG_0001.HEIC\"") && !first.stderr.contains("IMG_0003.JPG\""), "upper case is fine")
        #expect(!first.stderr.contains(".DS_Store\":"), "litter is not a problem")
        #expect(!directory.exists("iphone.goshuin"))
        try FileManager.default.removeItem(atPath: directory.path + "/iphone/IMG 0002.jpg")
        try FileManager.default.removeItem(atPath: directory.path + "/iphone/御朱印.jpg")
        let second = try run(["seal", "iphone", "-o", "iphone.goshuin", "--iterations", "1000"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stderr.contains(
                "goshuin-tool: left out 3 files the operating system made: .DS_Store, ._IMG_0001.HEIC, Thumbs.db\n"))
        // What the folder holds, said before the passphrase is asked; then what was sealed.
        #expect(second.stderr.contains("goshuin-tool: iphone holds records.csv and 2 photos, 45 bytes\n"))
        #expect(
            second.stderr.contains("sealed records.csv and 2 photos into iphone.goshuin, 1.0 KiB; as of "),
            "\(second.stderr)")
        let restored = try run(["open", "iphone.goshuin", "--extract", "restored"])
        #expect(
            restored.stderr.hasPrefix(
                "restored records.csv and 2 photos into restored, 45 bytes; the backup is as of "),
            "\(restored.stderr)")
        #expect(directory.bytes("restored/IMG_0001.HEIC") == Array("IMG_0001.HEIC".utf8))
    }

    @Test func diagnosesPointTheRightWay() throws {
        directory.write("notes.txt", Array(repeating: 65, count: 5_000))
        #expect(try run(["seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000"]).status == 0)
        let wrong = try run(["open", "notes.goshuin", "-o", "x"], environment: ["GOSHUIN_PASSPHRASE": "not it"])
        #expect(wrong.stderr.contains("either the passphrase is wrong, or the file is damaged"))
        #expect(
            wrong.stderr.contains(
                "; check the passphrase (capital letters and spaces count); if it is right, try another copy"))
        let single = try run(["open", "notes.goshuin", "--extract", "r2/"])
        #expect(
            single.status == 65 && single.stderr.contains("it holds a single file, not a backup"), "\(single.stderr)")
        #expect(single.stderr.contains("use 'goshuin-tool open FILE -o OUTPUT'"))
        let notGoshuin = try run(["inspect", "notes.txt"])
        #expect(
            notGoshuin.status == 65 && notGoshuin.stdout.contains("starts with        41414141: not a .goshuin file"))
        #expect(!notGoshuin.stdout.contains("chunk count") && !notGoshuin.stdout.contains("plaintextLength"))
        #expect(!notGoshuin.stderr.contains("goshuin-tool inspect"), "no advice to run what was just run")
        // One sentence of cause, one of action: no advice said twice.
        let exists = try run(["open", "notes.goshuin", "-o", "notes.txt"])
        #expect(
            exists.stderr
                == "goshuin-tool: error: output_exists: \"notes.txt\" already exists; use --force to replace it, or -o to choose another name\n"
        )
        var damaged = directory.bytes("notes.goshuin")
        damaged[damaged.count - 1] ^= 1
        directory.write("damaged.goshuin", damaged)
        let broken = try run(["open", "damaged.goshuin", "-o", "y"])
        #expect(broken.stderr.components(separatedBy: "damaged").count == 2, "\(broken.stderr)")
    }

    @Test func aResultLineSaysWhatHappenedUnlessQuietOrJSON() throws {
        directory.write("notes.txt", Array(repeating: 65, count: 3_000))
        let sealed = try run(["seal", "notes.txt", "-o", "n.goshuin", "--iterations", "1000"])
        #expect(sealed.stderr == "sealed notes.txt into n.goshuin, 3.0 KiB\n")
        let opened = try run(["open", "n.goshuin", "-o", "n.txt"])
        #expect(opened.stderr == "opened n.goshuin into n.txt, 2.9 KiB\n")
        let quiet = try run(["open", "n.goshuin", "-o", "q.txt", "-q"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
        let json = try run(["open", "n.goshuin", "-o", "j.txt", "--json"])
        #expect(json.status == 0 && json.stderr.isEmpty && json.stdout.hasPrefix("{\"ok\":true"))
    }

    @Test func ctrlCDuringProgressEndsTheLineFirst() throws {
        directory.write("big.bin", [UInt8](repeating: 1, count: 1 << 20))
        let result = try ToolRunner.runOnTerminal(
            ["seal", "big.bin", "-o", "big.goshuin", "--iterations", "2000000"], in: directory.path, answers: [],
            environment: environment, interruptWhenShown: "iterations, ")
        #expect(result.status == 130, "\(result.screen)")
        // The error takes the progress line's place: the line is cleared first, not left half-drawn above.
        let error = try #require(result.screen.range(of: "goshuin-tool: error: interrupted:"))
        let before = result.screen[..<error.lowerBound]
        #expect(before.hasSuffix("\r\u{1B}[K"), "\(result.screen)")
        #expect(!result.screen.contains("leftgoshuin-tool"))
        #expect(!directory.exists("big.goshuin") && !directory.entries.contains { $0.contains("goshuin-tmp") })
    }

    @Test func thePromptRefusesEmptyAtOnceAndWarnsAboutShort() throws {
        directory.write("plain.bin", [1, 2, 3])
        let empty = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path, answers: [""])
        #expect(empty.status == 64 && empty.screen.contains("error: empty_passphrase:"), "\(empty.screen)")
        #expect(!empty.screen.contains("Passphrase again"))
        let short = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path, answers: ["x", "x"])
        #expect(short.status == 0, "\(short.screen)")
        #expect(short.screen.contains("warning: this passphrase has only 1 character"))
        #expect(short.screen.contains("cannot be recovered"))
        let interrupted = try ToolRunner.runOnTerminal(
            ["open", "p.goshuin", "-o", "out"], in: directory.path, answers: [], interruptWhenShown: "Passphrase: ")
        #expect(interrupted.status == 130)
        #expect(
            interrupted.screen.contains("Passphrase: \r\ngoshuin-tool: error: interrupted:"), "\(interrupted.screen)")
        // The output's temporary already existed (the passphrase is asked after the checks): it is removed.
        #expect(!directory.exists("out") && !directory.entries.contains { $0.contains("goshuin-tmp") })
    }

    @Test func commandsAsPeopleTypeThem() throws {
        let typo = try run(["sael", "x"])
        #expect(typo.status == 64 && typo.stderr.contains("unknown command 'sael' (did you mean 'seal'?)"))
        for version in ["version", "-v", "--version"] {
            let result = try run([version])
            #expect(result.status == 0 && result.stdout.hasPrefix("goshuin-tool 0.1.0"))
        }
        let bare = try run([])
        #expect(bare.status == 64 && bare.stdout.isEmpty && bare.stderr.hasPrefix("usage: goshuin-tool COMMAND"))
        #expect(bare.stderr.split(separator: "\n").count <= 3, "the short usage, not the whole help")
    }

    @Test func helpFitsEightyColumnsWhenNotATerminal() throws {
        for arguments in [["help"]] + HelpTests.commands.map({ ["help", $0] }) {
            let help = try run(arguments).stdout
            for line in help.split(separator: "\n") {
                #expect(line.count <= 80, "\(arguments): \(line)")
            }
            #expect(!help.contains("PATHRead") && !help.contains("PATH Read"), "an option's value and its help apart")
        }
    }

    @Test func standardOutputOnATerminalShowsTextAndRefusesTheRest() throws {
        directory.write("text.txt", Array("a note\nwith two lines\n".utf8))
        directory.write("binary.bin", [0x1B, 0x5B, 0x32, 0x4A, 0xFF, 0x00])
        for name in ["text", "binary"] {
            let file = name == "text" ? "text.txt" : "binary.bin"
            #expect(try run(["seal", file, "-o", name + ".goshuin", "--iterations", "1000"]).status == 0)
        }
        let text = try ToolRunner.runOnTerminal(
            ["open", "text.goshuin", "-o", "-"], in: directory.path, answers: [], environment: environment)
        #expect(text.status == 0 && text.screen.contains("a note\r\nwith two lines"), "\(text.screen)")
        let binary = try ToolRunner.runOnTerminal(
            ["open", "binary.goshuin", "-o", "-"], in: directory.path, answers: [], environment: environment)
        #expect(binary.status == 64 && binary.screen.contains("error: terminal_output:"), "\(binary.screen)")
        #expect(binary.screen.contains("add --force to show it anyway") && !binary.screen.contains("\u{1B}[2J"))
        let forced = try ToolRunner.runOnTerminal(
            ["open", "binary.goshuin", "-o", "-", "--force"], in: directory.path, answers: [], environment: environment)
        #expect(forced.status == 0)
    }
}
