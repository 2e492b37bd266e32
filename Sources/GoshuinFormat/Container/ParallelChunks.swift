import Synchronization

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
        func sealer(_ buffer: AllocatedBytes) throws -> (UInt64) throws -> Bool {
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
            try Run(layout: layout, chunkLimit: parallelCount, progress: progress).each(
                workerCount: workerCount, sealer)
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
        try Run(layout: layout, chunkLimit: layout.chunkCount, progress: progress).each(workerCount: workerCount) {
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

    /// One parallel pass over every chunk: the shared state of the workers.
    private final class Run: Sendable {
        let layout: ContainerLayout
        /// The chunks handed out: `0..<chunkLimit`.
        let chunkLimit: UInt64
        // Called only while `bytesDone` is locked, so from one worker at a time (``ProgressHandler``).
        private let progress: ProgressHandler?
        private let bytesDone = Mutex<UInt64>(0)
        /// The next chunk index to hand out: workers take chunks in increasing order.
        private let nextIndex = Atomic<Int>(0)
        /// The lowest chunk that failed authentication, `Int.max` while none did. (Signed on purpose: with
        /// Swift 6.3.1, `min` on an `Atomic<UInt64>` holding `UInt64.max` was seen never to lower it.)
        private let firstFailure = Atomic<Int>(.max)
        /// Which chunks of the probe window (``ChunkVerdict``) authenticated (bit i for chunk i).
        private let probeSuccesses = Atomic<UInt64>(0)
        private let error = Mutex<Error?>(nil)

        init(layout: ContainerLayout, chunkLimit: UInt64, progress: ProgressHandler?) {
            self.layout = layout
            self.chunkLimit = chunkLimit
            self.progress = progress
        }

        /// Runs a chunk body on every chunk index; `makeWorker` is called once per worker with its record
        /// buffer and returns the body, which says whether the chunk authenticated. Chunks after a failure
        /// are skipped, except the probe window's.
        ///
        /// Workers take the next index from a shared counter, so every chunk below the lowest failure is
        /// processed, and a worker the system does not start (a memory limit) only makes the run slower.
        func each(
            workerCount: Int,
            _ makeWorker: (AllocatedBytes) throws -> (UInt64) throws -> Bool
        ) throws {
            let buffers = try Self.workerBuffers(
                wanted: max(1, min(workerCount, Int(min(chunkLimit, 64)))), size: layout.largestRecordLength)
            let workers = try buffers.map { try makeWorker($0) }
            let shared = SharedWorkers(workers)
            WorkerThreads.run(workers.count) { worker in
                self.work(shared.workers[worker])
            }
            if let failure = error.withLock({ $0 }) { throw failure }
            let failed = firstFailure.load(ordering: .relaxed)
            guard failed != .max else { return }
            // Every chunk below the lowest failure was processed, and every chunk of the probe window.
            let probed = probeSuccesses.load(ordering: .relaxed)
            throw ChunkVerdict.error(lowestFailing: UInt64(failed), layout: layout) {
                probed & (1 << $0) != 0
            }
        }

        private func work(_ body: (UInt64) throws -> Bool) {
            do {
                while error.withLock({ $0 == nil }) {
                    let taken = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
                    let index = UInt64(taken)
                    guard index < chunkLimit else { return }
                    let isProbe = index < ChunkVerdict.probeWindow(layout.version)
                    if !isProbe && taken > firstFailure.load(ordering: .relaxed) { return }
                    try Interruption.check()
                    if try body(index) {
                        if isProbe { probeSuccesses.bitwiseOr(1 << index, ordering: .relaxed) }
                        report(UInt64(layout.plaintextLength(ofChunk: index)))
                    } else {
                        firstFailure.min(taken, ordering: .relaxed)
                    }
                }
            } catch {
                self.error.withLock { if $0 == nil { $0 = error } }
            }
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

        private func report(_ bytes: UInt64) {
            bytesDone.withLock { done in
                done += bytes
                progress?(.payload(bytesDone: done, bytesTotal: layout.plaintextLength))
            }
        }
    }

    /// The workers' chunk bodies, each used by one thread only.
    private final class SharedWorkers: @unchecked Sendable {
        // @unchecked: worker i's body, cipher and buffer are touched by thread i alone.
        let workers: [(UInt64) throws -> Bool]
        init(_ workers: [(UInt64) throws -> Bool]) { self.workers = workers }
    }
}
