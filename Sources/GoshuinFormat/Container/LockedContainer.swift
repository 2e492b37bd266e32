/// A `.goshuin` file whose every check that needs no key passed, in either version: locked. The one way
/// to read its chunks is ``unlock(with:progress:)``, so "check the structure, then ask for the passphrase,
/// then derive the keys, then read" is an order the compiler keeps, not a convention of each reader.
///
/// Made before a passphrase is asked for: a person is never asked for the passphrase of a file that cannot
/// open.
///
/// ```swift
/// let locked = try LockedContainer(checkingFileAt: "notes.goshuin")   // no passphrase yet
/// let container = try locked.unlock(with: askPassphrase())
/// try container.verify()
/// ```
public struct LockedContainer: Sendable {
    /// The file, read with positioned reads (its position is not used); it must stay open.
    package let input: FileDescriptor
    /// Its header, validated but not yet authenticated: version 1 authenticates it with every chunk,
    /// version 2 with its MAC when the container is unlocked.
    public let header: Header
    /// The file when this container opened it itself: closed once no copy of the container, and nothing
    /// it unlocked, holds it any more.
    let openedFile: OpenedFile?

    /// Opens the file at `path` and makes every check of its version's §7 that needs no key: the header,
    /// the file's exact size and, in version 1, every length prefix (`Spec/container-v1.md` §7,
    /// `Spec/container-v2.md` §7, checks 1–8).
    ///
    /// - Throws: a ``GoshuinError`` with the code of the first failing check; `invalid_argument` for
    ///   anything but a regular file, `io` when it cannot be opened or read.
    public init(checkingFileAt path: String) throws {
        let file = OpenedFile(try FileSystem.openInput(path))
        input = file.descriptor
        header = try ContainerStructure.validate(file.descriptor)
        openedFile = file
    }

    /// Checks the regular file open at `input`, which the caller keeps open and closes: every check of its
    /// version's §7 that needs no key (``ContainerStructure``).
    package init(checking input: FileDescriptor) throws {
        self.input = input
        header = try ContainerStructure.validate(input)
        openedFile = nil
    }

    /// A container of `input` with a header checked elsewhere (salvage, which tolerates a cut file).
    package init(_ input: FileDescriptor, header: Header) {
        self.input = input
        self.header = header
        openedFile = nil
    }

    /// Derives the keys from `passphrase` (PBKDF2, then in version 2 HKDF) and, in version 2, verifies the
    /// header MAC, reporting the key derivation to `progress`.
    ///
    /// - Throws: `auth_failed` when version 2's header MAC does not verify (`Spec/container-v2.md` §7, check
    ///   9); version 1 learns whether the passphrase is right only from its chunks.
    public func unlock(with passphrase: Passphrase, progress: ProgressHandler? = nil) throws -> UnlockedContainer {
        let keys = try ContainerKeys(passphrase: passphrase, header: header, progress: progress)
        if case .v2(let fields, _) = header.fields, try !keys.verifiesHeader(fields) {
            throw GoshuinError.headerMacFailed
        }
        return UnlockedContainer(input: input, header: header, keys: keys, openedFile: openedFile)
    }
}

/// A container unlocked by its passphrase: its keys derived and, in version 2, its header authenticated.
/// Its chunks are read through it: every one authenticated, in order, or at random; a chunk's plaintext is
/// used only once it authenticated, and only ever in memory that is wiped when it is given back.
public struct UnlockedContainer: Sendable {
    /// The file.
    package let input: FileDescriptor
    /// Its header.
    public let header: Header
    /// Its keys.
    package let keys: ContainerKeys
    /// The file when the locked container opened it itself.
    let openedFile: OpenedFile?

    /// The key the chunks are sealed under.
    package var payloadKey: SecretBytes { keys.payloadKey }

    /// Authenticates every chunk, on every core, writing nothing: the container opens, or this throws the
    /// error any reader of it gives (the lowest failing chunk's).
    public func verify(progress: ProgressHandler? = nil) throws {
        try open(to: nil, progress: progress)
    }

    /// Hands each chunk's plaintext to `release`, in order, as soon as it authenticated: in the reader's own
    /// buffer, valid during the call and wiped afterwards. Memory stays at about one chunk.
    ///
    /// `release` may have received a prefix of the payload when this throws: only authenticated chunks,
    /// never a byte of a failing one.
    /// - Throws: the file's verdict at the first chunk that fails, or what `release` throws.
    public func readInOrder(progress: ProgressHandler? = nil, release: (Span<UInt8>) throws -> Void) throws {
        try authenticateInOrder(progress: progress) { plaintext in
            try release(plaintext.assumingMemoryBound(to: UInt8.self).span)
        }
    }

    /// A reader of the payload at any offset (``DecryptingReader``), its final chunk authenticated first,
    /// which confirms the payload's length before any read relies on it.
    public func reader() throws -> DecryptingReader {
        try reader(authenticatingFinalChunkFirst: true)
    }

    /// ``readInOrder(progress:release:)`` with the reader's buffer as it is.
    package func authenticateInOrder(
        progress: ProgressHandler? = nil, release: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try ChunkPipeline.inOrder(input, header: header, key: payloadKey, progress: progress, release: release)
    }

    /// Decrypts every chunk into `output` (``ChunkPipeline``: in parallel into a regular file, in order
    /// otherwise); with no `output`, only authenticates them. On failure `output` may hold part of the
    /// payload, unauthenticated: write to an ``AtomicOutput`` or a file to be discarded.
    package func open(
        to output: FileDescriptor?, workerCount: Int = WorkerThreads.defaultWorkerCount,
        progress: ProgressHandler? = nil
    ) throws {
        try ChunkPipeline.open(
            input, to: output, header: header, key: payloadKey, workerCount: workerCount, progress: progress)
    }

    /// A random-access reader of the payload.
    ///
    /// - Parameter authenticatingFinalChunkFirst: authenticate the final chunk now, which confirms the
    ///   payload length before anything relies on it (as for reading a ZIP from its end).
    package func reader(authenticatingFinalChunkFirst: Bool) throws -> DecryptingReader {
        try DecryptingReader(
            input, header: header, key: payloadKey, authenticatingFinalChunkFirst: authenticatingFinalChunkFirst,
            keepingOpen: openedFile)
    }
}

/// A descriptor a container opened itself, closed with its last reference: the containers, and the
/// readers they give, hold it for as long as they read the file.
package final class OpenedFile: Sendable {
    /// The open file.
    package let descriptor: FileDescriptor

    /// Takes `descriptor` over: it is closed with this object.
    package init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    deinit { try? descriptor.close() }
}
