import Foundation
import GoshuinBackup
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The error codes are data (`GoshuinError.Code`, each with its category, each module declaring its own);
/// the specs, the man page and the offline page list them, and these tests keep every list in step with the
/// library's.
@Suite struct ErrorCodeListTests {
    static let codes = GoshuinError.Code.allLibraryCodes

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: Fixtures.packageRoot + "/" + path, encoding: .utf8)
    }

    @Test func everyCodeIsDeclaredOnceWithItsCategory() {
        let names = Self.codes.map(\.rawValue)
        #expect(Set(names).count == names.count, "no code declared twice")
        #expect(names.allSatisfy { $0.wholeMatch(of: /[a-z]+(_[a-z0-9]+)*/) != nil }, "lower snake case")
        #expect(Set(Self.codes.map(\.category)) == Set(GoshuinError.Code.Category.allCases), "every category used")
        #expect(GoshuinError.Code.backupModuleCodes.allSatisfy { $0.category == .backup || $0.category == .usage })
        #expect(GoshuinError.Code.containerReadingCodes.count == 12, "the twelve reading codes of container-v1 §7")
    }

    @Test func theContainerSpecsListTheContainerModulesCodes() throws {
        let section = try Self.read("Spec/container-v1.md").components(separatedBy: "## 8. Error codes")[1]
            .components(separatedBy: "\n## ")[0]
        let listed = Set(section.matches(of: /\n\| `([a-z_]+)` \|/).map { String($0.output.1) })
        let container = GoshuinError.Code.systemModuleCodes + GoshuinError.Code.containerModuleCodes
        #expect(listed == Set(container.map(\.rawValue)), "container-v1.md §8: the container's and the system's")
        let v2 = try Self.read("Spec/container-v2.md").components(separatedBy: "## 12. Error codes")[1]
            .components(separatedBy: "\n## ")[0]
        let v2Reading = Set(v2.matches(of: /\n\| `([a-z_]+)` \|/).map { String($0.output.1) })
        let expected = GoshuinError.Code.containerReadingCodes.filter {
            ![GoshuinError.Code.emptyPayload, .trailingData, .chunkLengthInvalid].contains($0)
        }
        #expect(v2Reading == Set(expected.map(\.rawValue)), "container-v2.md §12: the nine reading codes")
        let backupSpec = try Self.read("Spec/backup-v1.md")
        for code in GoshuinError.Code.backupModuleCodes {
            #expect(backupSpec.contains("`\(code.rawValue)`"), "backup-v1.md names \(code.rawValue)")
        }
    }

    @Test func theManPageListsEveryCodeUnderItsCategory() throws {
        let manual = try Self.read("Documentation/goshuin-tool.1")
        let diagnostics = try #require(manual.components(separatedBy: ".SH DIAGNOSTICS").dropFirst().first)
            .components(separatedBy: "\n.SH ")[0]
        for category in GoshuinError.Code.Category.allCases {
            let heading = "The codes of the\n.B \(category.rawValue)\ncategory"
            let group = try #require(
                diagnostics.components(separatedBy: heading).dropFirst().first, "a group for \(category)"
            ).components(separatedBy: "\n.PP\n")[0]
            let listed = Set(group.matches(of: /\.TP\n\.B ([a-z_]+)\n/).map { String($0.output.1) })
            let declared = Set(Self.codes.filter { $0.category == category }.map(\.rawValue))
            #expect(listed == declared, "the man page's \(category) group")
        }
    }

    @Test func theOfflinePageKnowsEveryCodeItCanMeetInTheSameCategory() throws {
        let source = try Self.read("Web/src/core/01-errors.mjs")
        let table = try #require(source.components(separatedBy: "var CODE_CATEGORY = {").dropFirst().first)
            .components(separatedBy: "};")[0]
        let pageCategories = Dictionary(
            uniqueKeysWithValues: table.matches(of: /([a-z_]+): "([a-z]+)"/).map {
                (String($0.output.1), String($0.output.2))
            })
        let byName = Dictionary(uniqueKeysWithValues: Self.codes.map { ($0.rawValue, $0) })
        for (name, category) in pageCategories where category != "page" {
            let code = try #require(byName[name], "the page's \(name) is a library code")
            #expect(code.category.rawValue == category, "\(name): the page says \(category)")
        }
        // The page reads every file and every backup, so it meets every reading code and every backup code
        // but the one of sealing a folder; and it repairs with recovery files, so it meets every recovery code.
        let met = Self.codes.filter { [.container, .backup, .recovery].contains($0.category) }.filter {
            $0 != .unexpectedFile
        }
        for code in met { #expect(pageCategories[code.rawValue] != nil, "the page gives \(code.rawValue)") }
        let advice = try #require(source.components(separatedBy: "var ADVICE = {").dropFirst().first)
            .components(separatedBy: "};")[0]
        let advised = Set(advice.matches(of: /\n  ([a-z_]+):/).map { String($0.output.1) })
        #expect(advised == Set(pageCategories.keys), "advice for exactly the codes the page gives")
        let built = try Self.read("Web/goshuin-open.html")
        #expect(built.contains(table), "Web/goshuin-open.html is built from these sources (node Web/build.mjs)")
    }
}
