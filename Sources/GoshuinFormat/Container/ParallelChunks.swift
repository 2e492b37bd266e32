import Dispatch
import Glibc
import Synchronization

/// Seals and opens between regular files with several workers: chunks are independent (the nonce is
/// `nonceBase ‖ index`, the additional data the header), and every chunk's place in both files follows
/// from the header, so each worker reads, transforms and writes its chunks with positioned I/O, in place
/// in one buffer. Memory is one chunk record per worker, within the chunk memory budget; the output is
/// byte for byte that of the sequential path, and an open fails with the same error
/// (`Spec/container-v1.md` §7.1).
package enum ParallelChunks {
    /// Workers used by default: the online processors, at most 8.
    package static var defaultWorkerCount: Int { max(1, min(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 8)) }

    /// Whether the positioned path gives what the streaming one would: both descriptors regular files at
    /// position 0, the input exactly `inputSize` bytes long when given. (With one worker it is still the
    /// faster path between files: in place, no copy between buffers.)
    static func applies(input: FileDescriptor, output: FileDescriptor, inputSize: UInt64? = nil, workerCount: Int)
        -> Bool
    {
        guard workerCount >= 1, input.position() == 0, output.position() == 0,
            let size = (try? input.regularFileSize()).flatMap({ $0 }), (try? output.regularFileSize()) != nil
        else { return false }
        return inputSize.map { UInt64(size) == $0 } ?? true
    }

    /// Seals the first `header.plaintextLength` bytes of the regular file `input` into `output` (header
    /// included), with `workerCount` workers.
    package static func seal(
        from input: FileDescriptor, to output: FileDescriptor, key: SecretBytes, header: Header, workerCount: Int,
        progress: ProgressHandler?
    ) throws {
        do {
            try header.encode().withUnsafeBytes { try output.writeAll($0, atOffset: 0) }
        } catch let error as Errno {
            throw error.goshuinError("cannot write the output")
        }
        let layout = header.layout
        let run = Run(layout: layout, progress: progress)
        try run.each(workerCount: workerCount, key: key, header: header) { cipher, buffer, index in
            let length = layout.plaintextLength(ofChunk: index)
            let record = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<ContainerLayout.prefixLength + length + 16])
            let plaintext = UnsafeMutableRawBufferPointer(rebasing: record[4..<4 + length])
            let received: Int
            do {
                received = try input.readFully(into: plaintext, atOffset: Int64(layout.plaintextOffset(ofChunk: index)))
            } catch let error as Errno {
                throw error.goshuinError("cannot read the input")
            }
            guard received == length else {
                throw GoshuinError(.io, "the input became shorter while being sealed")
            }
            record.storeBytes(of: layout.expectedPrefix(ofChunk: index).bigEndian, as: UInt32.self)
            try cipher.seal(
                UnsafeRawBufferPointer(plaintext), index: index,
                into: UnsafeMutableRawBufferPointer(rebasing: record[4...]))
            do {
                try output.writeAll(
                    UnsafeRawBufferPointer(record), atOffset: Int64(layout.recordOffset(ofChunk: index)))
            } catch let error as Errno {
                throw error.goshuinError("cannot write the output")
            }
            return true
        }
        guard (try? input.regularFileSize()).flatMap({ $0 }) == Int64(header.plaintextLength) else {
            throw GoshuinError(.io, "the input changed size while being sealed")
        }
    }

    /// Decrypts the regular file `input`, whose structure was validated as `header`, into `output` at the
    /// payload's offsets, with `workerCount` workers; with no `output`, only authenticates every chunk (what
    /// `verify` does). On failure `output` holds unauthenticated garbage and must be discarded (it is an
    /// ``AtomicOutput`` in every caller).
    package static func open(
        _ input: FileDescriptor, to output: FileDescriptor?, header: Header, key: SecretBytes, workerCount: Int,
        progress: ProgressHandler?
    ) throws {
        let layout = header.layout
        let run = Run(layout: layout, progress: progress)
        try run.each(workerCount: workerCount, key: key, header: header) { cipher, buffer, index in
            let length = layout.plaintextLength(ofChunk: index)
            let record = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<ContainerLayout.prefixLength + length + 16])
            let received: Int
            do {
                received = try input.readFully(into: record, atOffset: Int64(layout.recordOffset(ofChunk: index)))
            } catch let error as Errno {
                throw error.goshuinError("cannot read the input")
            }
            guard received == record.count else { throw GoshuinError(.truncated, "the file shrank while being read") }
            let prefix = UInt32(bigEndian: UnsafeRawBufferPointer(record).loadUnaligned(as: UInt32.self))
            try ContainerStructure.checkPrefix(prefix, layout: layout, index: index)
            let plaintext = UnsafeMutableRawBufferPointer(rebasing: record[4..<4 + length])
            guard try cipher.open(UnsafeRawBufferPointer(rebasing: record[4...]), index: index, into: plaintext) else {
                return false
            }
            guard let output else {
                secureZero(plaintext)
                return true
            }
            do {
                try output.writeAll(
                    UnsafeRawBufferPointer(plaintext), atOffset: Int64(layout.plaintextOffset(ofChunk: index)))
            } catch let error as Errno {
                throw error.goshuinError("cannot write the output")
            }
            return true
        }
    }

    /// One parallel pass over every chunk: the shared state of the workers.
    private final class Run: Sendable {
        let layout: ContainerLayout
        // Called only while `bytesDone` is locked, so from one worker at a time.
        private nonisolated(unsafe) let progress: ProgressHandler?
        private let bytesDone = Mutex<UInt64>(0)
        /// The lowest chunk that failed authentication, `Int.max` while none did. (Signed on purpose: with
        /// Swift 6.3.1, `min` on an `Atomic<UInt64>` holding `UInt64.max` was seen never to lower it.)
        private let firstFailure = Atomic<Int>(.max)
        /// Which chunks of the probe window (``ChunkVerdict``) authenticated (bit i for chunk i).
        private let probeSuccesses = Atomic<UInt64>(0)
        private let error = Mutex<Error?>(nil)

        init(layout: ContainerLayout, progress: ProgressHandler?) {
            self.layout = layout
            self.progress = progress
        }

        /// Runs `body` on every chunk index, worker `w` taking `w, w + n, w + 2n, …`; `body` returns whether
        /// the chunk authenticated. Chunks after a failure are skipped, except the probe's first chunks.
        func each(
            workerCount: Int, key: SecretBytes, header: Header,
            _ body: @Sendable (ChunkCipher, UnsafeMutableRawBufferPointer, UInt64) throws -> Bool
        ) throws {
            let buffers = try Self.workerBuffers(
                wanted: max(1, min(workerCount, Int(min(layout.chunkCount, 64)))), size: layout.largestRecordLength)
            let workers = buffers.count
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let buffer = buffers[worker].bytes
                do {
                    let cipher = try ChunkCipher(key: key, header: header)
                    var index = UInt64(worker)
                    while index < layout.chunkCount, error.withLock({ $0 == nil }) {
                        let isProbe = index < ChunkVerdict.probeWindow
                        if !isProbe && Int(index) > firstFailure.load(ordering: .relaxed) { break }
                        try Interruption.check()
                        if try body(cipher, buffer, index) {
                            if isProbe { probeSuccesses.bitwiseOr(1 << index, ordering: .relaxed) }
                            report(UInt64(layout.plaintextLength(ofChunk: index)))
                        } else {
                            firstFailure.min(Int(index), ordering: .relaxed)
                        }
                        index += UInt64(workers)
                    }
                } catch {
                    self.error.withLock { if $0 == nil { $0 = error } }
                }
            }
            if let failure = error.withLock({ $0 }) { throw failure }
            let failed = firstFailure.load(ordering: .relaxed)
            guard failed != .max else { return }
            // Every chunk below the lowest failure was processed, and every chunk of the probe window.
            let probed = probeSuccesses.load(ordering: .relaxed)
            throw ChunkVerdict.error(lowestFailing: UInt64(failed), chunkCount: layout.chunkCount) {
                probed & (1 << $0) != 0
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
}
