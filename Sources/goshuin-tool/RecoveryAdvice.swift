import GoshuinFormat
import GoshuinRecovery

/// What the recovery files beside a file that `open`, `inspect` or `verify` could not read say of it (issue 34): a file
/// whose header, size or chunks fail, with a set beside it that finds it damaged, is damaged, and repairable
/// or not, never "not a .goshuin file"; one the set finds intact that does not authenticate has a wrong
/// passphrase. A set that is not beside it, or cannot be used, leaves the error as it was.
enum RecoveryAdvice {
    /// The codes a damaged file gives before or while it is read.
    static let damageCodes: Set<GoshuinError.Code> = [
        .shortHeader, .badMagic, .unsupportedVersion, .iterationsOutOfRange, .chunkSizeOutOfRange, .tooManyChunks,
        .truncated, .trailingData, .chunkLengthInvalid, .authFailed, .chunkDamaged,
    ]

    /// `error` of reading the file at `path`, as its recovery files beside it tell it; `nil` when they have
    /// nothing to add (none there, none usable, or `path` is standard input). `offeringRescue`: whether the
    /// advice for a file they cannot repair ends with `rescue` (not for `rescue` itself).
    static func advise(_ error: GoshuinError, path: String?, offeringRescue: Bool = true) -> ToolError? {
        advice(error, path: path, offeringRescue: offeringRescue)?.error
    }

    /// ``advise(_:path:offeringRescue:)``'s error with what the recovery files found, when they found the
    /// file damaged (`inspect` shows it beside its header).
    static func advice(_ error: GoshuinError, path: String?, offeringRescue: Bool = true)
        -> (error: ToolError, damaged: RecoveryVerification?)?
    {
        guard let path, path != "-", damageCodes.contains(error.code), !Interruption.isRequested else { return nil }
        if let protected = RecoverySet.fileProtected(bySetFile: path) {
            let refusal = ToolError(
                code: error.code,
                "\(path) is a recovery file (PAR 2.0) of \(protected), not a .goshuin file",
                hint: "give the backup itself, \(ShellQuoting.quoted(ShellQuoting.argument(protected)))",
                status: ToolError.status(for: error.code))
            return (refusal, nil)
        }
        let verification: RecoveryVerification
        do {
            verification = try RecoverySet.verify(inputPath: path)
        } catch let stop as GoshuinError where stop.code == .interrupted || stop.code == .outOfMemory {
            // The run's own error, never the file's: a stop or a memory limit met while reading the set.
            return (ToolError(stop), nil)
        } catch {
            return nil
        }
        if verification.isIntact {
            guard error.code == .authFailed else { return nil }
            let wrong = ToolError(
                code: error.code,
                "the passphrase is wrong: \(DisplayText.quoted(path)) is intact (every part of it matches its recovery files"
                    + " \(RecoveryReport.setName(verification))), so the passphrase is what differs",
                hint: "check the passphrase (capital letters and spaces count, and the keyboard layout)",
                status: ToolError.status(for: error.code))
            return (wrong, nil)
        }
        let cut = RecoveryReport.isCut(verification)
        let code: GoshuinError.Code = cut ? .truncated : .chunkDamaged
        let next = ShellQuoting.command(RecoveryReport.nextCommand(verification, path: path, recoveryPath: nil))
        let hint =
            verification.isRepairable
            ? "repair it: \(next)"
            : (cut ? "copy it again from where it was saved; if this is the only copy, " : "")
                + "to restore what is intact: \(next)"
                + (offeringRescue ? "; \(RecoveryReport.rescueAdvice(path))" : "")
        let damaged = ToolError(
            code: code,
            "\(path) is damaged, as its recovery files find: \(RecoveryReport.damage(verification)) (read without them:"
                + " \(error.code)); "
                + (verification.isRepairable
                    ? RecoveryReport.capacity(verification)
                    : "not repairable: \(RecoveryReport.shortfall(verification))"),
            hint: hint, status: ToolError.status(for: code),
            chunkIndex: cut ? nil : RecoveryReport.damagedChunks(verification).first)
        return (damaged, verification)
    }
}
