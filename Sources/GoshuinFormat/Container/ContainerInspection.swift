/// What can be said about a `.goshuin` file without its passphrase, in constant time: the header's fields
/// (unauthenticated), the layout they and the file's size imply, and a verdict from the header and the
/// size alone (`Spec/container-v1.md` §7 checks 1–8; `Spec/container-v2.md` §9.2, checks 1–8).
package struct ContainerInspection: Sendable {
    /// The header's fields as stored.
    package enum StoredFields: Sendable {
        /// A version 1 header's 45 bytes.
        case v1(HeaderFields)
        /// A version 2 header's 77 bytes; its MAC unverified.
        case v2(HeaderFieldsV2)
        /// The first bytes of a header whose version this toolkit does not read, or a version 2 header cut
        /// short: the magic and the version byte.
        case start(magic: [UInt8], version: UInt8)

        /// Bytes 0–3.
        package var magic: [UInt8] {
            switch self {
            case .v1(let fields): return fields.magic
            case .v2(let fields): return fields.magic
            case .start(let magic, _): return magic
            }
        }
        /// Byte 4.
        package var version: UInt8 {
            switch self {
            case .v1(let fields): return fields.version
            case .v2(let fields): return fields.version
            case .start(_, let version): return version
            }
        }
    }

    /// The file's size in bytes.
    package let fileSize: UInt64
    /// The header fields as stored; `nil` when the file is shorter than 45 bytes.
    package let fields: StoredFields?
    /// The chunk count the header (version 1) or the size (version 2) implies, when it implies one.
    package let chunkCount: UInt64?
    /// Version 1: the file size the header implies, when its fields are valid.
    package let expectedFileSize: UInt64?
    /// Version 2: the payload length the size implies, when checks 1–8 pass.
    package let impliedPlaintextLength: UInt64?
    /// Version 2: the size of the last record, when checks 1–7 pass.
    package let lastRecordLength: UInt64?
    /// `nil` when the header and the size are consistent; otherwise the first failing check. Length prefixes,
    /// tags and the MAC are not examined.
    package let problem: GoshuinError?

    /// Inspects the regular file open at `input`, reading only its header.
    package init(_ input: FileDescriptor) throws {
        fileSize = try ContainerStructure.regularFileSize(of: input)
        let headerBytes = try FileSystem.read(input, at: 0, count: ContainerStructure.headerReadLength)
        if let v1 = HeaderFields(parsing: headerBytes), v1.version == FormatVersion.v1.rawValue {
            fields = .v1(v1)
        } else if let v2 = HeaderFieldsV2(parsing: headerBytes), v2.version == FormatVersion.v2.rawValue {
            fields = .v2(v2)
        } else if headerBytes.count >= 5 {
            fields = .start(magic: Array(headerBytes[0..<4]), version: headerBytes[4])
        } else {
            fields = nil
        }
        var problem: GoshuinError?
        do {
            _ = try ContainerStructure.validate(headerBytes: headerBytes, fileSize: fileSize)
        } catch let error as GoshuinError {
            problem = error
        }
        self.problem = problem
        switch fields {
        case .v1(let v1):
            chunkCount = v1.chunkCount
            // A size mismatch still has an expected size to show; a header error has none.
            expectedFileSize = (try? Header(validating: v1))?.layout.expectedFileSize
            (impliedPlaintextLength, lastRecordLength) = (nil, nil)
        case .v2(let v2) where Header.chunkSizeRange.contains(v2.chunkSize):
            let geometry = ChunkGeometry(version: .v2, chunkSize: v2.chunkSize)
            let body = fileSize - UInt64(FormatVersion.v2.headerLength)
            let records = body / UInt64(geometry.fullRecordLength) + 1
            let last = body - (records - 1) * UInt64(geometry.fullRecordLength)
            chunkCount = records
            lastRecordLength = last
            impliedPlaintextLength =
                problem == nil ? (records - 1) * UInt64(v2.chunkSize) + last - UInt64(AES256GCM.tagLength) : nil
            expectedFileSize = nil
        default:
            (chunkCount, expectedFileSize, impliedPlaintextLength, lastRecordLength) = (nil, nil, nil, nil)
        }
    }

    /// The stable verdict: `consistent`, or the failing check's error code.
    package var verdict: String { problem?.code.rawValue ?? "consistent" }
}
