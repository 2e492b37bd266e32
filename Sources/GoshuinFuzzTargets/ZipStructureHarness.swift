import GoshuinFormat

extension FuzzHarness {
    /// The strict ZIP scan and minizip behind it, on arbitrary bytes: a refusal has one of the archive codes;
    /// an accepted ZIP's entries have safe, unique names, stored or deflate methods, declared sizes within
    /// the limits and local headers that tile the file; reading an entry gives exactly its declared size or
    /// fails with an archive code, and a whole backup read through the manifest binding agrees with it.
    public static let zipStructure = FuzzHarness(name: "zip-structure") { input in
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
            requireArchiveCode(error, "the scan")
            return
        }
        checkDirectory(archive.directory, size: UInt64(input.count))
        var budget = readBudget
        for entry in archive.directory.entries where entry.uncompressedSize <= budget {
            budget -= entry.uncompressedSize
            var received: UInt64 = 0
            do {
                try archive.read(entry) { received += UInt64($0.count) }
                invariants.require(received == entry.uncompressedSize, "read \(received) of \(entry.uncompressedSize)")
            } catch {
                requireArchiveCode(error, "reading \(entry.name)")
                invariants.require(received <= entry.uncompressedSize, "more than the declared size was released")
            }
        }
        do {
            let manifest = try archive.readManifest()
            try archive.checkBinding(manifest)
            let names = Set(archive.directory.entries.map(\.name))
            invariants.require(
                names == Set(manifest.listedFiles.map(\.name) + ["manifest.json"]), "binding accepted other names")
        } catch {
            requireArchiveCode(error, "the manifest")
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
