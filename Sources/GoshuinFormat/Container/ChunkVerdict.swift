/// The one verdict for a file whose chunks do not all authenticate (`Spec/container-v1.md` §7.1): a
/// function of the file and the passphrase alone, whatever order a reader authenticates chunks in.
///
/// Let L be the lowest index of a chunk that fails. L > 0 is `chunk_damaged` at L. L = 0 is `chunk_damaged`
/// at 0 if one of chunks 1 … 3 (the probe window) authenticates, and `auth_failed` otherwise: nothing
/// authenticates that could tell damage from a wrong passphrase. Every reader computes it here: the
/// streaming opener, the parallel opener, the random-access reader and `verify`.
enum ChunkVerdict {
    /// How many chunks, counting chunk 0, are tried before a failing chunk 0 is called a wrong passphrase.
    static let probeWindow: UInt64 = 4

    /// The error for a file whose lowest failing chunk is `lowest`; `authenticates(i)` says whether chunk
    /// `i` authenticates, and is asked only about chunks 1 … 3 when `lowest` is 0.
    static func error(
        lowestFailing lowest: UInt64, chunkCount: UInt64, authenticates: (UInt64) throws -> Bool
    ) rethrows -> GoshuinError {
        guard lowest == 0 else { return .chunkDamaged(lowest) }
        for probe in 1..<min(probeWindow, chunkCount) where try authenticates(probe) {
            return .chunkDamaged(0)
        }
        return .authenticationFailed
    }

    /// The error for a file in which chunk `failing` fails, found by a reader that has not authenticated
    /// every chunk before it: the chunks before it are tried in order to find the lowest failing one.
    static func error(
        failing: UInt64, chunkCount: UInt64, authenticates: (UInt64) throws -> Bool
    ) rethrows -> GoshuinError {
        var lowest = failing
        for index in 0..<failing where try !authenticates(index) {
            lowest = index
            break
        }
        return try error(lowestFailing: lowest, chunkCount: chunkCount, authenticates: authenticates)
    }
}
