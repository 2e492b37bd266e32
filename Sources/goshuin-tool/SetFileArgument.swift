import GoshuinFormat
import GoshuinRecovery

/// A recovery file given where the file it protects is expected (par2's syntax: `par2 repair
/// backup.goshuin.par2`): `repair` repairs the file it protects with it, `protect` refuses it and names
/// the file to protect.
enum SetFileArgument {
    /// The file the recovery file at `path` protects, when `path` is a recovery file (``RecoverySet/fileProtected(bySetFile:)``)
    /// and that file is there; a usage error of `command` when it is a recovery file whose file is not there;
    /// `nil` for any other file.
    static func protectedFile(of path: String, command: String) throws(ToolError) -> String? {
        guard let protected = RecoverySet.fileProtected(bySetFile: path) else { return nil }
        guard FileSystem.status(ofPath: protected) != nil else {
            throw ToolError.usage(
                "\(DisplayText.quoted(path)) is a recovery file, not the file to \(command), and the file it protects"
                    + " (\(DisplayText.quoted(protected))) is not beside it; give that file:"
                    + " \(ShellQuoting.command(["goshuin-tool", command, "FILE", "--recovery", ShellQuoting.argument(path)]))",
                command: command)
        }
        return protected
    }
}
