import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The archive corpus shared with the browser page (`Tests/ArchiveCorpus/`, written by
/// `node Web/test/archive-corpus.mjs`): every case gives the code `Spec/backup-v1.md` §4 demands, here
/// and in the page, so the two readers agree on every archive in it.
@Suite struct ArchiveCorpusTests {
    struct Case: Decodable, CustomTestStringConvertible {
        let name: String
        let expect: String
        let comment: String
        var testDescription: String { name }
    }

    struct Index: Decodable {
        let format: String
        let version: Int
        let cases: [Case]
    }

    static let folder = Fixtures.packageRoot + "/Tests/ArchiveCorpus"

    static let cases: [Case] = {
        guard let data = FileManager.default.contents(atPath: folder + "/index.json"),
            let index = try? JSONDecoder().decode(Index.self, from: data)
        else { return [] }
        return index.cases
    }()

    @Test func theCorpusIsThere() {
        #expect(Self.cases.count > 100)
        #expect(Self.cases.contains { $0.expect == "ok" })
    }

    @Test(arguments: cases)
    func everyCaseGivesItsCode(_ corpusCase: Case) {
        let path = Self.folder + "/" + corpusCase.name + ".zip"
        #expect(FileManager.default.fileExists(atPath: path))
        let bytes = Fixtures.readBytes(path)
        let code = BackupArchiveTests.code(bytes) ?? "ok"
        #expect(code == corpusCase.expect, "\(corpusCase.name): \(corpusCase.comment)")
    }
}
