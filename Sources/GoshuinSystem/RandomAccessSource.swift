/// Bytes that can be read at any offset: a file, or a decrypted payload read chunk by chunk.
package protocol RandomAccessSource: AnyObject {
    /// The number of bytes.
    var size: UInt64 { get }

    /// Reads up to `buffer.count` bytes starting at `offset`; returns how many were read (fewer only at the
    /// end). Throws a ``GoshuinError``.
    func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// Hands `body` the `count` bytes at `offset` in consecutive pieces, each valid during its call, without
    /// copying them where the source can; false, after handing what there is, if the source ends first.
    func forEachPiece(at offset: UInt64, count: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws
        -> Bool

    /// Like ``forEachPiece(at:count:_:)``, but each piece is lent: a consumer may borrow it
    /// (``BufferLoan/borrow()``) and use it on another thread until it gives it back; the source writes into
    /// a lent buffer again only once every borrower has.
    func forEachLentPiece(at offset: UInt64, count: UInt64, _ body: (LentBytes) throws -> Void) throws -> Bool
}

extension RandomAccessSource {
    /// Reads the pieces through a buffer of 64 KiB: for sources that have nothing to lend.
    package func forEachPiece(at offset: UInt64, count: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Void)
        throws -> Bool
    {
        let buffer = try AllocatedBytes(count: Int(min(count, 1 << 16)), wipesOnRelease: true)
        var done: UInt64 = 0
        while done < count {
            let wanted = Int(min(UInt64(buffer.bytes.count), count - done))
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<wanted])
            guard try readExactly(at: offset + done, into: piece) else { return false }
            try body(UnsafeRawBufferPointer(piece))
            done += UInt64(wanted)
        }
        return true
    }

    /// Lends the pieces of one buffer of 64 KiB, waiting after each piece until its borrowers gave it back:
    /// for sources that have nothing to lend.
    package func forEachLentPiece(at offset: UInt64, count: UInt64, _ body: (LentBytes) throws -> Void) throws
        -> Bool
    {
        let loan = BufferLoan(try AllocatedBytes(count: Int(min(count, 1 << 16)), wipesOnRelease: true))
        var done: UInt64 = 0
        while done < count {
            let wanted = Int(min(UInt64(loan.buffer.bytes.count), count - done))
            let piece = UnsafeMutableRawBufferPointer(rebasing: loan.buffer.bytes[0..<wanted])
            guard try readExactly(at: offset + done, into: piece) else { return false }
            defer { loan.waitUntilReturned() }
            try body(LentBytes(UnsafeRawBufferPointer(piece), in: loan))
            done += UInt64(wanted)
        }
        return true
    }

    /// Exactly `count` bytes at `offset`, or `nil` if the source ends first.
    package func readExactly(at offset: UInt64, count: Int) throws -> [UInt8]? {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let filled = try bytes.withUnsafeMutableBytes { buffer in try readExactly(at: offset, into: buffer) }
        return filled ? bytes : nil
    }

    /// Fills `buffer` with the bytes at `offset`; false if the source ends first.
    package func readExactly(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Bool {
        guard offset <= size, UInt64(buffer.count) <= size - offset else { return false }
        var filled = 0
        while filled < buffer.count {
            let received = try read(
                at: offset + UInt64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if received == 0 { return false }
            filled += received
        }
        return true
    }
}

/// A regular file read with positioned reads; the descriptor is not owned.
package final class FileSource: RandomAccessSource {
    /// The descriptor read from.
    package let descriptor: FileDescriptor
    /// The file's size when the source was made.
    package let size: UInt64

    /// A source over the regular file open at `descriptor`.
    package init(_ descriptor: FileDescriptor) throws {
        self.descriptor = descriptor
        let size = try describingFailure("cannot examine a file") { try descriptor.regularFileSize() }
        guard let size else { throw GoshuinError(.invalidArgument, "not a regular file") }
        self.size = UInt64(size)
    }

    /// Reads with `pread`, looping over short reads.
    package func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let start = Int64(exactly: offset) else { return 0 }
        return try describingFailure("cannot read a file") { try descriptor.readFully(into: buffer, atOffset: start) }
    }
}
