internal import CDeflate

/// The CRC-32 of ISO 3309 (zlib's `crc32`), computed by libdeflate, which uses the processor's carry-less
/// multiplication where it has it (`Spec/decisions/0016`): the checksum of ZIP entries and of PAR 2.0
/// input slices.
package struct CRC32 {
    /// The CRC of the bytes added so far (0 for none).
    package private(set) var value: UInt32 = 0

    /// A CRC of no bytes.
    package init() {}

    /// Adds `bytes`.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = libdeflate_crc32(value, base, bytes.count)
    }

    /// Adds `count` zero bytes (the padding of a short last slice).
    package mutating func updateWithZeros(_ count: Int) {
        let zeros = [UInt8](repeating: 0, count: min(count, 65_536))
        var left = count
        zeros.withUnsafeBytes { buffer in
            while left > 0 {
                let step = min(left, buffer.count)
                update(UnsafeRawBufferPointer(rebasing: buffer[0..<step]))
                left -= step
            }
        }
    }

    /// The CRC of `bytes`.
    package static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }
}
