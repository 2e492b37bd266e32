import GoshuinFormat

/// The two files of a new recovery set, written beside the file they protect, each to a temporary file
/// that becomes `FILE.par2` or `FILE.volA+B.par2` only when the whole set is complete (``AtomicOutput``, mode
/// 0600). The recovery data is written at its place as it is computed, with each packet's MD5 kept running;
/// ``finish(fileHash:checksums:)`` writes the critical packets, then moves the volume file into place, then
/// the index file. A failure anywhere leaves no file of the new set behind.
final class RecoverySetOutput: @unchecked Sendable {
    // @unchecked: the hashers are each fed by one task at a time, in order (``StripCombiner`` delivers an
    // output's strips in order), and positioned writes to distinct ranges need no lock.
    /// The layout.
    let layout: RecoverySetLayout
    /// Where the index file goes.
    let indexPath: String
    /// Where the volume file goes.
    let volumePath: String
    private let index: AtomicOutput
    private let volume: AtomicOutput
    private var identity: RecoverySetIdentity?
    private var hashers: [MD5Hasher] = []
    private let replaceExisting: Bool
    private let protectedPath: String

    /// Creates the set's temporary files beside `path`.
    ///
    /// - Throws: `output_exists` when a file of a recovery set of `path` is there and `replaceExisting` is
    ///   false; `no_space` when the folder lacks room for the set; `io`.
    init(protecting path: String, layout: RecoverySetLayout, replaceExisting: Bool) throws {
        let folder = FileSystem.parentDirectory(of: path)
        let fileName = FileSystem.lastComponent(of: path)
        indexPath = folder + "/" + RecoverySetNames.indexName(for: fileName)
        volumePath =
            folder + "/"
            + RecoverySetNames.volumeName(for: fileName, first: 0, count: layout.plan.recoverySliceCount)
        if !replaceExisting, let existing = try RecoverySetNames.setFiles(besides: path).first {
            throw GoshuinError(
                .outputExists,
                "\(DisplayText.quoted(existing)) already exists: \(DisplayText.quoted(path)) has a recovery set")
        }
        try AtomicOutput.checkDestination(indexPath, replaceExisting: replaceExisting)
        try AtomicOutput.checkDestination(volumePath, replaceExisting: replaceExisting)
        try FileSystem.requireSpace(
            layout.volumeSize + layout.indexSize, at: folder, for: "the recovery set of \(DisplayText.quoted(path))")
        let volume = try AtomicOutput(destination: volumePath, replaceExisting: replaceExisting)
        self.volume = volume
        index = try AtomicOutput(destination: indexPath, replaceExisting: replaceExisting)
        try describingFailure("cannot size \(DisplayText.quoted(volume.temporaryPath))") {
            try volume.descriptor.setSize(Int64(layout.volumeSize))
        }
        self.layout = layout
        self.replaceExisting = replaceExisting
        protectedPath = path
    }

    /// Sets the set's identity, before the first recovery byte is written (the packet hashes start with it).
    func start(identity: RecoverySetIdentity) throws {
        precondition(self.identity == nil, "a set has one identity")
        hashers = try (0..<layout.plan.recoverySliceCount).map {
            try RecoverySlicePacket.startHash(setID: identity.setID, exponent: UInt32($0))
        }
        self.identity = identity
    }

    /// Writes `bytes` of the recovery slice of `exponent` at `offset` within the slice; each slice's bytes
    /// come in order, after ``start(identity:)``.
    func writeRecovery(exponent: Int, offset: UInt64, bytes: UnsafeRawBufferPointer) throws {
        try hashers[exponent].update(bytes)
        let at = layout.recoveryDataOffset(exponent: UInt32(exponent)) + offset
        try describingFailure("cannot write \(DisplayText.quoted(volumePath))") {
            try volume.descriptor.writeAll(bytes, atOffset: Int64(at))
        }
    }

    /// Writes the packets that needed the whole file, then moves both files into place.
    func finish(fileHash: [UInt8], checksums: [SliceChecksumPacket.Checksum]) throws -> RecoverySetFiles {
        guard let identity else { preconditionFailure("the set was started") }
        let packets = try layout.criticalPackets(identity: identity, fileHash: fileHash, checksums: checksums)
        try describingFailure("cannot write \(DisplayText.quoted(volumePath))") {
            for (entry, offset) in layout.volumeEntries {
                let bytes: [UInt8]
                if case .recoverySlice(let exponent) = entry {
                    bytes = RecoverySlicePacket.prefix(
                        setID: identity.setID, exponent: exponent, sliceSize: layout.plan.sliceSize,
                        hash: try hashers[Int(exponent)].finalize())
                } else {
                    bytes = packets.bytes(of: entry)
                }
                try bytes.withUnsafeBytes { try volume.descriptor.writeAll($0, atOffset: Int64(offset)) }
            }
            try index.descriptor.writeAll(packets.index)
        }
        try Interruption.check()
        try volume.commit()
        do {
            try index.commit()
        } catch {
            // The set is all or nothing: the volume just moved into place goes too.
            FileSystem.removeFile(volumePath)
            throw error
        }
        if replaceExisting { removeOtherVolumes() }
        return RecoverySetFiles(
            indexPath: indexPath, volumePath: volumePath, sliceSize: layout.plan.sliceSize,
            inputSlices: layout.plan.inputSliceCount, recoverySlices: layout.plan.recoverySliceCount,
            bytes: layout.volumeSize + layout.indexSize)
    }

    /// Removes the set's temporary files.
    func discard() {
        volume.discard()
        index.discard()
    }

    /// After a replacement: the volume files of an older set of the same file, which would otherwise be read
    /// with the new set (regular files only).
    private func removeOtherVolumes() {
        guard let files = try? RecoverySetNames.setFiles(besides: protectedPath) else { return }
        for file in files where file != indexPath && file != volumePath {
            if FileSystem.status(ofPath: file)?.kind == .regular { FileSystem.removeFile(file) }
        }
    }
}

/// A recovery set written: its two files and its shape.
public struct RecoverySetFiles: Equatable, Sendable {
    /// `FILE.par2`: the index, with the critical packets.
    public let indexPath: String
    /// `FILE.volA+B.par2`: the recovery slices.
    public let volumePath: String
    /// The slice size in bytes.
    public let sliceSize: UInt64
    /// The protected file's slices.
    public let inputSlices: Int
    /// The recovery slices: as many slices as can be rebuilt.
    public let recoverySlices: Int
    /// The two files' size together.
    public let bytes: UInt64
}
