import GoshuinFormat

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
