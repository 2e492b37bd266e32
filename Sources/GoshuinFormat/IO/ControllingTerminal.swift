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

    /// Turns echo off until ``restoreEcho()``; until then, SIGINT restores the terminal, writes
    /// `interruptionMessage` to standard error and ends the process with status 130 (a handler may only
    /// write a static string). False when the terminal's settings cannot be changed.
    package func hideEcho(interruptionMessage: StaticString) -> Bool {
        echoHidden = SystemCall.hideEcho(descriptor.rawValue, interruptionMessage: interruptionMessage)
        return echoHidden
    }

    /// Restores what ``hideEcho(interruptionMessage:)`` changed, and the handler ``ProcessControl`` set for
    /// SIGINT.
    package func restoreEcho() {
        guard echoHidden else { return }
        SystemCall.restoreEcho(descriptor.rawValue)
        echoHidden = false
    }

    /// Writes `text` to the terminal.
    package func write(_ text: String) throws(Errno) { try descriptor.writeAll(Array(text.utf8)) }

    /// Reads one byte; `nil` at the end of input. A signal that requested a stop ends the read with
    /// `EINTR`; any other is retried.
    package func readByte() throws(Errno) -> UInt8? {
        var byte: UInt8 = 0
        let count = try withUnsafeMutableBytes(of: &byte) { buffer throws(Errno) in try descriptor.read(into: buffer) }
        return count == 0 ? nil : byte
    }
}
