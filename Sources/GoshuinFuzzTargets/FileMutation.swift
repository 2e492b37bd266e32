/// Where the chunk records of a sealed file lie, for the mutations that move whole records: after the header,
/// each `recordLength` bytes long, the last one whatever is left.
struct RecordGrid {
    /// The header's length: 45 in version 1, 77 in version 2.
    let headerLength: Int
    /// A full record's length: the chunk size plus the prefix (version 1) and the tag.
    let recordLength: Int

    /// Version 1's records of `chunkSize` plaintext bytes (`Spec/container-v1.md` §5): prefix, ciphertext, tag.
    static func versionOne(chunkSize: Int) -> RecordGrid { RecordGrid(headerLength: 45, recordLength: chunkSize + 20) }

    /// Version 2's records of `chunkSize` plaintext bytes (`Spec/container-v2.md` §5): ciphertext, tag.
    static func versionTwo(chunkSize: Int) -> RecordGrid { RecordGrid(headerLength: 77, recordLength: chunkSize + 16) }

    /// Where the records of `file` would be on this grid.
    func recordRanges(in file: [UInt8]) -> [Range<Int>] {
        stride(from: headerLength, to: file.count, by: recordLength).map { $0..<min(file.count, $0 + recordLength) }
    }
}

/// One change to a sealed file, chosen by the fuzzer: bytes, cuts and appends, or whole chunk records moved
/// around.
struct FileMutation: CustomStringConvertible {
    /// The plaintext a mutation harness seals: `length` bytes repeating the fuzzer's `pattern`, or a fixed
    /// sequence when it gave none.
    static func plaintext(repeating pattern: [UInt8], length: Int) -> [UInt8] {
        (0..<length).map { index in
            pattern.isEmpty ? UInt8(truncatingIfNeeded: index &* 131 &+ index >> 8) : pattern[index % pattern.count]
        }
    }

    /// What the change does.
    enum Kind: UInt8, CaseIterable {
        /// XOR one byte with the operand's low byte (1 if it is 0).
        case flipBits
        /// Write the operand big-endian over 4 bytes.
        case overwriteUInt32
        /// Cut the file at the position.
        case truncate
        /// Remove 1 … 64 bytes at the position.
        case deleteBytes
        /// Insert 1 … 64 copies of a byte at the position.
        case insertBytes
        /// Copy one record over another.
        case copyRecord
        /// Insert a copy of one record before another.
        case duplicateRecord
        /// Remove one record.
        case deleteRecord
        /// Append 1 … 2·S + 1 copies of a byte at the end.
        case appendBytes
        /// Exchange two records.
        case swapRecords
        /// Cut the file at a record boundary, or up to 16 bytes past it.
        case cutNearRecordBoundary
    }

    /// The kinds of the version 1 harnesses, in their order: their committed inputs choose a kind by its index
    /// in this list.
    static let versionOneKinds: [Kind] = [
        .flipBits, .overwriteUInt32, .truncate, .deleteBytes, .insertBytes, .copyRecord, .duplicateRecord,
        .deleteRecord,
    ]

    /// What it does.
    let kind: Kind
    /// Where: a byte offset modulo the file's size plus one, or a record's number modulo the records.
    let position: UInt32
    /// With what: a byte, a count, another record.
    let operand: UInt32

    /// The change the fuzzer's `kind` byte picks among `kinds`, at `position` with `operand`.
    init(kind: UInt8, position: UInt32, operand: UInt32, kinds: [Kind]) {
        self.kind = kinds[Int(kind) % kinds.count]
        self.position = position
        self.operand = operand
    }

    /// `kind(position, operand)`.
    var description: String { "\(kind)(\(position), \(operand))" }

    /// Applies the change to `file`, whose records lie on `grid`.
    func apply(to file: inout [UInt8], grid: RecordGrid) {
        let offset = Int(position) % (file.count + 1)
        let records = grid.recordRanges(in: file)
        switch kind {
        case .flipBits:
            guard offset < file.count else { return }
            file[offset] ^= max(UInt8(truncatingIfNeeded: operand), 1)
        case .overwriteUInt32:
            for index in 0..<4 where offset + index < file.count {
                file[offset + index] = UInt8(truncatingIfNeeded: operand >> (24 - 8 * index))
            }
        case .truncate:
            file.removeSubrange(offset...)
        case .deleteBytes:
            file.removeSubrange(offset..<min(file.count, offset + 1 + Int(operand % 64)))
        case .insertBytes:
            let byte = UInt8(truncatingIfNeeded: operand >> 8)
            file.insert(contentsOf: repeatElement(byte, count: 1 + Int(operand % 64)), at: offset)
        case .appendBytes:
            let count = 1 + Int(operand % UInt32(2 * grid.recordLength + 1))
            file.append(contentsOf: repeatElement(UInt8(truncatingIfNeeded: position), count: count))
        case .cutNearRecordBoundary:
            let boundary = grid.headerLength + Int(position % UInt32(records.count + 1)) * grid.recordLength
            let cut = boundary + Int(operand % 17)
            if cut < file.count { file.removeSubrange(cut...) }
        case .copyRecord, .duplicateRecord, .deleteRecord, .swapRecords:
            guard !records.isEmpty else { return }
            let source = records[Int(position) % records.count]
            let target = records[Int(operand) % records.count]
            let sourceBytes = Array(file[source])
            switch kind {
            case .copyRecord: file.replaceSubrange(target, with: sourceBytes)
            case .duplicateRecord: file.insert(contentsOf: sourceBytes, at: target.lowerBound)
            case .swapRecords: Self.swap(source, target, in: &file)
            default: file.removeSubrange(source)
            }
        }
    }

    /// Exchanges the bytes of two records of `file` (of different lengths when one of them is the last).
    static func swap(_ one: Range<Int>, _ other: Range<Int>, in file: inout [UInt8]) {
        guard one != other else { return }
        let (first, second) = one.lowerBound < other.lowerBound ? (one, other) : (other, one)
        file =
            Array(file[..<first.lowerBound]) + file[second] + file[first.upperBound..<second.lowerBound]
            + file[first] + file[second.upperBound...]
    }
}
