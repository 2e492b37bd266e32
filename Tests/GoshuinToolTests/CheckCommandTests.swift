import Foundation
import GoshuinTestSupport
import Testing

/// `goshuin-tool check` on another implementation's vector folder: it opens nothing outside the folder and
/// no device, and its report helps find the bug.
@Suite struct CheckCommandTests {
    let directory = Scratch()
    static let committed = ToolRunner.packageRoot + "/KnownAnswer"

    /// Each vector's outcome in the JSON report of `result`, by name.
    static func outcomes(_ result: ToolRunner.Result) -> [String: String] {
        let vectors = result.json?["vectors"] as? [[String: Any]] ?? []
        return Dictionary(
            vectors.compactMap { vector in (vector["name"] as? String).map { ($0, vector["outcome"] as? String ?? "") }
            },
            uniquingKeysWith: { first, _ in first })
    }

    /// The problems of the vector `name` in the JSON report of `result`.
    static func problems(_ result: ToolRunner.Result, of name: String) -> [[String: Any]] {
        let vectors = result.json?["vectors"] as? [[String: Any]] ?? []
        return vectors.first { $0["name"] as? String == name }?["problems"] as? [[String: Any]] ?? []
    }

    /// Copies the committed vector `name` (its JSON and files) into the scratch folder, `edit`ing its JSON.
    func copyVector(_ name: String, _ edit: (inout String) -> Void = { _ in }) throws {
        var json = try String(contentsOfFile: Self.committed + "/\(name).json", encoding: .utf8)
        edit(&json)
        directory.write("\(name).json", Array(json.utf8))
        for suffix in [".goshuin", ".plaintext"]
        where FileManager.default.fileExists(atPath: Self.committed + "/" + name + suffix) {
            try FileManager.default.copyItem(
                atPath: Self.committed + "/" + name + suffix, toPath: directory.path + "/" + name + suffix)
        }
    }

    /// A vector's file or plaintext file linked to a file elsewhere is malformed, and nothing of the link's
    /// target (its SHA-256, its length) is printed; a NAME.json that is a link to a device, or a named pipe,
    /// is malformed without being opened.
    @Test func linksAndDevicesInAVectorFolderAreMalformedAndNeverFollowed() throws {
        try copyVector("success-four-chunks")
        try copyVector("success-1-byte")
        try FileManager.default.removeItem(atPath: directory.path + "/success-1-byte.goshuin")
        directory.write("elsewhere.secret", Array("a file outside the vector set".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/success-1-byte.goshuin",
            withDestinationPath: directory.path + "/elsewhere.secret")
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/terminal.json", withDestinationPath: "/dev/ptmx")
        #expect(mkfifo(directory.path + "/pipe.json", 0o600) == 0)
        // What each says: check-report.txt.
        let result = try ToolRunner.run(["check", ".", "--json"], in: directory.path)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(
            Self.outcomes(result) == [
                "success-1-byte": "malformed", "success-four-chunks": "passed", "terminal": "malformed",
                "pipe": "malformed",
            ], "\(result.stdout)")
        let text = try ToolRunner.run(["check", "."], in: directory.path)
        let secretDigest = try ToolRunner.runCommand("/usr/bin/sha256sum", [directory.path + "/elsewhere.secret"])
            .output
        let secretHash = String(secretDigest.prefix(64))
        for printed in [result.stdout, text.stdout] {
            #expect(!printed.contains(secretHash), "the link's target was read: \(printed)")
            #expect(!printed.contains("29 bytes"), "the link's target was measured")
        }
    }

    /// Every fault of a malformed vector is reported, not only the first.
    @Test func everyFaultOfAMalformedVectorIsReported() throws {
        try copyVector("success-1-byte") { json in
            json = json.replacingOccurrences(of: "\"iterations\": 1000", with: "\"iterations\": 999")
                .replacingOccurrences(of: "\"chunkSize\": 1024", with: "\"chunkSize\": \"1024\"")
                .replacingOccurrences(of: "\"comment\"", with: "\"purchases\": true, \"comment\"")
        }
        let result = try ToolRunner.run(["check", "success-1-byte.json", "--json"], in: directory.path)
        #expect(result.status == 1 && Self.outcomes(result) == ["success-1-byte": "malformed"])
        let checks = Self.problems(result, of: "success-1-byte").compactMap { $0["check"] as? String }
        #expect(
            Set(checks) == ["key \"iterations\"", "key \"chunkSize\"", "key \"purchases\""] && checks.count == 3,
            "\(result.stdout)")
    }

    /// Two long hex values are shown one above the other with a caret under the first different digit, and
    /// readers that agree on a wrong verdict are named on one line.
    @Test func aDifferenceInAHexValueIsMarkedAndReadersThatAgreeShareALine() throws {
        let original = try String(contentsOfFile: Self.committed + "/auth-tag-bit.json", encoding: .utf8)
        let key = String(try #require(original.firstMatch(of: /"key": "([0-9a-f]{64})"/)?.output.1))
        var changed = Array(key)
        changed[16] = changed[16] == "0" ? "1" : "0"
        try copyVector("auth-tag-bit") { json in
            json = json.replacingOccurrences(of: key, with: String(changed))
                .replacingOccurrences(of: "\"chunkIndex\": 1", with: "\"chunkIndex\": 2")
        }
        // The text, its caret under the first different digit: check-report.txt. The digit is counted from 1.
        let result = try ToolRunner.run(["check", ".", "--json"], in: directory.path)
        #expect(Self.outcomes(result) == ["auth-tag-bit": "failed"], "\(result.stdout)")
        let problems = Self.problems(result, of: "auth-tag-bit")
        let keyProblem = try #require(problems.first { $0["firstDifferentHexDigit"] is Int }, "\(result.stdout)")
        #expect(keyProblem["firstDifferentHexDigit"] as? Int == 17 && keyProblem["computed"] as? String == key)
        // The readers that computed the same verdict share one problem, which names every one of them.
        let verdicts = problems.filter { ($0["by"] as? [String])?.isEmpty == false }
        #expect(verdicts.count == 1, "\(problems)")
        #expect((verdicts.first?["by"] as? [String])?.count == 4, "every reader: \(verdicts)")
    }

    /// A vector's fileSize that this machine cannot make a file of (here a file-size limit) fails the vector,
    /// saying why: a limit of the checker, not a fault of the vector, so not malformed, and never a pass.
    @Test(.notUnderSanitizer) func aFileSizeTheCheckerCannotMakeFailsTheVectorAndIsNotMalformed() throws {
        try copyVector("v2-structure-records-2-32-plus-1")
        let limited = try ToolRunner.run(
            ["check", ".", "--json"], in: directory.path,
            wrapper: ["/bin/sh", "-c", "ulimit -f 2048 && exec \"$@\"", "sh"])
        #expect(limited.status == 1, "\(limited.stdout)")
        #expect(Self.outcomes(limited) == ["v2-structure-records-2-32-plus-1": "failed"], "\(limited.stdout)")
        #expect(limited.json?["failed"] as? Int == 1 && limited.json?["malformed"] as? Int == 0)
        let checks = Self.problems(limited, of: "v2-structure-records-2-32-plus-1").map { $0["check"] as? String }
        #expect(checks == ["fileSize"], "\(limited.stdout)")
        #expect(try ToolRunner.run(["check", "."], in: directory.path).status == 0)
    }

    /// A `.goshuin` file given where a vector's `.json` is expected is named for what it is.
    @Test func aSealedFileGivenAsAVectorSaysSo() throws {
        try copyVector("success-1-byte")
        // What each says: check.txt and check-report.txt.
        let result = try ToolRunner.run(["check", "success-1-byte.goshuin"], in: directory.path)
        #expect(result.status == 64 && result.errorCode == "usage", "\(result.stderr)")
        try FileManager.default.copyItem(
            atPath: directory.path + "/success-1-byte.goshuin", toPath: directory.path + "/renamed.json")
        let renamed = try ToolRunner.run(["check", "renamed.json"], in: directory.path)
        #expect(renamed.status == 64 && renamed.errorCode == "usage", "\(renamed.stderr)")
        // In a folder, the vector named by the file is malformed.
        let folder = try ToolRunner.run(["check", ".", "--json"], in: directory.path)
        #expect(
            Self.outcomes(folder) == ["renamed": "malformed", "success-1-byte": "passed"], "\(folder.stdout)")
    }

    /// With no folder, `check` uses the clone's set at the root of a clone and otherwise the set installed
    /// beside the tool (PREFIX/share/goshuin-toolkit/KnownAnswer).
    @Test func withNoFolderTheCloneOrTheInstalledSetIsChecked() throws {
        let prefix = directory.path + "/prefix"
        let installed = prefix + "/share/goshuin-toolkit/KnownAnswer"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: installed, withIntermediateDirectories: true)
        try ToolRunner.copyTool(to: prefix + "/bin/goshuin-tool")
        for suffix in [".json", ".goshuin"] {
            try FileManager.default.copyItem(
                atPath: Self.committed + "/success-1-byte" + suffix, toPath: installed + "/success-1-byte" + suffix)
        }
        try FileManager.default.createDirectory(
            atPath: directory.path + "/elsewhere", withIntermediateDirectories: false)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prefix + "/bin/goshuin-tool")
        process.arguments = ["check", "--json"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path + "/elsewhere")
        let outside = try ToolRunner.execute(process, stdin: [])
        #expect(outside.status == 0, "\(outside.stderr)")
        #expect(Self.outcomes(outside) == ["success-1-byte": "passed"], "\(outside.stdout)")
        // At the root of a clone (its Package.swift and KnownAnswer/), that set, not the installed one.
        let clone = directory.path + "/clone"
        try FileManager.default.createDirectory(atPath: clone + "/KnownAnswer", withIntermediateDirectories: true)
        directory.write("clone/Package.swift", Array("// swift-tools-version:6.0\n".utf8))
        for suffix in [".json", ".goshuin"] {
            try FileManager.default.copyItem(
                atPath: Self.committed + "/success-four-chunks" + suffix,
                toPath: clone + "/KnownAnswer/success-four-chunks" + suffix)
        }
        let inClone = try ToolRunner.run(["check", "--json"], in: clone)
        #expect(inClone.status == 0 && Self.outcomes(inClone) == ["success-four-chunks": "passed"], "\(inClone.stdout)")
    }

    /// `check` on someone else's folder: a named file that is a device or a pipe makes the vector
    /// malformed at once; it is never read forever or waited on.
    @Test func checkRefusesDevicesAndPipes() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        let vectors = directory.path + "/vectors"
        try FileManager.default.createDirectory(atPath: vectors, withIntermediateDirectories: false)
        let knownAnswer = ToolRunner.packageRoot + "/KnownAnswer/"
        for suffix in [".json", ".goshuin"] {
            try FileManager.default.copyItem(
                atPath: knownAnswer + "success-257-chunks" + suffix, toPath: vectors + "/success-257-chunks" + suffix)
        }
        try FileManager.default.createSymbolicLink(
            atPath: vectors + "/success-257-chunks.plaintext", withDestinationPath: "/dev/zero")
        #expect(mkfifo(vectors + "/pipe.json", 0o600) == 0)
        let checked = try plain.run(["check", "vectors", "--json"], shell: "exec timeout 60 \"$@\"")
        #expect(checked.status == 1, "\(checked.stdout) \(checked.stderr)")
        // The link to the device is never followed: the vector is malformed for holding a link (the words for
        // each: check-report.txt).
        #expect(
            Self.outcomes(checked) == ["pipe": "malformed", "success-257-chunks": "malformed"], "\(checked.stdout)")
        let checks = Self.problems(checked, of: "success-257-chunks").compactMap { $0["check"] as? String }
        #expect(checks == ["the file \"success-257-chunks.plaintext\""], "\(checked.stdout)")
    }

    /// A signal stops `check` with 130; no vector is judged on a run that was cut short.
    @Test func aSignalStopsCheckWithoutFailingAnyVector() throws {
        let plain = try SealedPlainFile()
        let directory = plain.directory
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.toolPath)
        process.arguments = ["check", ToolRunner.packageRoot + "/KnownAnswer"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(1_500_000)
        kill(process.processIdentifier, SIGTERM)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(printed)")
        // Each vector's line starts with its outcome: none but `ok` was printed.
        let judged = printed.split(separator: "\n").dropFirst().filter { !$0.hasPrefix(" ") }
        #expect(judged.allSatisfy { $0.hasPrefix("ok ") }, "\(printed)")
    }
}
