import GoshuinFormat
import GoshuinRecovery

/// The recovery files beside a file just sealed that were made for another file (`Spec/decisions/0048`): the
/// backup it replaced, or one that was there under that name before. With `--force` they are removed (the
/// person asked to replace what was there), otherwise named, so that no set of an old backup stays beside a
/// new one unmentioned.
enum StaleRecoveryFiles {
    /// What was found beside the output, and done.
    struct Settled {
        /// The stale files found, by path.
        let found: [String]
        /// Whether they were removed.
        let removed: Bool

        /// `{"files": […], "removed": true}`, or `null` when there were none.
        var json: JSONValue {
            found.isEmpty
                ? .null : .object([("files", .array(found.map { .string($0) })), ("removed", .bool(removed))])
        }
    }

    /// Settles the recovery files beside `outputPath` but those of `set` (the one just written with it):
    /// removes them when `removing` (regular files only; anything else is left and named), otherwise says
    /// how to replace them.
    static func settle(besides outputPath: String, removing: Bool, keeping set: RecoverySetFiles?) -> Settled {
        let kept = Set([set?.indexPath, set?.volumePath].compactMap { $0 }.map(FileSystem.lastComponent(of:)))
        let found = RecoverySet.filesOfSets(besides: outputPath).filter {
            !kept.contains(FileSystem.lastComponent(of: $0))
        }
        guard !found.isEmpty else { return Settled(found: [], removed: false) }
        let names = found.map { DisplayText.quoted(FileSystem.lastComponent(of: $0)) }.joined(separator: ", ")
        let protect = ShellQuoting.command(RecoveryReport.protectCommand(outputPath, replacing: true))
        guard removing else {
            Console.notice(
                "the recovery files beside it (\(names)) were made for another file: they cannot repair this backup;"
                    + " make new ones with \(protect)")
            return Settled(found: found, removed: false)
        }
        var removed: [String] = []
        var left: [String] = []
        for file in found {
            if FileSystem.status(ofPath: file)?.kind == .regular {
                FileSystem.removeFile(file)
                removed.append(file)
            } else {
                left.append(file)
            }
        }
        let quoted = { (files: [String]) in
            files.map { DisplayText.quoted(FileSystem.lastComponent(of: $0)) }.joined(separator: ", ")
        }
        if !removed.isEmpty {
            Console.notice(
                "removed the recovery files of the backup it replaced (\(quoted(removed))): they could not repair this"
                    + " one;" + (set == nil ? " make new ones with \(protect)" : " it has its own now"))
        }
        if !left.isEmpty {
            Console.notice("left in place, not being regular files, though named like recovery files: \(quoted(left))")
        }
        return Settled(found: found, removed: left.isEmpty)
    }
}
