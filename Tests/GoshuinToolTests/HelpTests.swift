import Foundation
import GoshuinTestSupport
import Testing

/// Help, version, and the man page and completions kept in step with the commands.
@Suite struct HelpTests {
    let directory = Scratch()
    static let commands = ["seal", "open", "verify", "protect", "repair", "rescue", "rekey", "inspect", "check"]

    func run(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, in: directory.path)
    }

    @Test func helpIsOnStandardOutputWithStatusZero() throws {
        let overview = try run(["help"])
        #expect(overview.status == 0 && overview.stdout.contains("COMMANDS") && overview.stderr.isEmpty)
        #expect(try run(["--help"]).stdout == overview.stdout)
        #expect(try run(["-h"]).stdout == overview.stdout)
        for command in Self.commands {
            let help = try run(["help", command])
            #expect(help.status == 0 && help.stdout.contains("USAGE") && help.stdout.contains("EXIT STATUS"))
            #expect(try run([command, "--help"]).stdout == help.stdout)
            #expect(try run([command, "-h"]).stdout == help.stdout)
        }
        let version = try run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("goshuin-tool "))
    }

    /// After the install (its layout: PREFIX/bin and PREFIX/share/bash-completion/completions), a new login
    /// shell completes the commands on <Tab><Tab>, through Debian's bash-completion.
    @Test(.slowTier) func tabTabCompletesTheCommandsInANewLoginShell() throws {
        let prefix = directory.path + "/prefix"
        let completions = prefix + "/share/bash-completion/completions"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: completions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ToolRunner.toolPath, toPath: prefix + "/bin/goshuin-tool")
        try FileManager.default.copyItem(
            atPath: ToolRunner.packageRoot + "/Completions/goshuin-tool.bash", toPath: completions + "/goshuin-tool")
        let session = try TerminalSession(
            in: directory.path, command: "bash -l -i",
            environment: [
                "PATH": prefix + "/bin:/usr/bin:/bin", "XDG_DATA_DIRS": prefix + "/share:/usr/share",
                "HOME": directory.path,
            ])
        session.type("goshuin-tool \t\t")
        #expect(session.wait(for: "inspect"), "\(session.screen)")
        // The line typed so far is erased (Ctrl-U) before `exit`.
        session.typeControl("U")
        let screen = session.finish()
        for command in Self.commands { #expect(screen.contains(command), "\(command) not offered: \(screen)") }
    }

    @Test func usageErrorsPointAtHelp() throws {
        let none = try run([])
        #expect(none.status == 64 && none.stdout.isEmpty && none.stderr.contains("goshuin-tool help"))
        let unknown = try run(["frobnicate"])
        #expect(unknown.status == 64 && unknown.stderr.contains("error: usage: unknown command"))
        let option = try run(["seal", "x", "--bogus"])
        #expect(option.status == 64 && option.stderr.contains("goshuin-tool help seal"))
    }

    /// Every `--option` the help of a command lists.
    func options(of command: String) throws -> Set<String> {
        let help = try run(["help", command]).stdout
        let pattern = try NSRegularExpression(pattern: "(?m)^  (?:-[a-z], )?(--[a-z-]+)")
        let range = NSRange(help.startIndex..., in: help)
        return Set(
            pattern.matches(in: help, range: range).compactMap {
                Range($0.range(at: 1), in: help).map { String(help[$0]) }
            })
    }

    @Test func manPageAndCompletionsCoverEveryCommandAndOption() throws {
        let files = ["Documentation/goshuin-tool.1", "Completions/goshuin-tool.bash", "Completions/_goshuin-tool"]
        for file in files {
            let text = try String(contentsOfFile: ToolRunner.packageRoot + "/" + file, encoding: .utf8)
                .replacingOccurrences(of: "\\-", with: "-")
            for command in Self.commands {
                #expect(text.contains(command), "\(file) lacks \(command)")
                let options = try options(of: command)
                #expect(!options.isEmpty)
                for option in options {
                    #expect(text.contains(option), "\(file) lacks \(command) \(option)")
                }
            }
        }
    }
}
