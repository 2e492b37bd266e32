/// What a command-line program built on the toolkit asks of its process: signals, standard descriptors,
/// its arguments and its exit. Through ``SystemCall``, so the programs import no C library either.
package enum ProcessControl {
    /// Prepares the process of a command-line program: no core dump ever (one would hold the passphrase,
    /// the key and decrypted data), and its signals.
    ///
    /// SIGINT, SIGTERM and SIGHUP ask the running operation to stop (``Interruption``): it removes its
    /// temporary files as on any failure; the signal then gets its default action back, so that a second
    /// one ends the process at once. SIGPIPE and SIGXFSZ are ignored, so a closed pipe or a file-size limit
    /// fails the write that meets it, which is then reported and cleaned up, instead of ending the process.
    package static func installSignalHandlers() {
        SystemCall.forbidCoreDumps()
        // The Swift runtime's crash handler prints a backtrace with the memory its registers point at,
        // which may hold the passphrase, the key or plaintext: a crash ends the process silently instead.
        for number in SystemCall.Signal.crashes { SystemCall.defaultSignalAction(number) }
        // Initialized here, not first in a signal handler.
        _ = Interruption.isRequested
        SystemCall.ignoreSignal(SystemCall.Signal.brokenPipe)
        SystemCall.ignoreSignal(SystemCall.Signal.fileSizeLimit)
        // A parent may hand down a mask blocking them (Foundation's Process does); handled, they must arrive.
        SystemCall.unblockSignals(stopSignals)
        for number in stopSignals {
            SystemCall.handleSignal(number) { number in
                Interruption.request()
                SystemCall.defaultSignalAction(number)
            }
        }
    }

    /// Ends the process as a program that had not ignored SIGPIPE would end: by the signal, with no
    /// message, when whatever read its standard output stopped reading (`goshuin-tool open -o - | head`). A
    /// shell sees status 141, which `set -o pipefail` still catches; only the reader's leaving is silent.
    package static func endByBrokenPipe() -> Never {
        SystemCall.defaultSignalAction(SystemCall.Signal.brokenPipe)
        SystemCall.raiseSignal(SystemCall.Signal.brokenPipe)
        SystemCall.exit(128 + SystemCall.Signal.brokenPipe)
    }

    /// The signals that ask a running operation to stop.
    private static let stopSignals = [
        SystemCall.Signal.interrupt, SystemCall.Signal.terminate, SystemCall.Signal.hangUp,
    ]

    /// Whether the process may write a core dump: false once ``installSignalHandlers()`` ran.
    package static var mayDumpCore: Bool { SystemCall.isDumpable && SystemCall.coreDumpSizeLimit > 0 }

    /// Points standard input, output and error at `/dev/null` where they are closed, so that a file the
    /// program opens cannot take their numbers; returns the ones that were closed.
    package static func occupyClosedStandardDescriptors() -> Set<FileDescriptor> {
        var closed: Set<FileDescriptor> = []
        for descriptor in [FileDescriptor.standardInput, .standardOutput, .standardError] where !descriptor.isOpen {
            SystemCall.pointAtNullDevice(descriptor.rawValue)
            closed.insert(descriptor)
        }
        return closed
    }

    /// The program's arguments after its name, each as its exact bytes (a name need not be UTF-8).
    package static var argumentBytes: [[UInt8]] {
        (1..<Int(CommandLine.argc)).compactMap { index in
            CommandLine.unsafeArgv[index].map { pointer in
                var bytes: [UInt8] = []
                var offset = 0
                while pointer[offset] != 0 {
                    bytes.append(UInt8(bitPattern: pointer[offset]))
                    offset += 1
                }
                return bytes
            }
        }
    }

    /// The path of the running program (`/proc/self/exe`); `nil` when it cannot be read.
    package static var executablePath: String? { SystemCall.linkTarget("/proc/self/exe") }

    /// The width in columns of the terminal `descriptor` refers to; `nil` when it is not a terminal.
    package static func terminalColumns(of descriptor: FileDescriptor) -> Int? {
        SystemCall.terminalColumns(descriptor.rawValue)
    }

    /// Ends the process with `status`.
    package static func exit(_ status: Int32) -> Never { SystemCall.exit(status) }
}
