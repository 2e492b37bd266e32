import GoshuinFormat

/// A recovery set made while its file is written (`seal --recovery`): fed the file's bytes in order as a
/// sealer writes them, it computes the whole-file MD5, the MD5 of the first 16 KiB, every slice's MD5 and
/// CRC-32 and the recovery slices, then writes the set beside the file (`Spec/recovery-par2.md` §5.4,
/// `Spec/decisions/0042`, `0047`).
///
/// The recovery slices are sums over every slice, so the accumulators are the whole recovery data at once:
/// when they fit in ``accumulatorBudget`` everything is computed as the bytes come and nothing is read back.
/// When they do not (a large file at a high redundancy), only the slices' CRC-32s are computed as the bytes
/// come, and ``finish()`` reads the finished file back once, on every core, as `protect` reads a file, and
/// refuses a file whose slices do not read back with the CRC-32s they were written with
/// (``encodesWhileWriting`` says which way).
///
/// The work runs on a pool of its own while the caller goes on writing; ``append(_:)`` waits only when the
/// pieces it has handed over are not yet hashed. Call it from one thread at a time.
public final class RecoveryWriter {
    /// The memory the accumulators may take when they are computed as the bytes come.
    public static let accumulatorBudget = 24 << 20
    /// The bytes handed over at a time.
    static let pieceSize = 1 << 20
    /// The pieces in flight.
    static let pieceCount = 4

    /// Whether the set is computed as the bytes come (`false`: by ``finish()``, from the file, but for the
    /// slices' CRC-32s).
    public let encodesWhileWriting: Bool
    /// Where the file is written.
    public let filePath: String
    private let plan: RecoveryPlan
    private let layout: RecoverySetLayout
    private let output: RecoverySetOutput
    private let schedule: StreamingSchedule
    private let pool: WorkerPool<StreamingQueue>
    private let workers: Int
    private let kernel: RegionKernel
    private var current: (slot: Int, filled: Int, fileOffset: UInt64)?
    private var received: UInt64 = 0
    private var finished = false

    /// A writer for the file that will be written at `path`, `fileLength` bytes long, whose records are
    /// `recordLength` bytes (`nil` for a file that is not a `.goshuin` file).
    ///
    /// - Throws: `invalid_argument` for a length of 0; `output_exists` when a set of `path` is there and
    ///   `replaceExisting` is false; `no_space`; `io`; `out_of_memory`.
    public convenience init(
        protecting path: String, fileLength: UInt64, recordLength: Int? = nil,
        redundancy: RecoveryRedundancy = .default, replaceExisting: Bool = false
    ) throws {
        try self.init(
            protecting: path, fileLength: fileLength, recordLength: recordLength, redundancy: redundancy,
            replaceExisting: replaceExisting, accumulatorBudget: Self.accumulatorBudget,
            workers: WorkerThreads.defaultWorkerCount, kernel: .best)
    }

    /// A writer for the `.goshuin` file with `header` that will be written at `path`.
    public convenience init(
        protecting path: String, header: Header, redundancy: RecoveryRedundancy = .default,
        replaceExisting: Bool = false
    ) throws {
        try self.init(
            protecting: path, fileLength: header.fileSize, recordLength: header.layout.geometry.fullRecordLength,
            redundancy: redundancy, replaceExisting: replaceExisting)
    }

    init(
        protecting path: String, fileLength: UInt64, recordLength: Int?, redundancy: RecoveryRedundancy,
        replaceExisting: Bool, accumulatorBudget: Int, workers: Int, kernel: RegionKernel
    ) throws {
        guard fileLength > 0 else {
            throw GoshuinError(.invalidArgument, "an empty file has nothing to protect")
        }
        filePath = path
        plan = RecoveryPlan(fileLength: fileLength, recordLength: recordLength, redundancy: redundancy)
        layout = RecoverySetLayout(plan: plan, fileName: Array(FileSystem.lastComponent(of: path).utf8))
        encodesWhileWriting = plan.recoveryBytes <= UInt64(accumulatorBudget)
        output = try RecoverySetOutput(protecting: path, layout: layout, replaceExisting: replaceExisting)
        self.workers = workers
        self.kernel = kernel
        do {
            let schedule = try StreamingSchedule(plan: plan, encoding: encodesWhileWriting, kernel: kernel)
            self.schedule = schedule
            pool = try WorkerPool(StreamingQueue(schedule), workers: workers) { _ in { task in try schedule.run(task) }
            }
        } catch {
            output.discard()
            throw error
        }
    }

    deinit {
        if !finished { cancel() }
    }

    /// The next bytes of the file.
    ///
    /// - Throws: `invalid_argument` past the length given; the error of the work, if it failed
    ///   (`interrupted` on a stop request).
    public func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// The next bytes of the file.
    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "a finished writer takes no more bytes")
        guard UInt64(bytes.count) <= plan.fileLength - received else {
            throw GoshuinError(
                .invalidArgument,
                "the file is longer than the \(plan.fileLength) bytes its recovery set was started for")
        }
        var offset = 0
        while offset < bytes.count {
            if current == nil { current = (try takeSlot(), 0, received) }
            guard var piece = current else { preconditionFailure("a piece is being filled") }
            let room = pieceLength(startingAt: piece.fileOffset) - piece.filled
            let count = min(room, bytes.count - offset)
            schedule.copy(
                UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]), into: piece.slot, at: piece.filled)
            piece.filled += count
            offset += count
            received += UInt64(count)
            if piece.filled == pieceLength(startingAt: piece.fileOffset) {
                hand(piece)
                current = nil
            } else {
                current = piece
            }
        }
    }

    /// Writes the set once every byte came: waits for the work, computes the set from the file at
    /// ``filePath`` when it was not computed as the bytes came (reporting that read-back as
    /// ``RecoveryProgressEvent/protecting(bytesDone:bytesTotal:)`` to `progress`), and moves the set's files into
    /// place.
    ///
    /// - Throws: `invalid_argument` when fewer bytes came than the length given; the work's error; `io` when
    ///   the file read back is not as long as it should be, or not as it was written; `output_exists`,
    ///   `no_space`, `interrupted`.
    public func finish(progress: RecoveryProgressHandler? = nil) throws -> RecoverySetFiles {
        precondition(!finished, "a writer finishes once")
        finished = true
        do {
            guard received == plan.fileLength else {
                throw GoshuinError(
                    .invalidArgument,
                    "the file ended after \(received) of the \(plan.fileLength) bytes its recovery set was started for")
            }
            if let piece = current {
                hand(piece)
                current = nil
            }
            pool.endAndJoin()
            if let failure = pool.queue.withLock({ $0.failure }) { throw failure }
            guard encodesWhileWriting else {
                schedule.releaseSlots()
                return try protectFromFile(writtenCRCs: schedule.crcs(), progress: progress)
            }
            try output.start(identity: try layout.identity(hash16k: try schedule.hash16k()))
            try schedule.deliverRecovery(to: output)
            return try output.finish(fileHash: try schedule.fileHash(), checksums: schedule.checksums())
        } catch {
            output.discard()
            throw error
        }
    }

    /// Stops the work and removes what was started of the set.
    public func cancel() {
        finished = true
        pool.queue.withLock { $0.stop(GoshuinError(.interrupted, "the recovery set was cancelled")) }
        pool.endAndJoin()
        output.discard()
    }

    private func pieceLength(startingAt offset: UInt64) -> Int {
        let toSliceEnd = plan.sliceSize - offset % plan.sliceSize
        return Int(min(UInt64(Self.pieceSize), toSliceEnd, plan.fileLength - offset))
    }

    private func takeSlot() throws -> Int {
        try pool.queue.wait(until: { $0.failure != nil || $0.schedule.hasFreeSlot }) { queue in
            if let failure = queue.failure { throw failure }
            guard let slot = queue.schedule.takeFreeSlot() else { preconditionFailure("a slot is free") }
            return slot
        }
    }

    private func hand(_ piece: (slot: Int, filled: Int, fileOffset: UInt64)) {
        pool.queue.withLock {
            $0.schedule.enqueue(slot: piece.slot, length: piece.filled, fileOffset: piece.fileOffset)
        }
    }

    /// When the accumulators do not fit: the finished file read back once, as `protect` reads a file (the
    /// whole-file MD5, the slices eight at a time and the recovery slices in strips, on every core), refused
    /// when it changed while it was read or its slices do not read back with the CRC-32s they were written
    /// with.
    private func protectFromFile(writtenCRCs: [UInt32], progress: RecoveryProgressHandler?) throws -> RecoverySetFiles {
        let file = try FileSystem.openRegularFile(filePath)
        return try file.closeAfter {
            let before = try describingFailure("cannot examine \(DisplayText.quoted(filePath))") { try file.status() }
            guard UInt64(before.size) == plan.fileLength else {
                throw GoshuinError(
                    .io,
                    "\(DisplayText.quoted(filePath)) has \(before.size) bytes, not the \(plan.fileLength) that were"
                        + " written")
            }
            let notAsSealed = "its recovery set would not describe it as it was sealed"
            return try FileProtection.protect(
                file, name: filePath, as: before, layout: layout, output: output, workers: workers, kernel: kernel,
                progress: progress, ifChanged: "changed while it was read back: \(notAsSealed)"
            ) { checksums in
                guard let changed = checksums.indices.first(where: { checksums[$0].crc32 != writtenCRCs[$0] }) else {
                    return
                }
                throw GoshuinError(
                    .io,
                    "slice \(changed) of \(DisplayText.quoted(filePath)) reads back other than it was written:"
                        + " \(notAsSealed)")
            }
        }
    }
}
