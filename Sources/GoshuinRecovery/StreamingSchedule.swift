import GoshuinFormat

/// The work of a ``RecoveryWriter``: pieces of the file (at most 1 MiB, never across a slice boundary) come
/// in order from the feeding thread into a few slots; each goes into its slice's CRC-32 (a chain, each piece
/// after the one before). When the set is computed as the bytes come (`encoding`), each piece also goes into
/// the whole-file MD5 (and the first 16 KiB's, a second chain), into its slice's MD5 (on the first chain),
/// and is multiplied into every accumulator (column chunks of one piece at once, pieces one after another,
/// since two slices meet in the same accumulator columns); otherwise the rest of the set is computed from the
/// file read back, and the CRC-32s taken here say whether it reads back as it was written. A slot is free
/// again once its piece went through every kind of work.
final class StreamingSchedule: WorkSchedule, @unchecked Sendable {
    // @unchecked: every stored property but the slots' bytes, the hashers and the accumulators changes under
    // the pool's lock; a slot's bytes are written by the feeder only while the slot is free and read by tasks
    // only while its piece is in flight; each hasher is used by one chain, one piece at a time, in order; the
    // tasks of one piece's encoding write disjoint accumulator columns.
    /// A piece in flight, as its tasks carry it (they never look it up: the table of pieces changes under the
    /// lock while tasks run).
    struct Piece: Sendable {
        let index: Int
        let slot: Int
        let length: Int
        let fileOffset: UInt64
    }

    enum Task: Sendable {
        case fileHash(Piece)
        case sliceHash(Piece)
        case encode(Piece, chunk: Int)
    }

    /// The widest column range one encoding task covers.
    static let chunkWidth = 256 << 10

    private let plan: RecoveryPlan
    private let encoding: Bool
    private let kernel: RegionKernel
    private var slots: [AllocatedBytes]
    private var freeSlots: [Int]
    private var pieces: [Int: (piece: Piece, kindsDone: Int)] = [:]
    private var enqueued = 0
    private var completed = 0
    private var ended = false
    private var nextFileHash = 0
    private var fileHashRunning = false
    private var nextSliceHash = 0
    private var sliceHashRunning = false
    private var encodePiece = 0
    private var nextChunk = 0
    private var chunksDone = 0
    private var coefficients: RegionCoefficients
    private let blockSize: Int

    private let fileHasher: MD5Hasher
    private let startHasher: MD5Hasher
    private var startHashed = 0
    /// The current slice's MD5, when encoding.
    private var sliceHasher: MD5Hasher?
    private var sliceCRC = CRC32()
    private var sliceMD5s: [[UInt8]] = []
    private var sliceCRCs: [UInt32] = []
    private let accumulators: AllocatedBytes?
    private let accumulatorBase: UnsafeMutableRawPointer?

    init(plan: RecoveryPlan, encoding: Bool, kernel: RegionKernel) throws {
        self.plan = plan
        self.encoding = encoding
        self.kernel = kernel
        slots = try (0..<RecoveryWriter.pieceCount).map { _ in
            try AllocatedBytes(count: RecoveryWriter.pieceSize, wipesOnRelease: false)
        }
        freeSlots = Array(slots.indices.reversed())
        fileHasher = try MD5Hasher()
        startHasher = try MD5Hasher()
        sliceHasher = encoding ? try MD5Hasher() : nil
        sliceCRCs.reserveCapacity(plan.inputSliceCount)
        coefficients = RegionCoefficients(capacity: plan.recoverySliceCount)
        blockSize = max(2_048, min(65_536, StripCombiner.cacheBytes / (plan.recoverySliceCount + 1) / 64 * 64))
        if encoding {
            let memory = try AllocatedBytes(count: Int(plan.recoveryBytes), wipesOnRelease: false)
            memory.bytes.initializeMemory(as: UInt8.self, repeating: 0)
            accumulators = memory
            accumulatorBase = memory.bytes.baseAddress
        } else {
            accumulators = nil
            accumulatorBase = nil
        }
    }

    // MARK: - The feeder's side (holding the pool's lock, but for copy)

    /// Whether a slot is free.
    var hasFreeSlot: Bool { !freeSlots.isEmpty }

    /// A free slot, taken.
    func takeFreeSlot() -> Int? { freeSlots.popLast() }

    /// Copies `bytes` into the free slot `slot` the feeder holds, at `offset`.
    func copy(_ bytes: UnsafeRawBufferPointer, into slot: Int, at offset: Int) {
        UnsafeMutableRawBufferPointer(rebasing: slots[slot].bytes[offset..<(offset + bytes.count)]).copyMemory(
            from: bytes)
    }

    /// Hands over the piece in `slot`.
    func enqueue(slot: Int, length: Int, fileOffset: UInt64) {
        pieces[enqueued] = (Piece(index: enqueued, slot: slot, length: length, fileOffset: fileOffset), 0)
        enqueued += 1
    }

    /// No piece will follow.
    func endOfInput() { ended = true }

    // MARK: - The workers' side

    func nextTask() -> Task? {
        if encoding, !fileHashRunning, nextFileHash < enqueued, let piece = pieces[nextFileHash]?.piece {
            fileHashRunning = true
            nextFileHash += 1
            return .fileHash(piece)
        }
        if !sliceHashRunning, nextSliceHash < enqueued, let piece = pieces[nextSliceHash]?.piece {
            sliceHashRunning = true
            nextSliceHash += 1
            return .sliceHash(piece)
        }
        if encoding, encodePiece < enqueued, let piece = pieces[encodePiece]?.piece {
            let chunks = (piece.length + Self.chunkWidth - 1) / Self.chunkWidth
            if nextChunk == 0 {
                let slice = Int(piece.fileOffset / plan.sliceSize)
                coefficients.replace(
                    with: (0..<plan.recoverySliceCount).map {
                        InputSliceConstants.coefficient(ofSlice: slice, exponent: UInt32($0))
                    })
            }
            if nextChunk < chunks {
                nextChunk += 1
                return .encode(piece, chunk: nextChunk - 1)
            }
        }
        return nil
    }

    var isFinished: Bool { ended && completed == enqueued }

    func complete(_ task: Task) {
        let piece: Piece
        switch task {
        case .fileHash(let done):
            fileHashRunning = false
            piece = done
        case .sliceHash(let done):
            sliceHashRunning = false
            piece = done
        case .encode(let done, _):
            chunksDone += 1
            guard chunksDone == (done.length + Self.chunkWidth - 1) / Self.chunkWidth else { return }
            (encodePiece, nextChunk, chunksDone) = (encodePiece + 1, 0, 0)
            piece = done
        }
        guard var entry = pieces[piece.index] else { preconditionFailure("a piece in flight") }
        entry.kindsDone += 1
        if entry.kindsDone == (encoding ? 3 : 1) {
            pieces[piece.index] = nil
            freeSlots.append(piece.slot)
            completed += 1
        } else {
            pieces[piece.index] = entry
        }
    }

    func makeScratch() throws -> WorkerScratch { WorkerScratch() }

    func run(_ task: Task, scratch: inout WorkerScratch) throws {
        switch task {
        case .fileHash(let piece):
            let bytes = self.bytes(of: piece)
            try fileHasher.update(bytes)
            let start = FileDescriptionPacket.hash16kLength
            if startHashed < start {
                let count = min(start - startHashed, bytes.count)
                try startHasher.update(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
                startHashed += count
            }
        case .sliceHash(let piece):
            let bytes = self.bytes(of: piece)
            try sliceHasher?.update(bytes)
            sliceCRC.update(bytes)
            let slice = Int(piece.fileOffset / plan.sliceSize)
            let end = piece.fileOffset + UInt64(piece.length)
            if end == UInt64(slice) * plan.sliceSize + UInt64(plan.length(ofSlice: slice)) {
                try finishSlice(padding: Int(plan.sliceSize) - plan.length(ofSlice: slice))
            }
        case .encode(let piece, let chunk):
            try encode(piece, chunk: chunk)
        }
    }

    private func bytes(of piece: Piece) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: slots[piece.slot].bytes[0..<piece.length])
    }

    private func finishSlice(padding: Int) throws {
        if padding > 0 {
            let zeros = [UInt8](repeating: 0, count: padding)
            try sliceHasher?.update(zeros[...])
            sliceCRC.updateWithZeros(padding)
        }
        if let finished = sliceHasher {
            sliceMD5s.append(try finished.finalize())
            sliceHasher = try MD5Hasher()
        }
        sliceCRCs.append(sliceCRC.value)
        sliceCRC = CRC32()
    }

    private func encode(_ piece: Piece, chunk: Int) throws {
        guard let base = accumulatorBase else { preconditionFailure("encoding has accumulators") }
        let bytes = self.bytes(of: piece)
        let offsetInSlice = Int(piece.fileOffset % plan.sliceSize)
        let first = chunk * Self.chunkWidth
        let width = min(Self.chunkWidth, piece.length - first)
        let sliceSize = Int(plan.sliceSize)
        var destinations = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: plan.recoverySliceCount)
        var block = 0
        // A piece of odd length ends the file: its last byte is multiplied as a word with a zero high byte.
        while block < width {
            let length = min(blockSize, width - block)
            for output in 0..<plan.recoverySliceCount {
                destinations[output] = (base + output * sliceSize + offsetInSlice + first + block)
                    .assumingMemoryBound(to: UInt8.self)
            }
            let source = UnsafeRawBufferPointer(rebasing: bytes[(first + block)..<(first + block + length)])
            try multiply(source, into: destinations)
            block += length
        }
    }

    private func multiply(_ source: UnsafeRawBufferPointer, into destinations: [UnsafeMutablePointer<UInt8>?]) throws {
        let even = source.count & ~1
        destinations.withUnsafeBufferPointer { targets in
            coefficients.multiplyAdd(source, into: targets, length: even, kernel: kernel)
        }
        guard even < source.count else { return }
        // The odd last byte of the file: a word whose high byte is the padding's zero.
        let word: [UInt8] = [source[even], 0]
        let tail = destinations.map { $0.map { $0 + even } }
        word.withUnsafeBytes { bytes in
            tail.withUnsafeBufferPointer { targets in
                coefficients.multiplyAdd(bytes, into: targets, length: 2, kernel: kernel)
            }
        }
    }

    // MARK: - Results, once every piece went through

    /// Gives the slots' memory back (before the file is read back, which needs its own).
    func releaseSlots() {
        precondition(isFinished, "no piece is in flight")
        slots = []
        freeSlots = []
    }

    /// The MD5 of the first 16 KiB, when encoding.
    func hash16k() throws -> [UInt8] {
        precondition(encoding, "the file is hashed as the bytes come only when encoding")
        return try startHasher.finalize()
    }

    /// The whole file's MD5, when encoding.
    func fileHash() throws -> [UInt8] {
        precondition(encoding, "the file is hashed as the bytes come only when encoding")
        return try fileHasher.finalize()
    }

    /// The slices' checksums, when encoding.
    func checksums() -> [SliceChecksumPacket.Checksum] {
        precondition(encoding, "the slices' MD5s are computed as the bytes come only when encoding")
        return zip(sliceMD5s, sliceCRCs).map { SliceChecksumPacket.Checksum(md5: $0, crc32: $1) }
    }

    /// The slices' CRC-32s.
    func crcs() -> [UInt32] { sliceCRCs }

    /// Writes the accumulators, each a whole recovery slice, to `output`.
    func deliverRecovery(to output: RecoverySetOutput) throws {
        guard let accumulators else { preconditionFailure("encoding has accumulators") }
        let sliceSize = Int(plan.sliceSize)
        for exponent in 0..<plan.recoverySliceCount {
            try output.writeRecovery(
                exponent: exponent, offset: 0,
                bytes: UnsafeRawBufferPointer(
                    rebasing: accumulators.bytes[(exponent * sliceSize)..<((exponent + 1) * sliceSize)]))
        }
    }
}
