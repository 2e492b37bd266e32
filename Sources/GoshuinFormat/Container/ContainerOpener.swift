/// Reads `.goshuin` v1 files: every check of `Spec/container-v1.md` §7 in its order, then the chunks,
/// each released to the caller only after it authenticated.
///
/// Memory stays at about two chunk buffers whatever the payload size.
package enum ContainerOpener {
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
    package static func open(
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
    package static func open(
        _ input: FileDescriptor, header: Header, key: SecretBytes, progress: ProgressHandler? = nil,
        release: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let reader = try ChunkReader(input: input, header: header, key: key)
        var bytesDone: UInt64 = 0
        for index in 0..<header.layout.chunkCount {
            guard let plaintext = try reader.authenticate(chunk: index) else {
                // Every chunk before this one authenticated: it is the lowest failing chunk.
                throw try ChunkVerdict.error(lowestFailing: index, chunkCount: header.layout.chunkCount) {
                    try reader.authenticates(chunk: $0)
                }
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

    /// Whether chunk `index` authenticates; its plaintext is wiped at once (for the verdict's probes).
    func authenticates(chunk index: UInt64) throws -> Bool {
        guard let plaintext = try authenticate(chunk: index) else { return false }
        secureZero(UnsafeMutableRawBufferPointer(mutating: plaintext))
        return true
    }
}
