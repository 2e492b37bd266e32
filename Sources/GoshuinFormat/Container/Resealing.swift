extension UnlockedContainer {
    /// Seals this container's payload again into the empty regular file `output` under `keyed`: a new
    /// passphrase, fresh salts, the version and chunk size it was drafted with (`goshuin-tool rekey`,
    /// `Spec/decisions/0055`). Each chunk is authenticated, then handed to the sealer in order, in memory
    /// that is wiped afterwards: the payload is never written in the clear, and memory stays at a few chunks.
    ///
    /// The whole file authenticates before this returns: a chunk that fails throws the file's verdict (the
    /// error every reader gives, `Spec/container-v1.md` §7.1), and `output` then holds a part of a file that
    /// must be discarded (write it through an atomic output).
    ///
    /// - Parameter keyed: a header drafted for this payload's length.
    /// - Returns: the header of the file written.
    package func reseal(into output: FileDescriptor, header keyed: KeyedHeader, progress: ProgressHandler? = nil)
        throws -> Header
    {
        let sealer = try StreamingSealer(
            into: output, header: keyed, plaintextLength: header.plaintextLength,
            workerCount: WorkerThreads.defaultWorkerCount, observer: nil, progress: progress)
        try authenticateInOrder { plaintext in try sealer.write(plaintext) }
        return try sealer.finish()
    }
}
