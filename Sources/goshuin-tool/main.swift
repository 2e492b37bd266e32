import Glibc
import GoshuinFormat

// A closed pipe is reported as an I/O error (74), not a silent death by SIGPIPE.
signal(SIGPIPE, SIG_IGN)
// A file-size limit is reported as an I/O error (74) with the partial output removed, not a core dump.
signal(SIGXFSZ, SIG_IGN)
Console.occupyClosedStandardDescriptors()
Signals.installInterruptionHandlers()

// Every argument as its exact bytes: a path that is not UTF-8 would otherwise be repaired into another
// name (U+FFFD), so that the tool reads or writes a file other than the one named.
var arguments: [String] = []
for index in 1..<Int(CommandLine.argc) {
    guard let pointer = CommandLine.unsafeArgv[index] else { continue }
    let bytes = UnsafeBufferPointer(start: pointer, count: strlen(pointer)).map { UInt8(bitPattern: $0) }
    guard let argument = String(validating: bytes, as: UTF8.self) else {
        Console.report(
            ToolError.usage(
                "the argument \(DisplayText.quoted(bytes: bytes)) is not valid UTF-8; goshuin-tool takes file and"
                    + " folder names in UTF-8 (rename it, or reach it through a link with a UTF-8 name)"),
            json: arguments.contains("--json"))
        exit(ExitStatus.usage.rawValue)
    }
    arguments.append(argument)
}
exit(GoshuinTool.run(arguments).rawValue)
