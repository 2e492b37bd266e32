import GoshuinFormat

/// One recovery set as it applies to one file: its slice size, the recoverable files in the order of their
/// slices (so the global index of each slice is known), the file's own place among them with its checksums,
/// and the recovery slices whose data has the slice size, by exponent (`Spec/recovery-par2.md` §6–7). Which
/// set and which of its files is the file is decided by ``SetMatching``.
struct RecoveryIndex {
    /// A recoverable file of the set.
    struct File {
        /// Its description.
        let description: FileDescriptionPacket
        /// Its slice checksums, when the set has them.
        let checksums: SliceChecksumPacket?
        /// The global index of its first slice.
        let firstSlice: Int
        /// Its number of slices.
        let sliceCount: Int
    }

    /// The set's ID.
    let setID: RecoverySetID
    /// The slice size.
    let sliceSize: UInt64
    /// The recoverable files, in the main packet's order.
    let files: [File]
    /// The index in ``files`` of the file being verified or repaired.
    let target: Int
    /// The usable recovery slices, by increasing exponent.
    let recoverySlices: [RecoverySliceLocation]
    /// The recovery files read (``RecoverySliceLocation/file`` indexes this).
    let recoveryFiles: [String]
    /// The creator texts of the set.
    let creators: [[UInt8]]
    /// Recovery files whose scan stopped early.
    let filesNotReadToTheEnd: [String]

    /// The file being verified or repaired.
    var targetFile: File { files[target] }
    /// Every slice of every recoverable file.
    var totalSliceCount: Int { files.last.map { $0.firstSlice + $0.sliceCount } ?? 0 }

    /// The files of the sets in `catalog` that may be the file whose first 16 KiB hash to `hash16k`, whose
    /// length is `length` and whose name is `fileName` (`Spec/decisions/0048`): every recoverable file of a
    /// set with its main packet, its description and its slice checksums, when it has the file's 16 KiB MD5,
    /// its length or its name, or is its set's only recoverable file; at most ``candidateLimit``. The name
    /// alone never decides: a renamed backup is still matched by its content.
    ///
    /// - Throws: `recovery_set_invalid` when no set is usable (nothing verified, or what a candidate needs is
    ///   missing or past a limit), `recovery_set_mismatch` when the sets describe only other files.
    static func candidates(
        from catalog: RecoveryCatalog, fileName: [UInt8], hash16k: [UInt8], length: UInt64, setFiles: String
    ) throws -> [RecoveryIndex] {
        guard !catalog.sets.isEmpty else {
            throw GoshuinError(
                .recoverySetInvalid,
                "no packet of \(setFiles) verifies: the recovery files are damaged beyond use, or are not PAR 2.0"
                    + " files")
        }
        var problems: [String] = []
        var candidates: [RecoveryIndex] = []
        var namesSeen: [[UInt8]] = []
        for (setID, packets) in catalog.sets.sorted(by: { $0.key.description < $1.key.description }) {
            guard let main = packets.main else {
                problems.append("set \(setID) has no main packet that verifies")
                continue
            }
            namesSeen += main.recoverableFiles.prefix(3).compactMap { packets.descriptions[$0]?.name }
            let sole = main.recoverableFiles.count == 1
            let targets = main.recoverableFiles.indices.filter { target in
                guard let description = packets.descriptions[main.recoverableFiles[target]] else { return false }
                return sole || description.hash16k == hash16k || description.length == length
                    || description.name == fileName
            }
            guard !targets.isEmpty else { continue }
            // The layout of the set's files is the same for each of them: made once.
            let layout: [File]
            do {
                layout = try Self.layout(of: main, packets: packets, setID: setID)
            } catch let error as GoshuinError {
                problems.append(error.message)
                continue
            }
            for target in targets where candidates.count < Self.candidateLimit {
                do {
                    candidates.append(
                        try RecoveryIndex(
                            setID: setID, main: main, packets: packets, files: layout, target: target,
                            actualLength: length, catalog: catalog))
                } catch let error as GoshuinError {
                    problems.append(error.message)
                }
            }
        }
        if !candidates.isEmpty { return candidates }
        if !problems.isEmpty {
            let shown = Array(problems.prefix(8))
            throw GoshuinError(
                .recoverySetInvalid, "\(setFiles) cannot be used: " + shown.joined(separator: "; "), details: shown)
        }
        throw GoshuinError(
            .recoverySetMismatch,
            "\(setFiles) is a recovery set for \(RecoveryIndex.describe(names: namesSeen)), not for"
                + " \(DisplayText.quoted(String(decoding: fileName, as: UTF8.self)))")
    }

    /// The most candidate files weighed against a file (`Spec/decisions/0049`): a set of thousands of files of
    /// the file's length costs no more than this many.
    static let candidateLimit = 64

    /// `"a", "b", "c", …`: the first names of a set's files, for a message.
    static func describe(names: [[UInt8]]) -> String {
        let shown = names.prefix(3).map { DisplayText.quoted(String(decoding: $0, as: UTF8.self)) }
        return shown.isEmpty ? "other files" : shown.joined(separator: ", ") + (names.count > 3 ? ", …" : "")
    }

    /// Whether the set's description of the file has its 16 KiB MD5 and its length: the set describes this
    /// very file (its file ID but for the name).
    func describes(hash16k: [UInt8], length: UInt64) -> Bool {
        targetFile.description.hash16k == hash16k && targetFile.description.length == length
    }

    /// The largest slice a set may have for a file shorter than it: its padding is hashed like data, so it is
    /// bounded by the file's own length, not by what the set says of its other files (`Spec/decisions/0049`).
    static let largestSliceBeyondTheFile: UInt64 = 64 << 20

    /// The recoverable files of `main`, in the order of their slices.
    private static func layout(of main: MainPacket, packets: RecoveryCatalog.SetPackets, setID: RecoverySetID) throws
        -> [File]
    {
        guard main.sliceSize <= RecoverySlicePacket.maximumSliceSize else {
            throw GoshuinError(
                .recoverySetInvalid,
                "set \(setID) has slices of \(main.sliceSize) bytes, more than the"
                    + " \(RecoverySlicePacket.maximumSliceSize) this reader accepts")
        }
        var files: [File] = []
        var next = 0
        for fileID in main.recoverableFiles {
            guard let description = packets.descriptions[fileID] else {
                throw GoshuinError(
                    .recoverySetInvalid,
                    "set \(setID) lacks the description of one of its \(main.recoverableFiles.count) files, so its"
                        + " slices cannot be placed")
            }
            let limit = InputSliceConstants.maximumCount - next
            guard let count = description.sliceCount(sliceSize: main.sliceSize, limit: limit) else {
                throw GoshuinError(
                    .recoverySetInvalid,
                    "set \(setID) has more than \(InputSliceConstants.maximumCount) slices, the most PAR 2.0 allows")
            }
            let checksums = packets.checksums[fileID].flatMap { $0.checksums.count == count ? $0 : nil }
            files.append(File(description: description, checksums: checksums, firstSlice: next, sliceCount: count))
            next += count
        }
        return files
    }

    /// `target` of the set of `main` as it applies to a file of `actualLength` bytes: its slices are hashed
    /// as far as the file and the description both reach, so a slice larger than that is bounded.
    private init(
        setID: RecoverySetID, main: MainPacket, packets: RecoveryCatalog.SetPackets, files: [File], target: Int,
        actualLength: UInt64, catalog: RecoveryCatalog
    ) throws {
        let length = min(actualLength, files[target].description.length)
        guard main.sliceSize <= max((length + 3) / 4 * 4, Self.largestSliceBeyondTheFile) else {
            throw GoshuinError(
                .recoverySetInvalid,
                "set \(setID) has slices of \(main.sliceSize) bytes for a file of \(length) bytes: a slice larger"
                    + " than its file is accepted up to \(Self.largestSliceBeyondTheFile) bytes")
        }
        guard files[target].checksums != nil else {
            throw GoshuinError(
                .recoverySetInvalid,
                "set \(setID) has no slice checksums for the file (or not one per slice), so its damage cannot be found"
            )
        }
        self.setID = setID
        sliceSize = main.sliceSize
        self.files = files
        self.target = target
        recoverySlices = packets.recoverySlices.values.filter { $0.length == main.sliceSize }.map(\.location).sorted {
            $0.exponent < $1.exponent
        }
        recoveryFiles = catalog.files
        creators = packets.creators
        filesNotReadToTheEnd = catalog.filesNotReadToTheEnd
    }
}
