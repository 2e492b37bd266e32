/// The package's shorthand for reading a `.goshuin` file open at a descriptor in one call: a
/// ``LockedContainer`` checked, unlocked with the passphrase (its closure called only once the structure
/// passed), then its chunks read, each released only after it authenticated.
package enum ContainerOpener {
    /// Opens the regular file open at `input` (read with positioned reads; its position is not used),
    /// handing each authenticated chunk's plaintext to `release` in order, in the reader's buffer (valid
    /// during the call). `release` may have received a prefix of the payload when this throws: only
    /// authenticated chunks, never a byte of a failing one.
    ///
    /// - Returns: the header.
    @discardableResult
    package static func open(
        _ input: FileDescriptor, passphrase: @autoclosure () throws -> Passphrase, progress: ProgressHandler? = nil,
        release: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Header {
        let container = try LockedContainer(checking: input)
        try container.unlock(with: passphrase(), progress: progress).authenticateInOrder(
            progress: progress, release: release)
        return container.header
    }

    /// Opens `input` into `output`: the structure checked, then `passphrase` evaluated, then every chunk
    /// decrypted by ``ChunkPipeline`` (in parallel between regular files). With no `output`, every chunk is
    /// only authenticated (what `verify` does).
    ///
    /// On failure `output` may hold part of the payload, unauthenticated: write to an ``AtomicOutput`` or
    /// a file to be discarded.
    @discardableResult
    package static func open(
        _ input: FileDescriptor, to output: FileDescriptor?, passphrase: @autoclosure () throws -> Passphrase,
        workerCount: Int = WorkerThreads.defaultWorkerCount, progress: ProgressHandler? = nil
    ) throws -> Header {
        let container = try LockedContainer(checking: input)
        try container.unlock(with: passphrase(), progress: progress).open(
            to: output, workerCount: workerCount, progress: progress)
        return container.header
    }
}
