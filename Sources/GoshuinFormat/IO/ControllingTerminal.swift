/// The process's controlling terminal, `/dev/tty`, whatever standard input and output are: where a
/// passphrase is asked for. Closed when released.
package final class ControllingTerminal {
    private let descriptor: FileDescriptor
    private var echoHidden = false

    /// Opens the controlling terminal; `nil` when the process has none.
    package init?() {
        guard let descriptor = try? FileDescriptor.open("/dev/tty", .readWrite) else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        restoreEcho()
        try? descriptor.close()
    }

    /// Turns echo off until ``restoreEcho()``; until then, SIGINT, SIGTERM, SIGHUP and SIGQUIT restore the
    /// terminal and request a stop (``Interruption``), which ends ``readByte()``. False when the terminal's
    /// settings cannot be changed.
    package func hideEcho() -> Bool {
        echoHidden = SystemCall.hideEcho(descriptor.rawValue)
        return echoHidden
    }

    /// Restores what ``hideEcho()`` changed: the terminal's settings and the signals' actions.
    package func restoreEcho() {
        guard echoHidden else { return }
        SystemCall.restoreEcho(descriptor.rawValue)
        echoHidden = false
    }

    /// Writes `text` to the terminal.
    package func write(_ text: String) throws(Errno) { try descriptor.writeAll(Array(text.utf8)) }

    /// Reads one byte; `nil` at the end of input. Throws `EINTR` once a stop is requested
    /// (``Interruption``), also when the signal came before the read began.
    package func readByte() throws(Errno) -> UInt8? {
        // A blocking read would miss a signal that arrived just before it, and wait for a key forever:
        // wait in short slices, looking at the request between them.
        repeat {
            if Interruption.isRequested { throw Errno.interrupted }
        } while !SystemCall.waitForInput(descriptor.rawValue, milliseconds: 100)
        var byte: UInt8 = 0
        let count = try withUnsafeMutableBytes(of: &byte) { buffer throws(Errno) in try descriptor.read(into: buffer) }
        return count == 0 ? nil : byte
    }
}
