/// Bytes in memory as a ``RandomAccessSource``: for scanning a small ZIP held in memory, in tests and fuzzers.
package final class ByteArraySource: RandomAccessSource {
    private let bytes: [UInt8]

    /// A source over `bytes`.
    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The number of bytes.
    package var size: UInt64 { UInt64(bytes.count) }

    /// Copies up to `buffer.count` bytes from `offset`.
    package func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < size else { return 0 }
        let start = Int(offset)
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
        }
        return count
    }
}
