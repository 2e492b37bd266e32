import Glibc
import GoshuinFormat

/// The checks the tool makes on its input and output paths before it asks for a passphrase.
enum Paths {
    /// Opens the input file: `input_not_found` (66) if it is missing or unreadable, a usage error for a
    /// directory.
    static func openInput(_ path: String, command: String) throws(ToolError) -> FileDescriptor {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = Errno(rawValue: errno)
            throw ToolError(
                code: "input_not_found", "cannot read \(DisplayText.quoted(path)): \(error)", hint: "check the path",
                status: .noInput)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw .usage("\(DisplayText.quoted(path)) is a directory; \(command) takes a file", command: command)
        }
        do {
            return try FileDescriptor.openForReading(path)
        } catch {
            throw ToolError(
                code: "input_not_found", "cannot read \(DisplayText.quoted(path)): \(error)", status: .noInput)
        }
    }

    /// Checks the output before any work: `-` must be open, not a terminal, and not the input itself; a
    /// path must not exist (unless `force`, and then only a regular file is replaced) and must not be the
    /// input.
    static func checkOutput(_ path: String, input: FileDescriptor?, force: Bool, command: String) throws(ToolError) {
        if path == "-" {
            guard !Console.standardOutputWasClosed else {
                throw ToolError(
                    code: "io", "standard output is closed; there is nowhere to write the output",
                    hint: "redirect standard output, or use -o FILE", status: .ioError)
            }
            guard !FileDescriptor.standardOutput.isTerminal else {
                throw ToolError(
                    code: "terminal_output", "refusing to write binary data to a terminal",
                    hint: "redirect standard output, or use -o FILE", status: .usage)
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
                throw toolError(error)
            }
        }
        let directory = AtomicOutput.directory(of: path)
        guard access(directory, W_OK) == 0 else {
            throw ToolError(
                code: "cannot_create_output", "cannot create \(DisplayText.quoted(path)): \(Errno(rawValue: errno))",
                hint: "check that the folder exists and is writable", status: .cannotCreate)
        }
        do {
            try AtomicOutput.checkDestination(path, replaceExisting: force)
        } catch {
            throw toolError(error)
        }
    }

    private static let sameFile = ToolError(
        code: "same_file", "the input and the output are the same file; nothing was written",
        hint: "choose another output name", status: .usage)

    private static func identity(of descriptor: FileDescriptor, _ what: String) throws(ToolError) -> FileIdentity {
        do {
            return try descriptor.fileIdentity()
        } catch {
            throw ToolError(code: "io", "cannot examine \(what): \(error)", status: .ioError)
        }
    }

    private static func toolError(_ error: any Error) -> ToolError {
        (error as? GoshuinError).map(ToolError.init) ?? ToolError(code: "io", "\(error)", status: .ioError)
    }

    /// Removes what killed runs left in the folder that will hold `path` (``Temporaries``), saying so.
    static func sweepLeftovers(besides path: String) {
        let directory = AtomicOutput.directory(of: path)
        let removed = Temporaries.sweepLeftovers(in: directory)
        guard !removed.isEmpty else { return }
        let names = removed.map { DisplayText.quoted($0) }.joined(separator: ", ")
        Console.notice(
            "removed \(removed.count) leftover temporary \(removed.count == 1 ? "file" : "files") of an interrupted"
                + " run from \(DisplayText.quoted(directory)): \(names)")
    }

    /// Runs `write` on a file that becomes `path` only if `write` succeeds, or, for `-`, on a private
    /// temporary file copied to standard output afterwards, so a failure never leaves partial output.
    static func writeOutput(
        _ path: String, force: Bool, _ write: (FileDescriptor) throws -> Void
    ) throws {
        guard path == "-" else {
            sweepLeftovers(besides: path)
            try withAtomicOutput(to: path, replaceExisting: force, write)
            return
        }
        let spool = try FileSystem.anonymousFile()
        try spool.closeAfter {
            try write(spool)
            do {
                try spool.seek(to: 0)
                try FileDescriptor.standardOutput.copyAll(from: spool)
            } catch {
                throw GoshuinError(error, doing: "cannot write to standard output")
            }
        }
    }
}
