import GoshuinFormat

/// A folder of known-answer vectors from another implementation, opened once: every file of the set is
/// opened through the folder's descriptor without following a link, and judged by `fstat` of what was
/// opened, so a vector can name nothing outside its folder and never makes the checker open a device.
final class VectorFolder {
    /// The folder's path, for messages.
    let path: String
    private let directory: OpenDirectory

    /// Opens the folder at `path`.
    init(path: String) throws {
        self.path = path
        directory = try describingFailure("cannot open the folder \(DisplayText.quoted(path))") {
            try OpenDirectory(path: path)
        }
    }

    private init(path: String, directory: OpenDirectory) {
        self.path = path
        self.directory = directory
    }

    /// The folder's subfolder `name`, when it is one (not a link); `nil` otherwise.
    func subfolder(_ name: String) -> VectorFolder? {
        guard (try? directory.status(of: name))??.kind == .directory, let opened = try? directory.openDirectory(name)
        else { return nil }
        return VectorFolder(path: path + "/" + name, directory: opened)
    }

    /// The folder's own names that are valid UTF-8 (not its subfolders' contents), sorted.
    func names() throws -> [String] {
        try describingFailure("cannot list \(DisplayText.quoted(path))") {
            try directory.names().compactMap { String(validating: $0, as: UTF8.self) }.sorted()
        }
    }

    /// Opens the regular file `name` of the folder for reading.
    ///
    /// - Throws: a ``VectorProblem`` saying what `name` is when it is not a regular file of the folder (a
    ///   symbolic link, a device, a pipe, a folder, nothing); `io` when it cannot be read.
    func openRegularFile(_ name: String) throws -> FileDescriptor {
        // Judged by name first, so that a device is never opened at all; then on what was opened.
        let found = try describingFailure("cannot examine \(DisplayText.quoted(name))") {
            try directory.status(of: name)
        }
        guard let found else { throw Self.notARegularFile(name, is: "missing") }
        guard found.kind == .regular else { throw Self.notARegularFile(name, is: "\(found.kind)") }
        let file: FileDescriptor
        do {
            file = try directory.openFile(name, [.readOnly, .nonBlocking])
        } catch .tooManyLinks {
            throw Self.notARegularFile(name, is: "\(FileKind.symbolicLink)")
        } catch {
            throw error.goshuinError("cannot open \(DisplayText.quoted(name))")
        }
        do {
            let opened = try describingFailure("cannot examine \(DisplayText.quoted(name))") { try file.status() }
            guard opened.kind == .regular else { throw Self.notARegularFile(name, is: "\(opened.kind)") }
            return file
        } catch {
            try? file.close()
            throw error
        }
    }

    private static func notARegularFile(_ name: String, is kind: String) -> VectorProblem {
        VectorProblem(
            check: "the file \(DisplayText.quoted(name))", expected: "a regular file in the vector's folder",
            computed: kind)
    }
}
