import Foundation
import GoshuinTestSupport
import Testing

/// `Spec/decisions/README.md` is the index of the decisions: every file listed once, in order, each with
/// its number as its title's and a status line.
@Suite struct DecisionIndexTests {
    static let folder = Fixtures.packageRoot + "/Spec/decisions"

    @Test func theIndexListsEveryDecisionOnceInOrder() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder)
            .filter { $0.wholeMatch(of: /[0-9]{4}-[a-z0-9-]+\.md/) != nil }.sorted()
        #expect(files.count >= 28)
        let index = try String(contentsOfFile: Self.folder + "/README.md", encoding: .utf8)
        let listed = index.matches(of: /\n\| \[([0-9]{4})\]\(([^)]+)\) \|/).map {
            (number: String($0.output.1), file: String($0.output.2))
        }
        #expect(listed.map(\.file) == files, "the index's rows are the files, in order")
        for row in listed { #expect(row.file.hasPrefix(row.number + "-"), "\(row.file) under \(row.number)") }
        for file in files {
            let text = try String(contentsOfFile: Self.folder + "/" + file, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let number = Int(file.prefix(4)) ?? -1
            #expect(lines.first?.hasPrefix("# \(number). ") == true, "\(file): its title starts # \(number).")
            #expect(lines.prefix(4).contains { $0.hasPrefix("Status: ") }, "\(file) has a status line")
        }
    }
}

extension DecisionIndexTests {
    /// `Spec/decisions/0013`'s module table is `Package.swift`: a row for every library and executable target
    /// that is Swift (C targets and system libraries are named where they are linked), with the same
    /// dependencies, and nothing else.
    @Test func moduleTableIsPackageSwift() throws {
        let manifest = try String(contentsOfFile: Fixtures.packageRoot + "/Package.swift", encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        for match in manifest.matches(
            of: /\.(?:target|executableTarget)\(\s*name: "([^"]+)"(?:,\s*dependencies: \[([^\]]*)\])?/)
        {
            let name = String(match.output.1)
            guard !name.hasPrefix("C"), name != "GoshuinTestSupport" else { continue }
            let dependencies = (match.output.2.map(String.init) ?? "").matches(of: /"([^"]+)"/).map {
                String($0.output.1)
            }
            targets[name] = Set(dependencies)
        }
        let decision = try String(contentsOfFile: Self.folder + "/0013-module-boundaries.md", encoding: .utf8)
        var rows: [String: Set<String>] = [:]
        for line in decision.split(separator: "\n") where line.hasPrefix("  | `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            guard cells.count >= 3, let name = cells[0].firstMatch(of: /`([^`]+)`/) else { continue }
            let dependencies = cells[2].matches(of: /`([^`]+)`/).map { String($0.output.1) }
            rows[String(name.output.1)] = Set(dependencies)
        }
        #expect(targets.count >= 9, "Package.swift was read: \(targets.keys.sorted())")
        #expect(rows == targets, "0013's table: \(rows.keys.sorted()); Package.swift: \(targets.keys.sorted())")
    }
}
