import GoshuinFormat

/// The linear algebra of a repair over GF(2^16) (`Spec/recovery-par2.md` §7.3): which recovery slices to use
/// for a set of unknown input slices, and the inverse of their matrix.
///
/// Recovery slice e holds `Σ_i c_i^e · slice_i`. With the known slices' terms moved to the other side, the
/// unknowns `u_0 … u_(k−1)` satisfy one equation per recovery slice, whose coefficients are `c_(u_m)^e`.
/// PAR 2.0's matrix is not always invertible (only consecutive exponents from 0 make a true Vandermonde
/// matrix), so the rows are chosen one at a time, by increasing exponent, each kept only if it is independent
/// of those kept before (Gauss-Jordan elimination with the pivot at the row's first non-zero column): a row
/// that would make the matrix singular is passed over for the next recovery slice. The rows kept are reduced
/// to unit vectors; the operations that did it, tracked beside them, are the inverse.
struct RecoveryMatrix {
    /// The most unknowns solved at once: the matrix and its inverse take `2 · k²` 16-bit words.
    static let maximumUnknowns = 4_096

    /// The indices, into the candidate exponents, of the recovery slices used, in the order of the inverse's
    /// columns.
    let chosen: [Int]
    /// `inverse[m][d]`: the coefficient of chosen recovery equation d in unknown m.
    let inverse: [[UInt16]]

    /// The solution for the input slices `unknowns` (global indices) from recovery slices of `exponents`
    /// (increasing); `nil` when fewer than `unknowns.count` of them are independent.
    static func solve(unknowns: [Int], exponents: [UInt32]) throws -> RecoveryMatrix? {
        let k = unknowns.count
        precondition(k > 0 && k <= maximumUnknowns, "a bounded, non-empty set of unknowns")
        guard exponents.count >= k else { return nil }
        let width = 2 * k
        var basis: [(pivot: Int, row: [UInt16])] = []
        var chosen: [Int] = []
        for (candidate, exponent) in exponents.enumerated() where chosen.count < k {
            try Interruption.check()
            var row = [UInt16](repeating: 0, count: width)
            for (column, unknown) in unknowns.enumerated() {
                row[column] = InputSliceConstants.coefficient(ofSlice: unknown, exponent: exponent)
            }
            row[k + chosen.count] = 1
            for (pivot, reduced) in basis where row[pivot] != 0 {
                addMultiple(row[pivot], of: reduced, to: &row)
            }
            guard let pivot = row[0..<k].firstIndex(where: { $0 != 0 }) else { continue }
            row = scaled(row, by: GaloisField16.inverse(row[pivot]))
            for index in basis.indices where basis[index].row[pivot] != 0 {
                addMultiple(basis[index].row[pivot], of: row, to: &basis[index].row)
            }
            basis.append((pivot, row))
            chosen.append(candidate)
        }
        guard chosen.count == k else { return nil }
        var inverse = [[UInt16]](repeating: [], count: k)
        for (pivot, row) in basis { inverse[pivot] = Array(row[k..<width]) }
        return RecoveryMatrix(chosen: chosen, inverse: inverse)
    }

    /// `target ^= factor · row`, with the region kernel (the words are little-endian in memory, as on every
    /// processor this toolkit builds for).
    static func addMultiple(_ factor: UInt16, of row: [UInt16], to target: inout [UInt16]) {
        let coefficients = RegionCoefficients([factor])
        row.withUnsafeBytes { source in
            target.withUnsafeMutableBytes { destination in
                var pointers = [destination.baseAddress?.assumingMemoryBound(to: UInt8.self)]
                pointers.withUnsafeMutableBufferPointer { targets in
                    coefficients.multiplyAdd(
                        source, into: UnsafeBufferPointer(targets), length: 2 * row.count)
                }
            }
        }
    }

    private static func scaled(_ row: [UInt16], by factor: UInt16) -> [UInt16] {
        var result = [UInt16](repeating: 0, count: row.count)
        addMultiple(factor, of: row, to: &result)
        return result
    }
}
