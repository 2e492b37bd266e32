internal import Glibc

/// Signals: their handlers, masks and default actions.
extension SystemCall {
    /// A signal handler: only async-signal-safe work, on no state but atomics and values set before.
    typealias SignalHandler = @convention(c) (Int32) -> Void

    /// The signals the toolkit handles.
    enum Signal {
        static let interrupt = SIGINT
        static let terminate = SIGTERM
        static let hangUp = SIGHUP
        static let quit = SIGQUIT
        static let terminalStop = SIGTSTP
        static let backgroundRead = SIGTTIN
        static let backgroundWrite = SIGTTOU
        static let brokenPipe = SIGPIPE
        static let fileSizeLimit = SIGXFSZ
        /// The signals of a crash: an abort, a trap, a bad memory access or instruction.
        static let crashes = [SIGABRT, SIGTRAP, SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGSYS]
    }

    /// A signal's action as it was, to be put back with ``restoreSignalAction(_:_:)``.
    struct SignalAction { fileprivate var raw: sigaction }

    /// Makes `handler` handle `number`, with `blocking` blocked while it runs and without `SA_RESTART` (a
    /// blocked read returns `EINTR`); returns the action before.
    @discardableResult
    static func handleSignal(_ number: Int32, with handler: SignalHandler, blocking: [Int32] = []) -> SignalAction {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        for other in blocking { sigaddset(&action.sa_mask, other) }
        action.sa_flags = 0
        var previous = sigaction()
        sigaction(number, &action, &previous)
        return SignalAction(raw: previous)
    }

    /// Puts back an action ``handleSignal(_:with:blocking:)`` or ``currentSignalAction(_:)`` returned
    /// (async-signal-safe).
    static func restoreSignalAction(_ number: Int32, _ action: SignalAction) {
        var raw = action.raw
        sigaction(number, &raw, nil)
    }

    /// The action `number` has now.
    static func currentSignalAction(_ number: Int32) -> SignalAction {
        var current = sigaction()
        sigaction(number, nil, &current)
        return SignalAction(raw: current)
    }

    /// Unblocks `number` for this thread (async-signal-safe, no allocation).
    static func unblockSignal(_ number: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Gives `number` its default action again (async-signal-safe).
    static func defaultSignalAction(_ number: Int32) { signal(number, SIG_DFL) }

    /// Ignores `number`.
    static func ignoreSignal(_ number: Int32) { signal(number, SIG_IGN) }

    /// Unblocks `numbers` for this thread (async-signal-safe): a parent may hand down a mask blocking them.
    static func unblockSignals(_ numbers: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Sends `number` to this process (async-signal-safe).
    static func raiseSignal(_ number: Int32) { _ = raise(number) }
}
