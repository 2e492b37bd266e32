import GoshuinFormat

/// A file checked against its recovery set without a passphrase: where it is damaged, and whether the set
/// can repair it (`Spec/recovery-par2.md` §7).
public struct RecoveryVerification: Sendable {
    /// A run of adjacent damaged or missing slices.
    public struct DamagedRange: Equatable, Sendable {
        /// The slices, by index in the file.
        public let slices: ClosedRange<Int>
        /// The bytes of the file they cover (the last slice's zero padding excluded).
        public let bytes: Range<UInt64>
        /// Whether the file ends before these slices (cut short) rather than holding other bytes there.
        public let missing: Bool
        /// For a `.goshuin` file whose header could be read: the records (chunks) these bytes fall in.
        public let records: ClosedRange<UInt64>?
        /// For a `.goshuin` file: whether these bytes include some of its header.
        public let includesHeader: Bool
    }

    /// The file checked.
    public let filePath: String
    /// The recovery set's files that were read.
    public let recoveryFiles: [String]
    /// Recovery files whose scan stopped before their end: too damaged, or too large for a set of this file,
    /// to search through within the budget.
    public let recoveryFilesNotReadToTheEnd: [String]
    /// Files of the set's names that could not be read at all (a folder, a pipe, a dangling link), each with
    /// why: left aside, the rest of the set read.
    public let recoveryFilesLeftAside: [String]
    /// The length the set gives the file.
    public let expectedLength: UInt64
    /// The file's length now.
    public let actualLength: UInt64
    /// The set's slice size.
    public let sliceSize: UInt64
    /// The file's slices.
    public let sliceCount: Int
    /// The damaged and missing slices, as runs.
    public let damage: [DamagedRange]
    /// How many of the file's slices are damaged or missing.
    public let damagedSliceCount: Int
    /// Slices of the set's other files (a set of several) that are unknown and must be solved for too.
    public let otherUnknownSlices: Int
    /// The recovery slices that verify and have the set's slice size.
    public let recoverySlicesAvailable: Int
    /// How many recovery slices a repair needs: one per unknown slice.
    public var recoverySlicesNeeded: Int { damagedSliceCount + otherUnknownSlices }
    /// Whether the file's whole MD5 matches the set's; `nil` when its length differs (then it cannot).
    public let fileHashMatches: Bool?
    /// Whether enough independent recovery slices verify to rebuild every unknown slice.
    public let isRepairable: Bool
    /// When there are recovery slices enough but this toolkit does not rebuild that many unknowns at once from
    /// them, the most it does (`Spec/recovery-par2.md` §7.3). `nil` when a repair is stopped by too few recovery
    /// slices, or by a matrix that is singular for every choice tried.
    public let rebuildLimit: RebuildLimit?

    /// The most unknowns this toolkit rebuilds at once from a set's recovery slices.
    public struct RebuildLimit: Equatable, Sendable {
        /// The most unknowns.
        public let most: Int
        /// Whether it is this low because no run of as many of the recovery slices' exponents is consecutive
        /// (then the matrix is solved by elimination, whose cost grows as the cube of the unknowns).
        public let exponentsNotInOneRun: Bool
    }
    /// The program that wrote the set, as its creator packet says (escaped for a terminal).
    public let creator: String?

    /// Whether the file is exactly what the set describes.
    public var isIntact: Bool { damagedSliceCount == 0 && actualLength == expectedLength && fileHashMatches != false }
}

extension RecoveryVerification {
    /// The verification of `reading` that `survey` (its survey, or its survey with the whole MD5 known) gives;
    /// `repairable` from ``RecoveryMatrix`` (or false when there are too few).
    init(_ reading: RecoveryReading, survey: SliceSurvey, repairable: Bool) {
        let filePath = reading.path
        let headerBytes = reading.headerBytes
        let index = survey.index
        let sliceSize = index.sliceSize
        let length = index.targetFile.description.length
        let geometry = Self.recordGeometry(headerBytes: headerBytes, fileSize: length)
        var runs: [DamagedRange] = []
        var slice = 0
        while slice < survey.states.count {
            let state = survey.states[slice]
            guard state != .intact else {
                slice += 1
                continue
            }
            var last = slice
            while last + 1 < survey.states.count, survey.states[last + 1] == state { last += 1 }
            let start = UInt64(slice) * sliceSize
            let end = min(length, UInt64(last + 1) * sliceSize)
            var records: ClosedRange<UInt64>?
            var header = false
            if let geometry {
                header = start < geometry.headerLength
                let first = max(start, geometry.headerLength)
                if end > first {
                    let firstRecord = (first - geometry.headerLength) / geometry.recordLength
                    let lastRecord = (end - 1 - geometry.headerLength) / geometry.recordLength
                    records = firstRecord...lastRecord
                }
            }
            runs.append(
                DamagedRange(
                    slices: slice...last, bytes: start..<end, missing: state == .missing, records: records,
                    includesHeader: header))
            slice = last + 1
        }
        self.filePath = filePath
        recoveryFiles = index.recoveryFiles
        recoveryFilesNotReadToTheEnd = index.filesNotReadToTheEnd
        recoveryFilesLeftAside = reading.filesLeftAside
        expectedLength = length
        actualLength = survey.actualLength
        self.sliceSize = sliceSize
        sliceCount = index.targetFile.sliceCount
        damage = runs
        damagedSliceCount = survey.damagedCount
        otherUnknownSlices = survey.unknown.count - survey.damagedCount
        recoverySlicesAvailable = index.recoverySlices.count
        fileHashMatches = survey.fileHashMatches
        isRepairable = repairable
        rebuildLimit = repairable ? nil : SliceRebuild.limit(survey)
        creator = index.creators.first.map { DisplayText.escaped(bytes: $0) }
    }

    /// The header length and record length of the `.goshuin` file whose first bytes are `headerBytes` and
    /// whose length is `fileSize`, when they pass the checks that need no key.
    static func recordGeometry(headerBytes: [UInt8], fileSize: UInt64) -> (headerLength: UInt64, recordLength: UInt64)?
    {
        guard let header = try? ContainerStructure.validate(headerBytes: headerBytes, fileSize: fileSize) else {
            return nil
        }
        return (UInt64(header.byteCount), UInt64(header.layout.geometry.fullRecordLength))
    }
}
