import Foundation
import GoshuinFormat
import Testing

@testable import GoshuinRecovery

/// The inverse a repair uses, checked against its definition: for the recovery slices chosen, `Σ_d
/// inverse[m][d] · c_(u_j)^(e_d) = 1` when `m = j` and 0 otherwise (`Spec/recovery-par2.md` §7.3), by the
/// Vandermonde path (the first k exponents consecutive) and by the elimination (gaps), which must choose the
/// rows §7.3 chooses.
@Suite struct RecoveryMatrixTests {
    static func expectInverse(_ matrix: RecoveryMatrix, unknowns: [Int], exponents: [UInt32]) {
        let k = unknowns.count
        #expect(matrix.chosen.count == k)
        var wrong = 0
        for m in 0..<k {
            for j in 0..<k {
                var sum: UInt16 = 0
                for (d, candidate) in matrix.chosen.enumerated() {
                    let coefficient = InputSliceConstants.coefficient(
                        ofSlice: unknowns[j], exponent: exponents[candidate])
                    sum ^= GaloisField16.multiply(matrix.coefficient(unknown: m, equation: d), coefficient)
                }
                if sum != (m == j ? 1 : 0) { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) entries of inverse · matrix differ from the identity (k = \(k))")
    }

    static func unknowns(_ count: Int, seed: UInt64) -> [Int] {
        var state = seed | 1
        var chosen = Set<Int>()
        while chosen.count < count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            chosen.insert(Int(state >> 33) % 32_768)
        }
        return chosen.sorted()
    }

    @Test(arguments: [1, 2, 7, 64, 120])
    func theVandermondePathInverts(k: Int) throws {
        let unknowns = Self.unknowns(k, seed: UInt64(k))
        for first: UInt32 in [0, 5, 1_000] {
            let exponents = (0..<UInt32(k + 3)).map { first + $0 }
            let matrix = try #require(try RecoveryMatrix.solve(unknowns: unknowns, exponents: exponents))
            #expect(matrix.chosen == Array(0..<k), "the first k, as §7.3 chooses")
            Self.expectInverse(matrix, unknowns: unknowns, exponents: exponents)
        }
    }

    @Test(arguments: [2, 7, 64, 120])
    func theEliminationInvertsWithGaps(k: Int) throws {
        let unknowns = Self.unknowns(k, seed: UInt64(k) &* 31)
        // Every third exponent missing: the first k available are never consecutive.
        let exponents = (0..<UInt32(3 * k)).filter { $0 % 3 != 1 }
        let matrix = try #require(try RecoveryMatrix.solve(unknowns: unknowns, exponents: exponents))
        Self.expectInverse(matrix, unknowns: unknowns, exponents: exponents)
        #expect(try RecoveryMatrix.isSolvable(unknowns: unknowns, exponents: exponents))
        // Fewer exponents than unknowns: no solution, said without an elimination.
        #expect(try RecoveryMatrix.isSolvable(unknowns: unknowns, exponents: Array(exponents.prefix(k - 1))) == false)
    }
}
