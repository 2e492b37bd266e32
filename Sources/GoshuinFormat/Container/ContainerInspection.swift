/// What can be said about a `.goshuin` file without its passphrase, in constant time: the header's fields
/// (unauthenticated), the layout they imply and a verdict from the header and the file size alone.
package struct ContainerInspection: Sendable {
    /// The file's size in bytes.
    package let fileSize: UInt64
    /// The header fields as stored; `nil` when the file is shorter than 45 bytes.
    package let fields: HeaderFields?
    /// The chunk count the header implies, when it implies one.
    package let chunkCount: UInt64?
    /// The file size the header implies, when its fields are valid.
    package let expectedFileSize: UInt64?
    /// `nil` when the header and the size are consistent; otherwise the first failing check of
    /// `Spec/container-v1.md` §7, 1–8. Length prefixes and tags are not examined.
    package let problem: GoshuinError?

    /// Inspects the regular file open at `input`, reading only its first 45 bytes.
    package init(_ input: FileDescriptor) throws {
        fileSize = try ContainerStructure.regularFileSize(of: input)
        let headerBytes = try ContainerStructure.readAt(input, offset: 0, count: Header.byteCount)
        fields = HeaderFields(parsing: headerBytes)
        chunkCount = fields?.chunkCount
        do {
            let header = try ContainerStructure.validate(headerBytes: headerBytes, fileSize: fileSize)
            expectedFileSize = header.layout.expectedFileSize
            problem = nil
        } catch let error as GoshuinError {
            problem = error
            // A size mismatch still has an expected size to show; a header error has none.
            expectedFileSize = (try? Header.decode(headerBytes))?.layout.expectedFileSize
        }
    }

    /// The stable verdict: `consistent`, or the failing check's error code.
    package var verdict: String { problem?.code.rawValue ?? "consistent" }
}
