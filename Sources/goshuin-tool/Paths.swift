import GoshuinFormat

/// The checks the tool makes on its input and output paths before the library asks for a passphrase,
/// and the writing of outputs (a file, or standard output through a spool).
enum Paths {
    /// Opens the input file: `input_not_found` (66) if it is missing or unreadable, a usage error for a
    /// directory. The open does not wait on a named pipe; the library refuses anything but a regular file.
    /// `-` is standard input, copied first into a private unnamed file (``spoolStandardInput()``): a
    /// `.goshuin` file is read by its size and at offsets.
    ///
    /// With a `passphraseReader`, a `.goshuin` file on standard input is authenticated as it arrives
    /// (``LeadingAuthentication``): its passphrase is asked once its header is in, and the spool stops at the
    /// first failure, so a forged header cannot make it fill the temporary folder.
    static func openInput(
        _ path: String, command: String, authenticatingWith passphraseReader: PassphraseReader? = nil,
        progress: ProgressHandler? = nil
    ) throws -> FileDescriptor {
        if path == "-" {
            guard !FileDescriptor.standardInput.isTerminal else {
                throw ToolError.usage(
                    "standard input is a terminal; give the file's name, or pipe it in: goshuin-tool \(command) - …"
                        + " < FILE.goshuin", command: command)
            }
            return try spoolContainerFromStandardInput(authenticatingWith: passphraseReader, progress: progress)
        }
        try checkInputExists(path, command: command)
        do {
            return try FileDescriptor.openWithoutWaiting(path)
        } catch {
            throw ToolError(
                code: .inputNotFound, "cannot read \(DisplayText.quoted(path)): \(error)", status: .noInput)
        }
    }

    /// Checks that the input `path` names exists and is not a directory: `input_not_found` (66) if it is
    /// missing or unreadable, a usage error for a directory.
    static func checkInputExists(_ path: String, command: String) throws(ToolError) {
        switch FileSystem.statusFollowingLinks(ofPath: path) {
        case .failure(let error):
            throw ToolError(
                code: .inputNotFound, "cannot read \(DisplayText.quoted(path)): \(error)", status: .noInput)
        case .success(let found) where found.kind == .directory:
            throw ToolError.usage(
                "\(DisplayText.quoted(path)) is a directory; \(command) takes a file", command: command)
        case .success:
            break
        }
    }

    /// Checks the file a recovery command (`protect`, `repair`) reads by name, its set beside it: not `-`,
    /// and there (``checkInputExists(_:command:)``).
    static func checkRecoveryInput(_ path: String, command: String) throws(ToolError) {
        guard path != "-" else {
            throw ToolError.usage(
                "\(command) takes a file by its name, not standard input: its recovery set is beside it",
                command: command)
        }
        try checkInputExists(path, command: command)
    }

    /// Copies standard input into a private file with no name in the temporary folder (`Spec/decisions/0014`),
    /// positioned at its start: it vanishes with the process, whatever happens.
    static func spoolStandardInput() throws -> FileDescriptor {
        let spool = try FileSystem.anonymousFile()
        do {
            try spool.copyAll(from: .standardInput, reading: "standard input", writing: "a temporary file")
            try describingFailure("cannot read a temporary file") { try spool.seek(to: 0) }
        } catch {
            try? spool.close()
            throw error
        }
        return spool
    }

    /// How much of a `.goshuin` file on standard input is spooled before its first bytes are authenticated,
    /// when a passphrase is to be had (``LeadingAuthentication``).
    static let unauthenticatedSpool: UInt64 = 64 << 20

    /// ``spoolStandardInput()`` for a `.goshuin` file: the spool stops at what its header says can matter
    /// (``ContainerStructure/decidingLength(ofFileStartingWith:)``): a version 1 file's size and one byte
    /// more, so that endless bytes after it cost one byte and give `trailing_data`; a version 2 file's size
    /// is the input's, so all of it is spooled, up to the size no version 2 file can reach.
    static func spoolContainerFromStandardInput(
        authenticatingWith passphraseReader: PassphraseReader? = nil, progress: ProgressHandler? = nil
    ) throws -> FileDescriptor {
        let spool = try FileSystem.anonymousFile()
        do {
            var head = [UInt8](repeating: 0, count: FormatVersion.v2.headerLength)
            let count = try describingFailure("cannot read standard input") {
                try head.withUnsafeMutableBytes { try FileDescriptor.standardInput.readFully(into: $0) }
            }
            head.removeLast(head.count - count)
            try describingFailure("cannot write a temporary file") { try spool.writeAll(head) }
            let limit = ContainerStructure.decidingLength(ofFileStartingWith: head)
            if let passphraseReader, let check = LeadingAuthentication(head: head) {
                // Past `unauthenticatedSpool`, the spool goes on only once the first bytes the passphrase can
                // authenticate did: a forged header's endless input stops there. A smaller file is spooled
                // whole first, so that its checks come in their order (its size before its chunks).
                let first = max(unauthenticatedSpool, UInt64(check.leadingLength))
                if limit > UInt64(count) {
                    try spool.copyAll(
                        from: .standardInput, limit: min(limit, first) - UInt64(count), reading: "standard input",
                        writing: "a temporary file")
                }
                if spool.position() == Int64(first), limit > first {
                    // A passphrase typed at the terminal that does not authenticate these bytes is asked again.
                    passphraseReader.checkTypedPassphrase(named: "-") { passphrase in
                        try check.authenticate(spool, available: first, passphrase: passphrase, progress: progress)
                    }
                    try check.authenticate(
                        spool, available: first, passphrase: passphraseReader.read(confirm: false), progress: progress)
                }
            }
            let spooled = UInt64(spool.position() ?? Int64(count))
            if count == FormatVersion.v2.headerLength, limit > spooled {
                try spool.copyAll(
                    from: .standardInput, limit: limit - spooled, reading: "standard input",
                    writing: "a temporary file")
            }
            // A valid version 1 header fixes the file's size: a byte past it is check 8's `trailing_data`, said
            // now, with how much is known (reading stopped there).
            if head.count > 4, head[4] == FormatVersion.v1.rawValue, (try? Header.decode(head)) != nil,
                spool.position() == Int64(limit)
            {
                throw GoshuinError(
                    .trailingData,
                    "standard input holds more than the \(limit - 1) bytes its header describes: bytes follow the"
                        + " last chunk (reading stopped there)")
            }
            try describingFailure("cannot read a temporary file") { try spool.seek(to: 0) }
        } catch {
            try? spool.close()
            throw error
        }
        return spool
    }

    /// Checks the output before any work: `-` must be open and not the input itself, and not a terminal for
    /// `binary` output unless `force`; a path must not exist (unless `force`, and then only a regular file
    /// is replaced) and must not be the input.
    static func checkOutput(
        _ path: String, input: FileDescriptor?, force: Bool, binary: Bool, command: String
    ) throws(ToolError) {
        if path == "-" {
            guard !Console.standardOutputWasClosed else {
                throw ToolError(
                    code: .io, "standard output is closed; there is nowhere to write the output",
                    hint: "redirect standard output, or use -o FILE", status: .ioError)
            }
            guard !binary || force || !FileDescriptor.standardOutput.isTerminal else {
                throw terminalOutput("a .goshuin file is binary data")
            }
            if let input, try identity(of: input, "the input") == identity(of: .standardOutput, "standard output") {
                throw sameFile
            }
            return
        }
        if let input {
            do {
                try GoshuinFile.refuseSameFile(input, path)
            } catch let error as GoshuinError where error.code == .invalidArgument {
                throw sameFile
            } catch {
                throw toolError(error, force: force)
            }
        }
        try checkFolderForOutput(path)
        try refuseWhatIsNotAFile(path, command: command)
        do {
            try AtomicOutput.checkDestination(path, replaceExisting: force)
        } catch {
            throw toolError(error, force: force)
        }
    }

    /// Says at once what an output that is not a regular file is, and what to do: a folder, a device, a
    /// pipe or a link is never replaced, so `--force` would not help.
    private static func refuseWhatIsNotAFile(_ path: String, command: String) throws(ToolError) {
        guard let found = FileSystem.status(ofPath: path), found.kind != .regular else { return }
        let name = DisplayText.quoted(path)
        let hint =
            found.kind == .directory
            ? (command == OpenCommand.name
                ? "give a file name (-o \(path)/NAME), or use --extract \(path) to unpack a backup into a folder"
                : "give a file name for the .goshuin file (-o \(path)/NAME.goshuin)")
            : "give the name of a new file"
        throw ToolError(
            code: .outputExists,
            "\(name) is \(found.kind), not a regular file; -o writes one, and never replaces anything else", hint: hint,
            status: .cannotCreate)
    }

    /// Checks that the folder that is to hold `path` (a file or a folder) exists and takes new files:
    /// `cannot_create_output` (73) otherwise, and a name longer than the system allows is a usage error.
    static func checkFolderForOutput(_ path: String) throws(ToolError) {
        do {
            try FileSystem.checkPlace(forNew: path)
        } catch {
            throw toolError(error)
        }
    }

    /// A path refused as an output's place, as the tool reports it: a name is a usage error, a folder that
    /// takes no new files `cannot_create_output` (73).
    static func toolError(_ refusal: OutputPlaceRefusal) -> ToolError {
        switch refusal {
        case .temporaryName, .nameTooLong:
            return .usage(refusal.goshuinError.message)
        case .folderNotWritable:
            return ToolError(
                code: .cannotCreateOutput, refusal.goshuinError.message, status: .cannotCreate)
        }
    }

    /// `path` in a result line: `standard output` for `-`.
    static func describe(_ path: String) -> String { path == "-" ? "standard output" : path }

    /// How a result line names the input at `path`: `standard input` for `-`.
    static func describeInput(_ path: String) -> String { path == "-" ? "standard input" : path }

    /// Refusing to write `what` to the terminal standard output is.
    private static func terminalOutput(_ what: String) -> ToolError {
        ToolError(
            code: .terminalOutput, "\(what); refusing to write it to a terminal", status: .usage)
    }

    /// The most a payload may be to be shown on a terminal as text.
    static let largestTextForATerminal: Int64 = 16 << 20

    /// Whether the `count` bytes of `file` are plain text, safe and readable on a terminal: UTF-8 with no
    /// control character but tab, newline and carriage return.
    private static func isPlainText(_ file: FileDescriptor, count: Int64) throws -> Bool {
        guard count <= largestTextForATerminal else { return false }
        try describingFailure("cannot read the payload") { try file.seek(to: 0) }
        let bytes = try FileSystem.readAll(file, maximumSize: Int(count), name: "the payload")
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar == "\t" || scalar == "\n" || scalar == "\r" || DisplayText.escaped(String(scalar)) == String(scalar)
        }
    }

    private static let sameFile = ToolError(
        code: .sameFile, "the input and the output are the same file; nothing was written",
        status: .usage)

    private static func identity(of descriptor: FileDescriptor, _ what: String) throws(ToolError) -> FileIdentity {
        do {
            return try descriptor.fileIdentity()
        } catch {
            throw ToolError(code: .io, "cannot examine \(what): \(error)", status: .ioError)
        }
    }

    /// `error` as the tool reports it; an output that exists though `force` was given is not a regular file,
    /// and `--force` will not help.
    private static func toolError(_ error: any Error, force: Bool) -> ToolError {
        let error = error.goshuinError("cannot check the output")
        let notReplaceable = force && error.code == .outputExists
        return ToolError(error, hint: notReplaceable ? "choose another output name with -o" : nil)
    }

    /// Removes what killed runs left in the folder that will hold `path` (``Temporaries``), saying so; the
    /// run's `input` is never taken.
    static func sweepLeftovers(besides path: String, sparing input: FileDescriptor?) {
        let directory = FileSystem.parentDirectory(of: path)
        guard let folder = try? AtomicOutput.openFolder(directory) else { return }
        sweepLeftovers(in: folder, path: directory, sparing: input)
    }

    /// ``sweepLeftovers(besides:sparing:)`` in the open `folder` (at `directory`, for messages).
    static func sweepLeftovers(in folder: OpenDirectory, path directory: String, sparing input: FileDescriptor?) {
        let spared = Set([input.flatMap { try? $0.fileIdentity() }].compactMap { $0 })
        let removed = Temporaries.sweepLeftovers(in: folder, sparing: spared)
        guard !removed.isEmpty else { return }
        let names = removed.map { DisplayText.quoted($0) }.joined(separator: ", ")
        Console.notice(
            "removed \(removed.count) leftover temporary \(removed.count == 1 ? "file" : "files") of an interrupted"
                + " run from \(DisplayText.quoted(directory)): \(names)")
    }

    /// Runs `write` on a file that becomes `path` only if `write` succeeds, or, for `-`, on a private
    /// temporary file copied to standard output afterwards, so a failure never leaves partial output;
    /// returns what `write` returns.
    ///
    /// To a terminal, only plain text is written unless `force` (the check before the work refused binary
    /// output already; a payload is judged once it is verified).
    static func writeOutput<Result>(
        _ path: String, force: Bool, input: FileDescriptor?, _ write: (FileDescriptor) throws -> Result
    ) throws -> Result {
        guard path == "-" else {
            sweepLeftovers(besides: path, sparing: input)
            return try withAtomicOutput(to: path, replaceExisting: force, write)
        }
        let spool = try FileSystem.anonymousFile()
        return try spool.closeAfter {
            let result = try write(spool)
            if !force, FileDescriptor.standardOutput.isTerminal {
                let size = (try? spool.regularFileSize()) ?? nil
                guard try isPlainText(spool, count: size ?? 0) else {
                    throw terminalOutput("the payload is not plain text (or more than 16 MiB)")
                }
            }
            try describingFailure("cannot read the verified payload") { try spool.seek(to: 0) }
            try FileDescriptor.standardOutput.copyAll(
                from: spool, reading: "the verified payload", writing: "to standard output")
            return result
        }
    }
}
