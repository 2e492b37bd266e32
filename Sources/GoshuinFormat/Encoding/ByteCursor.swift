/// The one reader of binary structures: big- and little-endian integers and byte runs taken in order from
/// bytes in memory. A read past the end returns `nil` and consumes nothing.
package struct ByteCursor {
    private var bytes: ArraySlice<UInt8>

    /// A cursor at the start of `bytes`.
    package init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// A cursor at the start of `bytes`.
    package init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// Whether every byte was read.
    package var isAtEnd: Bool { bytes.isEmpty }

    /// The bytes not read yet.
    package var remaining: ArraySlice<UInt8> { bytes }

    /// The next `count` bytes.
    package mutating func bytes(_ count: Int) -> [UInt8]? { slice(count).map(Array.init) }

    /// A cursor over the next `count` bytes, which this one skips.
    package mutating func cursor(over count: Int) -> ByteCursor? { slice(count).map(ByteCursor.init) }

    /// Skips `count` bytes; false if fewer remain.
    @discardableResult
    package mutating func skip(_ count: Int) -> Bool { slice(count) != nil }

    /// The next integer, most significant byte first.
    package mutating func bigEndian<Value: FixedWidthInteger>(_: Value.Type = Value.self) -> Value? {
        slice(Value.bitWidth / 8).map { $0.reduce(Value.zero) { $0 << 8 | Value($1) } }
    }

    /// The next integer, least significant byte first.
    package mutating func littleEndian<Value: FixedWidthInteger>(_: Value.Type = Value.self) -> Value? {
        slice(Value.bitWidth / 8).map { $0.reversed().reduce(Value.zero) { $0 << 8 | Value($1) } }
    }

    private mutating func slice(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count >= count else { return nil }
        defer { bytes = bytes.dropFirst(count) }
        return bytes.prefix(count)
    }
}
