import GoshuinFormat

/// The folder a backup is extracted into, named once: its path normalized (`restored/` is `restored`) and
/// its parent opened once; the empty check, the free space, the staging folder and the final rename all go
/// through that one descriptor.
package struct ExtractionDestination {
    /// The folder's path, without trailing slashes.
    package let path: String
    /// Its last component.
    package let name: String
    /// The folder that holds it, open.
    package let parent: OpenDirectory
    /// That folder's path, for messages.
    package let parentPath: String

    /// `path` normalized, its parent opened.
    ///
    /// - Throws: `invalid_argument` for a path that names no folder of its own (empty, `.`, `..`, `/`) or
    ///   whose name is longer than the system allows; `io` when the parent cannot be opened.
    package init(_ path: String) throws {
        let normalized = Self.normalized(path)
        let last = FileSystem.lastComponent(of: normalized)
        guard !normalized.isEmpty, normalized != "/", last != ".", last != ".." else {
            throw GoshuinError(.invalidArgument, "\(DisplayText.quoted(path)) names no new folder to extract into")
        }
        guard last.utf8.count <= FileSystem.maximumNameLength else {
            throw GoshuinError(
                .invalidArgument,
                "the folder name \(DisplayText.quoted(last)) is longer than \(FileSystem.maximumNameLength) bytes")
        }
        self.path = normalized
        name = last
        parentPath = FileSystem.parentDirectory(of: normalized)
        parent = try AtomicOutput.openFolder(parentPath)
    }

    /// `path` without its trailing slashes (`restored/` is `restored`; `/` stays `/`).
    package static func normalized(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// Throws `destination_not_empty` unless the folder is absent or an empty folder (not a link, not a
    /// file), saying which it is.
    package func requireEmptyOrAbsent() throws {
        guard let found = try? parent.status(of: name) else { return }
        guard found.kind == .directory else {
            throw GoshuinError(
                .destinationNotEmpty,
                "\(DisplayText.quoted(path)) is \(found.kind), not a folder: a backup is unpacked into a new or empty"
                    + " folder, and nothing else is ever replaced")
        }
        guard let folder = try? parent.openDirectory(name), (try? folder.names())?.isEmpty == true else {
            throw GoshuinError(
                .destinationNotEmpty,
                "\(DisplayText.quoted(path)) is a folder that is not empty; a backup is unpacked only into a new or"
                    + " empty folder, so that nothing in it is overwritten")
        }
    }

    /// Throws `no_space` unless the folder's file system has `needed` bytes free.
    package func requireSpace(_ needed: UInt64) throws {
        try FileSystem.requireSpace(needed, in: parent, path: parentPath, for: "extracting this backup")
    }
}
