import GoshuinFormat

/// A mistake that another implementation's sealer is known to make, recognised in a vector's file: the
/// first record that does not authenticate as the spec says does authenticate when opened the mistaken way,
/// so it was sealed that way (making it authenticate otherwise would need the key and a forgery).
package struct VectorDiagnosis: Sendable, Equatable {
    /// The mistakes recognised, by identifiers that stay the same for programs to compare.
    package enum Cause: String, Sendable, CaseIterable {
        /// The chunk index is written little-endian in the nonce.
        case nonceByteOrder = "nonce_byte_order"
        /// Version 2: the last record is sealed without the final flag.
        case finalFlagMissing = "final_flag_missing"
        /// Version 2: a record that is not the last is sealed with the final flag.
        case finalFlagTooEarly = "final_flag_too_early"
        /// Version 2: a payload whose length is a multiple of the chunk size ends without its empty final
        /// record, its last full record flagged instead.
        case emptyFinalRecordMissing = "empty_final_record_missing"
        /// The header is not passed as additional authenticated data.
        case additionalDataMissing = "aad_missing"
        /// Version 2: the additional data is the header without its MAC.
        case additionalDataWithoutHeaderMac = "aad_without_header_mac"
    }

    /// The mistake.
    package let cause: Cause
    /// What was found, and what the spec says instead.
    package let explanation: String
}

/// Tries the known mistakes (``VectorDiagnosis/Cause``) on a vector's file under the key its passphrase
/// gives. Nothing is diagnosed for a file that fails a check before the key (its structure), whose version
/// 2 header MAC does not verify, or whose every record authenticates: the mismatch is elsewhere.
struct VectorDiagnoser {
    /// The vector's `.goshuin` file, read at offsets.
    let file: FileDescriptor
    /// `K_pw`, from the vector's passphrase, salt and iterations.
    let passphraseKey: SecretBytes

    /// What the file shows, most often nothing or one cause.
    func diagnose() -> [VectorDiagnosis] {
        guard let size = try? ContainerStructure.regularFileSize(of: file),
            let headerBytes = try? FileSystem.read(
                file, at: 0, count: ContainerStructure.headerReadLength),
            let version = try? ContainerStructure.version(headerBytes: headerBytes, fileSize: size)
        else { return [] }
        switch version {
        case .v1: return (try? diagnoseV1()) ?? []
        case .v2: return (try? diagnoseV2(headerBytes: headerBytes, fileSize: size)) ?? []
        }
    }

    /// One way to form a record's nonce and additional data.
    private struct Opening {
        var littleEndianIndex = false
        /// Version 2's flag; `nil` for the one the record's place gives it.
        var flag: UInt8?
        /// The additional data; `nil` for the whole header.
        var additionalData: [UInt8]?
    }

    private func diagnoseV1() throws -> [VectorDiagnosis] {
        let header = try ContainerStructure.validate(file)
        let layout = header.layout
        let reader = try RecordReader(file: file, key: passphraseKey, layout: layout, headerBytes: header.encode())
        guard let lowest = try reader.lowestFailing(count: layout.chunkCount) else { return [] }
        return try mistakesOfEveryVersion(reader, lowest)
    }

    /// The mistakes both versions can show at record `lowest`, the first that fails: the index's byte order
    /// in the nonce, and no additional data.
    private func mistakesOfEveryVersion(_ reader: RecordReader, _ lowest: UInt64) throws -> [VectorDiagnosis] {
        let v1 = reader.layout.version == .v1
        let (unit, spec) = v1 ? ("chunk", "container-v1.md") : ("record", "container-v2.md")
        var found: [VectorDiagnosis] = []
        if reader.indexBytes(lowest, littleEndian: true) != reader.indexBytes(lowest, littleEndian: false),
            try reader.authenticates(lowest, Opening(littleEndianIndex: true))
        {
            found.append(
                VectorDiagnosis(
                    cause: .nonceByteOrder,
                    explanation:
                        "\(unit) \(lowest) authenticates with its index little-endian in the nonce"
                        + " (\(reader.nonceText(lowest, littleEndian: true))), not big-endian"
                        + " (\(reader.nonceText(lowest, littleEndian: false))): the implementation that made this"
                        + " vector writes the \(unit) index in the wrong byte order (\(spec) §5: nonce"
                        + (v1 ? " = nonceBase ‖ u32be(i))" : "_i = 00×7 ‖ u32be(i) ‖ f)")))
        }
        if try reader.authenticates(lowest, Opening(additionalData: [])) {
            found.append(
                VectorDiagnosis(
                    cause: .additionalDataMissing,
                    explanation:
                        "\(unit) \(lowest) authenticates with no additional data: the implementation that made this"
                        + " vector does not pass the header as the AAD (\(spec) §5: AAD = the"
                        + (v1
                            ? " 45 header bytes, exactly as stored)"
                            : " 77 header bytes, exactly as stored, headerMac included)")))
        }
        return found
    }

    private func diagnoseV2(headerBytes: [UInt8], fileSize: UInt64) throws -> [VectorDiagnosis] {
        let fields = try ContainerStructure.v2Fields(headerBytes: headerBytes, fileSize: fileSize)
        let keys = try ContainerKeys(passphraseKey: passphraseKey, version: .v2, payloadSalt: fields.payloadSalt)
        guard try keys.verifiesHeader(fields) else { return [] }
        let geometry = ChunkGeometry(version: .v2, chunkSize: fields.chunkSize)
        let body = fileSize - UInt64(FormatVersion.v2.headerLength)
        let full = UInt64(geometry.fullRecordLength)
        guard body / full < Header.maximumChunkCount else { return [] }
        if body % full == 0, body > 0 {
            // Cut at a record boundary (check 8): the last full record, sealed as the final one?
            let layout = ContainerLayout(geometry: geometry, plaintextLength: body / full * UInt64(geometry.chunkSize))
            let reader = try RecordReader(
                file: file, key: keys.payloadKey, layout: layout, headerBytes: fields.encode())
            let last = body / full - 1
            guard try reader.authenticates(last, Opening(flag: 1)) else { return [] }
            return [
                VectorDiagnosis(
                    cause: .emptyFinalRecordMissing,
                    explanation:
                        "the file ends at a record boundary, and its last full record (\(last)) authenticates"
                        + " with the final flag: the implementation that made this vector leaves out the empty"
                        + " final record that ends a payload whose length is a multiple of chunkSize"
                        + " (container-v2.md §5, §10.3)")
            ]
        }
        guard let layout = try? ContainerLayout.v2(chunkSize: fields.chunkSize, fileSize: fileSize) else { return [] }
        let reader = try RecordReader(file: file, key: keys.payloadKey, layout: layout, headerBytes: fields.encode())
        guard let lowest = try reader.lowestFailing(count: layout.chunkCount) else { return [] }
        var found = try mistakesOfEveryVersion(reader, lowest)
        let isLast = lowest == layout.finalChunk
        if try reader.authenticates(lowest, Opening(flag: isLast ? 0 : 1)) {
            found.append(
                isLast
                    ? VectorDiagnosis(
                        cause: .finalFlagMissing,
                        explanation:
                            "record \(lowest), the last, authenticates with f = 00 in its nonce: the implementation"
                            + " that made this vector does not set the final flag on the last record"
                            + " (container-v2.md §5: f = 01 for i = n − 1)")
                    : VectorDiagnosis(
                        cause: .finalFlagTooEarly,
                        explanation:
                            "record \(lowest) authenticates with f = 01 in its nonce although"
                            + " \(layout.finalChunk - lowest) more follow it: the implementation that made this"
                            + " vector sets the final flag on a record that is not the last (container-v2.md §5:"
                            + " f = 01 for i = n − 1 only)"))
        }
        if try reader.authenticates(lowest, Opening(additionalData: fields.authenticatedBytes)) {
            found.append(
                VectorDiagnosis(
                    cause: .additionalDataWithoutHeaderMac,
                    explanation:
                        "record \(lowest) authenticates with header bytes 0 … 44 as its AAD: the implementation"
                        + " that made this vector leaves headerMac out of the AAD (container-v2.md §5, §10.7: the"
                        + " AAD is all 77 header bytes)"))
        }
        return found
    }

    /// Reads and authenticates one file's records, the spec's way or a mistaken one.
    private struct RecordReader {
        let file: FileDescriptor
        let cipher: AES256GCM
        let layout: ContainerLayout
        let headerBytes: [UInt8]

        init(file: FileDescriptor, key: SecretBytes, layout: ContainerLayout, headerBytes: [UInt8]) throws {
            self.file = file
            cipher = try AES256GCM(key: key)
            self.layout = layout
            self.headerBytes = headerBytes
        }

        /// The lowest of records 0 … count − 1 that does not authenticate the spec's way; `nil` if all do.
        func lowestFailing(count: UInt64) throws -> UInt64? {
            for index in 0..<count {
                try Interruption.check()
                if try !authenticates(index, Opening()) { return index }
            }
            return nil
        }

        /// The four bytes of `index` in the nonce, in either order.
        func indexBytes(_ index: UInt64, littleEndian: Bool) -> [UInt8] {
            let bigEndian = (0..<4).map { UInt8(truncatingIfNeeded: index >> (24 - 8 * UInt64($0))) }
            return littleEndian ? bigEndian.reversed() : bigEndian
        }

        func nonce(_ index: UInt64, _ opening: Opening) -> [UInt8] {
            let indexPart = indexBytes(index, littleEndian: opening.littleEndianIndex)
            switch layout.version {
            case .v1: return Array(headerBytes[25..<33]) + indexPart
            case .v2:
                let flag = opening.flag ?? (index == layout.finalChunk ? 1 : 0)
                return [UInt8](repeating: 0, count: 7) + indexPart + [flag]
            }
        }

        /// The nonce as hex, its parts apart: `nonceBase index` or `zeros index flag`.
        func nonceText(_ index: UInt64, littleEndian: Bool) -> String {
            let bytes = nonce(index, Opening(littleEndianIndex: littleEndian))
            let cuts = layout.version == .v1 ? [0, 8, 12] : [0, 7, 11, 12]
            return zip(cuts, cuts.dropFirst()).map { Hex.encode(Array(bytes[$0..<$1])) }.joined(separator: " ")
        }

        /// Whether record `index` authenticates when opened as `opening` says.
        func authenticates(_ index: UInt64, _ opening: Opening) throws -> Bool {
            let length = layout.recordLength(ofChunk: index)
            var record = try FileSystem.read(
                file, at: Int64(layout.recordOffset(ofChunk: index)), count: length)
            guard record.count == length else { return false }
            let start = layout.geometry.plaintextStart
            let tagStart = length - AES256GCM.tagLength
            var plaintext = [UInt8](repeating: 0, count: tagStart - start)
            defer {
                SecretBytes.wipe(&plaintext)
                SecretBytes.wipe(&record)
            }
            let nonce = self.nonce(index, opening)
            let additionalData = opening.additionalData ?? headerBytes
            return try record.withUnsafeBytes { bytes in
                try nonce.withUnsafeBytes { nonceBytes in
                    try additionalData.withUnsafeBytes { aad in
                        try plaintext.withUnsafeMutableBytes { output in
                            try cipher.open(
                                UnsafeRawBufferPointer(rebasing: bytes[start..<tagStart]),
                                tag: UnsafeRawBufferPointer(rebasing: bytes[tagStart...]), nonce: nonceBytes,
                                additionalData: aad, plaintext: output)
                        }
                    }
                }
            }
        }
    }
}
