internal import Glibc

/// Terminals: their settings, size and the standard descriptors.
extension SystemCall {
    /// A terminal's settings (`termios`), as read or to be applied.
    struct TerminalSettings {
        fileprivate var raw: termios

        /// These settings with echo off, newlines still echoed.
        var withoutEcho: TerminalSettings {
            var silent = raw
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            return TerminalSettings(raw: silent)
        }

        /// Whether typed characters are echoed.
        var echoes: Bool { raw.c_lflag & tcflag_t(ECHO) != 0 }
    }

    /// The settings of the terminal `descriptor`; `nil` when it is not a terminal.
    static func terminalSettings(_ descriptor: Int32) -> TerminalSettings? {
        var raw = termios()
        return tcgetattr(descriptor, &raw) == 0 ? TerminalSettings(raw: raw) : nil
    }

    /// Applies `settings` to the terminal `descriptor` at once, or, with `discardingInput`, once output is
    /// written and with what was typed but not read discarded (async-signal-safe).
    static func applyTerminalSettings(_ descriptor: Int32, _ settings: TerminalSettings, discardingInput: Bool) {
        var raw = settings.raw
        tcsetattr(descriptor, discardingInput ? TCSAFLUSH : TCSANOW, &raw)
    }

    /// Writes `bytes` to `descriptor` once, ignoring the result (async-signal-safe).
    static func writeOnce(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        _ = Glibc.write(descriptor, base, bytes.count)
    }

    /// Points `descriptor` at `/dev/null`.
    static func pointAtNullDevice(_ descriptor: Int32) {
        let null = Glibc.open("/dev/null", O_RDWR)
        guard null >= 0, null != descriptor else { return }
        dup2(null, descriptor)
        Glibc.close(null)
    }

    static func exit(_ status: Int32) -> Never { Glibc.exit(status) }

    /// The columns of the terminal `descriptor` refers to; `nil` when it is not a terminal.
    static func terminalColumns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        // TIOCGWINSZ (0x5413) is not exported by the Glibc module.
        guard isatty(descriptor) == 1, ioctl(descriptor, 0x5413, &size) == 0 else { return nil }
        return Int(size.ws_col)
    }
}
