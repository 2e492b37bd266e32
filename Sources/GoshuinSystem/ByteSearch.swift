/// Searching memory at the C library's speed (`memmem(3)`, `memcmp(3)`): what scans a file for a signature it
/// may hold anywhere, or for bytes that are not zero, uses this, never a byte-by-byte loop.
package enum ByteSearch {
    /// The offset in `haystack` of the first occurrence of `needle` (not empty), or `nil`.
    package static func firstOffset(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        needle.withUnsafeBytes { SystemCall.firstOccurrence(of: $0, in: haystack) }
    }

    /// Whether `first` and `second` hold the same bytes.
    package static func areEqual(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Bool {
        guard first.count == second.count else { return false }
        guard let one = first.baseAddress, let other = second.baseAddress else { return true }
        return SystemCall.equalBytes(one, other, count: first.count)
    }

    /// Whether every byte of `bytes` is zero (true for no bytes): the first is zero and each equals the next.
    package static func isAllZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return bytes[0] == 0 && SystemCall.equalBytes(base, base + 1, count: bytes.count - 1)
    }
}
