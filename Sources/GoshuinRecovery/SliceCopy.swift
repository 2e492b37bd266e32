import GoshuinFormat

/// Copies slices of one file into another at the same offsets, each slice one task (the intact slices of a
/// file being repaired, into the repaired file), and says which slices from the start are in place.
final class SliceCopy: WorkComponent, @unchecked Sendable {
    // @unchecked: `next`, `completed`, `copied` and `inPlace` change under the pool's lock (and are read
    // under it); the regions' bytes are copied by one task each.
    private let regions: [(slice: Int, region: SliceRegion)]
    /// The slices copied here; the others are rebuilt elsewhere.
    private let copying: Set<Int>
    private let target: FileDescriptor
    private let targetName: String
    private var next = 0
    private var completed = 0
    private var copied: Set<Int> = []
    /// How many slices from the start are in place.
    private var inPlace = 0

    /// Copies each region, slice `slice` of the file, to `target` at the same offset.
    init(_ regions: [(slice: Int, region: SliceRegion)], to target: FileDescriptor, name: String) {
        self.regions = regions
        copying = Set(regions.map(\.slice))
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

    /// Whether every slice up to `last` is in place: copied, or, for one not copied here, rebuilt when
    /// `rebuilt` says the rebuilt slices are. Called holding the pool's lock; the slices in place from the start
    /// are counted once each, however often a worker asks.
    func areInPlace(through last: Int, rebuilt: Bool) -> Bool {
        while inPlace <= last, copying.contains(inPlace) ? copied.contains(inPlace) : rebuilt { inPlace += 1 }
        return last < inPlace
    }

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
