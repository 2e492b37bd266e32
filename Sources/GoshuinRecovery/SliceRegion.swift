import GoshuinFormat

/// A region of a file read as a slice: `available` bytes from `start`, then zeros up to the slice size (the
/// padding of a short last slice, or what a cut file no longer holds).
struct SliceRegion: Sendable {
    /// The file.
    let file: FileDescriptor
    /// The offset of the slice's first byte.
    let start: UInt64
    /// How many of the slice's bytes the file holds.
    let available: Int
    /// Says which file in messages.
    let name: String

    /// Fills `buffer` with the slice's bytes from `offset` on (zeros past ``available``). A file that ends
    /// before ``available`` reads as zeros when `toleratingShortFiles` (a damaged file being verified),
    /// and is an `io` error otherwise (a file changed while being protected).
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer, toleratingShortFiles: Bool) throws {
        let wanted = max(0, min(buffer.count, available - offset))
        var received = 0
        if wanted > 0 {
            received = try describingFailure("cannot read \(DisplayText.quoted(name))") {
                try file.readFully(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]),
                    atOffset: Int64(start) + Int64(offset))
            }
            guard received == wanted || toleratingShortFiles else {
                throw GoshuinError(.io, "\(DisplayText.quoted(name)) shrank while being read")
            }
        }
        if received < buffer.count {
            UnsafeMutableRawBufferPointer(rebasing: buffer[received...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
    }
}
