/// A header about to be written, before the passphrase: the parameters checked, the salts drawn and, when
/// made by ``SealParameters/draft(sealingTo:plaintextLength:replaceExisting:)``, the destination checked.
/// The one way to seal with it is ``key(with:progress:)``, which checks the passphrase for sealing and
/// derives the keys (and, in version 2, the header MAC, which depends on them): a writer's "check, then
/// ask, then key, then write" is an order the compiler keeps, as ``LockedContainer`` keeps a reader's.
///
/// ```swift
/// let draft = try SealParameters(version: .v2).draft(sealingTo: "log.goshuin")   // no passphrase yet
/// let keyed = try draft.key(with: askPassphrase())
/// try keyed.seal { sealer in try sealer.write(contentsOf: "first line\n".utf8) }
/// ```
public struct HeaderDraft: Sendable {
    private enum Draft: Sendable {
        case v1(Header)
        case v2(HeaderFieldsV2, plaintextLength: UInt64?)
    }
    private let draft: Draft
    /// Where the file is to be written, when the draft was made for a path.
    var destination: SealDestination?

    init(v1 header: Header) { draft = .v1(header) }
    init(v2 fields: HeaderFieldsV2, plaintextLength: UInt64?) { draft = .v2(fields, plaintextLength: plaintextLength) }

    /// Where records lie.
    package var geometry: ChunkGeometry {
        switch draft {
        case .v1(let header): return header.layout.geometry
        case .v2(let fields, _): return ChunkGeometry(version: .v2, chunkSize: fields.chunkSize)
        }
    }

    /// The payload's length, when it was given.
    package var plaintextLength: UInt64? {
        switch draft {
        case .v1(let header): return header.plaintextLength
        case .v2(_, let length): return length
        }
    }

    /// The size of the file to be written, when the payload's length was given.
    package var fileSize: UInt64? {
        plaintextLength.map { ContainerLayout(geometry: geometry, plaintextLength: $0).expectedFileSize }
    }

    /// Checks `passphrase` for sealing, derives the keys from it (reporting the key derivation to
    /// `progress`), and completes the header (version 2's MAC).
    ///
    /// - Throws: `empty_passphrase` for an empty passphrase (it protects nothing), `passphrase_too_long`
    ///   past ``Passphrase/maximumLength`` bytes (no source could give it to open the file).
    public func key(with passphrase: Passphrase, progress: ProgressHandler? = nil) throws -> KeyedHeader {
        let passphrase = try Self.checkedForSealing(passphrase)
        switch draft {
        case .v1(let header):
            return KeyedHeader(
                bytes: header.encode(), geometry: geometry, nonceBase: header.nonceBase,
                keys: try ContainerKeys(passphrase: passphrase, header: header, progress: progress), v2Fields: nil,
                plaintextLength: header.plaintextLength, destination: destination)
        case .v2(let fields, let plaintextLength):
            let keys = try ContainerKeys(
                passphrase: passphrase, version: .v2, salt: fields.kdfSalt, payloadSalt: fields.payloadSalt,
                iterations: fields.kdfIterations, progress: progress)
            let complete = fields.withMac(try keys.headerMac(of: fields))
            return KeyedHeader(
                bytes: complete.encode(), geometry: geometry, nonceBase: [], keys: keys, v2Fields: complete,
                plaintextLength: plaintextLength, destination: destination)
        }
    }

    /// `passphrase`, if a writer may seal with it: `empty_passphrase` for an empty one (it protects nothing),
    /// `passphrase_too_long` past ``Passphrase/maximumLength`` bytes (no source could give it to open).
    package static func checkedForSealing(_ passphrase: Passphrase) throws -> Passphrase {
        guard !passphrase.isEmpty else {
            throw GoshuinError(.emptyPassphrase, "an empty passphrase protects nothing; nothing was written")
        }
        guard passphrase.bytes.count <= Passphrase.maximumLength else {
            throw GoshuinError(
                .passphraseTooLong,
                "the passphrase is longer than \(Passphrase.maximumLength) bytes, the most any source takes")
        }
        return passphrase
    }
}

/// A header with its keys: its bytes as they are written, and what seals its records. Drafted for a path,
/// it writes the file there with ``seal(progress:_:)``.
public struct KeyedHeader: Sendable {
    /// The header's bytes, the additional data of every record.
    package let bytes: [UInt8]
    /// Where records lie.
    package let geometry: ChunkGeometry
    /// Version 1's nonce base; empty in version 2.
    package let nonceBase: [UInt8]
    /// The keys.
    package let keys: ContainerKeys
    /// Version 2's complete fields.
    let v2Fields: HeaderFieldsV2?
    /// The payload's length, when the draft was given one.
    package let plaintextLength: UInt64?
    /// Where the file is to be written, when the draft was made for a path.
    let destination: SealDestination?

    /// Seals what `write` hands the sealer into a new `.goshuin` file at the path the header was drafted
    /// for: written beside it under a temporary name and moved into place only once every chunk is sealed
    /// and synced; when anything fails, `write` included, nothing is left and an existing file is untouched.
    /// Memory stays at a few chunks, on every core.
    ///
    /// - Returns: the header of the file written, its payload length the bytes written.
    /// - Throws: `io` when the payload is not the length the header was drafted for, `output_exists` when
    ///   the destination appeared meanwhile, `no_space`, `interrupted`, or what `write` throws.
    @discardableResult
    public func seal(progress: ProgressHandler? = nil, _ write: (StreamingSealer) throws -> Void) throws -> Header {
        guard let destination else {
            throw GoshuinError(
                .invalidArgument, "this header was drafted for no path; draft it with draft(sealingTo:), then seal")
        }
        return try withAtomicOutput(to: destination.path, replaceExisting: destination.replaceExisting) { output in
            let sealer = try StreamingSealer(
                into: output, header: self, plaintextLength: plaintextLength,
                workerCount: WorkerThreads.defaultWorkerCount, observer: nil, progress: progress)
            try write(sealer)
            return try sealer.finish()
        }
    }

    /// Seals the payload's `plaintextLength` bytes (the length drafted) from `input` into `output`, header
    /// included, on `workerCount` workers between regular files (``ChunkPipeline``).
    ///
    /// - Returns: the header written.
    package func seal(
        from input: FileDescriptor, to output: FileDescriptor, workerCount: Int = WorkerThreads.defaultWorkerCount,
        progress: ProgressHandler? = nil
    ) throws -> Header {
        guard let plaintextLength else {
            throw GoshuinError(.invalidArgument, "sealing from a file needs the payload's length drafted")
        }
        let header = try header(plaintextLength: plaintextLength)
        try ChunkPipeline.seal(
            from: input, to: output, key: keys.payloadKey, header: header, workerCount: workerCount, progress: progress)
        return header
    }

    /// A cipher for the records, one per thread.
    func cipher() throws -> ChunkCipher {
        try ChunkCipher(key: keys.payloadKey, geometry: geometry, headerBytes: bytes, nonceBase: nonceBase)
    }

    /// The header of the file once its payload, `plaintextLength` bytes, is sealed.
    package func header(plaintextLength: UInt64) throws -> Header {
        if let v2Fields { return try Header(validating: v2Fields, plaintextLength: plaintextLength) }
        let header = try Header.decode(bytes)
        guard header.plaintextLength == plaintextLength else {
            throw GoshuinError(
                .io,
                "the payload has \(plaintextLength) bytes where \(header.plaintextLength) were announced; it changed"
                    + " while being sealed")
        }
        return header
    }
}

/// The path a draft is sealed to, checked when the draft was made.
struct SealDestination: Sendable {
    /// The destination.
    let path: String
    /// Whether an existing regular file there is replaced.
    let replaceExisting: Bool
}
