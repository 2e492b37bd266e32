/// What a command-line program built on the toolkit asks of its process: signals, standard descriptors,
/// its arguments and its exit. Through ``SystemCall``, so the programs import no C library either.
package enum ProcessControl {
    /// SIGINT, SIGTERM and SIGHUP ask the running operation to stop (``Interruption``): it removes its
    /// temporary files as on any failure. A second signal ends the process at once. SIGPIPE and SIGXFSZ
    /// are ignored, so a closed pipe or a file-size limit fails the write that meets it, which is then
    /// reported and cleaned up, instead of ending the process.
    package static func installSignalHandlers() {
        // Initialized here, not first in a signal handler.
        _ = Interruption.isRequested
        SystemCall.ignoreWriteSignals()
        SystemCall.installStopSignalHandlers()
    }

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

    /// The width in columns of the terminal `descriptor` refers to; `nil` when it is not a terminal.
    package static func terminalColumns(of descriptor: FileDescriptor) -> Int? {
        SystemCall.terminalColumns(descriptor.rawValue)
    }

    /// Ends the process with `status`.
    package static func exit(_ status: Int32) -> Never { SystemCall.exit(status) }
}
