/// The package's shorthand for writing `.goshuin` files of either version (``SealParameters/version``)
/// between descriptors: the header, then the payload chunk by chunk (`Spec/container-v1.md` §5–6,
/// `Spec/container-v2.md` §5–6). Memory stays at about one chunk record per worker whatever the payload
/// size.
package enum ContainerSealer {
    /// Seals `plaintextLength` bytes read from `input` into `output`, with `workerCount` workers when both
    /// are regular files (``ChunkPipeline``), under the passphrase `passphrase` gives, which is evaluated
    /// only after the parameters passed their bounds (``HeaderDraft``).
    ///
    /// The input must deliver exactly `plaintextLength` bytes from its position: fewer or more is an `io`
    /// error, because the length is in the header and in every chunk's authentication (version 1) or in the
    /// final record's place (version 2). Each file gets fresh random salts (and version 1's nonce base).
    ///
    /// - Returns: the header written.
    /// - Throws: `empty_payload` for a zero length in version 1 (version 2 seals an empty payload), the
    ///   header's bound errors, `empty_passphrase`, `passphrase_too_long`, `io` or `no_space` on a read or
    ///   write failure.
    @discardableResult
    package static func seal(
        from input: FileDescriptor, plaintextLength: UInt64, to output: FileDescriptor,
        passphrase: @autoclosure () throws -> Passphrase, parameters: SealParameters = SealParameters(),
        workerCount: Int = WorkerThreads.defaultWorkerCount, progress: ProgressHandler? = nil
    ) throws -> Header {
        try parameters.draft(plaintextLength: plaintextLength).key(with: passphrase(), progress: progress).seal(
            from: input, to: output, workerCount: workerCount, progress: progress)
    }

    /// Seals `header.plaintextLength` bytes from `input`'s position into `output` in order, with an already
    /// derived key: the sequential path, for streams.
    package static func seal(
        from input: FileDescriptor, to output: FileDescriptor, key: SecretBytes, header: Header,
        progress: ProgressHandler? = nil
    ) throws {
        let layout = header.layout
        let cipher = try ChunkCipher(key: key, header: header)
        // One chunk record: the plaintext is read after the prefix and encrypted in place.
        let buffer = try AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)
        try describingFailure("cannot write the output") { try output.writeAll(header.encode()) }
        var bytesDone: UInt64 = 0
        for index in 0..<layout.chunkCount {
            try Interruption.check()
            let record = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<layout.recordLength(ofChunk: index)])
            let plaintext = cipher.plaintextPart(of: record)
            let received = try describingFailure("cannot read the input") { try input.readFully(into: plaintext) }
            guard received == plaintext.count else {
                throw GoshuinError(
                    .io,
                    "the input ended after \(bytesDone + UInt64(received)) of \(header.plaintextLength) bytes;"
                        + " it changed while being sealed")
            }
            try cipher.sealRecord(record, index: index, final: index == layout.finalChunk)
            try describingFailure("cannot write the output") { try output.writeAll(UnsafeRawBufferPointer(record)) }
            bytesDone += UInt64(plaintext.count)
            progress?(.payload(bytesDone: bytesDone, bytesTotal: header.plaintextLength))
        }
        var probe: UInt8 = 0
        let extra = try describingFailure("cannot read the input") {
            try withUnsafeMutableBytes(of: &probe) { try input.read(into: $0) }
        }
        guard extra == 0 else {
            throw GoshuinError(.io, "the input grew beyond \(header.plaintextLength) bytes while being sealed")
        }
    }
}
