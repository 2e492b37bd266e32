/// Reads, checks and decrypts single chunks of one file with positioned reads, in place in one record
/// buffer: what the streaming opener, the parallel workers and the random-access reader share.
final class ChunkReader {
    let layout: ContainerLayout
    private let input: FileDescriptor
    private let cipher: ChunkCipher
    /// One chunk record; the plaintext is decrypted in place after the length prefix.
    private let record: AllocatedBytes

    /// A reader of `input`'s chunks; `record` is the buffer to use (one is allocated when not given).
    init(input: FileDescriptor, header: Header, key: SecretBytes, record: AllocatedBytes? = nil) throws {
        self.input = input
        layout = header.layout
        cipher = try ChunkCipher(key: key, header: header)
        self.record = try record ?? AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)
    }

    /// Chunk `index`'s plaintext if it authenticates, `nil` if it does not. The buffer is valid until the
    /// next call.
    func authenticate(chunk index: UInt64) throws -> UnsafeMutableRawBufferPointer? {
        try Interruption.check()
        let recordBytes = UnsafeMutableRawBufferPointer(rebasing: record.bytes[0..<layout.recordLength(ofChunk: index)])
        let received = try describingFailure("cannot read the input") {
            try input.readFully(into: recordBytes, atOffset: Int64(layout.recordOffset(ofChunk: index)))
        }
        guard received == recordBytes.count else { throw GoshuinError.fileShrank }
        // The prefixes were checked before the key was derived; checking again guards a file changed since.
        return try cipher.openRecord(recordBytes, index: index)
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
                throw try ChunkVerdict.error(lowestFailing: index, chunkCount: layout.chunkCount) {
                    try authenticates(chunk: $0)
                }
            }
            try release(UnsafeRawBufferPointer(plaintext))
        }
    }
}
