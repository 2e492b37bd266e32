import Glibc
import GoshuinFormat

/// SIGINT, SIGTERM and SIGHUP ask the running operation to stop (``Interruption``): it removes its
/// temporary files as on any failure, and the tool exits 130. A second signal ends the process at once.
enum Signals {
    static func installInterruptionHandlers() {
        // Initialized here, not first in a signal handler.
        _ = Interruption.isRequested
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&handled, number) }
        // A parent may hand down a mask blocking them (Foundation's Process does); handled, they must arrive.
        sigprocmask(SIG_UNBLOCK, &handled, nil)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                Interruption.request()
                signal(number, SIG_DFL)
            }
            sigemptyset(&action.sa_mask)
            // No SA_RESTART: a read blocked on a pipe returns EINTR, so the operation can stop.
            action.sa_flags = 0
            sigaction(number, &action, nil)
        }
    }
}
