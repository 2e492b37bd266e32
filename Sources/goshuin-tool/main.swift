import GoshuinFormat
import Glibc

// A closed pipe is reported as an I/O error (74), not a silent death by SIGPIPE.
signal(SIGPIPE, SIG_IGN)
exit(GoshuinTool.run(Array(CommandLine.arguments.dropFirst())).rawValue)
