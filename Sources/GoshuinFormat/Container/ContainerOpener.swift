/// Reads `.goshuin` v1 files: every check of `Spec/container-v1.md` §7 in its order, then the chunks,
/// each released to the caller only after it authenticated.
///
/// Memory stays at about two chunk buffers whatever the payload size.
public enum ContainerOpener {
    /// How many chunks, counting chunk 0, are tried before a failing chunk 0 is called a wrong passphrase
    /// (`Spec/container-v1.md` §7.1).
    public static let authenticationProbeCount: UInt64 = 4

    /// Opens the regular file at `input` with `passphrase`, handing each authenticated chunk's plaintext to
    /// `release` in order.
    ///
    /// The structure is checked (header, size, every length prefix) before the key is derived. `release`
    /// may have received a prefix of the payload when this throws: only authenticated chunks, never a byte
    /// of a failing one.
    ///
    /// - Returns: the header.
    /// - Throws: a ``GoshuinError`` with the code of the first failing check, or whatever `release` throws.
    @discardableResult
    public static func open(
        _ input: FileDescriptor, passphrase: Passphrase, progress: ProgressHandler? = nil,
        release: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Header {
        let header = try ContainerStructure.validate(input)
        let key = try KeyDerivation.deriveKey(passphrase: passphrase, header: header, progress: progress)
        try open(input, header: header, key: key, progress: progress, release: release)
        return header
    }

    /// Decrypts the chunks of a file whose structure ``ContainerStructure/validate(_:)`` accepted, with an
    /// already derived key.
    public static func open(
        _ input: FileDescriptor, header: Header, key: SecretBytes, progress: ProgressHandler? = nil,
        release: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let reader = try ChunkReader(input: input, header: header, key: key)
        var bytesDone: UInt64 = 0
        for index in 0..<header.layout.chunkCount {
            guard let plaintext = try reader.authenticate(chunk: index) else {
                // Chunks before a later failure authenticated: that is damage, not a wrong passphrase.
                throw index > 0 ? ChunkReader.damaged(index) : try reader.firstFailure(at: 0)
            }
            try release(plaintext)
            bytesDone += UInt64(plaintext.count)
            progress?(.payload(bytesDone: bytesDone, bytesTotal: header.plaintextLength))
        }
    }
}

/// Reads, checks and decrypts single chunks of one file, in place in one reused buffer.
final class ChunkReader {
    let header: Header
    let layout: ContainerLayout
    private let input: FileDescriptor
    private let cipher: ChunkCipher
    /// One chunk record; the plaintext is decrypted in place after the length prefix.
    private let record: AllocatedBytes

    init(input: FileDescriptor, header: Header, key: SecretBytes) throws {
        self.input = input
        self.header = header
        layout = header.layout
        cipher = try ChunkCipher(key: key, header: header)
        record = try AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)
    }

    /// Chunk `index`'s plaintext if it authenticates, `nil` if it does not. The buffer is valid until the
    /// next call.
    func authenticate(chunk index: UInt64) throws -> UnsafeRawBufferPointer? {
        try Interruption.check()
        let length = layout.plaintextLength(ofChunk: index)
        let recordLength = ContainerLayout.prefixLength + length + AES256GCM.tagLength
        let recordBytes = UnsafeMutableRawBufferPointer(rebasing: record.bytes[0..<recordLength])
        let offset = Int64(layout.recordOffset(ofChunk: index))
        let received: Int
        do {
            received = try input.readFully(into: recordBytes, atOffset: offset)
        } catch {
            throw error.goshuinError("cannot read the input")
        }
        guard received == recordLength else {
            throw GoshuinError(.truncated, "the file shrank while being read")
        }
        // The prefixes were checked before the key was derived; checking again guards a file changed since.
        let prefix = UInt32(bigEndian: UnsafeRawBufferPointer(recordBytes).loadUnaligned(as: UInt32.self))
        try ContainerStructure.checkPrefix(prefix, layout: layout, index: index)
        let plaintext = UnsafeMutableRawBufferPointer(
            rebasing: recordBytes[ContainerLayout.prefixLength..<ContainerLayout.prefixLength + length])
        let authenticated = try cipher.open(
            UnsafeRawBufferPointer(rebasing: recordBytes[ContainerLayout.prefixLength...]), index: index,
            into: plaintext)
        return authenticated ? UnsafeRawBufferPointer(plaintext) : nil
    }

    /// The error for chunk `index`, the first chunk to fail before any authenticated
    /// (`Spec/container-v1.md` §7.1 and §7.3): `chunk_damaged` at `index` if another of the probe's chunks
    /// 0–3 authenticates, else `auth_failed`.
    func firstFailure(at index: UInt64) throws -> GoshuinError {
        let probeEnd = min(ContainerOpener.authenticationProbeCount, layout.chunkCount)
        for probe in 0..<probeEnd where probe != index {
            if let plaintext = try authenticate(chunk: probe) {
                secureZero(UnsafeMutableRawBufferPointer(mutating: plaintext))
                return Self.damaged(index)
            }
        }
        return Self.authenticationFailed()
    }

    static func authenticationFailed() -> GoshuinError {
        GoshuinError(
            .authFailed,
            "the file does not open with this passphrase: the passphrase is wrong, or the header was altered")
    }

    static func damaged(_ index: UInt64) -> GoshuinError {
        GoshuinError(
            .chunkDamaged,
            "chunk \(index) fails authentication while other chunks authenticate: the file is damaged"
                + " (the passphrase is right)",
            chunkIndex: index)
    }
}
