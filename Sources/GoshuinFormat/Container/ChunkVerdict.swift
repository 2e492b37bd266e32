/// The one verdict for a file whose chunks do not all authenticate: a function of the file and the
/// passphrase alone, whatever order a reader authenticates chunks in. Every reader computes it here: the
/// streaming opener, the parallel opener, the random-access reader and `verify`.
///
/// Let L be the lowest index of a chunk that fails.
/// - Version 1 (`Spec/container-v1.md` §7.1): L > 0 is `chunk_damaged` at L. L = 0 is `chunk_damaged` at 0
///   if one of chunks 1 … 3 (the probe window) authenticates, and `auth_failed` otherwise: nothing
///   authenticates that could tell damage from a wrong passphrase.
/// - Version 2 (`Spec/container-v2.md` §7.1): the header MAC verified before any chunk was read, so the
///   passphrase is right and every failure is damage: `chunk_damaged` at L, with no probe.
enum ChunkVerdict {
    /// How many chunks, counting chunk 0, version 1 tries before a failing chunk 0 is called a wrong
    /// passphrase.
    static let v1ProbeWindow: UInt64 = 4

    /// The chunks, from 0, whose success tells a right passphrase: version 1's probe window, none in version 2.
    static func probeWindow(_ version: FormatVersion) -> UInt64 { version == .v1 ? v1ProbeWindow : 0 }

    /// The error for a file whose lowest failing chunk is `lowest`; `authenticates(i)` says whether chunk
    /// `i` authenticates, and is asked only about version 1's chunks 1 … 3 when `lowest` is 0.
    static func error(
        lowestFailing lowest: UInt64, layout: ContainerLayout, authenticates: (UInt64) throws -> Bool
    ) rethrows -> GoshuinError {
        guard lowest == 0, layout.version == .v1 else { return .chunkDamaged(lowest, in: layout) }
        for probe in 1..<min(v1ProbeWindow, layout.chunkCount) where try authenticates(probe) {
            return .chunkDamaged(0, in: layout)
        }
        return .authenticationFailed
    }

    /// The error for a file in which chunk `failing` fails, found by a reader that has not authenticated
    /// every chunk before it: the chunks before it are tried in order to find the lowest failing one.
    static func error(
        failing: UInt64, layout: ContainerLayout, authenticates: (UInt64) throws -> Bool
    ) rethrows -> GoshuinError {
        var lowest = failing
        for index in 0..<failing where try !authenticates(index) {
            lowest = index
            break
        }
        return try error(lowestFailing: lowest, layout: layout, authenticates: authenticates)
    }
}
