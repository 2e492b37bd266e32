/// A command's name, usage, options and help text (each command's `spec`). The help output, the man page
/// and the shell completions are kept in step with these by a test.
struct CommandSpec {
    let name: String
    let summary: String
    let usage: String
    let options: [OptionSpec]
    let discussion: String
    let examples: [String]

    static let helpOption = OptionSpec(.help, short: "-h", "Show this help and exit.")
    static let jsonOption = OptionSpec(
        .json,
        "Print one JSON object on standard output instead of the text output: a summary with \"ok\": true, or"
            + " {\"ok\": false, \"error\": {\"code\", \"message\"}}. No progress and no result line; an error"
            + " still gets its line on standard error.")
    static let passphraseOptions = [
        OptionSpec(
            .passphraseFile, value: "PATH", "Read the passphrase from the first line of PATH (CR/LF removed)."),
        OptionSpec(.passphraseDescriptor, value: "N", "Read the passphrase from the first line of file descriptor N."),
    ]
    static let outputOptions = [
        OptionSpec(
            .force,
            "Replace OUTPUT if it exists and is a regular file (it is never replaced otherwise); with -o -, write"
                + " to a terminal what is not plain text."),
        OptionSpec(.quiet, short: "-q", "Show no progress, notices or result line on standard error."),
    ]
}
