import GoshuinFormat
import Synchronization

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
