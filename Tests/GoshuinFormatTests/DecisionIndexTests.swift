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
