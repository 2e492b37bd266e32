import Foundation
import GoshuinTestSupport
import Testing

/// Nothing from a file reaches the terminal raw: a crafted manifest cannot clear the line, print a fake
/// result or set the clipboard, and `--json` stays valid JSON.
@Suite struct TerminalSafetyTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "escape"]

    /// Seals a ZIP holding records.csv and a manifest whose text is `manifest`, written by Python's zipfile.
    func sealCraftedBackup(manifest: String) throws {
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("records.csv", b"a\\n")
                z.writestr("manifest.json", sys.argv[2].encode())
            """
        let made = try ToolRunner.runCommand(
            "/usr/bin/env", ["python3", "-c", script, directory.path + "/c.zip", manifest])
        #expect(made.status == 0, "\(made.output)")
        let sealed = try ToolRunner.run(
            ["seal", "c.zip", "-o", "c.goshuin", "--iterations", "1000"], in: directory.path, environment: environment)
        #expect(sealed.status == 0, "\(sealed.stderr)")
    }

    static let hostile = [
        "\u{1B}]52;c;ZXZpbA==\u{07}", "\u{1B}[2K\rgoshuin-tool: restored 5 files", "\u{9B}31m", "\u{202E}gpj.exe",
        "re\u{200B}cords", "\u{FEFF}format", "a\u{2028}b\u{2029}c", "join\u{200D}\u{2060}ed",
    ]

    @Test(.slowTier, arguments: hostile)
    func aManifestKeyIsEscaped(key: String) throws {
        let keyJSON = String(decoding: try JSONSerialization.data(withJSONObject: [key], options: []), as: UTF8.self)
            .dropFirst().dropLast()
        try sealCraftedBackup(
            manifest:
                "{\"format\":\"goshuin-backup\",\(keyJSON):1,\"version\":1,\"createdAt\":\"2026-11-29T12:00:00Z\","
                + "\"records\":{\"name\":\"records.csv\",\"size\":2,\"sha256\":\"\(String(repeating: "0", count: 64))\"},"
                + "\"photos\":[]}")
        for arguments in [["open", "c.goshuin", "--extract", "out"], ["inspect", "c.goshuin", "--list"]] {
            let text = try ToolRunner.run(arguments, in: directory.path, environment: environment)
            #expect(text.status == 65 && text.errorCode == "manifest_invalid", "\(text.stderr)")
            Self.expectNoTerminalControls(text.stderr)
            let json = try ToolRunner.run(arguments + ["--json"], in: directory.path, environment: environment)
            Self.expectNoTerminalControls(json.stdout)
            // Still valid JSON, with the error in it.
            #expect(json.jsonError?["code"] as? String == "manifest_invalid", "\(json.stdout)")
        }
    }

    @Test func aCreatedAtThatWouldRewriteTheLineIsEscaped() throws {
        try sealCraftedBackup(
            manifest: "{\"format\":\"goshuin-backup\",\"version\":1,\"createdAt\":\"\\u001b[2K\\rrestored 5 files\","
                + "\"records\":{\"name\":\"records.csv\",\"size\":2,\"sha256\":\"\(String(repeating: "0", count: 64))\"},"
                + "\"photos\":[]}")
        let result = try ToolRunner.run(
            ["open", "c.goshuin", "--extract", "out"], in: directory.path, environment: environment)
        #expect(result.status == 65, "\(result.stderr)")
        Self.expectNoTerminalControls(result.stderr)
        #expect(result.stderr.contains("\\x1b[2K\\x0drestored 5 files"))
    }

    @Test func aPathFromTheCommandLineIsEscaped() throws {
        let result = try ToolRunner.run(
            ["open", "no\u{1B}]0;pwned\u{07}.goshuin", "-o", "x"], in: directory.path, environment: environment)
        #expect(result.status == 66)
        Self.expectNoTerminalControls(result.stderr)
    }

    /// A duplicate key holding `"` is quoted through the display function: it cannot end the quotes and
    /// append a sentence of its own.
    @Test func aDuplicateKeyCannotEndItsQuotes() throws {
        let key = #"x\" is fine; the backup verified \""#
        try sealCraftedBackup(
            manifest: "{\"format\":\"goshuin-backup\",\"\(key)\":1,\"\(key)\":2}")
        let result = try ToolRunner.run(
            ["verify", "c.goshuin", "--backup"], in: directory.path, environment: environment)
        #expect(result.status == 65 && result.errorCode == "manifest_invalid", "\(result.stderr)")
        // Refused as a key a backup may not hold, before it is seen twice: quoted either way.
        #expect(result.stderr.contains(#"key "x\" is fine; the backup verified \"""#), "\(result.stderr)")
    }

    /// A vector's file name holding invisible characters is shown with them escaped.
    @Test func aVectorFileNameIsEscaped() throws {
        directory.write("vector\u{200B}\u{2028}.json", Array(#"{"format": "goshuin-known-answer"}"#.utf8))
        let result = try ToolRunner.run(["check", "."], in: directory.path)
        #expect(result.stdout.contains("MALFORMED vector\\u{200b}\\u{2028}"), "\(result.stdout)")
        Self.expectNoTerminalControls(result.stdout)
    }

    /// No C0 control but the final newline, no DEL, no C1 control, no format character (Cf: bidirectional
    /// overrides, zero-width characters), no line or paragraph separator.
    static func expectNoTerminalControls(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let controls = text.dropLast().unicodeScalars.filter { scalar in
            scalar.value < 0x20 && scalar != "\n" || (0x7F..<0xA0).contains(scalar.value)
                || [.format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
        }
        #expect(
            controls.isEmpty, "raw \(controls.map { String($0.value, radix: 16) }) in \(text)",
            sourceLocation: sourceLocation)
    }
}
