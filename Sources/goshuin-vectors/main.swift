// goshuin-vectors: a developer's tool that writes a random known-answer vector set for another
// implementation to check (`Spec/vectors-v1.md`). CI uses it to cross-check the Node reference.
import GoshuinFormat
import GoshuinVectors

let usage = """
    usage: goshuin-vectors random DIR [--count N] [--v2-count M] [--seed S]

    Writes N (default 40) random container version 1 vectors, then M (default 20) version 2 vectors, into
    DIR (created if missing; existing vector files of the same names are replaced). The same seed gives the
    same set; without --seed a random seed is used and printed.

    """

func fail(_ message: String, status: Int32) -> Never {
    try? FileDescriptor.standardError.writeAll(Array("goshuin-vectors: error: \(message)\n".utf8))
    ProcessControl.exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--help" || arguments.first == "-h" || arguments.first == "help" {
    try? FileDescriptor.standardOutput.writeAll(Array(usage.utf8))
    ProcessControl.exit(0)
}
guard arguments.count >= 2, arguments[0] == "random" else {
    try? FileDescriptor.standardError.writeAll(Array(usage.utf8))
    ProcessControl.exit(64)
}
let directory = arguments[1]
var count = 40
var v2Count = 20
var seed = UInt64.random(in: 0...UInt64.max)
var rest = arguments.dropFirst(2)
while let option = rest.popFirst() {
    guard let value = rest.popFirst() else { fail("\(option) needs a value", status: 64) }
    switch option {
    case "--count":
        guard let number = Int(value), number > 0 else { fail("--count takes a positive number", status: 64) }
        count = number
    case "--v2-count":
        guard let number = Int(value), number >= 0 else { fail("--v2-count takes a number", status: 64) }
        v2Count = number
    case "--seed":
        guard let number = UInt64(value) else { fail("--seed takes a number", status: 64) }
        seed = number
    default: fail("unknown option \(option)", status: 64)
    }
}
if !FileSystem.isDirectory(directory), (try? FileSystem.makeDirectory(directory)) == nil {
    fail("cannot create \(directory)", status: 73)
}
do {
    var generator = VectorGenerator(seed: seed)
    try generator.writeRandomSet(count: count, v2Count: v2Count, to: directory)
    try FileDescriptor.standardOutput.writeAll(
        Array("wrote \(count + v2Count) vectors to \(directory) (seed \(seed))\n".utf8))
} catch {
    fail("\(error)", status: 74)
}
