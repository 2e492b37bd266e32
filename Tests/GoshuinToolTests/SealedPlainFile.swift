import Foundation

/// A scratch folder holding `plain.bin` and `plain.goshuin` sealed from it, and a way to run the tool there,
/// through a shell line when a test needs a redirection or an argument that is not UTF-8.
struct SealedPlainFile {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "an attack review"]

    init() throws {
        directory.write("plain.bin", Array("a plain payload\n".utf8))
        let sealed = try ToolRunner.run(
            ["seal", "plain.bin", "-o", "plain.goshuin", "--iterations", "1000"], in: directory.path,
            environment: environment)
        guard sealed.status == 0 else { throw SetupFailure(description: sealed.stderr) }
    }

    /// Runs the tool in the folder with its passphrase; `shell`, when given, is a `/bin/sh -c` line that runs
    /// the tool as `"$@"`.
    func run(_ arguments: [String], shell: String? = nil) throws -> ToolRunner.Result {
        try ToolRunner.run(
            arguments, in: directory.path, environment: environment,
            wrapper: shell.map { ["/bin/sh", "-c", $0, "sh"] } ?? [])
    }

    /// The fixture could not be made.
    struct SetupFailure: Error, CustomStringConvertible {
        let description: String
    }
}
