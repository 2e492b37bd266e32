import GoshuinFormat

/// The first steps of verifying and of repairing: the file opened, its recovery set found and read, and the
/// set that applies to it chosen (`Spec/recovery-par2.md` §6).
struct RecoveryReading {
    /// The file, open for reading.
    let file: FileDescriptor
    /// Its length now.
    let length: UInt64
    /// Its first bytes (a header's worth), to place records in a `.goshuin` file.
    let headerBytes: [UInt8]
    /// The set that applies to it.
    let index: RecoveryIndex

    /// Opens the file at `path` and reads its recovery set: the files named by `recoveryPath` (a `.par2` file
    /// and the files of its set beside it), or those beside the file.
    ///
    /// - Throws: `recovery_set_not_found`, `recovery_set_invalid`, `recovery_set_mismatch`, `io`,
    ///   `invalid_argument` (not a regular file), `interrupted`.
    static func open(path: String, recoveryPath: String?, progress: RecoveryProgressHandler?) throws -> RecoveryReading
    {
        let file = try FileSystem.openRegularFile(path)
        do {
            let length = try ContainerStructure.regularFileSize(of: file)
            let setFiles = try findSetFiles(path: path, recoveryPath: recoveryPath)
            var catalog = RecoveryCatalog()
            let sizes = setFiles.map { UInt64(FileSystem.status(ofPath: $0)?.size ?? 0) }
            let total = sizes.reduce(0, +)
            var done: UInt64 = 0
            progress?(.scanning(bytesDone: 0, bytesTotal: total))
            for (setFile, size) in zip(setFiles, sizes) {
                try catalog.add(fileAt: setFile)
                done += size
                progress?(.scanning(bytesDone: done, bytesTotal: total))
            }
            let start = try ContainerStructure.readAt(file, offset: 0, count: FileDescriptionPacket.hash16kLength)
            let described =
                setFiles.count == 1
                ? DisplayText.quoted(setFiles[0])
                : "the \(setFiles.count) files of "
                    + DisplayText.quoted(setFiles[0]) + "'s recovery set"
            let index = try RecoveryIndex.select(
                from: catalog, fileName: Array(FileSystem.lastComponent(of: path).utf8),
                hash16k: try MD5Hasher.hash(start[...]), length: length, setFiles: described)
            return RecoveryReading(
                file: file, length: length, headerBytes: Array(start.prefix(ContainerStructure.headerReadLength)),
                index: index)
        } catch {
            try? file.close()
            throw error
        }
    }

    /// The set files to read.
    static func findSetFiles(path: String, recoveryPath: String?) throws -> [String] {
        if let recoveryPath {
            guard FileSystem.status(ofPath: recoveryPath) != nil else {
                throw GoshuinError(.recoverySetNotFound, "\(DisplayText.quoted(recoveryPath)) does not exist")
            }
            return try RecoverySetNames.setFiles(named: recoveryPath)
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
        return found
    }

    /// The MD5 of the first `length` bytes of `file`, read in order.
    static func wholeFileHash(_ file: FileDescriptor, path: String, length: UInt64) throws -> [UInt8] {
        let chain = try SequentialHashChain(length: length) { offset, buffer in
            try SliceRegion(file: file, start: offset, available: buffer.count, name: path).read(
                at: 0, into: buffer, toleratingShortFiles: false)
        }
        try WorkPool.run(ComponentSchedule([chain]), workers: 1)
        return try chain.digest()
    }
}
