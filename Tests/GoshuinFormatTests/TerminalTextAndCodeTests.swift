import Foundation
import GoshuinTestSupport
import Testing

@testable import GoshuinFormat

/// The one quoting function for text from files and the command line, JSON's escapes, the codes the
/// operating system's errors become, and the names of temporaries.
@Suite struct TerminalTextAndCodeTests {
    @Test func displayTextEscapesWhatATerminalWouldActOn() {
        #expect(DisplayText.escaped("御朱印.jpg") == "御朱印.jpg")
        #expect(DisplayText.escaped("a\u{1B}[2Kb\r\n\u{07}") == "a\\x1b[2Kb\\x0d\\x0a\\x07")
        #expect(DisplayText.escaped("\u{7F}\u{9B}x\u{202E}y") == "\\x7f\\u{009b}x\\u{202e}y")
        #expect(DisplayText.escaped(bytes: [0x61, 0xFF, 0xE5, 0xBE, 0x62]) == "a\\xff\\xe5\\xbeb")
        #expect(DisplayText.quoted("say \"hi\" \\ bye") == "\"say \\\"hi\\\" \\\\ bye\"")
        let long = DisplayText.quoted(String(repeating: "x", count: 1_000))
        #expect(long.count == DisplayText.quotedCharacterLimit + 3 && long.hasSuffix("…\""))
    }

    /// Characters a person cannot see (the format characters, Cf) and the line and paragraph separators
    /// (Zl, Zp) are escaped like the bidirectional controls: a name holding them looks like what it is.
    @Test func invisibleCharactersAreEscaped() {
        let invisible: [Unicode.Scalar] = [
            "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}", "\u{2028}", "\u{2029}", "\u{00AD}",
            "\u{E0041}",
        ]
        for scalar in invisible {
            let shown = DisplayText.escaped("a\(Character(scalar))b")
            #expect(shown == "a\\u{\(String(scalar.value, radix: 16, uppercase: false).leftPadded(4))}b", "\(shown)")
        }
        #expect(DisplayText.quoted("IMG\u{200B}_0001.jpg") == "\"IMG\\u{200b}_0001.jpg\"")
        // In JSON as \\u escapes, surrogate pairs beyond the first plane.
        #expect(JSONValue.string("\u{200B}\u{E0041}").serialized() == "\"\\u200b\\udb40\\udc41\"")
    }

    /// A duplicate key is quoted in the error through the one display function: a key holding `"` cannot
    /// end the quotes and append text of its own.
    @Test func aDuplicateKeyIsQuotedInTheError() throws {
        let key = "a\" — so the backup is fine \"\u{2028}b"
        let document = Array("{\(JSONValue.quoted(key)):1,\(JSONValue.quoted(key)):2}".utf8)
        #expect(throws: JSONSyntaxError.self) { try StrictJSONParser.parse(document) }
        do {
            _ = try StrictJSONParser.parse(document)
        } catch {
            #expect(error.reason == "duplicate key \(DisplayText.quoted(key))", "\(error.reason)")
            #expect(error.reason.contains("\\\"") && error.reason.contains("\\u{2028}"), "\(error.reason)")
        }
    }

    @Test func jsonEscapesEveryControlCharacter() {
        let text = JSONValue.string("\u{0}\u{1B}\u{7F}\u{85}\u{2028}\u{202E}é").serialized()
        #expect(text == "\"\\u0000\\u001b\\u007f\\u0085\\u2028\\u202eé\"")
        #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F..<0xA0).contains($0.value) })
    }

    @Test func operatingSystemErrorsBecomeCodesThatSayWhatHappened() {
        for value in [ENOSPC, EDQUOT, EFBIG] {
            #expect(Errno(rawValue: value).goshuinError("writing").code == .noSpace)
        }
        #expect(Errno(rawValue: ENOMEM).goshuinError("allocating").code == .outOfMemory)
        #expect(Errno.interrupted.goshuinError("reading", stopRequested: true).code == .interrupted)
        #expect(Errno.interrupted.goshuinError("reading", stopRequested: false).code == .io)
        #expect(Errno(rawValue: EACCES).goshuinError("opening").code == .io)
        let error = Errno(rawValue: ENOSPC).goshuinError("cannot write the output")
        #expect(error.message == "cannot write the output: No space left on device" && error.errno == ENOSPC)
    }

    @Test func temporaryNamesFitEveryValidDestinationName() {
        for name in ["a", String(repeating: "n", count: 255), String(repeating: "御", count: 85)] {
            let temporary = Temporaries.name(for: name)
            #expect(temporary.utf8.count <= 255, "\(temporary.utf8.count)")
            #expect(Temporaries.isTemporaryName(Array(temporary.utf8)))
            #expect(temporary.hasPrefix("." + String(name.prefix(3))))
        }
        #expect(Temporaries.name(for: "x") != Temporaries.name(for: "x"))
        #expect(!Temporaries.isTemporaryName(Array("x.goshuin-tmp-12".utf8)))
        #expect(Temporaries.isTemporaryName(Array(".x.goshuin-tmp-Ab12cD".utf8)), "mkdtemp's names of earlier versions")
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
