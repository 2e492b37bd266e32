/// Sealing, opening and verifying `.goshuin` files between paths, with the toolkit's output rules: the
/// output is written beside its destination under a temporary name, synced, and moved into place only when
/// complete (after every chunk authenticated, when opening); on failure nothing is left and an existing
/// destination is untouched.
///
/// The passphrase argument is evaluated only after the input and the destination passed every check that
/// needs no key, so an interactive caller can ask for it then, and never for a file that cannot open. To
/// verify a file, stream its payload or read it at random, use ``LockedContainer``; to seal bytes the
/// program makes, ``HeaderDraft``.
public enum GoshuinFile {
    /// Seals the regular file at `inputPath` into a new `.goshuin` file at `outputPath`.
    ///
    /// - Parameter replaceExisting: replace an existing `outputPath` (a regular file only); otherwise it is
    ///   `output_exists`.
    /// - Returns: the header written.
    @discardableResult
    public static func seal(
        inputPath: String, outputPath: String, passphrase: @autoclosure () throws -> Passphrase,
        parameters: SealParameters = SealParameters(), replaceExisting: Bool = false, progress: ProgressHandler? = nil
    ) throws -> Header {
        let input = try FileSystem.openInput(inputPath)
        return try input.closeAfter {
            try refuseSameFile(input, outputPath)
            let length = try ContainerStructure.regularFileSize(of: input)
            return try withAtomicOutput(to: outputPath, replaceExisting: replaceExisting) { output in
                try ContainerSealer.seal(
                    from: input, plaintextLength: length, to: output, passphrase: passphrase(), parameters: parameters,
                    progress: progress)
            }
        }
    }

    /// Opens the `.goshuin` file at `inputPath` and writes its payload to `outputPath`.
    ///
    /// The structure is checked, and the destination refused if it exists, before `passphrase` is evaluated.
    /// - Returns: the header.
    @discardableResult
    public static func open(
        inputPath: String, outputPath: String, passphrase: @autoclosure () throws -> Passphrase,
        replaceExisting: Bool = false, progress: ProgressHandler? = nil
    ) throws -> Header {
        let input = try FileSystem.openInput(inputPath)
        return try input.closeAfter {
            try open(
                input, outputPath: outputPath, passphrase: passphrase(), replaceExisting: replaceExisting,
                progress: progress)
        }
    }

    /// ``open(inputPath:outputPath:passphrase:replaceExisting:progress:)`` of the file open at `input`.
    @discardableResult
    package static func open(
        _ input: FileDescriptor, outputPath: String, passphrase: @autoclosure () throws -> Passphrase,
        replaceExisting: Bool = false, progress: ProgressHandler? = nil
    ) throws -> Header {
        try refuseSameFile(input, outputPath)
        let container = try LockedContainer(checking: input)
        return try withAtomicOutput(to: outputPath, replaceExisting: replaceExisting) { output in
            try container.unlock(with: passphrase(), progress: progress).open(to: output, progress: progress)
            return container.header
        }
    }

    /// Refuses an output path that names the input file itself (`invalid_argument`).
    package static func refuseSameFile(_ input: FileDescriptor, _ outputPath: String) throws {
        guard case .success(let output) = FileSystem.statusFollowingLinks(ofPath: outputPath) else { return }
        let inputIdentity = try describingFailure("cannot examine the input") { try input.fileIdentity() }
        if inputIdentity == output.identity {
            throw GoshuinError(.invalidArgument, "the input and the output are the same file")
        }
    }
}
