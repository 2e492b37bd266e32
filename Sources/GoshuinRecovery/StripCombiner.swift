import GoshuinFormat
import Synchronization

/// Linear combinations of slices over GF(2^16), strip by strip: `output_m = Σ_s coefficient(s, m) · source_s`
/// for every output m, where each source is a slice read from a file (an input slice for protecting, the
/// intact slices and recovery slices for repairing). The outputs are as long as a slice; they are held one
/// strip of every output at a time (a byte range of every slice, ``stripWidth`` bytes of each), within a
/// memory budget, and handed over strip after strip, in order, to ``Delivery``.
///
/// Each strip is cut into column chunks, encoded by any worker at once: a chunk reads its columns of a batch
/// of sources, then runs the region kernel block by block, each source block into the blocks of every output
/// (the outputs' blocks stay in the processor's cache while the batch's sources stream through). Once every
/// chunk of a strip is done, each output's strip is delivered (tasks of their own) and cleared, and the next
/// strip opens.
final class StripCombiner: WorkComponent, @unchecked Sendable {
    // @unchecked: the scheduling state changes under the pool's lock; tasks of one strip write disjoint columns
    // of the accumulators, and a strip's deliveries run only once its chunks are all done.
    /// Hands over output `output`'s bytes of the strip that starts `offset` bytes into the slice.
    typealias Delivery = @Sendable (_ output: Int, _ offset: UInt64, _ bytes: UnsafeRawBufferPointer) throws -> Void
    /// The coefficients of source `source` in every output, in the outputs' order.
    typealias Coefficients = @Sendable (_ source: Int) -> [UInt16]

    /// The memory the accumulators of one strip may take.
    static let accumulatorBudget = 32 << 20
    /// The widest column chunk a task encodes.
    static let chunkWidth = 256 << 10
    /// The most bytes of sources a task reads before running the kernel.
    static let batchBytes = 2 << 20
    /// The bytes of all outputs' blocks and one source block that should stay in a core's cache.
    static let cacheBytes = 512 << 10

    private let sources: [SliceRegion]
    /// The outputs.
    let outputCount: Int
    private let sliceSize: Int
    private let coefficients: Coefficients
    private let delivery: Delivery
    private let toleratingShortFiles: Bool
    private let kernel: RegionKernel
    /// The bytes of each output held at once.
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

    /// Combines `sources`, slices of `sliceSize` bytes, into `outputCount` outputs.
    ///
    /// - Throws: `out_of_memory` when the accumulators cannot be allocated.
    init(
        sources: [SliceRegion], outputCount: Int, sliceSize: Int, coefficients: @escaping Coefficients,
        delivery: @escaping Delivery, toleratingShortFiles: Bool = false, kernel: RegionKernel = .best
    ) throws {
        precondition(sliceSize > 0 && sliceSize % 4 == 0 && outputCount > 0, "slices of whole words, some outputs")
        self.sources = sources
        self.outputCount = outputCount
        self.sliceSize = sliceSize
        self.coefficients = coefficients
        self.delivery = delivery
        self.toleratingShortFiles = toleratingShortFiles
        self.kernel = kernel
        let budgetWidth = max(64, Self.accumulatorBudget / outputCount / 64 * 64)
        stripWidth = min(sliceSize, budgetWidth)
        stripCount = (sliceSize + stripWidth - 1) / stripWidth
        blockSize = max(2_048, min(65_536, Self.cacheBytes / (outputCount + 1) / 64 * 64))
        accumulators = try AllocatedBytes(count: outputCount * stripWidth, wipesOnRelease: false)
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

    var isFinished: Bool { strip == stripCount }

    func complete(_ task: Int) {
        if task % 2 == 0 {
            chunksDone += 1
        } else {
            deliveriesDone += 1
            if deliveriesDone == deliveryCount {
                strip += 1
                (nextChunk, chunksDone, nextDelivery, deliveriesDone) = (0, 0, 0, 0)
            }
        }
    }

    func run(_ task: Int, scratch: WorkerScratch) throws {
        if task % 2 == 0 {
            try encode(chunk: task / 2, scratch: scratch)
        } else {
            try deliver(group: task / 2)
        }
    }

    private func encode(chunk: Int, scratch: WorkerScratch) throws {
        let stripStart = strip * stripWidth
        let first = chunk * Self.chunkWidth
        let width = min(Self.chunkWidth, width(ofStrip: strip) - first)
        let perBatch = max(1, Self.batchBytes / width)
        let batch = try scratch.buffer(.batch, count: perBatch * width)
        var destinations = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: outputCount)
        var tables = [RegionCoefficients](repeating: RegionCoefficients(capacity: outputCount), count: perBatch)
        var batchStart = 0
        while batchStart < sources.count {
            try Interruption.check()
            let members = min(perBatch, sources.count - batchStart)
            for member in 0..<members {
                let source = batchStart + member
                let part = UnsafeMutableRawBufferPointer(rebasing: batch[(member * width)..<((member + 1) * width)])
                try sources[source].read(at: stripStart + first, into: part, toleratingShortFiles: toleratingShortFiles)
                tables[member].replace(with: coefficients(source))
            }
            var block = 0
            while block < width {
                let length = min(blockSize, width - block)
                for output in 0..<outputCount {
                    destinations[output] = (accumulatorBase + output * stripWidth + first + block)
                        .assumingMemoryBound(to: UInt8.self)
                }
                destinations.withUnsafeBufferPointer { targets in
                    for member in 0..<members {
                        let source = UnsafeRawBufferPointer(
                            rebasing: batch[(member * width + block)..<(member * width + block + length)])
                        tables[member].multiplyAdd(source, into: targets, length: length, kernel: kernel)
                    }
                }
                block += length
            }
            bytesDone.add(UInt64(members * width), ordering: .relaxed)
            batchStart += members
        }
    }

    private func deliver(group: Int) throws {
        let width = width(ofStrip: strip)
        let offset = UInt64(strip * stripWidth)
        let first = group * outputsPerDelivery
        for output in first..<min(outputCount, first + outputsPerDelivery) {
            let row = UnsafeMutableRawBufferPointer(
                rebasing: accumulators.bytes[(output * stripWidth)..<(output * stripWidth + width)])
            try delivery(output, offset, UnsafeRawBufferPointer(row))
            row.initializeMemory(as: UInt8.self, repeating: 0)
        }
    }
}
