/// The checks that need no key (`Spec/container-v1.md` §7, checks 1–9): the header, the file size and
/// every length prefix, read at offsets computed from the header.
package enum ContainerStructure {
    /// Checks 1–8 of a header and file size, in order; returns the header.
    ///
    /// - Parameter headerBytes: the first bytes of the file, at most 45 are looked at.
    package static func validate(headerBytes: some Collection<UInt8>, fileSize: UInt64) throws -> Header {
        if fileSize < UInt64(Header.byteCount) {
            throw GoshuinError(.shortHeader, "the file has \(fileSize) bytes, fewer than the 45-byte header")
        }
        let header = try Header.decode(headerBytes)
        let expected = header.layout.expectedFileSize
        if fileSize < expected {
            throw GoshuinError(
                .truncated,
                "the file has \(fileSize) bytes but its header describes \(expected): it was cut short"
                    + " (an interrupted copy or download?)")
        }
        if fileSize > expected {
            throw GoshuinError(
                .trailingData,
                "the file has \(fileSize) bytes but its header describes \(expected): \(fileSize - expected)"
                    + " unexpected bytes follow the last chunk")
        }
        return header
    }

    /// Checks 1–9 of the regular file open at `input`; returns its header.
    ///
    /// Reads the header and each 4-byte length prefix with positioned reads; nothing is sized from a
    /// prefix. The position of `input` is not used.
    package static func validate(_ input: FileDescriptor) throws -> Header {
        let fileSize = try regularFileSize(of: input)
        let headerBytes = try readAt(input, offset: 0, count: Header.byteCount)
        let header = try validate(headerBytes: headerBytes, fileSize: fileSize)
        try validatePrefixes(input, layout: header.layout)
        return header
    }

    /// Check 9: every length prefix equals its chunk's plaintext length plus 16.
    static func validatePrefixes(_ input: FileDescriptor, layout: ContainerLayout) throws {
        var prefix: UInt32 = 0
        for index in 0..<layout.chunkCount {
            let offset = Int64(layout.recordOffset(ofChunk: index))
            let count = try describingFailure("cannot read the input") {
                try withUnsafeMutableBytes(of: &prefix) { try input.readFully(into: $0, atOffset: offset) }
            }
            guard count == ContainerLayout.prefixLength else { throw GoshuinError.fileShrank }
            try layout.checkPrefix(UInt32(bigEndian: prefix), ofChunk: index)
        }
    }

    /// The size of the regular file at `input`; `invalid_argument` for a pipe or device.
    package static func regularFileSize(of input: FileDescriptor) throws -> UInt64 {
        let size = try describingFailure("cannot examine the input") { try input.regularFileSize() }
        guard let size else {
            throw GoshuinError(
                .invalidArgument, "the input is not a regular file; a .goshuin file is read by its size and offsets")
        }
        return UInt64(size)
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    package static func readAt(_ input: FileDescriptor, offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let received = try describingFailure("cannot read the input") {
            try bytes.withUnsafeMutableBytes { try input.readFully(into: $0, atOffset: offset) }
        }
        return Array(bytes[0..<received])
    }
}
