/// Reads `.goshuin` files of either version: every check of the file's version's §7 in its order
/// (``LockedContainer``), then the chunks, each released only after it authenticated.
///
/// The passphrase is asked for (its closure called) only once the structure passed: a person is never
/// asked for the passphrase of a file that cannot open.
public enum ContainerOpener {
    /// Opens the regular file open at `fileDescriptor` (read with positioned reads; its position is not
    /// used), handing each authenticated chunk's plaintext to `release` in order.
    ///
    /// The structure is checked (header, size, version 1's length prefixes) before `passphrase` is evaluated
    /// and the keys derived; version 2's header MAC is verified before any chunk is read. `release` may have
    /// received a prefix of the payload when this throws: only authenticated chunks, never a byte of a
    /// failing one. Memory stays at about two chunks.
    ///
    /// - Returns: the header.
    /// - Throws: a ``GoshuinError`` with the code of the first failing check, or what `passphrase` or
    ///   `release` throws.
    @discardableResult
    public static func open(
        fileDescriptor: Int32, passphrase: @autoclosure () throws -> Passphrase, progress: ProgressHandler? = nil,
        release: ([UInt8]) throws -> Void
    ) throws -> Header {
        try open(FileDescriptor(rawValue: fileDescriptor), passphrase: passphrase(), progress: progress) {
            try release(Array($0))
        }
    }

    /// ``open(fileDescriptor:passphrase:progress:release:)`` on a ``FileDescriptor``, releasing each chunk
    /// in the reader's buffer (valid during the call).
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
        workerCount: Int = ParallelChunks.defaultWorkerCount, progress: ProgressHandler? = nil
    ) throws -> Header {
        let container = try LockedContainer(checking: input)
        try container.unlock(with: passphrase(), progress: progress).open(
            to: output, workerCount: workerCount, progress: progress)
        return container.header
    }
}
