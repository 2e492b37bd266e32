import GoshuinFormat

/// What verifying a `.goshuin` file found: every chunk authenticates, and, when the payload is a backup,
/// the backup is sound. Nothing is written.
public struct Verification: Sendable {
    /// What the payload turned out to be.
    public enum Payload: Sendable, Equatable {
        /// A backup (`Spec/backup-v1.md`): its structure, manifest and every entry checked.
        case backup(Manifest)
        /// A ZIP without `manifest.json`: not a backup; its chunks are authenticated.
        case zipWithoutManifest
        /// Anything else: its chunks are authenticated.
        case other
    }

    /// The header, authenticated.
    public let header: Header
    /// What the payload is.
    public let payload: Payload

    /// Verifies the `.goshuin` file open at `input` with the passphrase `passphrase` gives, writing
    /// nothing, reading the file once.
    ///
    /// The structure is checked before `passphrase` is evaluated, as when opening. A payload whose last 22
    /// bytes are a ZIP end record is read as a ZIP; if its central directory holds `manifest.json` it is a
    /// backup and gets every check of `Spec/backup-v1.md` §4 in one pass in file order, which authenticates
    /// every chunk on the way. Any other payload has every chunk authenticated, by `workerCount` workers. A
    /// failure is the error opening or extracting would give (`Spec/container-v1.md` §7.1, `backup-v1.md`
    /// §4.1).
    ///
    /// - Parameter requiringBackup: read the payload as a backup whatever it looks like, so that anything
    ///   extracting would refuse fails here too (a ZIP with a comment or trailing bytes, no manifest).
    package static func verify(
        _ input: FileDescriptor, passphrase: @autoclosure () throws -> Passphrase, requiringBackup: Bool = false,
        workerCount: Int = WorkerThreads.defaultWorkerCount, progress: ProgressHandler? = nil
    ) throws -> Verification {
        let container = try LockedContainer(checking: input).unlock(with: passphrase(), progress: progress)
        let payload: Payload
        do {
            payload = try readAsBackup(container, requiringBackup: requiringBackup, progress)
        } catch let error as GoshuinError where error.code == .chunkDamaged {
            // Every chunk checked, and what the damaged ones hold named, for a person to act on.
            throw DamageReport.annotate(error, container)
        }
        if case .backup = payload { return Verification(header: container.header, payload: payload) }
        // The random-access reader's buffers are gone by now: the chunk pipeline has the budget to itself
        // (`Spec/decisions/0010`).
        try container.open(to: nil, workerCount: workerCount, progress: progress)
        return Verification(header: container.header, payload: payload)
    }

    /// Reads the payload as a backup when it is one (or `requiringBackup`), checking everything; otherwise
    /// says what it is. The random-access reader lives only while this runs.
    private static func readAsBackup(
        _ container: UnlockedContainer, requiringBackup: Bool, _ progress: ProgressHandler?
    ) throws -> Payload {
        // The final chunk says whether the payload is a ZIP, read in a buffer of its own size: a payload that
        // is not one never costs more than opening it does. A final chunk that fails leaves the verdict to
        // the pass over every chunk.
        var needsTail = false
        if !requiringBackup {
            switch try DecryptingReader.finalBytes(
                container.input, header: container.header, key: container.payloadKey,
                count: ZipEndRecord.fixedLength)
            {
            case .authentic(let tail) where !ZipEndRecord.isCommentlessEnd(tail): return .other
            case .failsAuthentication: return .other
            case .chunkTooShort: needsTail = true
            case .authentic: break
            }
        }
        let reader = try container.reader(authenticatingFinalChunkFirst: true)
        // A final chunk shorter than an end record: the payload's last bytes span two chunks (or it is shorter).
        if needsTail {
            let length = ZipEndRecord.fixedLength
            guard reader.size >= UInt64(length),
                let tail = try reader.readExactly(at: reader.size - UInt64(length), count: length),
                ZipEndRecord.isCommentlessEnd(tail)
            else { return .other }
        }
        let manifest = try reader.checkingContainerFirst { () throws -> Manifest? in
            let archive = try BackupArchive(reader)
            guard requiringBackup || archive.directory.entry(named: Manifest.fileName) != nil else { return nil }
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            var done: UInt64 = 0
            let total = archive.directory.totalUncompressedSize
            try archive.readEveryEntry(checkedAgainst: manifest) { entry, read in
                try read { _ in }
                done += entry.uncompressedSize
                progress?(.payload(bytesDone: done, bytesTotal: total))
            }
            return manifest
        }
        return manifest.map { .backup($0) } ?? .zipWithoutManifest
    }

}
