/// Why a path cannot name a new output, a file or a folder: what is checked of its name and its folder
/// before any work, so that a run never starts what it cannot put in place.
package enum OutputPlaceRefusal: Error, Equatable {
    /// Its last component, `name`, has the shape of the toolkit's temporaries (``Temporaries``), which a
    /// later run would take for a leftover.
    case temporaryName(String)
    /// Its last component, `name`, is longer than the system allows.
    case nameTooLong(String)
    /// The folder that is to hold `path` does not exist or takes no new files.
    case folderNotWritable(path: String, Errno)

    /// The refusal as the library reports it: `invalid_argument` for a name, `io` for the folder.
    package var goshuinError: GoshuinError {
        switch self {
        case .temporaryName(let name):
            return GoshuinError(
                .invalidArgument,
                "\(DisplayText.quoted(name)) has the shape of goshuin-tool's temporary names (.NAME.goshuin-tmp-…);"
                    + " choose another name")
        case .nameTooLong(let name):
            return GoshuinError(
                .invalidArgument,
                "the name \(DisplayText.quoted(name)) is longer than \(FileSystem.maximumNameLength) bytes, the most"
                    + " this system allows")
        case .folderNotWritable(let path, let error):
            return GoshuinError(.io, "cannot create \(DisplayText.quoted(path)): \(error)")
        }
    }
}

extension FileSystem {
    /// Checks that `path` can name a new output: its name is not a temporary's and fits the system, and
    /// the folder that is to hold it exists and takes new files.
    package static func checkPlace(forNew path: String) throws(OutputPlaceRefusal) {
        let name = lastComponent(of: path)
        guard !Temporaries.isTemporaryName(Array(name.utf8)) else { throw .temporaryName(name) }
        guard name.utf8.count <= maximumNameLength else { throw .nameTooLong(name) }
        if let error = cannotWrite(inDirectory: parentDirectory(of: path)) {
            throw .folderNotWritable(path: path, error)
        }
    }
}
