internal import CDeflate

/// The CRC-32 of ZIP entries (ISO 3309, as zlib's `crc32`), computed by libdeflate, which uses the
/// processor's carry-less multiplication where it has it (`Spec/decisions/0016`).
struct CRC32 {
    /// The CRC of the bytes added so far (0 for none).
    private(set) var value: UInt32 = 0

    /// Adds `bytes`.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = libdeflate_crc32(value, base, bytes.count)
    }

    /// The CRC of `bytes`.
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }
}
