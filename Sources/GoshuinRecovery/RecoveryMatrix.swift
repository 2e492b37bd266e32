import GoshuinFormat

/// The linear algebra of a repair over GF(2^16) (`Spec/recovery-par2.md` §7.3): which recovery slices to use
/// for a set of unknown input slices, and the inverse of their matrix.
///
/// Recovery slice e holds `Σ_i c_i^e · slice_i`. With the known slices' terms moved to the other side, the
/// unknowns `u_0 … u_(k−1)` satisfy one equation per recovery slice, whose coefficients are `c_(u_m)^e`.
///
/// When `k` of the recovery slices available have consecutive exponents `a … a + k − 1` (the usual case: a
/// set's exponents start at 0, and a lost volume leaves runs), the first such run is taken: its matrix is a
/// Vandermonde matrix of the distinct constants times the diagonal `c^a`, always invertible, and inverted in
/// `O(k²)` from the Lagrange polynomials of the constants (``vandermonde(nodes:first:)``). Otherwise (at most
/// ``eliminationMaximum`` unknowns, trying at most ``rowLimit(unknowns:)`` rows), as PAR 2.0's matrix is not always
/// invertible, the rows are chosen one at a time, by increasing exponent, each kept only if it is independent
/// of those kept before (elimination with the pivot at the row's first non-zero column): a row that would
/// make the matrix singular is passed over for the next recovery slice. The rows kept are then reduced to
/// unit vectors; the operations that did it, tracked beside them, are the inverse (`Spec/decisions/0049`).
struct RecoveryMatrix {
    /// The most unknowns solved at once.
    static let maximumUnknowns = 4_096
    /// The most unknowns solved by elimination, when no `k` usable exponents are consecutive: it holds `k`
    /// rows of `2k` words and costs `O(k³)` (`Spec/decisions/0049`).
    static let eliminationMaximum = 1_024

    /// The most candidate rows an elimination tries for `k` unknowns: a set whose rows keep depending on
    /// those kept (a hostile one) is refused after this many, not after all 65,536.
    static func rowLimit(unknowns k: Int) -> Int { 2 * k + 32 }

    /// The indices, into the candidate exponents, of the recovery slices used, in the order of the inverse's
    /// columns.
    let chosen: [Int]
    /// The inverse: ``coefficient(unknown:equation:)`` reads it.
    private let storage: WordMatrix
    /// The row of ``storage`` that holds unknown m's coefficients.
    private let rowOfUnknown: [Int]
    /// Where the inverse's columns start in a row of ``storage``.
    private let firstColumn: Int

    /// The number of unknowns.
    var unknownCount: Int { chosen.count }

    /// The coefficient of chosen recovery equation `equation` in unknown `unknown`.
    func coefficient(unknown: Int, equation: Int) -> UInt16 {
        storage.row(rowOfUnknown[unknown])[firstColumn + equation]
    }

    /// The solution for the input slices `unknowns` (global indices) from recovery slices of `exponents`
    /// (increasing); `nil` when fewer than `unknowns.count` of them are independent.
    ///
    /// - Throws: `out_of_memory`, `interrupted`.
    static func solve(unknowns: [Int], exponents: [UInt32]) throws -> RecoveryMatrix? {
        let k = unknowns.count
        precondition(k > 0 && k <= maximumUnknowns, "a bounded, non-empty set of unknowns")
        guard exponents.count >= k else { return nil }
        let nodes = unknowns.map { InputSliceConstants.constant(ofSlice: $0) }
        // k consecutive exponents: §7.3 takes the first such run, whose rows are independent.
        if let run = consecutiveRun(exponents, length: k) {
            let storage = try vandermonde(nodes: nodes, first: exponents[run])
            return RecoveryMatrix(
                chosen: Array(run..<(run + k)), storage: storage, rowOfUnknown: Array(0..<k), firstColumn: 0)
        }
        guard k <= eliminationMaximum else { return nil }
        return try eliminate(nodes: nodes, exponents: exponents)
    }

    /// Whether `unknowns` can be solved from recovery slices of `exponents`: at once when `k` of the exponents
    /// are consecutive, otherwise by the elimination's rank, without its inverse.
    static func isSolvable(unknowns: [Int], exponents: [UInt32]) throws -> Bool {
        let k = unknowns.count
        guard k > 0 else { return true }
        guard k <= maximumUnknowns, exponents.count >= k else { return false }
        if consecutiveRun(exponents, length: k) != nil { return true }
        guard k <= eliminationMaximum else { return false }
        let nodes = unknowns.map { InputSliceConstants.constant(ofSlice: $0) }
        let basis = try WordMatrix(rows: k, columns: k)
        var pivots: [Int] = []
        for exponent in exponents.prefix(rowLimit(unknowns: k)) where pivots.count < k {
            try Interruption.check()
            let row = basis.row(pivots.count)
            for (column, node) in nodes.enumerated() { row[column] = GaloisField16.power(node, exponent) }
            if let pivot = reduce(row, against: basis, pivots: pivots, width: k, leftColumns: k) {
                pivots.append(pivot)
            }
        }
        return pivots.count == k
    }

    /// The index in `exponents` (increasing) of the first of `length` consecutive exponents, if any.
    static func consecutiveRun(_ exponents: [UInt32], length: Int) -> Int? {
        guard length > 0, exponents.count >= length else { return nil }
        var start = 0
        for index in exponents.indices {
            if index > 0, exponents[index] != exponents[index - 1] &+ 1 { start = index }
            if index - start + 1 == length { return start }
        }
        return nil
    }

    /// The inverse of `A[d][j] = nodes[j]^(first + d)`, as rows `inverse[m]`: with `w_j = nodes[j]^first · x_j`
    /// the system is the transposed Vandermonde system `Σ_j nodes[j]^d · w_j = s_d`, whose inverse's row m
    /// holds the coefficients of the Lagrange polynomial `L_m(z) = Π_(i≠m) (z − nodes[i]) / (nodes[m] − nodes[i])`
    /// (then `x_m = nodes[m]^−first · w_m`). In GF(2^16), subtraction is addition.
    static func vandermonde(nodes: [UInt16], first: UInt32) throws -> WordMatrix {
        let k = nodes.count
        let inverse = try WordMatrix(rows: k, columns: k)
        // P(z) = Π (z + nodes[i]) (k + 1 coefficients, lowest first) and each quotient, in rows of their own.
        let master = try WordMatrix(rows: 2, columns: k + 1)
        let product = master.row(0)
        product[0] = 1
        for (degree, node) in nodes.enumerated() {
            try Interruption.check()
            // product ← product · (z + node): the new coefficient i is old[i − 1] + node · old[i].
            var carried: UInt16 = 0
            for index in 0...(degree + 1) {
                let old = index <= degree ? product[index] : 0
                product[index] = carried ^ GaloisField16.multiply(node, old)
                carried = old
            }
        }
        let quotient = master.row(1)
        for (m, node) in nodes.enumerated() {
            try Interruption.check()
            // Q_m = P / (z + node), by synthetic division from the top; then Q_m(node), by Horner's rule.
            quotient[k - 1] = product[k]
            if k > 1 {
                for index in stride(from: k - 1, through: 1, by: -1) {
                    quotient[index - 1] = product[index] ^ GaloisField16.multiply(node, quotient[index])
                }
            }
            var value: UInt16 = 0
            for index in stride(from: k - 1, through: 0, by: -1) {
                value = GaloisField16.multiply(value, node) ^ quotient[index]
            }
            // value ≠ 0: the nodes are distinct, so node is a simple root of P.
            let scale = GaloisField16.multiply(
                GaloisField16.inverse(value), GaloisField16.inverse(GaloisField16.power(node, first)))
            let row = inverse.row(m)
            for d in 0..<k { row[d] = GaloisField16.multiply(scale, quotient[d]) }
        }
        return inverse
    }

    /// Rows by increasing exponent, each kept when independent of those kept, until `k`; then reduced to unit
    /// vectors. Row t holds the coefficients (k words) and the operations done to it (its identity part, whose
    /// non-zero words are among the first t + 1, so each step works on `k + t + 1` words at most).
    private static func eliminate(nodes: [UInt16], exponents: [UInt32]) throws -> RecoveryMatrix? {
        let k = nodes.count
        let width = 2 * k
        let basis = try WordMatrix(rows: k, columns: width)
        var pivots: [Int] = []
        var chosen: [Int] = []
        for (candidate, exponent) in exponents.prefix(rowLimit(unknowns: k)).enumerated() where chosen.count < k {
            try Interruption.check()
            let t = chosen.count
            let row = basis.row(t)
            for column in 0..<width { row[column] = 0 }
            for (column, node) in nodes.enumerated() { row[column] = GaloisField16.power(node, exponent) }
            row[k + t] = 1
            guard let pivot = reduce(row, against: basis, pivots: pivots, width: k + t + 1, leftColumns: k) else {
                continue
            }
            pivots.append(pivot)
            chosen.append(candidate)
        }
        guard chosen.count == k else { return nil }
        // Back-substitution: from the last row up, each row's pivot column cleared from the rows before it, all
        // at once (one source row into many). A row has by then taken in the rows after it, so its operations
        // part is full width.
        var factors: [UInt16] = []
        var targets: [UnsafeMutablePointer<UInt8>?] = []
        factors.reserveCapacity(k)
        targets.reserveCapacity(k)
        for index in stride(from: k - 1, through: 1, by: -1) {
            try Interruption.check()
            factors.removeAll(keepingCapacity: true)
            targets.removeAll(keepingCapacity: true)
            for earlier in 0..<index {
                let target = basis.row(earlier)
                let factor = target[pivots[index]]
                guard factor != 0 else { continue }
                factors.append(factor)
                targets.append(UnsafeMutableRawPointer(target).assumingMemoryBound(to: UInt8.self))
            }
            try WordMultiplication.multiplyAdd(factors, basis.row(index), into: targets, count: width)
        }
        var rowOfUnknown = [Int](repeating: 0, count: k)
        for (row, pivot) in pivots.enumerated() { rowOfUnknown[pivot] = row }
        return RecoveryMatrix(chosen: chosen, storage: basis, rowOfUnknown: rowOfUnknown, firstColumn: k)
    }

    /// Reduces `row` by the rows of `basis` before it (in echelon form, with `pivots`) over `width` words, then
    /// scales it so that its pivot, its first non-zero word among the `leftColumns`, is 1. Returns the pivot,
    /// or `nil` when the row depends on those before it.
    private static func reduce(
        _ row: UnsafeMutablePointer<UInt16>, against basis: WordMatrix, pivots: [Int], width: Int, leftColumns: Int
    ) -> Int? {
        for (index, pivot) in pivots.enumerated() {
            let factor = row[pivot]
            guard factor != 0 else { continue }
            // Row `index` has no words past column leftColumns + index + 1 that are not zero.
            WordMultiplication.multiplyAdd(
                factor, basis.row(index), into: row, count: min(width, max(leftColumns, leftColumns + index + 1)))
        }
        guard let pivot = (0..<leftColumns).first(where: { row[$0] != 0 }) else { return nil }
        let scale = GaloisField16.inverse(row[pivot])
        for column in 0..<width { row[column] = GaloisField16.multiply(row[column], scale) }
        return pivot
    }
}
