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
        // The texts: help.txt, help-commands.txt; here, that they are the same whichever way they are asked.
        let overview = try run(["help"])
        #expect(overview.status == 0 && !overview.stdout.isEmpty && overview.stderr.isEmpty)
        #expect(try run(["--help"]).stdout == overview.stdout)
        #expect(try run(["-h"]).stdout == overview.stdout)
        for command in Self.commands {
            let help = try run(["help", command])
            #expect(help.status == 0 && !help.stdout.isEmpty && help.stdout != overview.stdout)
            #expect(try run([command, "--help"]).stdout == help.stdout)
            #expect(try run([command, "-h"]).stdout == help.stdout)
        }
        let version = try run(["--version"])
        #expect(version.status == 0 && version.stdout.split(separator: "\n").count == 1)
    }

    /// After the install (its layout: PREFIX/bin and PREFIX/share/bash-completion/completions), a new login
    /// shell completes the commands on <Tab><Tab>, through Debian's bash-completion.
    @Test(.slowTier) func tabTabCompletesTheCommandsInANewLoginShell() throws {
        let prefix = directory.path + "/prefix"
        let completions = prefix + "/share/bash-completion/completions"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: completions, withIntermediateDirectories: true)
        try ToolRunner.copyTool(to: prefix + "/bin/goshuin-tool")
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
        // The help each points at: usage-errors.txt.
        let none = try run([])
        #expect(none.status == 64 && none.stdout.isEmpty && !none.stderr.isEmpty)
        let unknown = try run(["frobnicate", "--json"])
        #expect(unknown.status == 64 && unknown.errorCode == "usage")
        #expect(unknown.jsonError?["hint"] as? String == "see 'goshuin-tool help'")
        let option = try run(["seal", "x", "--bogus", "--json"])
        #expect(option.status == 64 && option.jsonError?["hint"] as? String == "see 'goshuin-tool help seal'")
    }
}
