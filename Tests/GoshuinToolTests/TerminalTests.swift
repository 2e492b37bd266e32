import Foundation
import GoshuinTestSupport
import Testing

/// The passphrase prompt on a real pseudo-terminal (script(1)), and the terminal refusals.
@Suite struct TerminalTests {
    let directory = Scratch()

    init() {
        directory.write("plain.bin", Array("a payload typed by hand".utf8))
    }

    @Test func sealAsksTwiceThenOpenAsksOnce() throws {
        let sealed = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path,
            answers: ["tty secret", "tty secret"])
        #expect(sealed.status == 0, "\(sealed.screen)")
        #expect(sealed.screen.components(separatedBy: "Passphrase").count - 1 == 2, "asked twice: terminal-prompt.txt")
        #expect(!sealed.screen.contains("tty secret"), "echo is off")
        let opened = try ToolRunner.runOnTerminal(
            ["open", "p.goshuin", "-o", "out.bin"], in: directory.path, answers: ["tty secret"])
        #expect(opened.status == 0, "\(opened.screen)")
        #expect(directory.bytes("out.bin") == Array("a payload typed by hand".utf8))
    }

    /// A passphrase typed at the terminal that does not open the file is asked for again, three times in all;
    /// the key is derived once for each passphrase typed, never a second time for the one that opens the file;
    /// a failed try writes nothing. A passphrase given any other way is used once.
    @Test func aWrongPassphraseAtThePromptIsAskedAgainTheKeyDerivedOncePerTry() throws {
        directory.write("pw.txt", Array("tty secret\n".utf8))
        let sealed = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "300000", "--passphrase-file", "pw.txt"],
            in: directory.path)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let derivations = { (screen: String) in screen.components(separatedBy: "deriving the key (300000").count - 1 }
        let prompts = { (screen: String) in screen.components(separatedBy: "Passphrase: ").count - 1 }
        let second = try ToolRunner.runOnTerminal(
            ["open", "p.goshuin", "-o", "out.bin"], in: directory.path, answers: ["not it", "tty secret"])
        #expect(second.status == 0, "\(second.screen)")
        #expect(prompts(second.screen) == 2 && derivations(second.screen) == 2, "\(second.screen)")
        #expect(directory.bytes("out.bin") == Array("a payload typed by hand".utf8))
        let never = try ToolRunner.runOnTerminal(
            ["verify", "p.goshuin"], in: directory.path, answers: ["one", "two", "three", "four"])
        #expect(never.status == 65, "\(never.screen)")
        #expect(prompts(never.screen) == 3 && derivations(never.screen) == 3, "three tries: \(never.screen)")
        let failed = try ToolRunner.runOnTerminal(
            ["open", "p.goshuin", "-o", "failed.bin"], in: directory.path, answers: ["one", "two", "three"])
        #expect(failed.status == 65, "\(failed.screen)")
        #expect(directory.entries == ["out.bin", "p.goshuin", "plain.bin", "pw.txt"], "nothing left by the tries")
        directory.write("wrong.txt", Array("not it\n".utf8))
        for (given, environment) in [
            (["--passphrase-file", "wrong.txt"], [:]), ([], ["GOSHUIN_PASSPHRASE": "not it"]),
        ] {
            let once = try ToolRunner.runOnTerminal(
                ["verify", "p.goshuin"] + given, in: directory.path, answers: ["not it"], environment: environment)
            #expect(once.status == 65 && prompts(once.screen) == 0 && derivations(once.screen) == 1, "\(once.screen)")
        }
    }

    @Test func mismatchedPassphrasesAreRefused() throws {
        let result = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path,
            answers: ["one", "two"])
        #expect(result.status == 64 && ToolRunner.errorCode(in: result.screen) == "passphrase_mismatch")
        #expect(!directory.exists("p.goshuin"))
    }

    @Test func binaryOutputToATerminalIsRefused() throws {
        let result = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "-", "--iterations", "1000"], in: directory.path, answers: [])
        #expect(result.status == 64 && ToolRunner.errorCode(in: result.screen) == "terminal_output")
    }

    /// A terminal keeps 4095 bytes of a line and drops the rest silently: a passphrase typed that long may
    /// have been cut, so it is refused, never sealed with what the terminal kept; one byte less seals and
    /// opens from a file too.
    @Test func aPassphraseTheTerminalMayHaveCutIsRefused() throws {
        let tooLong = String(repeating: "a", count: 4_200)
        let refused = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "long.goshuin", "--iterations", "1000"], in: directory.path,
            answers: [tooLong, tooLong])
        #expect(refused.status == 64, "\(refused.screen.suffix(300))")
        #expect(ToolRunner.errorCode(in: refused.screen) == "passphrase_too_long")
        #expect(!directory.exists("long.goshuin"))
        let longest = String(repeating: "b", count: 4_094)
        let sealed = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "long.goshuin", "--iterations", "1000"], in: directory.path,
            answers: [longest, longest])
        #expect(sealed.status == 0, "\(sealed.screen.suffix(300))")
        directory.write("long.txt", Array(longest.utf8))
        let opened = try ToolRunner.run(
            ["open", "long.goshuin", "-o", "out.bin", "--passphrase-file", "long.txt"], in: directory.path)
        #expect(opened.status == 0, "\(opened.stderr)")
    }

    /// A signal at the prompt comes after the output's temporary was made (the passphrase is asked after
    /// every check): it is removed, and the terminal gets its echo back, for Ctrl-C and for Ctrl-\ alike.
    @Test(arguments: [UInt8(0x03), 0x1C])
    func aSignalAtThePromptLeavesNothingAndTheTerminalAsItWas(key: UInt8) throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        let echo = "stty -a | grep -qw -- -echo && echo ECHO-OFF || echo ECHO-ON"
        let opening = try ToolRunner.runOnTerminal(
            ["open", "plain.goshuin", "-o", "out.bin"], in: directory.path, answers: [],
            interruptWhenShown: "Passphrase: ", key: key, thenShow: echo)
        #expect(opening.status == 130, "\(opening.screen)")
        // Its words: terminal-prompt.txt.
        #expect(ToolRunner.errorCode(in: opening.screen) == "interrupted", "\(opening.screen)")
        #expect(opening.screen.contains("ECHO-ON"), "\(opening.screen)")
        let sealing = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "again.goshuin", "--iterations", "1000"], in: directory.path,
            answers: ["a passphrase long enough"], interruptWhenShown: "Passphrase again: ", key: key, thenShow: echo)
        #expect(sealing.status == 130, "\(sealing.screen)")
        #expect(sealing.screen.contains("ECHO-ON"), "\(sealing.screen)")
        #expect(directory.entries == ["plain.bin", "plain.goshuin"], "no output and no temporary left")
    }
}

/// Progress appears on a terminal's standard error, and only there.
@Suite struct ProgressTests {
    let directory = Scratch()

    init() {
        directory.write("pw.txt", Array("progress\n".utf8))
        // Over the 64 MiB threshold for byte progress.
        directory.write("large.bin", [UInt8](repeating: 0x42, count: 65 * 1_048_576))
    }

    @Test(.slowTier) func progressOnATerminalAndQuietSilencesIt() throws {
        let shown = try ToolRunner.runOnTerminal(
            ["seal", "large.bin", "-o", "large.goshuin", "--passphrase-file", "pw.txt", "--iterations", "120000"],
            in: directory.path, answers: [])
        #expect(shown.status == 0, "\(shown.screen)")
        #expect(shown.screen.contains("iterations, ") && !shown.screen.contains("key derived in"))
        #expect(
            shown.screen.contains("65 MiB / 65 MiB") && shown.screen.contains("/s") && shown.screen.contains("left"))
        // The progress line is cleared; the result line takes its place.
        #expect(
            shown.screen.hasSuffix("\u{1B}[Ksealed large.bin into large.goshuin, 65 MiB\r\n"),
            "\(shown.screen.suffix(80))")
        let quiet = try ToolRunner.runOnTerminal(
            ["open", "large.goshuin", "-o", "out.bin", "--passphrase-file", "pw.txt", "--quiet"], in: directory.path,
            answers: [])
        #expect(quiet.status == 0)
        #expect(quiet.screen.isEmpty, "\(quiet.screen)")
        let piped = try ToolRunner.run(
            ["open", "large.goshuin", "-o", "out2.bin", "--passphrase-file", "pw.txt"], in: directory.path)
        #expect(
            piped.status == 0 && piped.stderr == "opened large.goshuin into out2.bin, 65 MiB\n",
            "no progress when standard error is not a terminal, only the result line")
    }
}

extension ProgressTests {
    /// Each pass of a recovery command has its own labelled line, in the file's bytes (issue 34): `verify`
    /// with a set checks every part against it, then authenticates; `seal --recovery` past the writer's
    /// memory shows the read-back that computes the set once the backup is in place.
    @Test(.slowTier) func recoveryPassesAreLabelled() throws {
        let sealed = try ToolRunner.runOnTerminal(
            [
                "seal", "large.bin", "-o", "large.goshuin", "--passphrase-file", "pw.txt", "--iterations", "1000",
                "--recovery", "50%",
            ], in: directory.path, answers: [])
        #expect(sealed.status == 0, "\(sealed.screen)")
        #expect(sealed.screen.contains("goshuin-tool: sealing: 65 MiB / 65 MiB"), "\(sealed.screen.suffix(400))")
        #expect(
            sealed.screen.contains("goshuin-tool: making the recovery files: 65 MiB / 65 MiB"),
            "the read-back is shown: \(sealed.screen.suffix(400))")
        let verified = try ToolRunner.runOnTerminal(
            ["verify", "large.goshuin", "--passphrase-file", "pw.txt"], in: directory.path, answers: [])
        #expect(verified.status == 0, "\(verified.screen)")
        #expect(
            verified.screen.contains("goshuin-tool: checking against the recovery files: 65 MiB / 65 MiB"),
            "once over the file, not twice: \(verified.screen.suffix(400))")
        #expect(verified.screen.contains("goshuin-tool: authenticating with the passphrase: 65 MiB / 65 MiB"))
    }
}

/// Job control at the prompt, in the person's own interactive shell: Ctrl-Z, then `fg`.
@Suite struct PromptJobControlTests {
    let directory = Scratch()

    init() throws {
        directory.write("plain.bin", Array("a payload typed by hand".utf8))
        directory.write("pw.txt", Array("tty secret\n".utf8))
        let sealed = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "p.goshuin", "--passphrase-file", "pw.txt", "--iterations", "1000"],
            in: directory.path)
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    /// Ctrl-Z at the prompt gives the shell back a terminal that echoes, and after `fg` the prompt is shown
    /// again with echo off: the passphrase typed then never appears (readpassphrase(3)'s behaviour).
    @Test func ctrlZThenFgShowsThePromptAgainWithEchoOff() throws {
        let session = try TerminalSession(in: directory.path)
        #expect(session.wait(for: "$ "), "\(session.screen)")
        session.type("'\(ToolRunner.toolPath)' open p.goshuin -o out.bin\n")
        #expect(session.wait(for: "Passphrase:"), "\(session.screen)")
        session.typeControl("Z")
        #expect(session.wait(for: "Stopped"), "\(session.screen)")
        // The shell's own line editing echoes again while the command is stopped.
        session.type("echo shell-echoes\n")
        #expect(session.wait(for: "shell-echoes", count: 2), "\(session.screen)")
        session.type("fg\n")
        #expect(session.wait(for: "Passphrase:", count: 2), "the prompt is shown again: \(session.screen)")
        session.type("tty secret\n")
        #expect(session.wait(for: "opened p.goshuin into out.bin"), "\(session.screen)")
        let screen = session.finish()
        #expect(!screen.contains("tty secret"), "the passphrase was echoed: \(screen)")
        #expect(directory.bytes("out.bin") == Array("a payload typed by hand".utf8))
    }
}
