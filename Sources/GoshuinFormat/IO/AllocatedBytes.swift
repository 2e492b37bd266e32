/// A buffer from the system allocator that reports a refusal as `out_of_memory` instead of crashing,
/// freed (and, when it held secrets, wiped) with its last reference.
///
/// Every buffer whose size follows from a file (chunks, copies) comes from here: under a tight
/// `ulimit -v` or a full machine, an operation then fails cleanly and removes what it started to write.
package final class AllocatedBytes: @unchecked Sendable {
    // @unchecked: the pointer never changes; what is written through it is the owner's business, as with
    // any buffer pointer.
    /// The memory; valid while this object lives.
    package let bytes: UnsafeMutableRawBufferPointer
    private let wipesOnRelease: Bool

    /// Allocates `count` bytes (at least one), aligned to 16.
    ///
    /// - Parameter wipesOnRelease: overwrite the bytes with zeros before freeing them (plaintext, keys).
    /// - Throws: `out_of_memory` when the system refuses.
    package init(count: Int, wipesOnRelease: Bool) throws {
        guard count >= 0, let pointer = SystemCall.allocate(count) else {
            throw GoshuinError(
                .outOfMemory,
                "cannot allocate \(count) bytes: the system refused the memory")
        }
        bytes = UnsafeMutableRawBufferPointer(start: pointer, count: count)
        self.wipesOnRelease = wipesOnRelease
    }

    deinit {
        if wipesOnRelease { secureZero(bytes) }
        SystemCall.free(bytes.baseAddress)
    }
}

/// The memory one operation's chunk buffers may take in all (`Spec/decisions/0010`): parallel workers
/// and cached chunks are counted against it, so that 64 MiB chunks do not multiply into gigabytes.
package enum ChunkMemoryBudget {
    /// 256 MiB.
    package static let byteCount = 256 << 20

    /// How many buffers of `bufferSize` bytes fit in the budget: at least 1, at most `wanted`.
    package static func bufferCount(wanted: Int, bufferSize: Int) -> Int {
        max(1, min(wanted, byteCount / max(bufferSize, 1)))
    }
}
