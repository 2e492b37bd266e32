/// Reads, checks and decrypts single chunks of one file with positioned reads, in place in one record
/// buffer: what the streaming opener, the parallel workers and the random-access reader share.
final class ChunkReader {
    let layout: ContainerLayout
    private let input: FileDescriptor
    private let cipher: ChunkCipher
    /// The record buffer of ``authenticate(chunk:)``, made when first needed (given, or allocated then).
    private var record: AllocatedBytes?

    /// A reader of `input`'s chunks; `record` is the buffer to use (one is allocated when first needed when
    /// not given).
    init(input: FileDescriptor, header: Header, key: SecretBytes, record: AllocatedBytes? = nil) throws {
        self.input = input
        layout = header.layout
        cipher = try ChunkCipher(key: key, header: header)
        self.record = record
    }

    /// Chunk `index`'s plaintext if it authenticates, `nil` if it does not. The buffer is valid until the
    /// next call.
    func authenticate(chunk index: UInt64) throws -> UnsafeMutableRawBufferPointer? {
        if record == nil { record = try AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true) }
        guard let record else { preconditionFailure("allocated above") }
        return try authenticate(chunk: index, in: record)
    }

    /// Chunk `index`'s plaintext, decrypted in `buffer` (at least the chunk's record long), if it
    /// authenticates; `nil` if it does not. The plaintext lies at ``ChunkGeometry/plaintextStart`` in it.
    func authenticate(chunk index: UInt64, in buffer: AllocatedBytes) throws -> UnsafeMutableRawBufferPointer? {
        try Interruption.check()
        let recordBytes = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<layout.recordLength(ofChunk: index)])
        let received = try describingFailure("cannot read the input") {
            try input.readFully(into: recordBytes, atOffset: Int64(layout.recordOffset(ofChunk: index)))
        }
        guard received == recordBytes.count else { throw GoshuinError.fileShrank }
        // Version 1's prefixes were checked before the key was derived; checking again guards a file changed
        // since.
        return try cipher.openRecord(recordBytes, index: index, final: index == layout.finalChunk)
    }

    /// Whether chunk `index` authenticates; its plaintext is wiped at once (for the verdict's probes).
    func authenticates(chunk index: UInt64) throws -> Bool {
        guard let plaintext = try authenticate(chunk: index) else { return false }
        secureZero(plaintext)
        return true
    }

    /// Authenticates every chunk in order, handing each plaintext to `release` (valid during the call);
    /// at the first that fails, throws the file's verdict (``ChunkVerdict``): every chunk before it
    /// authenticated, so it is the lowest failing one.
    func authenticateInOrder(release: (UnsafeRawBufferPointer) throws -> Void) throws {
        for index in 0..<layout.chunkCount {
            guard let plaintext = try authenticate(chunk: index) else {
                throw try ChunkVerdict.error(lowestFailing: index, layout: layout) {
                    try authenticates(chunk: $0)
                }
            }
            try release(UnsafeRawBufferPointer(plaintext))
        }
    }
}
