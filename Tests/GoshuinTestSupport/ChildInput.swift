import Foundation
import Glibc

/// Writing to a child process's standard input. A child may end before it read everything (a refusal, a
/// stop): the write then fails with `EPIPE` and is of no consequence, but the signal it raises would end
/// the whole test process, which does not ignore SIGPIPE (its children inherit what it does with it).
public enum ChildInput {
    /// Writes `bytes` to `handle`, what a child that ended no longer reads being dropped.
    public static func write(_ bytes: some DataProtocol, to handle: FileHandle) {
        var brokenPipe = sigset_t()
        sigemptyset(&brokenPipe)
        sigaddset(&brokenPipe, SIGPIPE)
        var previous = sigset_t()
        // Blocked on this thread only: a SIGPIPE the write raises stays pending here, and is taken below.
        pthread_sigmask(SIG_BLOCK, &brokenPipe, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec()
                _ = sigtimedwait(&brokenPipe, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        try? handle.write(contentsOf: bytes)
    }
}
