/// What a long operation reports while it works.
public enum ProgressEvent: Sendable {
    /// The key derivation starts.
    case keyDerivationStarted(iterations: UInt32)
    /// Iterations of the key derivation done so far (every 50,000).
    case keyDerivation(iterationsDone: UInt32, iterationsTotal: UInt32)
    /// The key derivation ended.
    case keyDerivationFinished
    /// Payload bytes processed so far, of the total.
    case payload(bytesDone: UInt64, bytesTotal: UInt64)
    /// Payload bytes sealed so far from a stream whose length is learnt at its end (version 2 from a pipe).
    case streamed(bytesDone: UInt64)
}

/// Receives ``ProgressEvent``s on the threads doing the work: the payload's progress comes from the
/// workers when they seal or open on every core, one call at a time, never two at once.
public typealias ProgressHandler = @Sendable (ProgressEvent) -> Void
