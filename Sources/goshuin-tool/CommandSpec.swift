/// A command of `goshuin-tool`: its name, usage, options and help text. The help output, the man page
/// and the shell completions are kept in step with these by a test.
struct CommandSpec {
    let name: String
    let summary: String
    let usage: String
    let options: [OptionSpec]
    let discussion: String
    let examples: [String]

    static let all = [seal, open, verify, inspect, check]

    static func named(_ name: String) -> CommandSpec? { all.first { $0.name == name } }

    static let helpOption = OptionSpec("--help", short: "-h", "Show this help and exit.")
    static let jsonOption = OptionSpec(
        "--json",
        "Print one JSON object on standard output instead of the text output: a summary with \"ok\": true, or"
            + " {\"ok\": false, \"error\": {\"code\", \"message\"}}. No progress and no result line; an error"
            + " still gets its line on standard error.")
    static let passphraseOptions = [
        OptionSpec(
            "--passphrase-file", value: "PATH", "Read the passphrase from the first line of PATH (CR/LF removed)."),
        OptionSpec("--passphrase-fd", value: "N", "Read the passphrase from the first line of file descriptor N."),
    ]
    static let outputOptions = [
        OptionSpec(
            "--force",
            "Replace OUTPUT if it exists and is a regular file (it is never replaced otherwise); with -o -, write"
                + " to a terminal what is not plain text."),
        OptionSpec("--quiet", short: "-q", "Show no progress, notices or result line on standard error."),
    ]

    static let seal = CommandSpec(
        name: "seal", summary: "Encrypt a file into a .goshuin file.",
        usage: "goshuin-tool seal INPUT|FOLDER -o OUTPUT.goshuin [--iterations N] [--chunk-size SIZE] [options]",
        options: [
            OptionSpec(
                "--output", short: "-o", value: "PATH", "Where to write the .goshuin file ('-': standard output)."),
            OptionSpec(
                "--iterations", value: "N",
                "PBKDF2 iterations, 1000 to 2000000 (default 600000). More is slower"
                    + " to open, and slower to guess."),
            OptionSpec(
                "--chunk-size", value: "SIZE",
                "Plaintext bytes per chunk, 1KiB to 64MiB (default 4MiB); bytes,"
                    + " or with a KiB or MiB suffix."),
        ] + passphraseOptions + outputOptions + [jsonOption, helpOption],
        discussion: """
            INPUT is a file, or '-' for standard input (copied first to a private temporary file, because the
            header records the length). A FOLDER is packed into a backup ZIP first: records.csv and photos
            (IMG_0001.jpg, .jpeg, .png, .heic, .heif or .webp, in any case) with a generated manifest.json.
            Every file that may not be in a backup is listed at once, with the rule it breaks and a name that
            would pass; .DS_Store, Thumbs.db, desktop.ini and ._* files are left out with a notice. Photos are
            never renamed: records.csv refers to them by name.

            The passphrase is asked twice on the terminal unless it comes from --passphrase-file,
            --passphrase-fd or GOSHUIN_PASSPHRASE; an empty one is refused, a short one warned about. Every
            file gets a fresh random salt and nonce. The output appears only once it is complete; a line on
            standard error then says what was sealed, where, and its size.
            """,
        examples: [
            "goshuin-tool seal notes.zip -o notes.goshuin",
            "tar c photos | goshuin-tool seal - -o photos.goshuin --passphrase-file key.txt",
            "goshuin-tool seal my-backup/ -o backup.goshuin",
        ])

    static let open = CommandSpec(
        name: "open", summary: "Decrypt a .goshuin file, or unpack a backup into a folder.",
        usage: "goshuin-tool open INPUT.goshuin (-o OUTPUT | --extract FOLDER) [options]",
        options: [
            OptionSpec("--output", short: "-o", value: "PATH", "Where to write the payload ('-': standard output)."),
            OptionSpec(
                "--extract", value: "FOLDER",
                "Unpack a backup into FOLDER (new or empty): manifest.json, records.csv and the photos, each"
                    + " checked against the manifest."),
        ] + passphraseOptions + outputOptions + [jsonOption, helpOption],
        discussion: """
            The file's structure is checked before the passphrase is used. Every chunk is authenticated
            before OUTPUT appears; if any check fails, nothing is written. With -o - the payload is verified
            in a private temporary file first, then copied to standard output; to a terminal only when it is
            plain text, or with --force. With --extract the backup's ZIP is read in place, chunk by chunk,
            without writing it out; the folder appears only when every entry verified. Free space is checked
            before the passphrase is used (no_space). A line on standard error then says what was written.
            """,
        examples: [
            "goshuin-tool open backup.goshuin -o backup.zip",
            "goshuin-tool open backup.goshuin --extract restored/",
        ])

    static let verify = CommandSpec(
        name: "verify", summary: "Check that a .goshuin file opens, and a backup is sound, writing nothing.",
        usage: "goshuin-tool verify INPUT.goshuin [options]",
        options: passphraseOptions + [
            OptionSpec("--quiet", short: "-q", "Show no progress on standard error."), jsonOption, helpOption,
        ],
        discussion: """
            Authenticates every chunk with the passphrase and writes nothing: what to run on a backup before
            wiping a phone. When the payload is a backup (a ZIP holding manifest.json), also checks its whole
            structure and every entry against the manifest (size, CRC-32, SHA-256), as open --extract would.
            Reads the file once. Prints the chunks and bytes, and for a backup when it was made, the size of
            records.csv and the number of photos. Exits 0 when everything verified, 65 with the error open
            would give when not.
            """,
        examples: [
            "goshuin-tool verify backup.goshuin",
            "goshuin-tool verify backup.goshuin --json --passphrase-file key.txt",
        ])

    static let inspect = CommandSpec(
        name: "inspect", summary: "Show a .goshuin file's header and check its size, without the passphrase.",
        usage: "goshuin-tool inspect INPUT.goshuin [--list] [--json]",
        options: [
            OptionSpec(
                "--list",
                "With the passphrase: list a backup's entries and its manifest (decrypts only the"
                    + " chunks the ZIP's directory and manifest are in).")
        ] + passphraseOptions + [jsonOption, helpOption],
        discussion: """
            Prints every header field, the chunk count they imply, and the expected and actual file sizes,
            with a verdict: consistent, truncated, trailing_data, or the header error's code. Nothing here is
            authenticated: only opening with the passphrase proves the file genuine. Reads 45 bytes whatever
            the file size. Exits 65 when the verdict is not 'consistent'. --list needs the passphrase.
            """,
        examples: [
            "goshuin-tool inspect backup.goshuin", "goshuin-tool inspect backup.goshuin --json",
            "goshuin-tool inspect backup.goshuin --list",
        ])

    static let check = CommandSpec(
        name: "check", summary: "Check known-answer vectors against this implementation.",
        usage: "goshuin-tool check [PATH…] [--json]",
        options: [
            OptionSpec(
                "--json",
                "Print one JSON object on standard output: {\"ok\", \"passed\", \"failed\", \"malformed\", \"skipped\","
                    + " \"vectors\": [{\"name\", \"outcome\", \"problems\", \"computed\"}]}; the error object only when"
                    + " the check cannot run."),
            helpOption,
        ],
        discussion: """
            Each PATH is a directory of vectors (every NAME.json directly in it) or one vector's JSON file;
            the default is KnownAnswer/. The vector format is Spec/vectors-v1.md. Every vector goes through
            every reader (streaming, parallel, random access) and a success vector through both sealers.
            Prints one line per vector and, under a failing one, a line per problem with what the vector says
            and what was computed; a JSON file without a "format" member is not a vector and is skipped. Then
            'N malformed' and 'N passed, N failed'; exits 1 if any vector fails or is malformed.
            """,
        examples: ["goshuin-tool check", "goshuin-tool check their-vectors/ --json"])
}
