import Foundation
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
        #expect(sealed.screen.contains("Passphrase again:"))
        #expect(!sealed.screen.contains("tty secret"), "echo is off")
        let opened = try ToolRunner.runOnTerminal(
            ["open", "p.goshuin", "-o", "out.bin"], in: directory.path, answers: ["tty secret"])
        #expect(opened.status == 0, "\(opened.screen)")
        #expect(directory.bytes("out.bin") == Array("a payload typed by hand".utf8))
    }

    @Test func mismatchedPassphrasesAreRefused() throws {
        let result = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "p.goshuin", "--iterations", "1000"], in: directory.path,
            answers: ["one", "two"])
        #expect(result.status == 64)
        #expect(result.screen.contains("passphrase_mismatch"))
        #expect(!directory.exists("p.goshuin"))
    }

    @Test func binaryOutputToATerminalIsRefused() throws {
        let result = try ToolRunner.runOnTerminal(
            ["seal", "plain.bin", "-o", "-", "--iterations", "1000"], in: directory.path, answers: [])
        #expect(result.status == 64)
        #expect(result.screen.contains("terminal_output"))
    }
}
