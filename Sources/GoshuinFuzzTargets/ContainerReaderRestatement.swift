/// What a reader of both container versions must report before it derives a key, written again from
/// `Spec/container-v1.md` §7 and `Spec/container-v2.md` §7 (with `Spec/decisions/0030`), sharing no code and no
/// constant with `GoshuinFormat`.
///
/// Checks 1–3 are the same for both versions: at least 45 bytes, the magic, the version byte. The version byte
/// then chooses one version's rules, alone and once: 1 goes on with version 1's check 4, 2 with version 2's
/// check 4, anything else is `unsupported_version`. A file is never read by the other version's rules after a
/// failure under its own.
enum ContainerReaderRestatement {
    /// `GSHN`, the first four bytes of every version.
    static let magic: [UInt8] = [0x47, 0x53, 0x48, 0x4E]
    /// The bytes checks 1–3 need, and the shortest file that passes check 1: version 1's header length.
    static let sharedHeaderLength: UInt64 = 45

    /// A version this reader knows, as the version byte (byte 4) names it.
    enum Version: UInt8 {
        /// `Spec/container-v1.md`.
        case one = 1
        /// `Spec/container-v2.md`.
        case two = 2
    }

    /// The codes of the reading checks of both documents (version 1's §8 lists them all; version 2's §12 uses a
    /// subset of the same identifiers).
    static let readingErrorCodes: Set<String> = [
        "short_header", "bad_magic", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range",
        "empty_payload", "too_many_chunks", "truncated", "trailing_data", "chunk_length_invalid", "auth_failed",
        "chunk_damaged",
    ]

    /// What the version byte chose, with the layout that version's checks derived.
    enum Structure {
        /// A version 1 file and its layout (`Spec/container-v1.md` §3).
        case one(ContainerSpecRestatement.Layout)
        /// A version 2 file and its layout (`Spec/container-v2.md` §3).
        case two(ContainerV2SpecRestatement.Layout)
    }

    /// Checks 1–3 of a file of `fileSize` bytes that starts with `headerBytes`: the file (the bytes known of it)
    /// has at least 45 bytes, starts with the magic, and names version 1 or 2.
    static func checkVersion(headerBytes: [UInt8], fileSize: UInt64) -> Result<Version, SpecRejection> {
        guard min(fileSize, UInt64(headerBytes.count)) >= sharedHeaderLength else {
            return .failure(SpecRejection(code: "short_header"))
        }
        guard Array(headerBytes[0..<4]) == magic else { return .failure(SpecRejection(code: "bad_magic")) }
        guard let version = Version(rawValue: headerBytes[4]) else {
            return .failure(SpecRejection(code: "unsupported_version"))
        }
        return .success(version)
    }

    /// The checks of the header and the file size, in order: version 1's 1–8, version 2's 1–8. What a reader
    /// can say without a key and without reading past the header (`inspect`).
    static func checkHeaderAndSize(headerBytes: [UInt8], fileSize: UInt64) -> Result<Structure, SpecRejection> {
        checkVersion(headerBytes: headerBytes, fileSize: fileSize).flatMap { version in
            switch version {
            case .one:
                return ContainerSpecRestatement.checkFields(headerBytes).flatMap { layout in
                    ContainerSpecRestatement.checkSize(fileSize, of: layout).map { .failure($0) }
                        ?? .success(.one(layout))
                }
            case .two:
                return ContainerV2SpecRestatement.checkHeaderAndSize(headerBytes: headerBytes, fileSize: fileSize)
                    .map { .two($0) }
            }
        }
    }

    /// ``checkHeaderAndSize(headerBytes:fileSize:)`` of a whole file.
    static func checkHeaderAndSize(of file: [UInt8]) -> Result<Structure, SpecRejection> {
        checkHeaderAndSize(headerBytes: file, fileSize: UInt64(file.count))
    }

    /// Every check before the key, in order: version 1's 1–9 (its length prefixes too), version 2's 1–8.
    static func checkStructure(of file: [UInt8]) -> Result<Structure, SpecRejection> {
        checkHeaderAndSize(of: file).flatMap { structure in
            guard case .one(let layout) = structure else { return .success(structure) }
            return ContainerSpecRestatement.checkPrefixes(of: file, layout: layout).map { .failure($0) }
                ?? .success(structure)
        }
    }

    /// The unsigned big-endian integer in `bytes` (at most 8 of them).
    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
