import Glibc

/// Sealing and opening between paths, with the toolkit's output rules: the output is written beside its
/// destination under a temporary name, synced, and moved into place only when complete (after every chunk
/// authenticated, when opening); on failure nothing is left and an existing destination is untouched.
package enum GoshuinFile {
    /// Seals the regular file at `inputPath` into a new `.goshuin` file at `outputPath`.
    ///
    /// - Parameter replaceExisting: replace an existing `outputPath`; otherwise it is `output_exists`.
    /// - Returns: the header written.
    @discardableResult
    package static func seal(
        inputPath: String, outputPath: String, passphrase: Passphrase, parameters: SealParameters = SealParameters(),
        replaceExisting: Bool = false, progress: ProgressHandler? = nil
    ) throws -> Header {
        let input = try openInput(inputPath)
        return try input.closeAfter {
            try refuseSameFile(input, outputPath)
            let length = try ContainerStructure.regularFileSize(of: input)
            return try withAtomicOutput(to: outputPath, replaceExisting: replaceExisting) { output in
                try ContainerSealer.seal(
                    from: input, plaintextLength: length, to: output, passphrase: passphrase, parameters: parameters,
                    progress: progress)
            }
        }
    }

    /// Opens the `.goshuin` file at `inputPath` and writes its payload to `outputPath`.
    ///
    /// The structure is checked and the destination refused if it exists before the key is derived.
    /// - Returns: the header.
    @discardableResult
    package static func open(
        inputPath: String, outputPath: String, passphrase: Passphrase, replaceExisting: Bool = false,
        progress: ProgressHandler? = nil
    ) throws -> Header {
        let input = try openInput(inputPath)
        return try input.closeAfter {
            try refuseSameFile(input, outputPath)
            let header = try ContainerStructure.validate(input)
            return try withAtomicOutput(to: outputPath, replaceExisting: replaceExisting) { output in
                try decrypt(input, header: header, passphrase: passphrase, to: output, progress: progress)
                return header
            }
        }
    }

    /// Derives the key and writes the payload of `input`, whose structure
    /// ``ContainerStructure/validate(_:)`` accepted as `header`, to `output`.
    ///
    /// On failure `output` may hold part of the payload, so write to an ``AtomicOutput`` or a file to be
    /// discarded. When `output` is a regular file at position 0, `workerCount` workers decrypt in parallel.
    package static func decrypt(
        _ input: FileDescriptor, header: Header, passphrase: Passphrase, to output: FileDescriptor,
        workerCount: Int = ParallelChunks.defaultWorkerCount, progress: ProgressHandler? = nil
    ) throws {
        let key = try KeyDerivation.deriveKey(passphrase: passphrase, header: header, progress: progress)
        if ParallelChunks.applies(input: input, output: output, workerCount: workerCount) {
            try ParallelChunks.open(
                input, to: output, header: header, key: key, workerCount: workerCount, progress: progress)
            return
        }
        try ContainerOpener.open(input, header: header, key: key, progress: progress) { plaintext in
            do {
                try output.writeAll(plaintext)
            } catch let error as Errno {
                throw error.goshuinError("cannot write the payload")
            }
        }
    }

    /// Opens `path` for reading; a missing or unreadable file is `io` with the system's text.
    package static func openInput(_ path: String) throws -> FileDescriptor {
        do {
            return try FileDescriptor.openForReading(path)
        } catch {
            throw error.goshuinError("cannot open \(path)")
        }
    }

    /// Refuses an output path that names the input file itself.
    package static func refuseSameFile(_ input: FileDescriptor, _ outputPath: String) throws {
        guard let outputIdentity = FileIdentity.of(path: outputPath) else { return }
        let inputIdentity: FileIdentity
        do {
            inputIdentity = try input.fileIdentity()
        } catch {
            throw error.goshuinError("cannot examine the input")
        }
        if inputIdentity == outputIdentity {
            throw GoshuinError(.invalidArgument, "the input and the output are the same file")
        }
    }
}
