/// Reads big-endian integers and byte runs from a byte array; every read returns `nil` on short input.
struct ByteReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - position >= count else { return nil }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func readUInt8() -> UInt8? { readInteger() }
    mutating func readUInt32() -> UInt32? { readInteger() }
    mutating func readUInt64() -> UInt64? { readInteger() }

    private mutating func readInteger<Value: FixedWidthInteger>() -> Value? {
        guard let run = readBytes(Value.bitWidth / 8) else { return nil }
        return run.reduce(Value.zero) { ($0 << 8) | Value($1) }
    }
}
