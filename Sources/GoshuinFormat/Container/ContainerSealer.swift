/// Writes `.goshuin` v1 files: the header, then the payload chunk by chunk (`Spec/container-v1.md` §5–6).
///
/// Memory stays at about two chunk buffers whatever the payload size.
package enum ContainerSealer {
    /// Seals `plaintextLength` bytes read from `input` into `output` under `passphrase`.
    ///
    /// The key is derived from the passphrase with a fresh salt (or the fixed one in `parameters`).
    /// `input` must deliver exactly `plaintextLength` bytes: fewer or more is an `io` error, because the
    /// length is in the header and in every chunk's authentication.
    ///
    /// When both are regular files at position 0 and the input is exactly `plaintextLength` bytes,
    /// `workerCount` workers seal chunks in parallel with positioned I/O (the bytes are the same).
    ///
    /// - Returns: the header written.
    /// - Throws: `empty_payload` for a zero length, the header's bound errors, `io` on a read or write failure.
    @discardableResult
    package static func seal(
        from input: FileDescriptor, plaintextLength: UInt64, to output: FileDescriptor, passphrase: Passphrase,
        parameters: SealParameters = SealParameters(), workerCount: Int = ParallelChunks.defaultWorkerCount,
        progress: ProgressHandler? = nil
    ) throws -> Header {
        guard !passphrase.isEmpty else {
            throw GoshuinError(.emptyPassphrase, "an empty passphrase protects nothing; nothing was written")
        }
        guard passphrase.bytes.count <= Passphrase.maximumLength else {
            throw GoshuinError(
                .passphraseTooLong,
                "the passphrase is longer than \(Passphrase.maximumLength) bytes, the most any source takes")
        }
        let header = try parameters.makeHeader(plaintextLength: plaintextLength)
        let key = try KeyDerivation.deriveKey(passphrase: passphrase, header: header, progress: progress)
        if ParallelChunks.applies(input: input, output: output, inputSize: plaintextLength, workerCount: workerCount) {
            try ParallelChunks.seal(
                from: input, to: output, key: key, header: header, workerCount: workerCount, progress: progress)
        } else {
            try seal(from: input, to: output, key: key, header: header, progress: progress)
        }
        return header
    }

    /// Seals `header.plaintextLength` bytes from `input` into `output` with an already derived key.
    package static func seal(
        from input: FileDescriptor, to output: FileDescriptor, key: SecretBytes, header: Header,
        progress: ProgressHandler? = nil
    ) throws {
        let layout = header.layout
        let cipher = try ChunkCipher(key: key, header: header)
        // One chunk record: the plaintext is read after the prefix and encrypted in place.
        let record = try AllocatedBytes(count: layout.largestRecordLength, wipesOnRelease: true)
        do {
            try output.writeAll(header.encode())
        } catch {
            throw error.goshuinError("cannot write the output")
        }
        var bytesDone: UInt64 = 0
        for index in 0..<layout.chunkCount {
            try Interruption.check()
            let length = layout.plaintextLength(ofChunk: index)
            let recordLength = ContainerLayout.prefixLength + length + AES256GCM.tagLength
            let chunk = UnsafeMutableRawBufferPointer(
                rebasing: record.bytes[ContainerLayout.prefixLength..<ContainerLayout.prefixLength + length])
            let received: Int
            do {
                received = try input.readFully(into: chunk)
            } catch {
                throw error.goshuinError("cannot read the input")
            }
            guard received == length else {
                throw GoshuinError(
                    .io,
                    "the input ended after \(bytesDone + UInt64(received)) of \(header.plaintextLength) bytes;"
                        + " it changed while being sealed")
            }
            record.bytes.storeBytes(of: layout.expectedPrefix(ofChunk: index).bigEndian, as: UInt32.self)
            try cipher.seal(
                UnsafeRawBufferPointer(chunk), index: index,
                into: UnsafeMutableRawBufferPointer(rebasing: record.bytes[ContainerLayout.prefixLength..<recordLength])
            )
            do {
                try output.writeAll(UnsafeRawBufferPointer(rebasing: record.bytes[0..<recordLength]))
            } catch {
                throw error.goshuinError("cannot write the output")
            }
            bytesDone += UInt64(length)
            progress?(.payload(bytesDone: bytesDone, bytesTotal: header.plaintextLength))
        }
        try requireEndOfInput(input, after: header.plaintextLength)
    }

    private static func requireEndOfInput(_ input: FileDescriptor, after length: UInt64) throws {
        var probe: UInt8 = 0
        let extra: Int
        do {
            extra = try withUnsafeMutableBytes(of: &probe) { (buffer) throws(Errno) in try input.read(into: buffer) }
        } catch {
            throw error.goshuinError("cannot read the input")
        }
        guard extra == 0 else {
            throw GoshuinError(.io, "the input grew beyond \(length) bytes while being sealed")
        }
    }
}
