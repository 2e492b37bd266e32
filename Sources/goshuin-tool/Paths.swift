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
                code: "input_not_found", "cannot read \(path): \(error)", hint: "check the path", status: .noInput)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw .usage("\(path) is a directory; \(command) takes a file", command: command)
        }
        do {
            return try FileDescriptor.openForReading(path)
        } catch {
            throw ToolError(code: "input_not_found", "cannot read \(path): \(error)", status: .noInput)
        }
    }

    /// Checks the output before any work: `-` must not be a terminal; a path must not exist (unless
    /// `force`) and must not be the input.
    static func checkOutput(_ path: String, input: FileDescriptor?, force: Bool, command: String) throws(ToolError) {
        if path == "-" {
            guard !FileDescriptor.standardOutput.isTerminal else {
                throw ToolError(
                    code: "terminal_output", "refusing to write binary data to a terminal",
                    hint: "redirect standard output, or use -o FILE", status: .usage)
            }
            return
        }
        if let input {
            do {
                try GoshuinFile.refuseSameFile(input, path)
            } catch {
                throw ToolError(
                    code: "same_file", "the input and the output are the same file; nothing was written",
                    hint: "choose another output name", status: .usage)
            }
        }
        if FileSystem.isDirectory(path) {
            throw ToolError(
                code: "output_exists", "\(path) is a directory", hint: "give a file name with -o", status: .cannotCreate
            )
        }
        if !force {
            do {
                try AtomicOutput.refuseExisting(path)
            } catch {
                throw (error as? GoshuinError).map(ToolError.init)
                    ?? ToolError(code: "io", "\(error)", status: .ioError)
            }
        }
        let directory = AtomicOutput.directory(of: path)
        guard access(directory, W_OK) == 0 else {
            throw ToolError(
                code: "cannot_create_output", "cannot create \(path): \(Errno(rawValue: errno))",
                hint: "check that the folder exists and is writable", status: .cannotCreate)
        }
    }

    /// Runs `write` on a file that becomes `path` only if `write` succeeds, or, for `-`, on a private
    /// temporary file copied to standard output afterwards, so a failure never leaves partial output.
    static func writeOutput(
        _ path: String, force: Bool, _ write: (FileDescriptor) throws -> Void
    ) throws {
        guard path == "-" else {
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
                throw GoshuinError(.io, "cannot write to standard output: \(error)")
            }
        }
    }
}
