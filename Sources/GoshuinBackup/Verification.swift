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
        workerCount: Int = ParallelChunks.defaultWorkerCount, progress: ProgressHandler? = nil
    ) throws -> Verification {
        let header = try ContainerStructure.validate(input)
        let key = try KeyDerivation.deriveKey(passphrase: passphrase(), header: header, progress: progress)
        // The final chunk says whether the payload is a ZIP; authenticating it first is what any reader of a
        // ZIP does.
        let reader = try DecryptingReader(input, header: header, key: key, authenticatingFinalChunkFirst: true)
        var payload = Payload.other
        if try requiringBackup || endsWithZipEndRecord(reader) {
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
            if let manifest { return Verification(header: header, payload: .backup(manifest)) }
            payload = .zipWithoutManifest
        }
        try ChunkPipeline.open(input, to: nil, header: header, key: key, workerCount: workerCount, progress: progress)
        return Verification(header: header, payload: payload)
    }

    /// Whether the payload's last 22 bytes are a ZIP end record without a comment.
    private static func endsWithZipEndRecord(_ payload: DecryptingReader) throws -> Bool {
        guard payload.size >= 22, let tail = try payload.readExactly(at: payload.size - 22, count: 22) else {
            return false
        }
        return tail[0..<4].elementsEqual([0x50, 0x4B, 0x05, 0x06]) && tail[20] == 0 && tail[21] == 0
    }
}
