import GoshuinFormat
import GoshuinRecovery
import Synchronization

/// Shows progress on standard error when it is a terminal: the key derivation's iterations, and the bytes
/// of payloads over 64 MiB, each with its rate and the time left, on one line redrawn in place and cleared
/// when the step ends (the result line, or an error, takes its place: ``Console``).
final class ProgressReporter: Sendable {
    /// Payloads at least this large show byte progress.
    static let payloadThreshold: UInt64 = 64 * 1_048_576

    private let enabled: Bool
    /// What the payload's bytes are going through, for its line: `sealing`, `decrypting`, `authenticating`.
    private let payloadLabel: String
    /// When the steps began and the line was last drawn. The library reports from the threads doing the
    /// work, one call at a time; the lock makes each call see the last one's times.
    private let times = Mutex(Times())

    private struct Times {
        var keyDerivationStart = 0.0
        var payloadStart = 0.0
        var lastDraw = 0.0
        var recoveryStage = ""
        var recoveryStageStart = 0.0
    }

    /// A reporter for `command`, silent when `quiet` or when standard error is not a terminal.
    init(quiet: Bool, command: String) {
        enabled = !quiet && FileDescriptor.standardError.isTerminal
        payloadLabel = Self.payloadLabels[command] ?? "reading"
    }

    /// What each command does to the payload, for its progress line.
    private static let payloadLabels = [
        "seal": "sealing", "open": "decrypting", "verify": "authenticating with the passphrase", "inspect": "reading",
        "rescue": "sealing what is intact", "rekey": "sealing again",
    ]

    /// The handler to pass to the library, or `nil` when nothing is shown.
    var handler: ProgressHandler? {
        enabled ? { @Sendable [self] event in self.handle(event) } : nil
    }

    /// The handler to pass to the recovery library (protect, verify, repair), or `nil` when nothing is shown:
    /// each stage on its own line, for files over the threshold.
    var recoveryHandler: RecoveryProgressHandler? {
        enabled ? { [self] event in self.times.withLock { Self.handle(event, &$0) } } : nil
    }

    private func handle(_ event: ProgressEvent) {
        times.withLock { Self.handle(event, label: payloadLabel, &$0) }
    }

    private static func handle(_ event: ProgressEvent, label: String, _ times: inout Times) {
        switch event {
        case .keyDerivationStarted(let iterations):
            times.keyDerivationStart = Self.now()
            Console.progress("goshuin-tool: deriving the key (\(iterations) iterations)…")
        case .keyDerivation(let done, let total):
            let elapsed = max(Self.now() - times.keyDerivationStart, 0.001)
            let left = Double(total - done) * elapsed / Double(max(done, 1))
            Console.progress(
                "goshuin-tool: deriving the key: \(done) / \(total) iterations, "
                    + "\(Int(Double(done) / elapsed)) per second, " + Self.duration(left) + " left")
        case .keyDerivationFinished:
            Console.clearProgress()
            times.payloadStart = Self.now()
        case .payload(let done, let total):
            guard total >= Self.payloadThreshold else { return }
            let now = Self.now()
            guard done == total || now - times.lastDraw >= 0.2 else { return }
            times.lastDraw = now
            let elapsed = max(now - times.payloadStart, 0.001)
            let rate = Double(done) / elapsed
            let left = rate > 0 ? Double(total - done) / rate : 0
            Console.progress(
                "goshuin-tool: \(label): \(Self.size(done)) / \(Self.size(total))  \(Self.size(UInt64(rate)))/s  "
                    + Self.duration(left) + " left")
            if done == total { Console.clearProgress() }
        case .streamed(let done):
            let now = Self.now()
            guard done >= Self.payloadThreshold, now - times.lastDraw >= 0.2 else { return }
            times.lastDraw = now
            let rate = Double(done) / max(now - times.payloadStart, 0.001)
            Console.progress("goshuin-tool: \(label): \(Self.size(done))  \(Self.size(UInt64(rate)))/s")
        }
    }

    private static func handle(_ event: RecoveryProgressEvent, _ times: inout Times) {
        let (stage, done, total): (String, UInt64, UInt64)
        switch event {
        case .protecting(let bytesDone, let bytesTotal):
            (stage, done, total) = ("making the recovery files", bytesDone, bytesTotal)
        case .scanning(let bytesDone, let bytesTotal):
            (stage, done, total) = ("reading the recovery files", bytesDone, bytesTotal)
        case .verifying(let bytesDone, let bytesTotal):
            (stage, done, total) = ("checking against the recovery files", bytesDone, bytesTotal)
        case .rebuilding(let bytesDone, let bytesTotal): (stage, done, total) = ("rebuilding", bytesDone, bytesTotal)
        case .writing(let bytesDone, let bytesTotal): (stage, done, total) = ("writing", bytesDone, bytesTotal)
        }
        guard total >= Self.payloadThreshold else { return }
        let now = Self.now()
        if stage != times.recoveryStage {
            times.recoveryStage = stage
            times.recoveryStageStart = now
        }
        guard done == total || now - times.lastDraw >= 0.2 else { return }
        times.lastDraw = now
        let rate = Double(done) / max(now - times.recoveryStageStart, 0.001)
        let left = rate > 0 ? Double(total - done) / rate : 0
        Console.progress(
            "goshuin-tool: \(stage): \(Self.size(done)) / \(Self.size(total))  \(Self.size(UInt64(rate)))/s  "
                + Self.duration(left) + " left")
        if done == total { Console.clearProgress() }
    }

    /// Seconds on a monotonic clock.
    static func now() -> Double {
        let elapsed = start.duration(to: ContinuousClock.now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    /// The origin of ``now()``.
    private static let start = ContinuousClock.now

    static func size(_ bytes: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        guard unit > 0 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        return (value < 10 ? oneDecimal(value) : String(Int(value.rounded()))) + " " + units[unit]
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let secondsPart = whole % 60
        return "\(whole / 60):" + (secondsPart < 10 ? "0" : "") + "\(secondsPart)"
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
