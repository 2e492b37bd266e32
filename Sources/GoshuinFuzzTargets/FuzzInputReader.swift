/// Reads the choices a harness lets the fuzzer make from the front of its input; past the end every value
/// reads as zero, so every input means something.
struct FuzzInputReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func readUInt8() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readUInt16() -> UInt16 {
        UInt16(readUInt8()) << 8 | UInt16(readUInt8())
    }

    mutating func readUInt32() -> UInt32 {
        UInt32(readUInt16()) << 16 | UInt32(readUInt16())
    }

    /// The bytes not read yet.
    mutating func readRemainingBytes() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}
