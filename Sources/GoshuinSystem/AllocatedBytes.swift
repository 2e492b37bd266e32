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
    /// For secret memory, the length of its pages; `nil` for memory from the allocator.
    private let mappedLength: Int?

    /// Allocates `count` bytes (at least one), aligned to 16.
    ///
    /// - Parameter wipesOnRelease: the bytes will hold secrets (plaintext, keys): they get pages of their
    ///   own, left out of core dumps, and are overwritten with zeros before they are given back.
    /// - Throws: `out_of_memory` when the system refuses.
    package init(count: Int, wipesOnRelease: Bool) throws {
        let refusal = GoshuinError(.outOfMemory, "cannot allocate \(count) bytes: the system refused the memory")
        guard count >= 0 else { throw refusal }
        guard count < Self.largeBuffer || Self.roomRemains(beside: count) else { throw refusal }
        if wipesOnRelease {
            guard let secret = SecretMemory.allocate(count) else { throw refusal }
            (bytes, mappedLength) = (secret.bytes, secret.mappedLength)
        } else {
            guard let pointer = SystemCall.allocate(count) else { throw refusal }
            (bytes, mappedLength) = (UnsafeMutableRawBufferPointer(start: pointer, count: count), nil)
        }
    }

    /// A buffer of at least this size is given only when ``headroom`` would stay free beside it.
    static let largeBuffer = 1 << 20

    /// What must stay free beside a large buffer for the small allocations that follow it: the Swift
    /// runtime traps when `malloc` fails, so a large buffer that would leave less is refused, and the caller
    /// falls back to fewer buffers or fails with `out_of_memory` (`Spec/decisions/0010`).
    static let headroom = 8 << 20

    /// Whether `count` bytes and ``headroom`` beside them can be mapped now: mapped and given back at once.
    private static func roomRemains(beside count: Int) -> Bool {
        let (total, overflow) = count.addingReportingOverflow(headroom)
        guard !overflow, let probe = SystemCall.mapAnonymous(total) else { return false }
        SystemCall.unmap(probe, total)
        return true
    }

    deinit {
        if let mappedLength {
            SecretMemory.release(bytes, mappedLength: mappedLength)
        } else {
            SystemCall.free(bytes.baseAddress)
        }
    }
}

/// Memory for secrets (passphrases, keys, plaintext): whole pages of their own, mapped privately and left
/// out of core dumps (`MADV_DONTDUMP`), wiped before they are unmapped. The process itself never dumps core
/// (``ProcessControl``); this keeps secrets out of a dump made anyway (a debugger, a changed system policy).
enum SecretMemory {
    /// `count` bytes (at least one) on pages of their own, zeroed; `nil` when the system refuses.
    static func allocate(_ count: Int) -> (bytes: UnsafeMutableRawBufferPointer, mappedLength: Int)? {
        let page = SystemCall.pageSize
        let (rounded, overflow) = max(count, 1).addingReportingOverflow(page - 1)
        guard !overflow, let pointer = SystemCall.mapAnonymous(rounded / page * page) else { return nil }
        SystemCall.excludeFromCoreDumps(pointer, rounded / page * page)
        return (UnsafeMutableRawBufferPointer(start: pointer, count: count), rounded / page * page)
    }

    /// Wipes and unmaps memory ``allocate(_:)`` gave.
    static func release(_ bytes: UnsafeMutableRawBufferPointer, mappedLength: Int) {
        secureZero(bytes)
        if let base = bytes.baseAddress { SystemCall.unmap(base, mappedLength) }
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
