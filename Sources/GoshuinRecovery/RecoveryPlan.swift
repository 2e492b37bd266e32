import GoshuinFormat

/// How much recovery data to make: a percentage of the protected file's slices, rounded up, with a floor for
/// small files (``RecoveryPlan``).
public struct RecoveryRedundancy: Equatable, Sendable, CustomStringConvertible {
    /// The redundancy in hundredths of a percent: 500 is 5%.
    public let basisPoints: Int

    /// The allowed range: 0.01% … 100%.
    public static let allowedBasisPoints: ClosedRange<Int> = 1...10_000
    /// 5%, what `protect` and `seal --recovery` make unless asked otherwise.
    public static let `default` = RecoveryRedundancy(uncheckedBasisPoints: 500)

    /// `percent` percent, rounded to a hundredth of a percent.
    ///
    /// - Throws: `invalid_argument` outside 0.01% … 100% (or not a number).
    public init(percent: Double) throws {
        guard percent.isFinite, percent * 100 >= 1 - 1e-9, percent <= 100 else {
            throw GoshuinError(
                .invalidArgument, "the redundancy must be between 0.01% and 100%; \(percent)% was asked for")
        }
        self.init(uncheckedBasisPoints: Int((percent * 100).rounded()))
    }

    private init(uncheckedBasisPoints: Int) { basisPoints = uncheckedBasisPoints }

    /// Such as `5%` or `2.5%`.
    public var description: String {
        let whole = basisPoints / 100
        let fraction = basisPoints % 100
        guard fraction != 0 else { return "\(whole)%" }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)%" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)%"
    }

    /// The recovery slices for `inputSlices` input slices: this share of them rounded up, at least 2 (so that
    /// a damaged sector across a slice boundary is always repairable), at most as many as the input slices.
    func recoverySliceCount(inputSlices: Int) -> Int {
        let share = (inputSlices * basisPoints + 9_999) / 10_000
        return min(inputSlices, max(2, share))
    }
}

/// The shape of a recovery set for one file: the slice size, the slices and the recovery slices
/// (`Spec/decisions/0042`, `Spec/recovery-par2.md` §5).
///
/// The rule: a `.goshuin` file is cut into slices of whole records (its record length, doubled or quadrupled
/// when that is not a multiple of 4), as few records a slice as keep the count at most ``preferredMaximum``;
/// any other file the same way in units of 4 KiB. A file of fewer than ``preferredMinimum`` units is cut
/// into slices of a ``preferredMinimum``-th of it but at least 4 KiB (so ``preferredMinimum`` slices from
/// 400 KiB up, fewer below; one slice of the whole file, rounded up to 4 bytes, when it is smaller than 4 KiB).
struct RecoveryPlan: Equatable, Sendable {
    /// Below this many whole-record slices, slices are cut finer.
    static let preferredMinimum = 100
    /// Above this many, a slice holds several records: the encoding work grows with the count.
    static let preferredMaximum = 512
    /// The smallest slice of a file larger than it: a sector.
    static let smallestSlice: UInt64 = 4_096
    /// The unit of a file that is not a `.goshuin` file.
    static let genericUnit: UInt64 = 4_096

    /// The protected file's length.
    let fileLength: UInt64
    /// The slice size in bytes, a multiple of 4.
    let sliceSize: UInt64
    /// The input slices: ⌈fileLength / sliceSize⌉.
    let inputSliceCount: Int
    /// The recovery slices, with exponents 0 ..< recoverySliceCount.
    let recoverySliceCount: Int

    /// The plan for a file of `fileLength` bytes (at least 1) whose records are `recordLength` bytes (`nil`
    /// for a file that is not a `.goshuin` file), at `redundancy`.
    init(fileLength: UInt64, recordLength: Int?, redundancy: RecoveryRedundancy) {
        precondition(fileLength > 0, "an empty file has no slices")
        var unit = recordLength.map { UInt64($0) } ?? Self.genericUnit
        while unit % 4 != 0 { unit *= 2 }
        let units = (fileLength + unit - 1) / unit
        let sliceSize: UInt64
        if units >= UInt64(Self.preferredMinimum) {
            let perSlice = (units + UInt64(Self.preferredMaximum) - 1) / UInt64(Self.preferredMaximum)
            sliceSize = perSlice * unit
        } else {
            let even = (fileLength + UInt64(Self.preferredMinimum) - 1) / UInt64(Self.preferredMinimum)
            let floor = min(Self.smallestSlice, fileLength)
            sliceSize = Self.roundedUpToFour(max(even, floor))
        }
        self.init(fileLength: fileLength, sliceSize: sliceSize, redundancy: redundancy)
    }

    /// A plan with a given slice size (a multiple of 4; at most 32,768 slices).
    init(fileLength: UInt64, sliceSize: UInt64, redundancy: RecoveryRedundancy) {
        precondition(sliceSize > 0 && sliceSize % 4 == 0, "a slice size is a positive multiple of 4")
        let count = fileLength / sliceSize + (fileLength % sliceSize == 0 ? 0 : 1)
        precondition(count <= UInt64(InputSliceConstants.maximumCount), "at most 32,768 input slices")
        self.fileLength = fileLength
        self.sliceSize = sliceSize
        inputSliceCount = Int(count)
        recoverySliceCount = redundancy.recoverySliceCount(inputSlices: Int(count))
    }

    /// The bytes of slice `index` that the file holds (the last may be short; the rest of it is zeros).
    func length(ofSlice index: Int) -> Int {
        let start = UInt64(index) * sliceSize
        return Int(min(sliceSize, fileLength - start))
    }

    /// The recovery data's size in bytes.
    var recoveryBytes: UInt64 { UInt64(recoverySliceCount) * sliceSize }

    private static func roundedUpToFour(_ value: UInt64) -> UInt64 { (value + 3) / 4 * 4 }
}
