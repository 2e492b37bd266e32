import GoshuinFormat

/// What a rescue wrote: the new backup, and what of the damaged one it holds and lost.
package struct RescueReport {
    /// What was restored and lost, as `open --extract --salvage` says it of the same file and passphrase.
    package let salvage: SalvageReport
    /// The new backup's manifest: records.csv and the photos it holds.
    package let manifest: Manifest
    /// The new file's header.
    package let header: Header
}

/// A damaged or cut backup's intact entries sealed straight into a new backup (`goshuin-tool rescue`,
/// `Spec/decisions/0055`): the entries a salvage restores (`Spec/backup-v1.md` §4.2), laid out and written
/// as sealing a folder of them writes them (§5, the same ``BackupZipWriter``), streamed from the damaged
/// file's authenticated chunks into the new file's sealer. No plaintext is written anywhere; memory is a few
/// chunks, and records.csv when it is held to be deflated, as when sealing a folder.
///
/// A version 1 header states the payload's length, so the new backup's layout must be known before its
/// first chunk: in directory mode (the central directory and the manifest intact) it is, from the entries
/// whose bytes all authenticate, and each is checked as it is written; an entry that then fails a check
/// (which only a faulty writer's backup has) is named lost, every entry is read and checked first, and the
/// backup written again. In walk mode the entries are found by the walk, which reads and checks each, then
/// written.
package enum BackupRescue {
    /// Rescues the backup in the file open at `input` into the output `place` makes: every chunk present
    /// authenticated, the entries that survive found, then the new file drafted (`parameters`: version 1
    /// unless asked otherwise), the space for it checked in `folder`, `newPassphrase` (when given; else the
    /// damaged backup's) evaluated, and the backup sealed into the empty regular file `place` hands over,
    /// which becomes the output only if that returns. Before it returns, the file written is read back and
    /// verified with its passphrase as `verify --backup` verifies it.
    ///
    /// - Throws: the header's code, `auth_failed` (the passphrase), `chunk_damaged` or `truncated` when
    ///   records.csv is lost (a backup cannot be made without it; nothing is written), `no_space`, `io`,
    ///   `interrupted`; the passphrase's refusals for sealing.
    package static func rescue(
        _ input: FileDescriptor, passphrase: @autoclosure () throws -> Passphrase,
        newPassphrase: (() throws -> Passphrase)?, parameters: SealParameters, spaceNeededIn folder: String,
        progress: ProgressHandler?,
        placingOutput place: ((FileDescriptor) throws -> SealedBackup) throws -> SealedBackup
    ) throws -> RescueReport {
        // As ContainerSalvage(_:passphrase:progress:), with the new passphrase asked for once the old one is
        // known (version 2's header MAC) and before the survey of every chunk, which takes the time.
        let header = try ContainerSalvage.header(of: input)
        let opening = try passphrase()
        let container = try LockedContainer(input, header: header).unlock(with: opening, progress: progress)
        let sealing = try newPassphrase?() ?? opening
        let salvage = try ContainerSalvage(container, progress: progress)
        var plan = try Plan(salvage, input: input)
        while true {
            let contents = try plan.contents()
            let draft = try parameters.draft(plaintextLength: contents.layout.size)
            try FileSystem.requireSpace(draft.fileSize ?? contents.layout.size, at: folder, for: "the new backup")
            do {
                let sealed = try place { output in
                    let keyed = try draft.key(with: sealing, progress: progress)
                    let writer = BackupZipWriter(contents)
                    let sealer = try StreamingSealer(
                        into: output, header: keyed, plaintextLength: contents.layout.size,
                        workerCount: WorkerThreads.defaultWorkerCount, observer: nil, progress: progress)
                    let manifest = try writer.write(into: sealer)
                    let header = try sealer.finish()
                    try verifyWritten(output, passphrase: sealing, manifest: manifest)
                    return SealedBackup(manifest: manifest, header: header)
                }
                return RescueReport(salvage: plan.report, manifest: sealed.manifest, header: sealed.header)
            } catch is EntryFailed where !plan.isChecked {
                // An entry whose bytes authenticate failed its checks as it was written: every entry is read and
                // checked first, then the backup is written again from those that passed.
                try plan.check()
            } catch let failed as EntryFailed {
                throw GoshuinError(
                    .io,
                    "\(DisplayText.quoted(failed.name)) read differently the second time (\(failed.code)); nothing was"
                        + " written")
            }
        }
    }

    /// Reads the file just written in `output` back and verifies it as `verify --backup` does: every chunk
    /// authenticates with `passphrase`, and the backup is the one written.
    private static func verifyWritten(_ output: FileDescriptor, passphrase: Passphrase, manifest: Manifest) throws {
        // The output is open for writing only; its own descriptor's name opens it for reading.
        let written = try describingFailure("cannot read the new backup back") {
            try FileDescriptor.openForReading("/proc/self/fd/\(output.rawValue)")
        }
        try written.closeAfter {
            let verification = try Verification.verify(written, passphrase: passphrase, requiringBackup: true)
            guard case .backup(let found) = verification.payload, found == manifest else {
                throw GoshuinError(.io, "the new backup did not read back as it was written; nothing was written")
            }
        }
    }

    /// An entry that failed a check as it was written into the new backup.
    struct EntryFailed: Error {
        let name: String
        let code: String
    }

    /// Which entries go into the new backup and where each is read from.
    private struct Plan {
        let salvage: ContainerSalvage
        let mode: SalvageReport.Mode
        /// The damaged backup's manifest, in directory mode.
        let manifest: Manifest?
        /// Its central directory, in directory mode.
        let archive: BackupArchive?
        /// The entries that go into the new backup, in the damaged file's order.
        private(set) var entries: [Source]
        /// What was lost, in file order.
        private(set) var lost: [SalvageReport.LostEntry]
        /// records.csv's bytes, when they were read (walk mode, and once checked in directory mode).
        private(set) var records: [UInt8]?
        /// Whether every entry was read and checked already.
        private(set) var isChecked: Bool
        /// The damaged file's modification time: walk mode's `createdAt` when no entry has a time.
        let fileTime: Int

        init(_ salvage: ContainerSalvage, input: FileDescriptor) throws {
            self.salvage = salvage
            fileTime = try describingFailure("cannot examine the input") { try input.status().modified }
            if salvage.endKnown, let directory = try BackupSalvage.intactDirectory(of: salvage) {
                (mode, archive, manifest) = (.directory, directory.archive, directory.manifest)
                entries = []
                lost = []
                isChecked = false
                for (entry, spanEnd) in BackupSalvage.spans(of: directory.archive.directory) {
                    if let loss = salvage.loss(in: entry.localHeaderOffset..<max(entry.localHeaderOffset, spanEnd)) {
                        lost.append(SalvageReport.LostEntry(name: entry.name, reason: loss.state.rawValue))
                    } else {
                        entries.append(Source(entry: entry, dataOffset: nil, spanEnd: spanEnd))
                    }
                }
            } else {
                var walk = SalvageWalk(salvage: salvage, target: SurveyedEntries())
                try walk.run()
                (mode, archive, manifest) = (.walk, nil, nil)
                (entries, lost, records) = (walk.target.passed, walk.lost, walk.target.records)
                isChecked = true
            }
        }

        /// What was restored and lost, as a salvage says it.
        var report: SalvageReport {
            SalvageReport(
                mode: mode, restored: entries.map(\.entry.name), lost: lost, damagedChunks: salvage.damagedChunks,
                firstMissingChunk: salvage.firstMissingChunk, chunkCount: salvage.header.chunkCount,
                manifest: manifest)
        }

        /// Reads and checks every entry planned, writing nothing: the plan keeps those that pass.
        mutating func check() throws {
            guard let archive, let manifest else { return }
            var survey = SurveyedEntries()
            try BackupSalvage.restoreByDirectory(archive, manifest: manifest, salvage, into: &survey)
            (entries, lost, records, isChecked) = (survey.passed, survey.lost, survey.records, true)
        }

        /// The new backup's contents: records.csv (read now, when small enough to be deflated) and the photos.
        mutating func contents() throws -> RescueContents {
            guard let recordsSource = entries.first(where: { $0.entry.name == Manifest.recordsName }) else {
                throw recordsLost()
            }
            let recordsEntry = recordsSource.entry
            if records == nil, recordsEntry.uncompressedSize <= UInt64(RecordsPlan.inMemoryLimit) {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(Int(recordsEntry.uncompressedSize))
                do {
                    _ = try read(recordsSource) { bytes += $0 }
                } catch let failed as EntryFailed {
                    entries.removeAll { $0.entry.name == Manifest.recordsName }
                    lost.append(SalvageReport.LostEntry(name: failed.name, reason: failed.code))
                    throw recordsLost()
                }
                records = bytes
            }
            let recordsPlan =
                try records.map { try RecordsPlan(holding: $0) }
                ?? RecordsPlan(streaming: recordsEntry.uncompressedSize)
            let createdAt =
                manifest?.createdAt
                ?? FileSystem.timestamp(entries.compactMap(\.entry.modificationTime).max() ?? fileTime)
            let photos = entries.filter { $0.entry.name != Manifest.recordsName }
            let layout = try BackupZipLayout.backup(
                records: BackupZipLayout.Entry(
                    name: Manifest.recordsName, method: recordsPlan.method, compressedSize: recordsPlan.compressedSize,
                    uncompressedSize: recordsEntry.uncompressedSize, modificationTime: recordsEntry.modificationTime),
                photos: photos.map {
                    BackupZipLayout.Entry(
                        name: $0.entry.name, method: 0, compressedSize: $0.entry.uncompressedSize,
                        uncompressedSize: $0.entry.uncompressedSize, modificationTime: $0.entry.modificationTime)
                }, createdAt: createdAt)
            let byName = Dictionary(entries.map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
            let sources = layout.entries.map { byName[$0.name] }
            return RescueContents(
                layout: layout, records: recordsPlan, createdAt: createdAt, sources: sources,
                read: { [self] source, write in try read(source, into: write) })
        }

        /// Streams `source`'s data, inflated if need be, to `write`, checked as a salvage checks it; returns its
        /// SHA-256. A check that fails is ``EntryFailed``.
        func read(_ source: Source, into write: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
            do {
                if let archive, let manifest, let spanEnd = source.spanEnd {
                    try archive.readForSalvage(source.entry, spanEnd: spanEnd, checkedAgainst: manifest, into: write)
                    guard let listed = manifest.file(named: source.entry.name) else {
                        throw GoshuinError.manifestMismatch("\(source.entry.name) is not in the manifest")
                    }
                    return listed.sha256
                }
                guard let dataOffset = source.dataOffset else { preconditionFailure("a walked entry's data offset") }
                var inflating: AllocatedBytes?
                return try BackupArchive.readData(
                    of: source.entry, at: dataOffset, from: salvage.reader, inflating: &inflating, into: write)
            } catch let error as GoshuinError where error.code.isPayloadFault {
                throw EntryFailed(name: source.entry.name, code: error.code.rawValue)
            }
        }

        /// The refusal of a rescue whose records.csv is lost: `chunk_damaged` (`truncated` for a cut file whose
        /// only loss is its end), or the code of the check it failed.
        func recordsLost() -> GoshuinError {
            let reason = lost.first { $0.name == Manifest.recordsName }?.reason ?? "not_found"
            guard !salvage.damagedChunks.isEmpty || salvage.firstMissingChunk != nil || reason != "not_found" else {
                // Every chunk authenticates, and no records.csv: a sealed file that holds no backup.
                return GoshuinError(
                    .zipMalformed, "the file is intact and holds no backup (no records.csv in it); nothing was written")
            }
            let cut = salvage.damagedChunks.isEmpty && salvage.firstMissingChunk != nil
            let code: GoshuinError.Code
            let why: String
            switch reason {
            case "damaged", "missing", "not_found":
                code = cut ? .truncated : .chunkDamaged
                why = cut ? "the file was cut before its end" : "it lies in a damaged part of the file"
            default:
                code = BackupErrorCodes(rawValue: reason).map { GoshuinError.Code($0) } ?? .entryCorrupt
                why = "it fails its checks (\(reason))"
            }
            return GoshuinError(
                code,
                "records.csv is lost (\(why)), and a backup cannot be made without it; nothing was written",
                chunkIndex: code == .chunkDamaged ? salvage.damagedChunks.first : nil)
        }
    }

    /// Where an entry of the damaged backup lies.
    struct Source {
        let entry: ZipEntry
        /// Where its data starts (walk mode).
        let dataOffset: UInt64?
        /// Where its span ends (directory mode; its data offset is then its checked local header's).
        let spanEnd: UInt64?
    }

    /// The new backup's ZIP as ``BackupZipWriter`` writes it: each entry's data from the damaged file.
    struct RescueContents: BackupZipContents {
        let layout: BackupZipLayout
        let records: RecordsPlan
        let createdAt: String
        /// The damaged file's entry of each entry of the layout (`nil` for the manifest).
        let sources: [Source?]
        /// Streams an entry's data, checked; returns its SHA-256.
        let read: (Source, (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8]

        /// Every digest comes from the reading, which checks it: nothing is hashed twice.
        var entriesHashedAsWritten: [Int] { [] }

        func writeStoredEntry(at index: Int, into sink: ZipSink, lookAhead: inout AllocatedBytes?) throws -> (
            crc32: UInt32, sha256: [UInt8]?
        ) {
            guard let source = sources[index] else { preconditionFailure("an entry of the damaged backup") }
            let entry = layout.entries[index]
            // The damaged backup's CRC-32 of the entry's data, which the reading checks.
            try sink.write(entry.localHeader(crc32: source.entry.crc32))
            var written: UInt64 = 0
            let sha256 = try read(source) { bytes in
                written += UInt64(bytes.count)
                try sink.write(bytes)
            }
            guard written == entry.uncompressedSize else {
                throw GoshuinError(.io, "\(DisplayText.quoted(entry.name)) came out another size than its layout")
            }
            return (source.entry.crc32, sha256)
        }
    }
}

/// A salvage's target that writes nothing (``BackupRescue``): each entry is read and checked as a salvage
/// checks it, and where each that passed lies is kept; records.csv's bytes are held when they are few
/// enough to be deflated.
struct SurveyedEntries: SalvageTarget {
    private(set) var restored: [String] = []
    private(set) var lost: [SalvageReport.LostEntry] = []
    /// The entries that passed, in file order.
    private(set) var passed: [BackupRescue.Source] = []
    /// records.csv's bytes, when it passed and holds at most ``RecordsPlan/inMemoryLimit`` bytes.
    private(set) var records: [UInt8]?

    mutating func lose(_ name: String, _ reason: String, first: Bool) {
        lost.insert(SalvageReport.LostEntry(name: name, reason: reason), at: first ? 0 : lost.count)
    }

    @discardableResult mutating func restore(
        _ entry: ZipEntry, dataOffset: UInt64?, spanEnd: UInt64?,
        read: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> Bool {
        let holds = entry.name == Manifest.recordsName && entry.uncompressedSize <= UInt64(RecordsPlan.inMemoryLimit)
        var held: [UInt8] = []
        do {
            try read { bytes in if holds { held += bytes } }
        } catch let error as GoshuinError where error.code.isPayloadFault {
            lose(entry.name, error.code.rawValue)
            return false
        }
        restored.append(entry.name)
        passed.append(BackupRescue.Source(entry: entry, dataOffset: dataOffset, spanEnd: spanEnd))
        if holds { records = held }
        return true
    }

    func finish() {}
}
