/// Seals and opens between regular files with several workers: chunks are independent (the nonce is made
/// from the index, the additional data is the header), and every chunk's place in both files follows from
/// the header, so each worker reads, transforms and writes chunks with positioned I/O, in place in one
/// record buffer. Memory is one record per worker, within the chunk memory budget; the output is byte for
/// byte that of the sequential path, and an open fails with the same error (``ChunkVerdict``). Sealing
/// version 2 writes the final record after every other (`Spec/container-v2.md` §6). ``ChunkPipeline``
/// decides when this path applies.
package enum ParallelChunks {
    /// Seals the first `header.plaintextLength` bytes of the regular file `input` into `output` (header
    /// included), with `workerCount` workers.
    package static func seal(
        from input: FileDescriptor, to output: FileDescriptor, key: SecretBytes, header: Header, workerCount: Int,
        progress: ProgressHandler?
    ) throws {
        try describingFailure("cannot write the output") {
            try header.encode().withUnsafeBytes { try output.writeAll($0, atOffset: 0) }
        }
        let layout = header.layout
        @Sendable func sealer(_ buffer: AllocatedBytes) throws -> (UInt64) throws -> Bool {
            let cipher = try ChunkCipher(key: key, header: header)
            return { index in
                let record = UnsafeMutableRawBufferPointer(
                    rebasing: buffer.bytes[0..<layout.recordLength(ofChunk: index)])
                let plaintext = cipher.plaintextPart(of: record)
                let received = try describingFailure("cannot read the input") {
                    try input.readFully(into: plaintext, atOffset: Int64(layout.plaintextOffset(ofChunk: index)))
                }
                guard received == plaintext.count else {
                    throw GoshuinError(.io, "the input became shorter while being sealed")
                }
                try cipher.sealRecord(record, index: index, final: index == layout.finalChunk)
                try describingFailure("cannot write the output") {
                    try output.writeAll(
                        UnsafeRawBufferPointer(record), atOffset: Int64(layout.recordOffset(ofChunk: index)))
                }
                return true
            }
        }
        // Version 2's flagged record is written last, once every other is (`Spec/container-v2.md` §6): a file
        // cut at any moment never opens.
        let parallelCount = layout.version == .v2 ? layout.finalChunk : layout.chunkCount
        if parallelCount > 0 {
            try each(layout: layout, chunkLimit: parallelCount, workerCount: workerCount, progress: progress, sealer)
        }
        if parallelCount < layout.chunkCount {
            let buffer = try AllocatedBytes(
                count: layout.recordLength(ofChunk: layout.finalChunk), wipesOnRelease: true)
            _ = try sealer(buffer)(layout.finalChunk)
            progress?(.payload(bytesDone: layout.plaintextLength, bytesTotal: layout.plaintextLength))
        }
        guard (try? input.regularFileSize()) == Int64(header.plaintextLength) else {
            throw GoshuinError(.io, "the input changed size while being sealed")
        }
    }

    /// Decrypts the regular file `input`, whose structure was validated as `header`, into `output` at the
    /// payload's offsets, with `workerCount` workers; with no `output`, only authenticates every chunk.
    /// On failure `output` holds unauthenticated garbage and must be discarded.
    package static func open(
        _ input: FileDescriptor, to output: FileDescriptor?, header: Header, key: SecretBytes, workerCount: Int,
        progress: ProgressHandler?
    ) throws {
        let layout = header.layout
        try each(layout: layout, chunkLimit: layout.chunkCount, workerCount: workerCount, progress: progress) {
            buffer in
            let reader = try ChunkReader(input: input, header: header, key: key, record: buffer)
            return { index in
                guard let plaintext = try reader.authenticate(chunk: index) else { return false }
                guard let output else {
                    secureZero(plaintext)
                    return true
                }
                try describingFailure("cannot write the output") {
                    try output.writeAll(
                        UnsafeRawBufferPointer(plaintext), atOffset: Int64(layout.plaintextOffset(ofChunk: index)))
                }
                return true
            }
        }
    }

    /// Runs a chunk body on every chunk index below `chunkLimit`, on up to `workerCount` workers;
    /// `makeWorker` is called once per worker, on its thread, with its record buffer and returns the body,
    /// which says whether the chunk authenticated. Chunks after a failure are skipped, except the probe
    /// window's (``ChunkVerdict``).
    private static func each(
        layout: ContainerLayout, chunkLimit: UInt64, workerCount: Int, progress: ProgressHandler?,
        _ makeWorker: @escaping @Sendable (AllocatedBytes) throws -> (UInt64) throws -> Bool
    ) throws {
        let buffers = try workerBuffers(
            wanted: max(1, min(workerCount, Int(min(chunkLimit, 64)))), size: layout.largestRecordLength)
        let ended = WorkerPool.run(
            ChunkQueue(layout: layout, chunkLimit: chunkLimit, progress: progress), workers: buffers.count
        ) { worker in try makeWorker(buffers[worker]) }
        if let failure = ended.failure { throw failure }
        guard let failed = ended.lowestFailure else { return }
        // Every chunk below the lowest failure was processed, and every chunk of the probe window.
        throw ChunkVerdict.error(lowestFailing: failed, layout: layout) { ended.probeSuccesses & (1 << $0) != 0 }
    }

    /// One buffer of `size` bytes per worker, as many as the memory budget and the system allow, and at
    /// least one (`Spec/decisions/0010`): fewer workers rather than a failure.
    private static func workerBuffers(wanted: Int, size: Int) throws -> [AllocatedBytes] {
        var buffers = [try AllocatedBytes(count: size, wipesOnRelease: true)]
        let count = ChunkMemoryBudget.bufferCount(wanted: wanted, bufferSize: size)
        while buffers.count < count, let buffer = try? AllocatedBytes(count: size, wipesOnRelease: true) {
            buffers.append(buffer)
        }
        return buffers
    }

    /// One parallel pass over every chunk: workers take chunks in increasing order, so every chunk below the
    /// lowest failure is processed, and a worker the system does not start only makes the pass slower.
    private struct ChunkQueue: WorkQueue {
        let layout: ContainerLayout
        /// The chunks handed out: `0..<chunkLimit`.
        let chunkLimit: UInt64
        // Called holding the pool's lock, so from one worker at a time (``ProgressHandler``).
        let progress: ProgressHandler?
        private var bytesDone: UInt64 = 0
        /// The next chunk index to hand out.
        private var nextIndex: UInt64 = 0
        /// The lowest chunk that failed authentication.
        private(set) var lowestFailure: UInt64?
        /// Which chunks of the probe window (``ChunkVerdict``) authenticated (bit i for chunk i).
        private(set) var probeSuccesses: UInt64 = 0
        /// The first error a chunk threw, or a stop request.
        private(set) var failure: (any Error)?

        init(layout: ContainerLayout, chunkLimit: UInt64, progress: ProgressHandler?) {
            self.layout = layout
            self.chunkLimit = chunkLimit
            self.progress = progress
        }

        private func isProbe(_ index: UInt64) -> Bool { index < ChunkVerdict.probeWindow(layout.version) }

        mutating func next(worker: Int) -> UInt64? {
            guard !isFinished else { return nil }
            nextIndex += 1
            return nextIndex - 1
        }

        var isFinished: Bool {
            guard failure == nil, nextIndex < chunkLimit else { return true }
            // Past the lowest failure, only the probe window's chunks are still wanted.
            return !isProbe(nextIndex) && nextIndex > lowestFailure ?? .max
        }

        mutating func complete(_ index: UInt64, _ outcome: Result<Bool, any Error>) {
            switch outcome {
            case .success(true):
                if isProbe(index) { probeSuccesses |= 1 << index }
                bytesDone += UInt64(layout.plaintextLength(ofChunk: index))
                progress?(.payload(bytesDone: bytesDone, bytesTotal: layout.plaintextLength))
            case .success(false):
                lowestFailure = min(lowestFailure ?? .max, index)
            case .failure(let error):
                stop(error)
            }
        }

        mutating func stop(_ failure: any Error) { self.failure = self.failure ?? failure }

        mutating func end() { nextIndex = chunkLimit }
    }
}
