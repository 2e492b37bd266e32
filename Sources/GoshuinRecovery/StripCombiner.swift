import GoshuinFormat
import Synchronization

/// Linear combinations of slices over GF(2^16), strip by strip: accumulator d gets `Σ_s coefficient(s, d) ·
/// source_s` for every source s, where each source is a slice read from a file (the input slices when
/// protecting, the intact slices when repairing); the accumulators start at zero, or at bytes the caller gives
/// (``Start``: the recovery slices, when repairing). What is delivered is each accumulator, or, with a
/// ``WordMatrix`` `transform`, each combination `output_m = Σ_d transform[m][d] · accumulator_d` (the inverse of
/// a repair applied to its syndromes, `Spec/decisions/0049`). Slices are held one strip at a time (a byte range
/// of every slice, ``stripWidth`` bytes of each), within a memory budget, and handed over strip after strip,
/// in order, to ``Delivery``.
///
/// Each strip is cut into column chunks, encoded by any worker at once: a chunk starts its columns of every
/// accumulator, reads its columns of a batch of sources, then runs the region kernel block by block, each
/// source block into the blocks of every accumulator (they stay in the processor's cache while the batch's
/// sources stream through). Once every chunk of a strip is done, its outputs are delivered (tasks of their
/// own, each a group of outputs), and the next strip opens.
final class StripCombiner: WorkComponent, @unchecked Sendable {
    // @unchecked: the scheduling state changes under the pool's lock; tasks of one strip write disjoint columns
    // of the accumulators, and a strip's deliveries run only once its chunks are all done and only read them.
    /// Hands over output `output`'s bytes of the strip that starts `offset` bytes into the slice.
    typealias Delivery = @Sendable (_ output: Int, _ offset: UInt64, _ bytes: UnsafeRawBufferPointer) throws -> Void
    /// The coefficients of source `source` in every accumulator, in their order.
    typealias Coefficients = @Sendable (_ source: Int) -> [UInt16]
    /// Fills `bytes` with accumulator `accumulator`'s starting bytes from `offset` into the slice.
    typealias Start =
        @Sendable (_ accumulator: Int, _ offset: UInt64, _ bytes: UnsafeMutableRawBufferPointer) throws -> Void

    /// The memory the accumulators of one strip may take.
    static let accumulatorBudget = 32 << 20
    /// The widest column chunk a task encodes.
    static let chunkWidth = 256 << 10
    /// The most bytes of sources a task reads before running the kernel.
    static let batchBytes = 2 << 20
    /// The most bytes of split tables a task prepares for a batch: a batch is never more sources than this
    /// holds tables for every accumulator, however many accumulators there are.
    static let tableBytes = 4 << 20
    /// The bytes of all outputs' blocks and one source block that should stay in a core's cache.
    static let cacheBytes = 512 << 10

    private let sources: [SliceRegion]
    /// The accumulators: one per coefficient of a source.
    let accumulatorCount: Int
    /// The outputs delivered.
    let outputCount: Int
    private let sliceSize: Int
    private let coefficients: Coefficients
    private let delivery: Delivery
    private let start: Start?
    private let transform: WordMatrix?
    private let toleratingShortFiles: Bool
    private let kernel: RegionKernel
    /// The bytes of each accumulator held at once.
    let stripWidth: Int
    private let stripCount: Int
    private let blockSize: Int
    private let accumulators: AllocatedBytes
    private let accumulatorBase: UnsafeMutableRawPointer

    private var strip = 0
    private var nextChunk = 0
    private var chunksDone = 0
    private var nextDelivery = 0
    private var deliveriesDone = 0
    /// Source bytes encoded so far (every source's columns of every chunk).
    let bytesDone = Atomic<UInt64>(0)
    private let finished = Atomic<Bool>(false)

    /// Combines `sources`, slices of `sliceSize` bytes, into `accumulatorCount` accumulators, started by
    /// `start` (zeros without it), and delivers them, or the `transform` of them (its rows are the outputs, its
    /// columns the accumulators).
    ///
    /// - Throws: `out_of_memory` when the accumulators cannot be allocated.
    init(
        sources: [SliceRegion], accumulatorCount: Int, sliceSize: Int, coefficients: @escaping Coefficients,
        delivery: @escaping Delivery, start: Start? = nil, transform: WordMatrix? = nil,
        toleratingShortFiles: Bool = false, kernel: RegionKernel = .best
    ) throws {
        precondition(sliceSize > 0 && sliceSize % 4 == 0 && accumulatorCount > 0, "slices of whole words")
        precondition(
            transform.map { $0.columns == accumulatorCount && $0.rows > 0 } ?? true, "a transform's shape")
        // Deliveries read every accumulator, so none can be cleared for the next strip: a start refills them.
        precondition(transform == nil || start != nil, "a transform needs a start")
        self.sources = sources
        self.accumulatorCount = accumulatorCount
        outputCount = transform?.rows ?? accumulatorCount
        self.sliceSize = sliceSize
        self.coefficients = coefficients
        self.delivery = delivery
        self.start = start
        self.transform = transform
        self.toleratingShortFiles = toleratingShortFiles
        self.kernel = kernel
        let budgetWidth = max(64, Self.accumulatorBudget / accumulatorCount / 64 * 64)
        stripWidth = min(sliceSize, budgetWidth)
        stripCount = (sliceSize + stripWidth - 1) / stripWidth
        blockSize = max(2_048, min(65_536, Self.cacheBytes / (accumulatorCount + 1) / 64 * 64))
        accumulators = try AllocatedBytes(count: accumulatorCount * stripWidth, wipesOnRelease: false)
        guard let base = accumulators.bytes.baseAddress else { preconditionFailure("an allocation has an address") }
        accumulatorBase = base
        accumulators.bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// How many strips the slices are read in: the number of passes over the sources.
    var passes: Int { stripCount }

    /// The bytes ``bytesDone`` reaches at the end: every source, slice-long.
    var sourceBytes: UInt64 { UInt64(sources.count) * UInt64(sliceSize) }

    private func width(ofStrip index: Int) -> Int { min(stripWidth, sliceSize - index * stripWidth) }
    private func chunkCount(ofStrip index: Int) -> Int {
        (width(ofStrip: index) + Self.chunkWidth - 1) / Self.chunkWidth
    }
    /// Deliveries are grouped so that a strip has at most 64 delivery tasks.
    private var outputsPerDelivery: Int { (outputCount + 63) / 64 }
    private var deliveryCount: Int { (outputCount + outputsPerDelivery - 1) / outputsPerDelivery }

    // Tasks: 2·k is chunk k of the current strip, 2·k + 1 delivery group k of it.
    func nextTask() -> Int? {
        guard strip < stripCount else { return nil }
        if nextChunk < chunkCount(ofStrip: strip) {
            nextChunk += 1
            return 2 * (nextChunk - 1)
        }
        if chunksDone == chunkCount(ofStrip: strip), nextDelivery < deliveryCount {
            nextDelivery += 1
            return 2 * (nextDelivery - 1) + 1
        }
        return nil
    }

    /// Whether every strip was delivered; may be read without the pool's lock (a progress report).
    var isFinished: Bool { finished.load(ordering: .acquiring) }

    func complete(_ task: Int) {
        if task % 2 == 0 {
            chunksDone += 1
        } else {
            deliveriesDone += 1
            if deliveriesDone == deliveryCount {
                strip += 1
                (nextChunk, chunksDone, nextDelivery, deliveriesDone) = (0, 0, 0, 0)
                if strip == stripCount { finished.store(true, ordering: .releasing) }
            }
        }
    }

    func run(_ task: Int, scratch: WorkerScratch) throws {
        if task % 2 == 0 {
            try encode(chunk: task / 2, scratch: scratch)
        } else {
            try deliver(group: task / 2, scratch: scratch)
        }
    }

    private func accumulator(_ index: Int, column: Int) -> UnsafeMutablePointer<UInt8> {
        (accumulatorBase + index * stripWidth + column).assumingMemoryBound(to: UInt8.self)
    }

    private func encode(chunk: Int, scratch: WorkerScratch) throws {
        let stripStart = strip * stripWidth
        let first = chunk * Self.chunkWidth
        let width = min(Self.chunkWidth, width(ofStrip: strip) - first)
        if let start {
            for index in 0..<accumulatorCount {
                try start(
                    index, UInt64(stripStart + first),
                    UnsafeMutableRawBufferPointer(start: accumulator(index, column: first), count: width))
            }
        }
        // Short regions multiply a word at a time from the constants themselves; longer ones through split
        // tables. Either way the coefficients of a batch fit in ``tableBytes``, however many accumulators.
        let short = width < WordMultiplication.shortRegion
        let coefficientSize = (short ? MemoryLayout<UInt16>.stride : RegionTableStorage.tableSize) * accumulatorCount
        let perBatch = max(1, min(Self.batchBytes / width, Self.tableBytes / coefficientSize))
        let batch = try scratch.buffer(.batch, count: perBatch * width)
        let coefficientMemory = try scratch.buffer(.tables, count: perBatch * coefficientSize)
        let tables = short ? nil : RegionTableStorage(coefficientMemory)
        let constants = coefficientMemory.bindMemory(to: UInt16.self)
        var destinations = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: accumulatorCount)
        var batchStart = 0
        while batchStart < sources.count {
            try Interruption.check()
            let members = min(perBatch, sources.count - batchStart)
            for member in 0..<members {
                let source = batchStart + member
                let part = UnsafeMutableRawBufferPointer(rebasing: batch[(member * width)..<((member + 1) * width)])
                try sources[source].read(at: stripStart + first, into: part, toleratingShortFiles: toleratingShortFiles)
                if let tables {
                    tables.prepare(from: member * accumulatorCount, coefficients(source))
                } else {
                    _ = UnsafeMutableBufferPointer(rebasing: constants[(member * accumulatorCount)...])
                        .initialize(from: coefficients(source))
                }
            }
            var block = 0
            while block < width {
                let length = min(blockSize, width - block)
                for index in 0..<accumulatorCount { destinations[index] = accumulator(index, column: first + block) }
                destinations.withUnsafeBufferPointer { targets in
                    for member in 0..<members {
                        let source = UnsafeRawBufferPointer(
                            rebasing: batch[(member * width + block)..<(member * width + block + length)])
                        if let tables {
                            tables.multiplyAdd(
                                from: member * accumulatorCount, source, into: targets, length: length, kernel: kernel)
                        } else {
                            WordMultiplication.multiplyAdd(
                                UnsafeBufferPointer(
                                    rebasing: constants[(member * accumulatorCount)..<((member + 1) * accumulatorCount)]
                                ),
                                source, into: targets, length: length)
                        }
                    }
                }
                block += length
            }
            bytesDone.add(UInt64(members * width), ordering: .relaxed)
            batchStart += members
        }
    }

    private func deliver(group: Int, scratch: WorkerScratch) throws {
        let width = width(ofStrip: strip)
        let offset = UInt64(strip * stripWidth)
        let first = group * outputsPerDelivery
        let outputs = first..<min(outputCount, first + outputsPerDelivery)
        guard let transform else {
            for output in outputs {
                let row = UnsafeMutableRawBufferPointer(start: accumulator(output, column: 0), count: width)
                try delivery(output, offset, UnsafeRawBufferPointer(row))
                // Without a start, the next strip accumulates from zero.
                if start == nil { row.initializeMemory(as: UInt8.self, repeating: 0) }
            }
            return
        }
        // output_m = Σ_d transform[m][d] · accumulator_d, for the group's outputs at once.
        let combined = try scratch.buffer(.combined, count: outputs.count * width)
        combined.initializeMemory(as: UInt8.self, repeating: 0)
        let rows = (0..<outputs.count).map {
            UnsafeMutableRawBufferPointer(rebasing: combined[($0 * width)..<(($0 + 1) * width)])
        }
        let targets = rows.map { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        let short = width < WordMultiplication.shortRegion
        let tables =
            short
            ? nil : RegionTableStorage(try scratch.buffer(.tables, count: outputs.count * RegionTableStorage.tableSize))
        var constants = [UInt16](repeating: 0, count: outputs.count)
        for source in 0..<accumulatorCount {
            try Interruption.check()
            for output in outputs { constants[output - first] = transform[output, source] }
            let bytes = UnsafeRawBufferPointer(start: accumulator(source, column: 0), count: width)
            targets.withUnsafeBufferPointer { destinations in
                if let tables {
                    tables.prepare(from: 0, constants)
                    tables.multiplyAdd(from: 0, bytes, into: destinations, length: width, kernel: kernel)
                } else {
                    constants.withUnsafeBufferPointer {
                        WordMultiplication.multiplyAdd($0, bytes, into: destinations, length: width)
                    }
                }
            }
        }
        for (position, output) in outputs.enumerated() {
            try delivery(output, offset, UnsafeRawBufferPointer(rows[position]))
        }
    }
}
