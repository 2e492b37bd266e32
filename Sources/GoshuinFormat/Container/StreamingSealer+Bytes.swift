/// The payload as a caller of ``KeyedHeader/seal(progress:_:)`` hands it over: bytes it has, copied into
/// the chunk records, which are wiped once sealed.
extension StreamingSealer {
    /// Appends `bytes` to the payload.
    ///
    /// - Throws: `io` past the length the header was drafted for, `interrupted`, or what sealing or writing
    ///   a chunk gave.
    public func write(_ bytes: Span<UInt8>) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Appends the bytes of `bytes` to the payload. A sequence without contiguous storage passes through a
    /// buffer of 64 KiB that is wiped afterwards: no copy of the payload is left in memory.
    ///
    /// - Throws: what writing a `Span` throws.
    public func write(contentsOf bytes: some Sequence<UInt8>) throws {
        if try bytes.withContiguousStorageIfAvailable({ try write(UnsafeRawBufferPointer($0)) }) != nil { return }
        let buffer = try AllocatedBytes(count: 1 << 16, wipesOnRelease: true)
        var iterator = bytes.makeIterator()
        var filled = 0
        while let byte = iterator.next() {
            buffer.bytes[filled] = byte
            filled += 1
            if filled == buffer.bytes.count {
                try write(UnsafeRawBufferPointer(buffer.bytes))
                filled = 0
            }
        }
        try write(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<filled]))
    }
}
