import GoshuinBackup
import GoshuinFormat

extension FuzzHarness {
    /// The strict ZIP scan and the reader behind it, on arbitrary bytes: a refusal has one of the archive
    /// codes; an accepted ZIP's entries have safe, unique names, stored or deflate methods, declared sizes
    /// within the limits and local headers that tile the file; reading an entry gives exactly its declared
    /// size or fails with an archive code; the full read in file order fails exactly when the scan does or
    /// an entry does, and a whole backup read through the manifest binding agrees with it.
    @_spi(Fuzzing) public static let zipStructure = FuzzHarness(name: "zip-structure") { input in
        ZipStructureHarness.check(input)
    }
}

enum ZipStructureHarness {
    static let invariants = InvariantCheck(harness: "zip-structure")
    /// Inflated bytes read per input at most, so that a legitimate 200:1 entry cannot slow the fuzzer.
    static let readBudget: UInt64 = 8 << 20

    static func check(_ input: [UInt8]) {
        let source = ByteArraySource(input)
        let archive: BackupArchive
        do {
            archive = try BackupArchive(source)
        } catch {
            requireArchiveCode(error, "the central directory")
            return
        }
        let tiles: Bool
        do {
            let directory = try ZipStructureScanner.scan(source)
            invariants.require(directory == archive.directory, "the full scan read another central directory")
            checkDirectory(directory, size: UInt64(input.count))
            tiles = true
        } catch {
            requireArchiveCode(error, "the scan")
            tiles = false
        }
        var budget = readBudget
        var entriesRead = true
        for entry in archive.directory.entries where entry.uncompressedSize <= budget {
            budget -= entry.uncompressedSize
            var received: UInt64 = 0
            do {
                try archive.read(entry) { received += UInt64($0.count) }
                invariants.require(received == entry.uncompressedSize, "read \(received) of \(entry.uncompressedSize)")
            } catch {
                requireArchiveCode(error, "reading \(entry.name)")
                invariants.require(received <= entry.uncompressedSize, "more than the declared size was released")
                entriesRead = false
            }
        }
        do {
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            let names = Set(archive.directory.entries.map(\.name))
            invariants.require(
                names == Set(manifest.listedFiles.map(\.name) + ["manifest.json"]), "binding accepted other names")
            guard archive.directory.totalUncompressedSize <= readBudget else { return }
            try archive.readEveryEntry(checkedAgainst: manifest) { _, read in try read { _ in } }
            invariants.require(tiles && entriesRead, "the full read accepted what the scan or an entry refused")
        } catch {
            requireArchiveCode(error, "the manifest and the full read")
        }
    }

    static func checkDirectory(_ directory: ZipDirectory, size: UInt64) {
        invariants.require(directory.entries.count <= 50_000, "more than 50,000 entries accepted")
        var folded = Set<String>()
        var spans: [(UInt64, UInt64)] = []
        for entry in directory.entries {
            invariants.require(
                BackupSpecRestatement.isSafeEntryName(Array(entry.name.utf8)), "accepted the name \(entry.name)")
            invariants.require(folded.insert(entry.name.lowercased()).inserted, "accepted a duplicate name")
            invariants.require(entry.method == 0 || entry.method == 8, "accepted method \(entry.method)")
            if entry.method == 0 {
                invariants.require(entry.compressedSize == entry.uncompressedSize, "stored sizes differ")
            } else {
                invariants.require(
                    entry.uncompressedSize <= entry.compressedSize * 200, "accepted a ratio over 200")
            }
            let dataEnd = entry.localHeaderOffset + 30 + UInt64(entry.name.utf8.count) + entry.compressedSize
            spans.append((entry.localHeaderOffset, dataEnd))
        }
        spans.sort { $0.0 < $1.0 }
        for (first, second) in zip(spans, spans.dropFirst()) {
            invariants.require(first.1 <= second.0, "accepted overlapping entries")
        }
        invariants.require(directory.centralDirectoryOffset <= size, "the central directory is past the end")
    }

    static func requireArchiveCode(_ error: Error, _ stage: String) {
        guard let error = error as? GoshuinError else { invariants.fail("\(stage) threw \(error)") }
        invariants.require(
            BackupSpecRestatement.archiveErrorCodes.contains(error.code.rawValue),
            "\(stage) failed with \(error.code.rawValue)")
    }
}
