/// The checks that need no key, for both versions (`Spec/container-v1.md` §7, checks 1–9;
/// `Spec/container-v2.md` §7, checks 1–8): the header, chosen by its version byte alone, the file size and,
/// in version 1, every length prefix, read at offsets computed from the header.
package enum ContainerStructure {
    /// The bytes a reader reads before it knows the version: enough for the longest header.
    package static let headerReadLength = FormatVersion.v2.headerLength

    /// Checks 1–8 of either version, in order, of a file of `fileSize` bytes whose first bytes are
    /// `headerBytes` (at least its header's length of them, when the file has them); returns the header.
    package static func validate(headerBytes: some Collection<UInt8>, fileSize: UInt64) throws -> Header {
        let version = try self.version(headerBytes: headerBytes, fileSize: fileSize)
        switch version {
        case .v1:
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
        case .v2:
            let fields = try v2Fields(headerBytes: headerBytes, fileSize: fileSize)
            let layout = try ContainerLayout.v2(chunkSize: fields.chunkSize, fileSize: fileSize)
            return try Header(validating: fields, plaintextLength: layout.plaintextLength)
        }
    }

    /// Checks 1–3, shared by both versions: at least 45 bytes, the magic, a version this toolkit reads.
    package static func version(headerBytes: some Collection<UInt8>, fileSize: UInt64) throws -> FormatVersion {
        let bytes = Array(headerBytes.prefix(Header.byteCount))
        guard fileSize >= UInt64(Header.byteCount), bytes.count == Header.byteCount else {
            throw GoshuinError(
                .shortHeader, "the file has \(fileSize) bytes, fewer than the 45 bytes every header starts with")
        }
        guard Array(bytes[0..<4]) == Header.magic else {
            throw GoshuinError(.badMagic, "the file does not start with GSHN: it is not a .goshuin file")
        }
        guard let version = FormatVersion(rawValue: bytes[4]) else { throw GoshuinError.unsupportedVersion(bytes[4]) }
        return version
    }

    /// How many bytes of a file that starts with `head` (its first 77 bytes, or all of it when shorter) can
    /// decide what a reader makes of it, so that a reader handed a stream may stop there
    /// (`Spec/decisions/0014`): the header alone when one of its own checks fails; for a valid version 1
    /// header, the file size it declares and one byte more (which makes `trailing_data`); for a valid
    /// version 2 header, whose layout is the file's size, the first size that implies more than 2^32 records
    /// (`too_many_chunks`): no practical bound, but the only honest one.
    package static func decidingLength(ofFileStartingWith head: [UInt8]) -> UInt64 {
        let size = UInt64(head.count)
        guard let version = try? version(headerBytes: head, fileSize: size) else { return UInt64(Header.byteCount) }
        switch version {
        case .v1:
            guard let header = try? Header.decode(head) else { return UInt64(Header.byteCount) }
            return header.layout.expectedFileSize + 1
        case .v2:
            guard let fields = try? v2Fields(headerBytes: head, fileSize: size) else {
                return UInt64(FormatVersion.v2.headerLength)
            }
            let record = UInt64(ChunkGeometry(version: .v2, chunkSize: fields.chunkSize).fullRecordLength)
            return UInt64(FormatVersion.v2.headerLength) + Header.maximumChunkCount * record
        }
    }

    /// Checks 4–6 of version 2: the whole 77-byte header, the iterations and the chunk size in bounds.
    package static func v2Fields(headerBytes: some Collection<UInt8>, fileSize: UInt64) throws -> HeaderFieldsV2 {
        guard fileSize >= UInt64(FormatVersion.v2.headerLength), let fields = HeaderFieldsV2(parsing: headerBytes)
        else {
            throw GoshuinError(
                .shortHeader, "the file has \(fileSize) bytes, fewer than the 77-byte header of format version 2")
        }
        try fields.validate()
        return fields
    }

    /// Every check that needs no key, of the regular file open at `input`: returns its header.
    ///
    /// Reads the header and, in version 1, each 4-byte length prefix with positioned reads; nothing is
    /// sized from a prefix. The position of `input` is not used.
    package static func validate(_ input: FileDescriptor) throws -> Header {
        let fileSize = try regularFileSize(of: input)
        let headerBytes = try FileSystem.read(input, at: 0, count: headerReadLength)
        let header = try validate(headerBytes: headerBytes, fileSize: fileSize)
        if header.version == .v1 { try validatePrefixes(input, layout: header.layout) }
        return header
    }

    /// Version 1's check 9: every length prefix equals its chunk's plaintext length plus 16.
    static func validatePrefixes(_ input: FileDescriptor, layout: ContainerLayout) throws {
        var prefix: UInt32 = 0
        for index in 0..<layout.chunkCount {
            let offset = Int64(layout.recordOffset(ofChunk: index))
            let count = try describingFailure("cannot read the input") {
                try withUnsafeMutableBytes(of: &prefix) { try input.readFully(into: $0, atOffset: offset) }
            }
            guard count == ChunkGeometry.v1PrefixLength else { throw GoshuinError.fileShrank }
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

}
