/// A `.goshuin` file whose every check that needs no key passed, in either version: locked. The one way
/// to read its chunks is ``unlock(with:progress:)``, so "check the structure, then ask for the passphrase,
/// then derive the keys, then read" is an order the compiler keeps, not a convention of each reader.
///
/// Made before a passphrase is asked for: a person is never asked for the passphrase of a file that cannot
/// open.
package struct LockedContainer {
    /// The file, read with positioned reads (its position is not used); it must stay open.
    package let input: FileDescriptor
    /// Its header, validated but not authenticated.
    package let header: Header

    /// Checks the regular file open at `input`: every check of its version's §7 that needs no key
    /// (``ContainerStructure``).
    package init(checking input: FileDescriptor) throws {
        self.input = input
        header = try ContainerStructure.validate(input)
    }

    /// A container of `input` with a header checked elsewhere (salvage, which tolerates a cut file).
    package init(_ input: FileDescriptor, header: Header) {
        self.input = input
        self.header = header
    }

    /// Derives the keys from `passphrase` and, in version 2, verifies the header MAC.
    ///
    /// - Throws: `auth_failed` when version 2's header MAC does not verify (`Spec/container-v2.md` §7, check
    ///   9); version 1 learns whether the passphrase is right only from its chunks (``ChunkVerdict``).
    package func unlock(with passphrase: Passphrase, progress: ProgressHandler? = nil) throws -> UnlockedContainer {
        let keys = try ContainerKeys(passphrase: passphrase, header: header, progress: progress)
        if case .v2(let fields, _) = header.fields, try !keys.verifiesHeader(fields) {
            throw GoshuinError.headerMacFailed
        }
        return UnlockedContainer(input: input, header: header, keys: keys)
    }
}

/// A container unlocked by its passphrase: its keys derived and, in version 2, its header authenticated.
/// Its chunks are read through it: in order, on every core, or at random.
package struct UnlockedContainer {
    /// The file.
    package let input: FileDescriptor
    /// Its header.
    package let header: Header
    /// Its keys.
    package let keys: ContainerKeys

    /// The key the chunks are sealed under.
    package var payloadKey: SecretBytes { keys.payloadKey }

    /// Authenticates every chunk in order, handing each plaintext to `release` (valid during the call) as
    /// soon as it authenticated; throws the file's verdict at the first that fails (``ChunkVerdict``).
    package func authenticateInOrder(
        progress: ProgressHandler? = nil, release: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try ChunkPipeline.inOrder(input, header: header, key: payloadKey, progress: progress, release: release)
    }

    /// Decrypts every chunk into `output` (``ChunkPipeline``: in parallel into a regular file, in order
    /// otherwise); with no `output`, only authenticates them. On failure `output` may hold part of the
    /// payload, unauthenticated: write to an ``AtomicOutput`` or a file to be discarded.
    package func open(
        to output: FileDescriptor?, workerCount: Int = ParallelChunks.defaultWorkerCount,
        progress: ProgressHandler? = nil
    ) throws {
        try ChunkPipeline.open(
            input, to: output, header: header, key: payloadKey, workerCount: workerCount, progress: progress)
    }

    /// A random-access reader of the payload (``DecryptingReader``).
    ///
    /// - Parameter authenticatingFinalChunkFirst: authenticate the final chunk now, which confirms the
    ///   payload length before anything relies on it (as for reading a ZIP from its end).
    package func reader(authenticatingFinalChunkFirst: Bool = true) throws -> DecryptingReader {
        try DecryptingReader(
            input, header: header, key: payloadKey, authenticatingFinalChunkFirst: authenticatingFinalChunkFirst)
    }
}
