import GoshuinFormat

/// A matrix of GF(2^16) words in memory from ``AllocatedBytes``: its size follows from a recovery set (up to
/// 4,096 × 8,192 words), so a refusal is `out_of_memory`, never a trap (`Spec/decisions/0049`).
final class WordMatrix: @unchecked Sendable {
    // @unchecked: the storage never moves; rows are written by one task at a time, or read only, as
    // ``RecoveryMatrix`` and ``StripCombiner`` use it.
    /// The rows.
    let rows: Int
    /// The words of each row.
    let columns: Int
    private let storage: AllocatedBytes
    private let base: UnsafeMutablePointer<UInt16>

    /// A matrix of zeros.
    ///
    /// - Throws: `out_of_memory` when the system refuses the memory.
    init(rows: Int, columns: Int) throws {
        precondition(rows >= 0 && columns >= 0, "a matrix has a size")
        let (words, overflow) = rows.multipliedReportingOverflow(by: columns)
        guard !overflow, words <= Int.max / 2 else {
            throw GoshuinError(.outOfMemory, "a matrix of \(rows) × \(columns) words is too large")
        }
        self.rows = rows
        self.columns = columns
        storage = try AllocatedBytes(count: max(2, 2 * words), wipesOnRelease: false)
        storage.bytes.initializeMemory(as: UInt8.self, repeating: 0)
        guard let start = storage.bytes.baseAddress else { preconditionFailure("an allocation has an address") }
        base = start.bindMemory(to: UInt16.self, capacity: max(1, words))
    }

    /// Row `index`: its words, to read and write.
    func row(_ index: Int) -> UnsafeMutablePointer<UInt16> {
        precondition(index >= 0 && index < rows, "a row of the matrix")
        return base + index * columns
    }

    /// The word at `row`, `column`.
    subscript(row: Int, column: Int) -> UInt16 {
        get { self.row(row)[column] }
        set { self.row(row)[column] = newValue }
    }
}
