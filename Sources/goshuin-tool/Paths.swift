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
                code: .inputNotFound, "cannot read \(DisplayText.quoted(path)): \(error)", hint: "check the path",
                status: .noInput)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw .usage("\(DisplayText.quoted(path)) is a directory; \(command) takes a file", command: command)
        }
        do {
            return try FileDescriptor.openForReading(path)
        } catch {
            throw ToolError(
                code: .inputNotFound, "cannot read \(DisplayText.quoted(path)): \(error)", status: .noInput)
        }
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
                throw toolError(error)
            }
        }
        let directory = AtomicOutput.directory(of: path)
        guard access(directory, W_OK) == 0 else {
            throw ToolError(
                code: .cannotCreateOutput, "cannot create \(DisplayText.quoted(path)): \(Errno(rawValue: errno))",
                hint: "check that the folder exists and is writable", status: .cannotCreate)
        }
        do {
            try AtomicOutput.checkDestination(path, replaceExisting: force)
        } catch {
            throw toolError(error)
        }
    }

    /// Refusing to write `what` to the terminal standard output is.
    private static func terminalOutput(_ what: String) -> ToolError {
        ToolError(
            code: .terminalOutput, "\(what); refusing to write it to a terminal",
            hint: "redirect standard output, use -o FILE, or add --force to show it anyway", status: .usage)
    }

    /// The most a payload may be to be shown on a terminal as text.
    static let largestTextForATerminal: Int64 = 16 << 20

    /// Whether the `count` bytes of `file` are plain text, safe and readable on a terminal: UTF-8 with no
    /// control character but tab, newline and carriage return.
    private static func isPlainText(_ file: FileDescriptor, count: Int64) throws -> Bool {
        guard count <= largestTextForATerminal else { return false }
        try file.seek(to: 0)
        let bytes = try FileSystem.readAll(file, maximumSize: Int(count), name: "the payload")
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar == "\t" || scalar == "\n" || scalar == "\r" || DisplayText.escaped(String(scalar)) == String(scalar)
        }
    }

    private static let sameFile = ToolError(
        code: .sameFile, "the input and the output are the same file; nothing was written",
        hint: "choose another output name", status: .usage)

    private static func identity(of descriptor: FileDescriptor, _ what: String) throws(ToolError) -> FileIdentity {
        do {
            return try descriptor.fileIdentity()
        } catch {
            throw ToolError(code: .io, "cannot examine \(what): \(error)", status: .ioError)
        }
    }

    private static func toolError(_ error: any Error) -> ToolError {
        (error as? GoshuinError).map(ToolError.init) ?? ToolError(code: .io, "\(error)", status: .ioError)
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
    ///
    /// To a terminal, only plain text is written unless `force` (the check before the work refused binary
    /// output already; a payload is judged once it is verified).
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
            if !force, FileDescriptor.standardOutput.isTerminal {
                let size = (try? spool.regularFileSize()).flatMap { $0 } ?? 0
                guard try isPlainText(spool, count: size) else {
                    throw terminalOutput("the payload is not plain text (or more than 16 MiB)")
                }
            }
            do {
                try spool.seek(to: 0)
                try FileDescriptor.standardOutput.copyAll(from: spool)
            } catch {
                throw GoshuinError(error, doing: "cannot write to standard output")
            }
        }
    }
}
