/// The toolkit's temporary files and folders, `.NAME.goshuin-tmp-RANDOM` beside their destination, the
/// marker that tells them from a person's files, and the sweep that removes those a killed run left behind
/// (`Spec/decisions/0011`).
///
/// A run marks each temporary as it makes it (the extended attribute ``markerAttribute``, holding the
/// temporary's own name) and holds an exclusive `flock(2)` on it until it becomes the destination or is
/// removed; the mark is taken off only once the temporary's name is gone (the data is synced and in place
/// under the destination's name). The sweep removes only what
/// carries the mark under the name it was made with: never a file by its name alone.
package enum Temporaries {
    /// What every temporary name holds between the destination's name and the random part.
    package static let marker = ".goshuin-tmp-"
    /// The extended attribute that marks a temporary of this toolkit; its value is the temporary's name.
    package static let markerAttribute = "user.goshuin-toolkit.temporary"
    /// How long a temporary must have been left unmodified before a sweep may take it: longer than the
    /// moment between creating a temporary and locking it, by far.
    package static let minimumAgeForSweep: Int = 60

    /// A fresh temporary name for `destinationName`: `.` + the name, shortened at a character boundary so
    /// that the whole fits in `NAME_MAX` bytes, + the marker + 16 random hex digits.
    package static func name(for destinationName: String) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let suffix = marker + String(repeating: "0", count: 16 - random.count) + random
        var base = Substring(destinationName)
        while 1 + base.utf8.count + suffix.utf8.count > SystemCall.maximumNameLength { base = base.dropLast() }
        return "." + base + suffix
    }

    /// Whether `name` has the shape of a temporary of this toolkit (also of earlier versions, whose random
    /// part was shorter or from `mkdtemp`). The shape alone never makes a file removable: see ``mark(_:name:)``.
    package static func isTemporaryName(_ name: [UInt8]) -> Bool {
        let marker = Array(Self.marker.utf8)
        guard name.first == UInt8(ascii: "."), name.count > marker.count + 1 else { return false }
        for start in stride(from: name.count - marker.count - 1, through: 1, by: -1)
        where name[start..<start + marker.count].elementsEqual(marker) {
            let random = name[(start + marker.count)...]
            return (1...16).contains(random.count)
                && random.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                }
        }
        return false
    }

    /// Marks the open temporary file or folder `descriptor`, made under `name`, as this toolkit's. On a file
    /// system that keeps no extended attributes nothing is marked, and a sweep never takes it.
    package static func mark(_ descriptor: FileDescriptor, name: String) {
        try? SystemCall.setAttribute(descriptor.rawValue, markerAttribute, Array(name.utf8))
    }

    /// Takes the mark off once the temporary has become the destination and no temporary name holds it: a
    /// person's file does not keep it, and a run killed at any earlier step leaves only marked temporaries.
    package static func unmark(_ descriptor: FileDescriptor) {
        SystemCall.removeAttribute(descriptor.rawValue, markerAttribute)
    }

    /// Whether the open file or folder `descriptor` carries the mark of a temporary made as `name`.
    static func isMarked(_ descriptor: FileDescriptor, name: String) -> Bool {
        let limit = SystemCall.maximumNameLength + 1
        return SystemCall.attribute(descriptor.rawValue, markerAttribute, maximumLength: limit) == Array(name.utf8)
    }

    /// Removes, from the directory at `path`, the temporaries of this toolkit that no live run holds: this
    /// user's marked files and flat folders under the name they were made with, unlocked (no `flock`, no
    /// POSIX record lock), unmodified for a minute, and none of `spared` (the run's own input).
    ///
    /// Nothing is followed: a link with a temporary's name is left alone, and so is a folder holding
    /// anything but regular files.
    /// - Returns: the names removed.
    package static func sweepLeftovers(in path: String, sparing spared: Set<FileIdentity> = []) -> [String] {
        guard let directory = try? OpenDirectory(path: path) else { return [] }
        return sweepLeftovers(in: directory, sparing: spared)
    }

    /// ``sweepLeftovers(in:sparing:)`` in the open `directory`.
    package static func sweepLeftovers(in directory: OpenDirectory, sparing spared: Set<FileIdentity> = []) -> [String]
    {
        guard let names = try? directory.names() else { return [] }
        var removed: [String] = []
        for raw in names where isTemporaryName(raw) {
            guard let name = String(validating: raw, as: UTF8.self), let found = try? directory.status(of: name),
                found.owner == SystemCall.effectiveUserID, SystemCall.now - found.modified >= minimumAgeForSweep,
                !spared.contains(found.identity)
            else { continue }
            if found.kind == .regular, removeUnlockedFile(name, identity: found.identity, in: directory) {
                removed.append(name)
            } else if found.kind == .directory, removeUnlockedFolder(name, identity: found.identity, in: directory) {
                removed.append(name)
            }
        }
        return removed.sorted()
    }

    /// Whether the open `file`, found as `identity`, is a temporary no run holds: the same file, marked as
    /// `name`, with its `flock` free and no POSIX record lock on it. Takes the `flock` when it answers yes.
    private static func isLeftover(_ file: FileDescriptor, name: String, identity: FileIdentity) -> Bool {
        (try? file.fileIdentity()) == identity && isMarked(file, name: name)
            && (try? SystemCall.hasRecordLock(file.rawValue)) == false && (try? file.lockExclusively()) == true
    }

    private static func removeUnlockedFile(_ name: String, identity: FileIdentity, in directory: OpenDirectory)
        -> Bool
    {
        guard let file = try? directory.openFile(name, [.readOnly, .nonBlocking]) else { return false }
        defer { try? file.close() }
        guard isLeftover(file, name: name, identity: identity), directory.stillNames(identity, name) else {
            return false
        }
        return (try? directory.removeFile(name)) != nil
    }

    /// Removes a flat folder of regular files, and only one: a folder holding anything else (a subfolder,
    /// a link, a name that is not UTF-8) is left whole, not emptied in part.
    private static func removeUnlockedFolder(_ name: String, identity: FileIdentity, in directory: OpenDirectory)
        -> Bool
    {
        guard let folder = try? directory.openDirectory(name),
            isLeftover(folder.descriptor, name: name, identity: identity), let raw = try? folder.names()
        else { return false }
        let entries = raw.compactMap { String(validating: $0, as: UTF8.self) }
        guard entries.count == raw.count,
            entries.allSatisfy({ entry in (try? folder.status(of: entry))??.kind == .regular })
        else { return false }
        for entry in entries where (try? folder.removeFile(entry)) == nil { return false }
        guard directory.stillNames(identity, name) else { return false }
        return (try? directory.removeDirectory(name)) != nil
    }
}
