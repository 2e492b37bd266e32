/// What a recovery operation reports while it works: bytes done of a total, per stage.
public enum RecoveryProgressEvent: Equatable, Sendable {
    /// Protecting: the file's bytes hashed and encoded so far.
    case protecting(bytesDone: UInt64, bytesTotal: UInt64)
    /// Reading the recovery set's files.
    case scanning(bytesDone: UInt64, bytesTotal: UInt64)
    /// Checking the file's slices against the set.
    case verifying(bytesDone: UInt64, bytesTotal: UInt64)
    /// Rebuilding damaged slices.
    case rebuilding(bytesDone: UInt64, bytesTotal: UInt64)
    /// Writing and checking the repaired file.
    case writing(bytesDone: UInt64, bytesTotal: UInt64)
}

/// Receives ``RecoveryProgressEvent``s, on the thread that called the operation.
public typealias RecoveryProgressHandler = (RecoveryProgressEvent) -> Void
