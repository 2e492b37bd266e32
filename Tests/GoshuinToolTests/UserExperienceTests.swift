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
        let first = try run(["seal", "iphone", "-o", "iphone.goshuin", "--iterations", "1000", "--json"])
        #expect(first.status == 65 && first.errorCode == "unexpected_file", "\(first.stderr)")
        // Both problems at once, each with its rule, and a name that would pass where there is one (their words:
        // seal-a-phone-folder.txt); upper case is fine, and litter is no problem.
        let problems = try #require(first.jsonError?["details"] as? [String], "\(first.stdout)")
        #expect(problems.count == 2, "\(problems)")
        #expect(!directory.exists("iphone.goshuin"))
        try FileManager.default.removeItem(atPath: directory.path + "/iphone/IMG 0002.jpg")
        try FileManager.default.removeItem(atPath: directory.path + "/iphone/御朱印.jpg")
        // What is left out, what the folder holds (before the passphrase is asked), what was sealed:
        // seal-a-phone-folder.txt.
        let second = try run(["seal", "iphone", "-o", "iphone.goshuin", "--iterations", "1000", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let leftOut = try #require(second.json?["leftOut"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(leftOut == [".DS_Store", "._IMG_0001.HEIC", "Thumbs.db"] && second.json?["photoCount"] as? Int == 2)
        let restored = try run(["open", "iphone.goshuin", "--extract", "restored"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(directory.bytes("restored/IMG_0001.HEIC") == Array("IMG_0001.HEIC".utf8))
    }

    @Test func diagnosesPointTheRightWay() throws {
        directory.write("notes.txt", Array(repeating: 65, count: 5_000))
        #expect(try run(["seal", "notes.txt", "-o", "notes.goshuin", "--iterations", "1000"]).status == 0)
        // Each diagnosis in words, one sentence of cause and one of action, no advice said twice, none to run
        // what was just run: wrong-passphrase.txt, output-exists.txt, inspect.txt, verify.txt.
        let wrong = try run(["open", "notes.goshuin", "-o", "x"], environment: ["GOSHUIN_PASSPHRASE": "not it"])
        #expect(wrong.status == 65 && wrong.errorCode == "auth_failed")
        let single = try run(["open", "notes.goshuin", "--extract", "r2/"])
        #expect(single.status == 65 && single.errorCode == "zip_malformed", "\(single.stderr)")
        // Past a wrong magic nothing in it is a header: no field is shown.
        let notGoshuin = try run(["inspect", "notes.txt", "--json"])
        #expect(notGoshuin.status == 65 && notGoshuin.json?["verdict"] as? String == "bad_magic")
        #expect(
            notGoshuin.json?["header"] is NSNull && notGoshuin.json?["chunkCount"] is NSNull, "\(notGoshuin.stdout)")
        let exists = try run(["open", "notes.goshuin", "-o", "notes.txt"])
        #expect(exists.status == 73 && exists.errorCode == "output_exists")
        var damaged = directory.bytes("notes.goshuin")
        damaged[damaged.count - 1] ^= 1
        directory.write("damaged.goshuin", damaged)
        let broken = try run(["open", "damaged.goshuin", "-o", "y"])
        // Its only chunk fails: a wrong passphrase or damage, which the one message says once each.
        #expect(broken.status == 65 && broken.errorCode == "auth_failed" && !directory.exists("y"))
    }

    @Test func aResultLineSaysWhatHappenedUnlessQuietOrJSON() throws {
        directory.write("notes.txt", Array(repeating: 65, count: 3_000))
        // The lines themselves: seal-and-open-a-file.txt.
        let sealed = try run(["seal", "notes.txt", "-o", "n.goshuin", "--iterations", "1000"])
        #expect(sealed.status == 0 && sealed.stderr.split(separator: "\n").count == 1, "one line: \(sealed.stderr)")
        let opened = try run(["open", "n.goshuin", "-o", "n.txt"])
        #expect(opened.status == 0 && opened.stderr.split(separator: "\n").count == 1, "one line: \(opened.stderr)")
        let quiet = try run(["open", "n.goshuin", "-o", "q.txt", "-q"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
        let json = try run(["open", "n.goshuin", "-o", "j.txt", "--json"])
        #expect(json.status == 0 && json.stderr.isEmpty && json.json?["ok"] as? Bool == true)
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
        #expect(empty.status == 64 && ToolRunner.errorCode(in: empty.screen) == "empty_passphrase", "\(empty.screen)")
        #expect(empty.screen.components(separatedBy: "Passphrase").count == 2, "asked once, not again: \(empty.screen)")
        let short = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path, answers: ["x", "x"])
        // The warning, before the second prompt: terminal-prompt.txt.
        #expect(short.status == 0 && directory.exists("p.goshuin"), "\(short.screen)")
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
        // What each says: usage-errors.txt, help.txt.
        #expect(typo.status == 64 && typo.errorCode == "usage")
        let versions = try ["version", "-v", "--version"].map { try run([$0]) }
        #expect(versions.allSatisfy { $0.status == 0 && $0.stdout == versions[0].stdout && !$0.stdout.isEmpty })
        let bare = try run([])
        #expect(bare.status == 64 && bare.stdout.isEmpty && !bare.stderr.isEmpty)
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
        // Its words: terminal-prompt.txt. No byte of the payload reached the terminal.
        #expect(binary.status == 64 && ToolRunner.errorCode(in: binary.screen) == "terminal_output", "\(binary.screen)")
        #expect(!binary.screen.contains("\u{1B}[2J"))
        let forced = try ToolRunner.runOnTerminal(
            ["open", "binary.goshuin", "-o", "-", "--force"], in: directory.path, answers: [], environment: environment)
        #expect(forced.status == 0)
    }
}
