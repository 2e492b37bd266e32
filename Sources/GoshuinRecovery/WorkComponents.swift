import GoshuinFormat
import Synchronization

/// One kind of work inside a ``ComponentSchedule``: its tasks are numbered, and like a ``WorkSchedule`` it
/// says which is ready (holding the pool's lock) and runs one (not holding it).
protocol WorkComponent: AnyObject, Sendable {
    /// The next ready task, taken; `nil` when none is ready now.
    func nextTask() -> Int?
    /// Whether every task ran.
    var isFinished: Bool { get }
    /// Records `task` as done.
    func complete(_ task: Int)
    /// Runs `task` with the worker's scratch memory.
    func run(_ task: Int, scratch: WorkerScratch) throws
}

/// Several components run by one pool: a worker takes a ready task of the first component that has one, so
/// the order of `components` is their priority (a sequential chain first keeps its one core busy).
final class ComponentSchedule: WorkSchedule, @unchecked Sendable {
    // @unchecked: the components are called as WorkSchedule says (under the pool's lock, or run alone).
    /// A component's task.
    struct Task: Sendable {
        let component: Int
        let task: Int
    }

    private let components: [any WorkComponent]

    init(_ components: [any WorkComponent]) { self.components = components }

    func nextTask() -> Task? {
        for (index, component) in components.enumerated() {
            if let task = component.nextTask() { return Task(component: index, task: task) }
        }
        return nil
    }

    var isFinished: Bool { components.allSatisfy(\.isFinished) }

    func complete(_ task: Task) { components[task.component].complete(task.task) }

    func makeScratch() throws -> WorkerScratch { WorkerScratch() }

    func run(_ task: Task, scratch: inout WorkerScratch) throws {
        try components[task.component].run(task.task, scratch: scratch)
    }
}

/// A worker's buffers, by slot, made on first use and grown as needed: memory from ``AllocatedBytes``, so a
/// refusal is `out_of_memory`.
final class WorkerScratch {
    /// The buffers a component may ask for.
    enum Slot: Int, CaseIterable {
        /// Bytes read from a file.
        case read
        /// A batch of slices read for encoding.
        case batch
        /// The split tables of a batch's coefficients.
        case tables
        /// Outputs combined from a strip's accumulators.
        case combined
    }

    private var buffers: [AllocatedBytes?] = Array(repeating: nil, count: Slot.allCases.count)

    /// At least `count` bytes of `slot`'s buffer (its first `count` bytes).
    func buffer(_ slot: Slot, count: Int) throws -> UnsafeMutableRawBufferPointer {
        if let existing = buffers[slot.rawValue], existing.bytes.count >= count {
            return UnsafeMutableRawBufferPointer(rebasing: existing.bytes[0..<count])
        }
        buffers[slot.rawValue] = nil
        let fresh = try AllocatedBytes(count: max(count, 1), wipesOnRelease: false)
        buffers[slot.rawValue] = fresh
        return UnsafeMutableRawBufferPointer(rebasing: fresh.bytes[0..<count])
    }
}

/// A region of a file read as a slice: `available` bytes from `start`, then zeros up to the slice size (the
/// padding of a short last slice, or what a cut file no longer holds).
struct SliceRegion: Sendable {
    /// The file.
    let file: FileDescriptor
    /// The offset of the slice's first byte.
    let start: UInt64
    /// How many of the slice's bytes the file holds.
    let available: Int
    /// Says which file in messages.
    let name: String

    /// Fills `buffer` with the slice's bytes from `offset` on (zeros past ``available``). A file that ends
    /// before ``available`` reads as zeros when `toleratingShortFiles` (a damaged file being verified),
    /// and is an `io` error otherwise (a file changed while being protected).
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer, toleratingShortFiles: Bool) throws {
        let wanted = max(0, min(buffer.count, available - offset))
        var received = 0
        if wanted > 0 {
            received = try describingFailure("cannot read \(DisplayText.quoted(name))") {
                try file.readFully(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]),
                    atOffset: Int64(start) + Int64(offset))
            }
            guard received == wanted || toleratingShortFiles else {
                throw GoshuinError(.io, "\(DisplayText.quoted(name)) shrank while being read")
            }
        }
        if received < buffer.count {
            UnsafeMutableRawBufferPointer(rebasing: buffer[received...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
    }
}

/// The MD5 of a file's bytes in order, block by block: one block at a time, each after the one before, on
/// whichever worker is free (`Spec/recovery-par2.md` §7: the whole-file MD5 is sequential by nature).
final class SequentialHashChain: WorkComponent, @unchecked Sendable {
    // @unchecked: `next` and `running` change under the pool's lock; the hasher is used by one task at a time,
    // in order, because the next block is ready only once the one before completed.
    /// The bytes of block `index` into the buffer given (its whole length).
    typealias Reader = @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) throws -> Void
    /// Where each block goes after it was read and hashed (a copy being written), if anywhere.
    typealias Writer = @Sendable (_ offset: UInt64, _ bytes: UnsafeRawBufferPointer) throws -> Void

    static let blockSize = 1 << 20

    /// Whether block `index` may be read yet (its bytes are written by other tasks of the same pool).
    typealias Gate = (_ index: Int) -> Bool

    private let length: UInt64
    private let reader: Reader
    private let writer: Writer?
    private let gate: Gate?
    private let hasher: MD5Hasher
    private var next = 0
    private var running = false
    private var completed = 0
    private let blockCount: Int
    /// Bytes hashed so far.
    let bytesDone = Atomic<UInt64>(0)

    /// A chain over `length` bytes; `gate`, when given, is asked under the pool's lock whether a block is ready.
    init(length: UInt64, reader: @escaping Reader, writer: Writer? = nil, gate: Gate? = nil) throws {
        self.length = length
        self.reader = reader
        self.writer = writer
        self.gate = gate
        hasher = try MD5Hasher()
        blockCount = Int((length + UInt64(Self.blockSize) - 1) / UInt64(Self.blockSize))
    }

    func nextTask() -> Int? {
        guard !running, next < blockCount, gate?(next) ?? true else { return nil }
        running = true
        next += 1
        return next - 1
    }

    var isFinished: Bool { completed == blockCount }

    func complete(_ task: Int) {
        running = false
        completed += 1
    }

    func run(_ task: Int, scratch: WorkerScratch) throws {
        let offset = UInt64(task) * UInt64(Self.blockSize)
        let count = Int(min(UInt64(Self.blockSize), length - offset))
        let buffer = try scratch.buffer(.read, count: count)
        try reader(offset, buffer)
        try hasher.update(UnsafeRawBufferPointer(buffer))
        try writer?(offset, UnsafeRawBufferPointer(buffer))
        bytesDone.add(UInt64(count), ordering: .relaxed)
    }

    /// The digest, once every block ran.
    func digest() throws -> [UInt8] {
        precondition(isFinished, "the chain has run")
        return try hasher.finalize()
    }
}

/// The MD5 and CRC-32 of slices: each task a group of up to ``SliceDigests/maximumCount`` slices, read piece by
/// piece and hashed in lockstep (every slice is as long as the slice size, its padding included), any number
/// of groups at once. Each slice's bytes that are not zero are counted too, up to ``FileSlices/nonZeroCounted``
/// (evidence that a file is a set's, `Spec/decisions/0048`).
final class SliceHashing: WorkComponent, @unchecked Sendable {
    // @unchecked: `next` and `completed` change under the pool's lock; each slot of `results` is written by
    // the one task of its slice's group and read after the pool finished.
    /// What hashing a slice gives.
    struct Result {
        /// Its MD5 and CRC-32.
        let checksum: SliceChecksumPacket.Checksum
        /// Its bytes that are not zero, up to ``FileSlices/nonZeroCounted``.
        let nonZero: Int
    }

    /// The bytes of each slice of a group read at a time: a worker's buffer is eight of them, 1 MiB.
    static let pieceSize = 128 << 10

    private let regions: [SliceRegion]
    private let sliceSize: Int
    private let toleratingShortFiles: Bool
    private let kernel: SliceDigests.Kernel
    private let groupCount: Int
    private var next = 0
    private var completed = 0
    private let slots: UnsafeMutableBufferPointer<Result?>
    /// Bytes hashed so far.
    let bytesDone = Atomic<UInt64>(0)

    /// Hashes each of `regions`, padded to `sliceSize`.
    init(
        regions: [SliceRegion], sliceSize: Int, toleratingShortFiles: Bool, kernel: SliceDigests.Kernel = .best
    ) {
        self.regions = regions
        self.sliceSize = sliceSize
        self.toleratingShortFiles = toleratingShortFiles
        self.kernel = kernel
        groupCount = (regions.count + SliceDigests.maximumCount - 1) / SliceDigests.maximumCount
        slots = .allocate(capacity: regions.count)
        slots.initialize(repeating: nil)
    }

    deinit {
        // The checksums hold arrays: deinitialized before the memory goes (a fuzzer's leak check found this).
        slots.deinitialize()
        slots.deallocate()
    }

    func nextTask() -> Int? {
        guard next < groupCount else { return nil }
        next += 1
        return next - 1
    }

    var isFinished: Bool { completed == groupCount }

    func complete(_ task: Int) { completed += 1 }

    func run(_ task: Int, scratch: WorkerScratch) throws {
        let first = task * SliceDigests.maximumCount
        let members = regions[first..<min(regions.count, first + SliceDigests.maximumCount)]
        var digests = SliceDigests(count: members.count, kernel: kernel)
        var crcs = [CRC32](repeating: CRC32(), count: members.count)
        var nonZero = [Int](repeating: 0, count: members.count)
        let piece = min(sliceSize, Self.pieceSize)
        let buffer = try scratch.buffer(.read, count: piece * members.count)
        var offset = 0
        while offset < sliceSize {
            try Interruption.check()
            let count = min(piece, sliceSize - offset)
            var parts: [UnsafeRawBufferPointer] = []
            for (lane, region) in members.enumerated() {
                let part = UnsafeMutableRawBufferPointer(rebasing: buffer[(lane * piece)..<(lane * piece + count)])
                if offset >= region.available {
                    // Padding only from here: no read.
                    part.initializeMemory(as: UInt8.self, repeating: 0)
                } else {
                    try region.read(at: offset, into: part, toleratingShortFiles: toleratingShortFiles)
                    nonZero[lane] = Self.countingNonZero(UnsafeRawBufferPointer(part), from: nonZero[lane])
                }
                crcs[lane].update(UnsafeRawBufferPointer(part))
                parts.append(UnsafeRawBufferPointer(part))
                bytesDone.add(UInt64(min(count, max(0, region.available - offset))), ordering: .relaxed)
            }
            digests.update(parts)
            offset += count
        }
        for (lane, md5) in digests.finalize().enumerated() {
            slots[first + lane] = Result(
                checksum: SliceChecksumPacket.Checksum(md5: md5, crc32: crcs[lane].value), nonZero: nonZero[lane])
        }
    }

    /// `counted` plus the bytes of `part` that are not zero, up to ``FileSlices/nonZeroCounted``: a part of
    /// zeros costs one comparison, a part of data a few bytes.
    private static func countingNonZero(_ part: UnsafeRawBufferPointer, from counted: Int) -> Int {
        guard counted < FileSlices.nonZeroCounted, !ByteSearch.isAllZero(part) else { return counted }
        var total = counted
        for byte in part where byte != 0 {
            total += 1
            if total == FileSlices.nonZeroCounted { break }
        }
        return total
    }

    /// Each slice's result, in the order of the regions, once every task ran.
    func results() -> [Result] {
        precondition(isFinished, "every slice was hashed")
        return slots.map { result in
            guard let result else { preconditionFailure("every slice was hashed") }
            return result
        }
    }

    /// The checksums, in the order of the regions, once every task ran.
    func checksums() -> [SliceChecksumPacket.Checksum] { results().map(\.checksum) }
}

/// Copies slices of one file into another at the same offsets, each slice one task (the intact slices of a
/// file being repaired, into the repaired file), and says which are done.
final class SliceCopy: WorkComponent, @unchecked Sendable {
    // @unchecked: `next`, `completed` and `copied` change under the pool's lock (and are read under it).
    private let regions: [(slice: Int, region: SliceRegion)]
    private let target: FileDescriptor
    private let targetName: String
    private var next = 0
    private var completed = 0
    private var copied: Set<Int> = []

    /// Copies each region, slice `slice` of the file, to `target` at the same offset.
    init(_ regions: [(slice: Int, region: SliceRegion)], to target: FileDescriptor, name: String) {
        self.regions = regions
        self.target = target
        targetName = name
    }

    func nextTask() -> Int? {
        guard next < regions.count else { return nil }
        next += 1
        return next - 1
    }

    var isFinished: Bool { completed == regions.count }

    func complete(_ task: Int) {
        completed += 1
        copied.insert(regions[task].slice)
    }

    /// Whether slice `slice` was copied (called holding the pool's lock).
    func isCopied(_ slice: Int) -> Bool { copied.contains(slice) }

    func run(_ task: Int, scratch: WorkerScratch) throws {
        let region = regions[task].region
        let buffer = try scratch.buffer(.read, count: min(region.available, SequentialHashChain.blockSize))
        var offset = 0
        while offset < region.available {
            try Interruption.check()
            let count = min(buffer.count, region.available - offset)
            let part = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            try region.read(at: offset, into: part, toleratingShortFiles: false)
            try describingFailure("cannot write \(DisplayText.quoted(targetName))") {
                try target.writeAll(UnsafeRawBufferPointer(part), atOffset: Int64(region.start) + Int64(offset))
            }
            offset += count
        }
    }
}
