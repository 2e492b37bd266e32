import GoshuinFormat

/// What a salvage of a damaged or cut backup restored and lost (`Spec/backup-v1.md` §4.2).
public struct SalvageReport: Sendable {
    /// How the entries were found.
    package enum Mode: String, Sendable {
        /// From the intact central directory, each entry checked against the intact manifest.
        case directory
        /// From the local headers, walked in order: the central directory and the manifest are lost.
        case walk
    }

    /// A lost entry and why.
    public struct LostEntry: Equatable, Sendable {
        /// The entry's name.
        public let name: String
        /// `damaged` or `missing` (a byte of it is in such a chunk), `not_found` (walk mode: the backup
        /// must hold it, but the walk never met it where it could take it), or the code of the check it fails.
        public let reason: String
    }

    /// How the entries were found.
    package let mode: Mode
    /// The entries restored, in file order. `manifest.json` is never among them: a salvage neither restores
    /// nor writes it, since it lists what the backup held, not what was restored.
    public let restored: [String]
    /// The entries known to be lost, in file order; in walk mode, `records.csv` first when it was not found,
    /// and after the entries walked, the photos a restored records.csv mentions that were not found.
    public let lost: [LostEntry]
    /// The damaged chunks, and the first missing one of a cut file.
    public let damagedChunks: [UInt64]
    /// The first chunk missing from a cut file; `nil` when the file is whole.
    public let firstMissingChunk: UInt64?
    /// The chunks the file's header says it has.
    public let chunkCount: UInt64
    /// The manifest, when it is intact: each entry was then found in the central directory and checked
    /// against it.
    public let manifest: Manifest?

    /// Whether the manifest is lost: the entries were found by walking the local headers from the start,
    /// and what was restored was checked for size and CRC-32 only.
    public var manifestLost: Bool { mode == .walk }
    /// Whether nothing is lost.
    public var isComplete: Bool { lost.isEmpty && !manifestLost }
}

/// Restores every entry of a damaged or cut backup whose bytes are all intact and that passes every check
/// it can still be given (`Spec/backup-v1.md` §4.2), into a new or empty folder that appears only at the end.
package enum BackupSalvage {
    /// Salvages the backup in the file open at `input` into `destination`.
    ///
    /// - Throws: the header's code, `auth_failed` (the passphrase, decided as `container-v1.md` §7.1
    ///   decides it), `destination_not_empty`, `no_space`, `io`; nothing is written then.
    package static func salvage(
        _ input: FileDescriptor, into destination: ExtractionDestination,
        passphrase: @autoclosure () throws -> Passphrase, progress: ProgressHandler? = nil
    ) throws -> SalvageReport {
        try destination.requireEmptyOrAbsent()
        let salvage = try ContainerSalvage(input, passphrase: passphrase(), progress: progress)
        try destination.requireSpace(
            min(salvage.header.plaintextLength, salvage.fileSize.subtractingReportingOverflow(45).partialValue))
        let staging = try StagingFolder(beside: destination)
        do {
            let found = try restore(from: salvage, into: staging)
            if found.restored.isEmpty {
                staging.remove()
            } else {
                try staging.moveIntoPlace()
            }
            return SalvageReport(
                mode: found.mode, restored: found.restored, lost: found.lost, damagedChunks: salvage.damagedChunks,
                firstMissingChunk: salvage.firstMissingChunk, chunkCount: salvage.header.chunkCount,
                manifest: found.manifest)
        } catch {
            staging.remove()
            throw error
        }
    }

    private typealias Found = (
        mode: SalvageReport.Mode, restored: [String], lost: [SalvageReport.LostEntry], manifest: Manifest?
    )

    /// Directory mode when the end records, the central directory and the manifest are intact and sound,
    /// walk mode otherwise; and walk mode when the payload's end is unknown (a version 2 file whose final
    /// chunk is lost), since nothing then says that the end records found are the archive's.
    private static func restore(from salvage: ContainerSalvage, into staging: StagingFolder) throws -> Found {
        if salvage.endKnown, let directory = try intactDirectory(of: salvage) {
            return try restoreByDirectory(directory.archive, manifest: directory.manifest, salvage, into: staging)
        }
        var walk = SalvageWalk(salvage: salvage, target: try SalvagedEntries(into: staging))
        try walk.run()
        return (.walk, walk.restored, walk.lost, nil)
    }

    /// The central directory and the manifest, when their bytes are intact and steps 1–4 of §4.1 pass.
    static func intactDirectory(of salvage: ContainerSalvage) throws -> (
        archive: BackupArchive, manifest: Manifest
    )? {
        do {
            let archive = try BackupArchive(salvage.reader)
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            return (archive, manifest)
        } catch let error as GoshuinError
            where error.code.isPayloadFault || error.code == .chunkDamaged || error.code == .truncated
        {
            return nil
        }
    }

    private static func restoreByDirectory(
        _ archive: BackupArchive, manifest: Manifest, _ salvage: ContainerSalvage, into staging: StagingFolder
    ) throws -> Found {
        var salvaged = try SalvagedEntries(into: staging)
        try restoreByDirectory(archive, manifest: manifest, salvage, into: &salvaged)
        return (.directory, salvaged.restored, salvaged.lost, manifest)
    }

    /// Directory mode into `target`: every entry but the manifest, in file order, lost when a byte of its span
    /// is not intact, otherwise read and checked (its local header, its data ending where its span does, its
    /// size, CRC-32 and SHA-256 against the manifest).
    static func restoreByDirectory<Target: SalvageTarget>(
        _ archive: BackupArchive, manifest: Manifest, _ salvage: ContainerSalvage, into target: inout Target
    ) throws {
        for (entry, spanEnd) in spans(of: archive.directory) {
            if let loss = salvage.loss(in: entry.localHeaderOffset..<max(entry.localHeaderOffset, spanEnd)) {
                target.lose(entry.name, loss.state.rawValue)
                continue
            }
            try target.restore(entry, spanEnd: spanEnd) { write in
                try archive.readForSalvage(entry, spanEnd: spanEnd, checkedAgainst: manifest, into: write)
            }
        }
        try target.finish()
    }

    /// Every entry of `directory` but the manifest, in file order, with where its span ends: the next entry's
    /// local header, or the central directory for the last (`Spec/backup-v1.md` §4.2, directory mode).
    static func spans(of directory: ZipDirectory) -> [(entry: ZipEntry, spanEnd: UInt64)] {
        let entries = directory.entriesInFileOrder
        return entries.enumerated().compactMap { position, entry in
            guard entry.name != Manifest.fileName else { return nil }
            let spanEnd =
                position + 1 < entries.count
                ? entries[position + 1].localHeaderOffset : directory.centralDirectoryOffset
            return (entry, spanEnd)
        }
    }
}

/// Where a salvage puts what it restores: files in a staging folder (``SalvagedEntries``), or nothing but
/// where each entry that passed lies (``SurveyedEntries``, for a rescue, which writes them into a new backup).
protocol SalvageTarget {
    /// The entries restored, in file order.
    var restored: [String] { get }
    /// The entries lost, in file order.
    var lost: [SalvageReport.LostEntry] { get }
    /// `name` lost before a byte of it was read, for `reason`; at the front of the list when `first`.
    mutating func lose(_ name: String, _ reason: String, first: Bool)
    /// Reads `entry` as `read` hands its bytes to the writer it is given, checking them as it goes: restored
    /// when every check of the entry holds, lost with its fault's code when one fails. Where its data lies:
    /// at `dataOffset` (walk mode), or, checked by `read`, from its local header to `spanEnd` (directory
    /// mode). Returns whether it was restored.
    @discardableResult mutating func restore(
        _ entry: ZipEntry, dataOffset: UInt64?, spanEnd: UInt64?,
        read: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> Bool
    /// Waits until every entry restored is where it goes.
    func finish() throws
}

extension SalvageTarget {
    mutating func lose(_ name: String, _ reason: String) { lose(name, reason, first: false) }

    @discardableResult mutating func restore(
        _ entry: ZipEntry, spanEnd: UInt64, read: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> Bool {
        try restore(entry, dataOffset: nil, spanEnd: spanEnd, read: read)
    }
}

/// What a salvage restores into its staging folder, each file written, dated and synced on a thread of its
/// own, and what it loses, in file order.
struct SalvagedEntries: SalvageTarget {
    let staging: StagingFolder
    let writer: BackgroundWriter
    private(set) var restored: [String] = []
    private(set) var lost: [SalvageReport.LostEntry] = []

    init(into staging: StagingFolder) throws {
        self.staging = staging
        writer = try BackgroundWriter()
    }

    /// `name` lost before a byte of it was written, for `reason`; at the front of the list when `first`.
    mutating func lose(_ name: String, _ reason: String, first: Bool) {
        lost.insert(SalvageReport.LostEntry(name: name, reason: reason), at: first ? 0 : lost.count)
    }

    /// Writes `entry` as `read` hands its bytes to the writer it is given: restored when every check of the
    /// entry holds, removed and lost with its fault's code when one fails. Returns whether it was restored.
    @discardableResult mutating func restore(
        _ entry: ZipEntry, dataOffset: UInt64?, spanEnd: UInt64?,
        read: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> Bool {
        let (name, modificationTime) = (entry.name, entry.modificationTime)
        writer.begin(try staging.createFile(name), name: name)
        do {
            try read { try writer.write($0) }
            try writer.end(modificationTime: modificationTime)
            restored.append(name)
            return true
        } catch let error as GoshuinError where error.code.isPayloadFault {
            try writer.end(modificationTime: nil)
            try writer.drain()
            staging.removeFile(name)
            lose(name, error.code.rawValue)
            return false
        }
    }

    /// Waits until every file is written and closed.
    func finish() throws { try writer.drain() }
}
