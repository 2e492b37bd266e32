import Glibc
import GoshuinFormat

/// The terminal's settings before echo was turned off, restored by the signal handler on Ctrl-C.
nonisolated(unsafe) private var savedTerminalSettings = termios()
nonisolated(unsafe) private var savedTerminalDescriptor: Int32 = -1
/// What Ctrl-C at the prompt prints: the prompt's line ended first. (A static string: the signal handler
/// may only call write(2).)
private let interruptedAtPrompt: StaticString =
    "\ngoshuin-tool: error: interrupted: stopped at the passphrase prompt; nothing was written\n"

/// Asks for a passphrase on `/dev/tty` with echo off, whatever standard input and output are.
enum TerminalPrompt {
    /// Whether there is a controlling terminal to ask on.
    static var isAvailable: Bool {
        let descriptor = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        Glibc.close(descriptor)
        return true
    }

    /// The longest line a terminal in canonical mode passes on whole: Linux keeps 4095 bytes of a line and
    /// drops what is typed beyond, silently, so a line that long may have been cut.
    static let longestWholeLine = 4_094

    /// Shows `prompt`, reads one line with echo off, and restores the terminal (also on Ctrl-C).
    ///
    /// - Throws: `passphrase_too_long` for a line the terminal may have cut (``longestWholeLine``).
    static func ask(_ prompt: String) throws(ToolError) -> SecretBytes {
        let descriptor = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .usage("no terminal to ask for the passphrase on")
        }
        defer { Glibc.close(descriptor) }
        let terminal = FileDescriptor(rawValue: descriptor)
        var settings = termios()
        let canHideEcho = tcgetattr(descriptor, &settings) == 0
        if canHideEcho {
            savedTerminalSettings = settings
            savedTerminalDescriptor = descriptor
            signal(SIGINT) { _ in
                tcsetattr(savedTerminalDescriptor, TCSANOW, &savedTerminalSettings)
                _ = Glibc.write(2, interruptedAtPrompt.utf8Start, interruptedAtPrompt.utf8CodeUnitCount)
                _exit(130)
            }
            var silent = settings
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(descriptor, TCSAFLUSH, &silent)
        }
        // The prompt comes after echo is off, so an answer typed at it is never flushed or echoed.
        try? terminal.writeAll(Array(prompt.utf8))
        defer {
            if canHideEcho {
                tcsetattr(descriptor, TCSANOW, &settings)
                Signals.installInterruptionHandlers()
                savedTerminalDescriptor = -1
            }
        }
        var line = [UInt8]()
        line.reserveCapacity(Passphrase.maximumLength + 2)
        defer { SecretBytes.wipe(&line) }
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR && !Interruption.isRequested { continue }
            if count < 0 {
                throw ToolError(code: .io, "cannot read the passphrase from the terminal", status: .ioError)
            }
            if count == 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
            guard line.count <= Self.longestWholeLine else { throw cutLine }
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return SecretBytes(copying: line)
    }

    private static let cutLine = ToolError(
        GoshuinError(
            .passphraseTooLong,
            "the passphrase typed is longer than \(longestWholeLine) bytes, more than a terminal passes on whole: it"
                + " may have been cut, so it is refused"),
        hint: "give a passphrase that long with --passphrase-file or --passphrase-fd")
}
