/// Random access to the payload of a `.goshuin` file: decrypts only the chunks a read needs, each
/// authenticated before any of its bytes is used, with a small cache of decrypted chunks.
///
/// Made by an unlocked container (``UnlockedContainer/reader()``: version 1's checks 1–9, version 2's
/// checks 1–9, the header MAC included), which verifies the final chunk first, confirming the payload
/// length. A chunk that fails is judged by the file's one
/// verdict (``ChunkVerdict``): the chunks before it are authenticated to find the lowest failing one, so
/// the error is the one every other reader gives, whatever the order of the reads.
///
/// Memory: one chunk record for decrypting, and up to ``cachedChunkLimit`` decrypted chunks, fewer when
/// chunks are so large that more would pass the chunk memory budget (`Spec/decisions/0010`).
public final class DecryptingReader: RandomAccessSource {
    /// The most decrypted chunks kept: enough for the chunks a writing and a hashing thread still hold while
    /// the next is read.
    package static let cachedChunkLimit = 4

    /// The header, authenticated once the reader exists (its final chunk authenticated with it as AAD).
    package let header: Header
    /// The payload's length, confirmed by its final chunk.
    public var size: UInt64 { header.plaintextLength }

    /// How many chunk decryptions the reader has done (cache hits excluded).
    package private(set) var decryptionCount = 0
    /// The lowest chunk index decrypted so far.
    package private(set) var lowestChunkDecrypted: UInt64?

    private let reader: ChunkReader
    /// Decrypted chunks, least recently used first: each a record decrypted in place, its plaintext at the
    /// geometry's plaintext start, lent to whoever borrowed a piece of it (``forEachLentPiece(at:count:_:)``);
    /// a slot's memory is reused once the cache is full and every borrower gave it back.
    private var cache: [(index: UInt64, slot: BufferLoan)] = []
    private let cacheLimit: Int
    /// Decrypts the next chunk on another thread while the caller reads in order; `nil` where the memory
    /// budget leaves no room for its two buffers. Stopped before the file it reads may close (`deinit`).
    private var prefetcher: ChunkPrefetcher?
    /// The file, when the container that made this reader opened it itself.
    private let openedFile: OpenedFile?
    /// The chunk decrypted last, to tell reading in order from jumping about.
    private var lastChunk: UInt64?
    /// Whether a chunk that fails is simply unreadable (salvage, which knows which chunks are intact), not
    /// the occasion for the file's verdict.
    private let salvaging: Bool

    /// Opens the regular file at `input` with `passphrase`, evaluated once the structure passed.
    ///
    /// - Parameter authenticatingFinalChunkFirst: authenticate the final chunk now, which confirms the
    ///   payload length before anything relies on it (the default, as for reading a ZIP from its end); a
    ///   caller that reads the payload from the start may leave it to ``confirmEnd()`` after its last read.
    package convenience init(
        _ input: FileDescriptor, passphrase: @autoclosure () throws -> Passphrase,
        authenticatingFinalChunkFirst: Bool = true, progress: ProgressHandler? = nil
    ) throws {
        let container = try LockedContainer(checking: input).unlock(with: passphrase(), progress: progress)
        try self.init(
            input, header: container.header, key: container.payloadKey,
            authenticatingFinalChunkFirst: authenticatingFinalChunkFirst)
    }

    /// A reader over `input`, whose structure was validated as `header`, with its key already derived;
    /// `keepingOpen` is the file, when the reader holds it open.
    package init(
        _ input: FileDescriptor, header: Header, key: SecretBytes, authenticatingFinalChunkFirst: Bool,
        salvaging: Bool = false, keepingOpen openedFile: OpenedFile? = nil
    ) throws {
        self.header = header
        self.openedFile = openedFile
        self.salvaging = salvaging
        let layout = header.layout
        // The decrypting record counts against the budget too, hence one buffer more than cached; the
        // prefetcher's record and slot come only where the budget holds them and two cached chunks.
        let budget = ChunkMemoryBudget.bufferCount(
            wanted: Self.cachedChunkLimit + 3, bufferSize: layout.largestRecordLength)
        let prefetching = layout.chunkCount > 1 && budget >= 5
        cacheLimit = max(1, min(Self.cachedChunkLimit, budget - 1 - (prefetching ? 2 : 0)))
        reader = try ChunkReader(input: input, header: header, key: key)
        prefetcher = prefetching ? try ChunkPrefetcher.start(input: input, header: header, key: key) : nil
        // An empty payload has nothing to read that would reach its final chunk. A salvage has judged every
        // chunk already, and its final chunk may be the damaged or missing one.
        let confirmsEmptyPayload = layout.plaintextLength == 0 && !salvaging
        if authenticatingFinalChunkFirst || confirmsEmptyPayload { _ = try chunk(layout.finalChunk) }
    }

    // The prefetching thread reads the file: it ends before the file may close with `openedFile`.
    deinit { prefetcher = nil }

    /// Authenticates the final chunk, which alone confirms that the payload ends where its length says
    /// (`Spec/container-v2.md` §9.1, §10.3): what a caller that read the payload from the start without
    /// authenticating the final chunk first does after its last read, since version 2's final chunk may hold
    /// no byte for any read to reach.
    package func confirmEnd() throws { _ = try chunk(header.layout.finalChunk) }

    /// Hands `body` up to `count` payload bytes from `offset`: fewer only at the end of the payload, none past
    /// it. Every byte comes from a chunk that authenticated; `body` sees them in a copy made for it, valid
    /// during the call and wiped afterwards.
    ///
    /// - Returns: what `body` returns.
    public func read<Result>(at offset: UInt64, count: Int, _ body: (Span<UInt8>) throws -> Result) throws -> Result {
        let wanted = offset < size && count > 0 ? Int(min(UInt64(count), size - offset)) : 0
        let copy = try AllocatedBytes(count: wanted, wipesOnRelease: true)
        let filled = try read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: copy.bytes[0..<wanted]))
        return try withExtendedLifetime(copy) {
            try body(UnsafeRawBufferPointer(rebasing: copy.bytes[0..<filled]).assumingMemoryBound(to: UInt8.self).span)
        }
    }

    /// Up to `count` payload bytes from `offset`, in an array (which nothing wipes): for the package's
    /// readers of the ZIP's structure.
    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < size, count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(min(UInt64(count), size - offset)))
        _ = try bytes.withUnsafeMutableBytes { try read(at: offset, into: $0) }
        return bytes
    }

    /// Reads payload bytes at `offset` into `buffer`; fewer than asked only at the end of the payload.
    package func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < size, buffer.count > 0 else { return 0 }
        let layout = header.layout
        var copied = 0
        var position = offset
        while copied < buffer.count, position < size {
            let index = layout.chunkIndex(containing: position)
            let plaintext = try chunk(index)
            let start = Int(position - layout.plaintextOffset(ofChunk: index))
            let count = min(plaintext.count - start, buffer.count - copied)
            UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<copied + count]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: plaintext[start..<start + count]))
            copied += count
            position += UInt64(count)
        }
        return copied
    }

    /// What the final chunk says of the payload's last bytes.
    package enum FinalBytes {
        /// The last bytes asked for, from a final chunk that authenticated.
        case authentic([UInt8])
        /// The final chunk holds fewer bytes than asked for: the chunk before it is needed too.
        case chunkTooShort
        /// The final chunk does not authenticate; the file's verdict needs the other chunks.
        case failsAuthentication
    }

    /// The payload's last `count` bytes from its final chunk alone, decrypted in a buffer of that chunk's
    /// size: for a look at the end of a payload that costs no more memory than its final chunk.
    package static func finalBytes(_ input: FileDescriptor, header: Header, key: SecretBytes, count: Int) throws
        -> FinalBytes
    {
        let layout = header.layout
        let last = layout.chunkCount - 1
        guard layout.plaintextLength(ofChunk: last) >= count else { return .chunkTooShort }
        let record = try AllocatedBytes(count: layout.recordLength(ofChunk: last), wipesOnRelease: true)
        guard
            let plaintext = try ChunkReader(input: input, header: header, key: key, record: record).authenticate(
                chunk: last)
        else { return .failsAuthentication }
        return .authentic(Array(plaintext.suffix(count)))
    }

    /// Hands `body` the payload's bytes at `offset` straight from the decrypted chunks, a chunk's part at a
    /// time: no copy. Each piece is valid during its call.
    package func forEachPiece(at offset: UInt64, count: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Void)
        throws -> Bool
    {
        try forEachLentPiece(at: offset, count: count) { try body($0.bytes) }
    }

    /// Lends `body` the payload's bytes at `offset` in the decrypted chunks themselves, a chunk's part at a
    /// time: a piece borrowed (``BufferLoan/borrow()``) stays as it is until given back, however many
    /// chunks are read meanwhile, and the chunk's memory is reused only after that.
    package func forEachLentPiece(at offset: UInt64, count: UInt64, _ body: (LentBytes) throws -> Void) throws
        -> Bool
    {
        let layout = header.layout
        var position = offset
        let end = offset.addingReportingOverflow(count)
        guard !end.overflow else { return false }
        while position < min(end.partialValue, size) {
            let index = layout.chunkIndex(containing: position)
            let (plaintext, slot) = try lentChunk(index)
            let start = Int(position - layout.plaintextOffset(ofChunk: index))
            let length = Int(min(UInt64(plaintext.count - start), end.partialValue - position))
            try body(LentBytes(UnsafeRawBufferPointer(rebasing: plaintext[start..<start + length]), in: slot))
            position += UInt64(length)
        }
        return end.partialValue <= size
    }

    /// Authenticates every chunk, in order, keeping none: throws the file's verdict (``ChunkVerdict``) when
    /// one fails. For a reader that found a fault in the payload and must first know that the container
    /// opens.
    package func authenticateEveryChunk() throws {
        try reader.authenticateInOrder { secureZero(UnsafeMutableRawBufferPointer(mutating: $0)) }
    }

    /// The plaintext of chunk `index`, from the cache or decrypted and authenticated now; valid until the
    /// next call.
    private func chunk(_ index: UInt64) throws -> UnsafeRawBufferPointer { try lentChunk(index).plaintext }

    /// The plaintext of chunk `index` and the slot that holds it, from the cache or decrypted and
    /// authenticated now; valid until the next call, and as long as a borrower holds the slot.
    private func lentChunk(_ index: UInt64) throws -> (plaintext: UnsafeRawBufferPointer, slot: BufferLoan) {
        let length = header.layout.plaintextLength(ofChunk: index)
        let start = header.layout.geometry.plaintextStart
        func plaintext(_ slot: BufferLoan) -> (plaintext: UnsafeRawBufferPointer, slot: BufferLoan) {
            (UnsafeRawBufferPointer(rebasing: slot.buffer.bytes[start..<start + length]), slot)
        }
        if let hit = cache.firstIndex(where: { $0.index == index }) {
            let entry = cache.remove(at: hit)
            cache.append(entry)
            return plaintext(entry.slot)
        }
        decryptionCount += 1
        lowestChunkDecrypted = min(lowestChunkDecrypted ?? index, index)
        defer {
            // Reading in order: the next chunk is decrypted meanwhile, on the other thread.
            if let prefetcher, lastChunk.map({ $0 + 1 == index }) ?? (index == 0) { prefetcher.prefetch(index + 1) }
            lastChunk = index
        }
        // The least recently used slot, once whoever borrowed a piece of it gave it back.
        let freeSlot = { [self] () throws -> AllocatedBytes in
            guard cache.count >= cacheLimit else {
                return try AllocatedBytes(count: header.layout.largestRecordLength, wipesOnRelease: true)
            }
            let evicted = cache.removeFirst().slot
            evicted.waitUntilReturned()
            return evicted.buffer
        }
        do {
            return try decrypt(index, into: freeSlot, plaintext: plaintext)
        } catch let error as GoshuinError where salvaging && error.code == .chunkLengthInvalid {
            // Salvage counts a chunk with a wrong length prefix as damaged, like one that fails its tag.
            throw GoshuinError.chunkDamaged(index, in: header.layout)
        }
    }

    /// Chunk `index` decrypted and authenticated: from the prefetcher when it holds it, else here, in place in
    /// the slot that caches it.
    private func decrypt(
        _ index: UInt64, into freeSlot: () throws -> AllocatedBytes,
        plaintext: (BufferLoan) -> (plaintext: UnsafeRawBufferPointer, slot: BufferLoan)
    ) throws -> (plaintext: UnsafeRawBufferPointer, slot: BufferLoan) {
        switch try prefetcher?.take(index, replacement: freeSlot) {
        case .authentic(let buffer)?:
            let slot = BufferLoan(buffer)
            cache.append((index, slot))
            return plaintext(slot)
        case .failsAuthentication?:
            throw try verdict(failing: index)
        case nil:
            break
        }
        // Decrypted in place in the slot that caches it: no copy.
        let buffer = try freeSlot()
        guard try reader.authenticate(chunk: index, in: buffer) != nil else { throw try verdict(failing: index) }
        let slot = BufferLoan(buffer)
        cache.append((index, slot))
        return plaintext(slot)
    }

    /// The file's verdict when chunk `index` fails (``ChunkVerdict``), the chunks before it tried in order;
    /// when salvaging, that this chunk is damaged.
    private func verdict(failing index: UInt64) throws -> GoshuinError {
        if salvaging { return .chunkDamaged(index, in: header.layout) }
        return try ChunkVerdict.error(failing: index, layout: header.layout) {
            try reader.authenticates(chunk: $0)
        }
    }
}
