import GoshuinFormat

ProcessControl.installSignalHandlers()
Console.occupyClosedStandardDescriptors()

// Every argument as its exact bytes: a path that is not UTF-8 would otherwise be repaired into another
// name (U+FFFD), so that the tool reads or writes a file other than the one named.
var arguments: [String] = []
let argumentBytes = ProcessControl.argumentBytes
for bytes in argumentBytes {
    guard let argument = String(validating: bytes, as: UTF8.self) else {
        Console.report(
            ToolError.usage(
                "the argument \(DisplayText.quoted(bytes: bytes)) is not valid UTF-8; goshuin-tool takes file and"
                    + " folder names in UTF-8 (rename it, or reach it through a link with a UTF-8 name)"),
            json: argumentBytes.contains(Array("--json".utf8)))
        ProcessControl.exit(ExitStatus.usage.rawValue)
    }
    arguments.append(argument)
}
ProcessControl.exit(GoshuinTool.run(arguments).rawValue)
