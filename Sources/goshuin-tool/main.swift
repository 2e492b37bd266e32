import Glibc
import GoshuinFormat

// A closed pipe is reported as an I/O error (74), not a silent death by SIGPIPE.
signal(SIGPIPE, SIG_IGN)
// A file-size limit is reported as an I/O error (74) with the partial output removed, not a core dump.
signal(SIGXFSZ, SIG_IGN)
Console.occupyClosedStandardDescriptors()
Signals.installInterruptionHandlers()
exit(GoshuinTool.run(Array(CommandLine.arguments.dropFirst())).rawValue)
