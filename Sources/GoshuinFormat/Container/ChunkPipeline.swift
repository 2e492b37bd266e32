/// The one place that chooses how every chunk of a file is sealed or opened: in parallel with positioned
/// I/O between regular files (``ParallelChunks``), in order otherwise. Both paths give the same bytes and,
/// when opening fails, the same error (``ChunkVerdict``).
package enum ChunkPipeline {
    /// Seals `header.plaintextLength` bytes of `input` into `output`, header included.
    package static func seal(
        from input: FileDescriptor, to output: FileDescriptor, key: SecretBytes, header: Header, workerCount: Int,
        progress: ProgressHandler?
    ) throws {
        if isPositioned(input, exactSize: header.plaintextLength), isPositioned(output), workerCount >= 1 {
            try ParallelChunks.seal(
                from: input, to: output, key: key, header: header, workerCount: workerCount, progress: progress)
        } else {
            try ContainerSealer.seal(from: input, to: output, key: key, header: header, progress: progress)
        }
    }

    /// Decrypts the chunks of `input`, whose structure was validated as `header`, into `output`; with no
    /// `output`, only authenticates them.
    package static func open(
        _ input: FileDescriptor, to output: FileDescriptor?, header: Header, key: SecretBytes, workerCount: Int,
        progress: ProgressHandler?
    ) throws {
        // The input is always read with positioned reads; the output decides.
        if output.map({ isPositioned($0) }) ?? true, workerCount >= 1 {
            try ParallelChunks.open(
                input, to: output, header: header, key: key, workerCount: workerCount, progress: progress)
        } else if let output {
            try inOrder(input, header: header, key: key, progress: progress) { plaintext in
                try describingFailure("cannot write the payload") { try output.writeAll(plaintext) }
            }
        }
    }

    /// Authenticates every chunk of `input` in order, handing each plaintext to `release` as soon as it
    /// authenticated; throws the file's verdict at the first that fails.
    package static func inOrder(
        _ input: FileDescriptor, header: Header, key: SecretBytes, progress: ProgressHandler?,
        release: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var bytesDone: UInt64 = 0
        try ChunkReader(input: input, header: header, key: key).authenticateInOrder { plaintext in
            try release(plaintext)
            bytesDone += UInt64(plaintext.count)
            progress?(.payload(bytesDone: bytesDone, bytesTotal: header.plaintextLength))
        }
    }

    /// Whether `descriptor` can be written or read at offsets computed from the header: a regular file at
    /// position 0 (and exactly `exactSize` bytes long, when given), not a pipe or a terminal.
    private static func isPositioned(_ descriptor: FileDescriptor, exactSize: UInt64? = nil) -> Bool {
        guard descriptor.position() == 0, let size = (try? descriptor.regularFileSize()) ?? nil else { return false }
        return exactSize.map { UInt64(size) == $0 } ?? true
    }
}
