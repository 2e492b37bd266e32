import Synchronization

/// The process's controlling terminal, `/dev/tty`, whatever standard input and output are: where a
/// passphrase is asked for, with echo off, as `readpassphrase(3)` asks. Closed when released.
///
/// While echo is off the terminal is never left silent: SIGINT, SIGTERM, SIGHUP and SIGQUIT restore it and
/// request a stop (``Interruption``), which ends the read, and the operation cleans up as on any failure (a
/// second such signal takes its default action, the terminal already restored). Ctrl-Z (SIGTSTP), and a
/// read or write from the background (SIGTTIN, SIGTTOU), restore the terminal, stop the process, and when
/// it continues turn echo off again and show the prompt again: what is typed after `fg` is never echoed.
package final class ControllingTerminal {
    /// Why a hidden line could not be read.
    package enum ReadFailure: Error {
        /// A stop was requested (a signal) before the line ended.
        case interrupted
        /// The line is longer than the most asked for.
        case tooLong
        /// The terminal could not be read.
        case unreadable(Errno)
    }

    private let descriptor: FileDescriptor
    /// The signals' actions before the prompt, put back after it.
    private var previousActions: [(signal: Int32, action: SystemCall.SignalAction)] = []

    /// Opens the controlling terminal; `nil` when the process has none.
    package init?() {
        guard let descriptor = try? FileDescriptor.open("/dev/tty", .readWrite) else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        restoreTerminal()
        try? descriptor.close()
    }

    /// Shows `prompt` and reads one line with echo off, without its line end; at most `maximumLength`
    /// bytes. The terminal is restored before this returns, whatever happens.
    ///
    /// After a stop (Ctrl-Z) and `fg`, what was typed before is discarded and the prompt is shown again.
    package func readHiddenLine(prompt: String, maximumLength: Int) throws(ReadFailure) -> SecretBytes {
        let hidden = hideEcho()
        defer { if hidden { restoreTerminal() } }
        // The prompt comes after echo is off, so an answer typed at it is never flushed or echoed.
        show(prompt)
        var line = [UInt8]()
        line.reserveCapacity(maximumLength + 2)
        defer { SecretBytes.wipe(&line) }
        while true {
            let byte: UInt8?
            do {
                byte = try readByte {
                    // Resumed after a stop: start the line again, as a new prompt.
                    SecretBytes.wipe(&line)
                    line.removeAll(keepingCapacity: true)
                    show(prompt)
                }
            } catch {
                guard Interruption.isRequested else { throw .unreadable(error) }
                // The prompt's line ends before the error is reported.
                show("\n")
                throw .interrupted
            }
            guard let byte, byte != UInt8(ascii: "\n") else { break }
            line.append(byte)
            guard line.count <= maximumLength else { throw .tooLong }
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return SecretBytes(copying: line)
    }

    private func show(_ text: String) { try? descriptor.writeAll(Array(text.utf8)) }

    /// Reads one byte; `nil` at the end of input. Throws `EINTR` once a stop is requested, also when the
    /// signal came before the read began; calls `resumed` when the process continued after a stop.
    private func readByte(resumed: () -> Void) throws(Errno) -> UInt8? {
        // A blocking read would miss a signal that arrived just before it, and wait for a key forever:
        // wait in short slices, looking at the requests between them.
        repeat {
            if Interruption.isRequested { throw Errno.interrupted }
            if Self.continuedAfterStop.exchange(false, ordering: .relaxed) { resumed() }
        } while !SystemCall.waitForInput(descriptor.rawValue, milliseconds: 100)
        var byte: UInt8 = 0
        let count = try withUnsafeMutableBytes(of: &byte) { buffer throws(Errno) in try descriptor.read(into: buffer) }
        return count == 0 ? nil : byte
    }

    // MARK: - Echo and the prompt's signals

    /// The terminal whose echo is off, as the signal handlers need it: plain values only, no reference
    /// counting in a handler.
    private struct HandlerState {
        let descriptor: Int32
        let original: SystemCall.TerminalSettings
        let silent: SystemCall.TerminalSettings
        /// The action of the suspending signals while the prompt is shown, to take them again after a stop.
        let suspendAction: SystemCall.SignalAction
    }

    nonisolated(unsafe) private static var handlerState: HandlerState?
    /// Set by a handler when the process continued after a stop; the read shows the prompt again.
    private static let continuedAfterStop = Atomic<Bool>(false)

    /// Signals that end the prompt: the terminal is restored and a stop requested.
    private static let endingSignals = [
        SystemCall.Signal.interrupt, SystemCall.Signal.terminate, SystemCall.Signal.hangUp, SystemCall.Signal.quit,
    ]
    /// Signals that stop the process for a while: the terminal is restored until it continues.
    private static let suspendingSignals = [
        SystemCall.Signal.terminalStop, SystemCall.Signal.backgroundRead, SystemCall.Signal.backgroundWrite,
    ]
    /// Every handled signal is blocked while a handler runs: no handler interrupts another.
    private static var handledSignals: [Int32] { endingSignals + suspendingSignals }

    /// Turns echo off (newlines still echo) and installs the prompt's signal handlers; false when the
    /// terminal's settings cannot be read, and nothing changed then.
    private func hideEcho() -> Bool {
        guard let original = SystemCall.terminalSettings(descriptor.rawValue) else { return false }
        // Initialized here, not first in a handler.
        _ = Self.continuedAfterStop.exchange(false, ordering: .relaxed)
        _ = Interruption.isRequested
        for number in Self.endingSignals {
            let previous = SystemCall.handleSignal(number, with: Self.endPrompt, blocking: Self.handledSignals)
            previousActions.append((number, previous))
        }
        for number in Self.suspendingSignals {
            let previous = SystemCall.handleSignal(number, with: Self.suspendPrompt, blocking: Self.handledSignals)
            previousActions.append((number, previous))
        }
        Self.handlerState = HandlerState(
            descriptor: descriptor.rawValue, original: original, silent: original.withoutEcho,
            suspendAction: SystemCall.currentSignalAction(SystemCall.Signal.terminalStop))
        SystemCall.applyTerminalSettings(descriptor.rawValue, original.withoutEcho, discardingInput: true)
        return true
    }

    /// Restores the settings and the signal actions ``hideEcho()`` changed.
    private func restoreTerminal() {
        guard let state = Self.handlerState, state.descriptor == descriptor.rawValue else { return }
        SystemCall.applyTerminalSettings(state.descriptor, state.original, discardingInput: false)
        for (number, action) in previousActions { SystemCall.restoreSignalAction(number, action) }
        previousActions = []
        Self.handlerState = nil
    }

    /// SIGINT, SIGTERM, SIGHUP, SIGQUIT at the prompt. Only async-signal-safe calls: tcsetattr, an atomic
    /// store, signal.
    private static let endPrompt: SystemCall.SignalHandler = { number in
        if let state = handlerState {
            SystemCall.applyTerminalSettings(state.descriptor, state.original, discardingInput: false)
        }
        Interruption.request()
        SystemCall.defaultSignalAction(number)
    }

    /// SIGTSTP, SIGTTIN, SIGTTOU at the prompt: restore the terminal, stop as the signal's default action
    /// does, and once continued (SIGCONT) take the signal again, hide echo again and ask for the prompt to be
    /// shown again. Only async-signal-safe calls, and no allocation: tcsetattr, sigaction, sigprocmask,
    /// raise, an atomic store.
    private static let suspendPrompt: SystemCall.SignalHandler = { number in
        guard let state = handlerState else { return }
        SystemCall.applyTerminalSettings(state.descriptor, state.original, discardingInput: false)
        SystemCall.defaultSignalAction(number)
        SystemCall.unblockSignal(number)
        SystemCall.raiseSignal(number)
        // Here the process was stopped and has been continued (or, in an orphaned process group, was not
        // stopped at all).
        SystemCall.restoreSignalAction(number, state.suspendAction)
        SystemCall.applyTerminalSettings(state.descriptor, state.silent, discardingInput: true)
        continuedAfterStop.store(true, ordering: .relaxed)
    }
}
