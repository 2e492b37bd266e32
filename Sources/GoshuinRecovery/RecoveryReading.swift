import GoshuinFormat

/// The first steps of verifying and of repairing: the file opened, its recovery set found and read, the set
/// and the file in it that the file is chosen by content, and the file checked against it slice by slice
/// (`Spec/recovery-par2.md` §6, `Spec/decisions/0048`).
struct RecoveryReading {
    /// The file's path.
    let path: String
    /// The file, open for reading; closed by ``close()``.
    let file: FileDescriptor
    /// Its status when it was opened: a repair in place replaces only this file.
    let status: FileStatus
    /// Its length then.
    var length: UInt64 { UInt64(status.size) }
    /// Its first bytes (a header's worth), to place records in a `.goshuin` file.
    let headerBytes: [UInt8]
    /// The file checked against the set chosen.
    let survey: SliceSurvey
    /// Set files that could not be read at all, each with why.
    let filesLeftAside: [String]

    /// Opens the file at `path`, reads its recovery set (the files named by `recoveryPath`, a `.par2` file and
    /// the files of its set beside it, or those beside the file), chooses the set that describes it, and checks
    /// the file against it on `workers` workers (with `hashingWholeFile`, its whole MD5 too).
    ///
    /// - Throws: `recovery_set_not_found`, `recovery_set_invalid`, `recovery_set_mismatch` (the set is for
    ///   another file), `io`, `invalid_argument` (not a regular file), `interrupted`, `out_of_memory`.
    static func open(
        path: String, recoveryPath: String?, hashingWholeFile: Bool, workers: Int, progress: RecoveryProgressHandler?
    ) throws -> RecoveryReading {
        let file = try FileSystem.openRegularFile(path)
        do {
            let status = try describingFailure("cannot examine \(DisplayText.quoted(path))") { try file.status() }
            let length = UInt64(status.size)
            let found = try findSetFiles(path: path, recoveryPath: recoveryPath)
            var catalog = RecoveryCatalog(protectedLength: length)
            // The file named first (its problems are errors), then the others, smallest first: the index, then
            // the volumes; a large file of a volume's name is read last, so it cannot spend the reading's
            // budget before the set's own files (`Spec/decisions/0049`).
            let sized = found.others.map { (path: $0, size: UInt64(FileSystem.status(ofPath: $0)?.size ?? 0)) }
                .sorted { ($0.size, $0.path) < ($1.size, $1.path) }
            let named = found.named.map { (path: $0, size: UInt64(FileSystem.status(ofPath: $0)?.size ?? 0)) }
            let total = (sized + (named.map { [$0] } ?? [])).reduce(0) { $0 + $1.size }
            var done: UInt64 = 0
            progress?(.scanning(bytesDone: 0, bytesTotal: total))
            if let named {
                try catalog.add(fileAt: named.path)
                done += named.size
            }
            for setFile in sized {
                try catalog.addIfReadable(fileAt: setFile.path)
                done += setFile.size
                progress?(.scanning(bytesDone: done, bytesTotal: total))
            }
            let setFiles = (found.named.map { [$0] } ?? []) + sized.map(\.path)
            let start = try FileSystem.read(file, at: 0, count: FileDescriptionPacket.hash16kLength)
            let candidates = try RecoveryIndex.candidates(
                from: catalog, fileName: Array(FileSystem.lastComponent(of: path).utf8),
                hash16k: try MD5Hasher.hash(start[...]), length: length,
                setFiles: describe(setFiles, leftAside: catalog.filesLeftAside))
            let survey = try SetMatching(file: file, path: path, length: length, start: start, workers: workers)
                .survey(candidates, hashingWholeFile: hashingWholeFile, progress: progress)
            return RecoveryReading(
                path: path, file: file, status: status,
                headerBytes: Array(start.prefix(ContainerStructure.headerReadLength)),
                survey: survey, filesLeftAside: catalog.filesLeftAside)
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Whether the file says that it ends where its set says (a longer file is then cut there by a repair): a
    /// `.goshuin` file of version 1 whose header, in an intact first slice, declares the set's length. Version
    /// 2's size is its layout, and any other file says nothing of its end (`Spec/recovery-par2.md` §7.1).
    func endsWhereItsSetSays(_ survey: SliceSurvey) -> Bool {
        guard survey.states.first == .intact, let header = try? Header.decode(headerBytes),
            header.version == .v1
        else { return false }
        return header.layout.expectedFileSize == survey.index.targetFile.description.length
    }

    /// Closes the file and the other files the survey opened.
    func close() {
        survey.close()
        try? file.close()
    }

    /// How a message names the set files read.
    private static func describe(_ setFiles: [String], leftAside: [String]) -> String {
        let read = setFiles.count - leftAside.count
        let named =
            read <= 1
            ? DisplayText.quoted(setFiles[0])
            : "the \(read) files of " + DisplayText.quoted(setFiles[0]) + "'s recovery set"
        return leftAside.isEmpty ? named : named + " (left aside: " + leftAside.joined(separator: "; ") + ")"
    }

    /// The set files to read: the one named by `recoveryPath` and the others of its set, or those beside the
    /// file.
    static func findSetFiles(path: String, recoveryPath: String?) throws -> (named: String?, others: [String]) {
        if let recoveryPath {
            guard FileSystem.status(ofPath: recoveryPath) != nil else {
                throw GoshuinError(.recoverySetNotFound, "\(DisplayText.quoted(recoveryPath)) does not exist")
            }
            let named = FileSystem.lastComponent(of: recoveryPath)
            let others = try RecoverySetNames.setFiles(named: recoveryPath).filter {
                FileSystem.lastComponent(of: $0) != named
            }
            return (recoveryPath, others)
        }
        let found = try RecoverySetNames.setFiles(besides: path)
        guard !found.isEmpty else {
            let name = FileSystem.lastComponent(of: path)
            throw GoshuinError(
                .recoverySetNotFound,
                "no recovery set is beside \(DisplayText.quoted(path))"
                    + " (\(DisplayText.quoted(RecoverySetNames.indexName(for: name))) or"
                    + " \(DisplayText.quoted(name + ".vol…par2")))")
        }
        return (nil, found)
    }

    /// The MD5 of the first `length` bytes of `file`, read in order.
    static func wholeFileHash(_ file: FileDescriptor, path: String, length: UInt64) throws -> [UInt8] {
        let chain = try SequentialHashChain(length: length) { offset, buffer in
            try SliceRegion(file: file, start: offset, available: buffer.count, name: path).read(
                at: 0, into: buffer, toleratingShortFiles: false)
        }
        try ComponentQueue.run([chain], workers: 1)
        return try chain.digest()
    }
}
