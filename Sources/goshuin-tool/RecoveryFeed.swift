import GoshuinFormat
import GoshuinRecovery

/// `seal --recovery`: a recovery set computed from the sealed file's bytes as the sealer writes them, in
/// order (``SealedBytesObserver``), and written beside the file once the file is in place; past the
/// writer's memory budget, computed from the file read back and checked against the CRC-32s its slices were
/// written with (`Spec/recovery-par2.md` §5.4).
final class RecoveryFeed: SealedBytesObserver {
    private let writer: RecoveryWriter

    /// A feed for the file to be sealed at `outputPath` from `plaintextLength` bytes with `parameters`.
    ///
    /// - Throws: `output_exists` when a set of `outputPath` is there and not `replaceExisting`; `no_space`,
    ///   `io`, `out_of_memory`.
    init(
        protecting outputPath: String, plaintextLength: UInt64, parameters: SealParameters,
        redundancy: RecoveryRedundancy, replaceExisting: Bool
    ) throws {
        let geometry = ChunkGeometry(version: parameters.version, chunkSize: parameters.chunkSize)
        writer = try RecoveryWriter(
            protecting: outputPath,
            fileLength: ContainerLayout(geometry: geometry, plaintextLength: plaintextLength).expectedFileSize,
            recordLength: geometry.fullRecordLength, redundancy: redundancy, replaceExisting: replaceExisting)
    }

    func sealed(_ bytes: UnsafeRawBufferPointer) throws { try writer.append(bytes) }

    /// Writes the set beside the file, now in place: past the writer's memory, from the file read back, which
    /// `progress` shows.
    func finish(progress: RecoveryProgressHandler?) throws -> RecoverySetFiles { try writer.finish(progress: progress) }

    /// Removes what was started of the set.
    func cancel() { writer.cancel() }
}

extension Optional where Wrapped == RecoveryFeed {
    /// Runs `seal`, which places the file at `outputPath`, then, with a feed, writes its set beside it. When
    /// `seal` fails the set is cancelled (nothing of it is left); when the set fails after the file was
    /// placed, the error says that the file is sealed and how to make its set.
    func writingSet<Result>(
        besides outputPath: String, progress: RecoveryProgressHandler?, _ seal: () throws -> Result
    ) throws -> (result: Result, set: RecoverySetFiles?) {
        let result: Result
        do {
            result = try seal()
        } catch {
            self?.cancel()
            throw error
        }
        guard let feed = self else { return (result, nil) }
        // The backup is in place whatever becomes of its set, and the person is told so. A set refused because
        // the file did not read back as it was sealed is no set to make again from that file.
        let afterwards =
            "make it with \(ShellQuoting.command(RecoveryReport.protectCommand(outputPath, replacing: true))) once"
            + " \(ShellQuoting.command(RecoveryReport.verifyCommand(outputPath))) (with the passphrase) says it is"
            + " intact; if it does not, seal again"
        do {
            return (result, try feed.finish(progress: progress))
        } catch let error as GoshuinError where error.code == .interrupted || Interruption.isRequested {
            throw ToolError(
                code: .interrupted,
                "stopped by a signal: \(outputPath) is sealed and in place, but its recovery set was not written;"
                    + " \(afterwards)", status: .interrupted)
        } catch let error as GoshuinError {
            throw GoshuinError(
                error.code,
                "\(outputPath) is sealed and in place, but its recovery set was not written (\(error.message));"
                    + " \(afterwards)")
        }
    }
}
