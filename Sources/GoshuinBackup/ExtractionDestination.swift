import GoshuinFormat

/// The folder a backup is extracted into, named once: its path normalized (`restored/` is `restored`),
/// every check of the name and of the folder that is to hold it made here, and that folder opened once;
/// the empty check, the free space, the staging folder and the final rename all go through that one
/// descriptor.
package struct ExtractionDestination {
    /// The folder's path, without trailing slashes.
    package let path: String
    /// Its last component.
    package let name: String
    /// The folder that holds it, open.
    package let parent: OpenDirectory
    /// That folder's path, for messages.
    package let parentPath: String

    /// Why a path cannot be extracted into, in the order the checks are made.
    package enum Refusal: Error {
        /// The normalized path's name or folder (``FileSystem/checkPlace(forNew:)``).
        case place(OutputPlaceRefusal)
        /// The path, as given, names no folder of its own: empty, `.`, `..`, `/`.
        case namesNoFolder(String)
        /// The folder that is to hold it cannot be opened.
        case folderNotOpened(GoshuinError)

        /// The refusal as the library reports it.
        package var goshuinError: GoshuinError {
            switch self {
            case .place(let refusal): return refusal.goshuinError
            case .namesNoFolder(let path):
                return GoshuinError(.invalidArgument, "\(DisplayText.quoted(path)) names no new folder to extract into")
            case .folderNotOpened(let error): return error
            }
        }
    }

    /// `path` normalized and checked, its parent opened.
    ///
    /// - Throws: `invalid_argument` for a path that names no folder of its own (empty, `.`, `..`, `/`), a
    ///   name of the shape of the toolkit's temporaries or longer than the system allows; `io` when the
    ///   folder that is to hold it does not exist, takes no new files or cannot be opened.
    package init(_ path: String) throws {
        do {
            try self.init(checking: path)
        } catch {
            throw error.goshuinError
        }
    }

    /// ``init(_:)``, saying which check refused `path`.
    package init(checking path: String) throws(Refusal) {
        let normalized = Self.normalized(path)
        do {
            try FileSystem.checkPlace(forNew: normalized)
        } catch {
            throw .place(error)
        }
        let last = FileSystem.lastComponent(of: normalized)
        guard !normalized.isEmpty, normalized != "/", last != ".", last != ".." else { throw .namesNoFolder(path) }
        self.path = normalized
        name = last
        parentPath = FileSystem.parentDirectory(of: normalized)
        do {
            parent = try AtomicOutput.openFolder(parentPath)
        } catch {
            throw .folderNotOpened(error.goshuinError("cannot open the folder \(DisplayText.quoted(parentPath))"))
        }
    }

    /// `path` without its trailing slashes (`restored/` is `restored`; `/` stays `/`).
    private static func normalized(_ path: String) -> String {
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
