import GoshuinFormat

/// Where a byte of a `.goshuin` file falls: a header field, or a part of a chunk record.
package enum VectorRunLocation {
    /// The header fields of each version, with the offset each ends at.
    private static let fields: [FormatVersion: [(name: String, end: UInt64)]] = [
        .v1: [
            ("magic", 4), ("version", 5), ("kdfIterations", 9), ("salt", 25), ("nonceBase", 33), ("chunkSize", 37),
            ("plaintextLength", 45),
        ],
        .v2: [
            ("magic", 4), ("version", 5), ("kdfIterations", 9), ("kdfSalt", 25), ("payloadSalt", 41),
            ("chunkSize", 45), ("headerMac", 77),
        ],
    ]

    /// `at offset N, in the header field F`, or `at offset N, in chunk I: byte B of its record, PART`, for a
    /// version 1 file of chunks of `chunkSize` and a payload of `length` bytes.
    package static func describe(_ offset: UInt64, chunkSize: UInt32, length: UInt64) -> String {
        describe(offset, layout: ContainerLayout(chunkSize: chunkSize, plaintextLength: max(length, 1)))
    }

    /// Where `offset` falls in a file with `layout`.
    package static func describe(_ offset: UInt64, layout: ContainerLayout) -> String {
        if let field = fields[layout.version]?.first(where: { offset < $0.end }) {
            return "at offset \(offset), in the header field \(field.name)"
        }
        let geometry = layout.geometry
        let index = (offset - UInt64(layout.version.headerLength)) / UInt64(geometry.fullRecordLength)
        guard index < layout.chunkCount else { return "at offset \(offset), after the last chunk" }
        let within = offset - layout.recordOffset(ofChunk: index)
        let start = UInt64(geometry.plaintextStart)
        let plaintext = UInt64(layout.plaintextLength(ofChunk: index))
        let part =
            within < start
            ? "its length prefix"
            : within < start + plaintext
                ? "its ciphertext, byte \(within - start)" : "its tag, byte \(within - start - plaintext)"
        return "at offset \(offset), in chunk \(index): byte \(within) of its record, \(part)"
    }
}
