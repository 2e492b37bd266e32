import GoshuinBackup
import GoshuinFormat

extension FuzzHarness {
    /// `Manifest.parse` on arbitrary bytes: a refusal is `manifest_invalid`; an accepted manifest has valid,
    /// sorted, case-fold-unique photo names and `records.csv`, and its own encoding parses back to itself.
    @_spi(Fuzzing) public static let manifest = FuzzHarness(name: "manifest") { input in
        ManifestHarness.check(input)
    }
}

enum ManifestHarness {
    static let invariants = InvariantCheck(harness: "manifest")

    static func check(_ input: [UInt8]) {
        let manifest: Manifest
        do {
            manifest = try Manifest.parse(input)
        } catch let error as GoshuinError {
            invariants.require(error.code == .manifestInvalid, "a refused manifest gives \(error.code.rawValue)")
            return
        } catch {
            invariants.fail("Manifest.parse threw \(error), not a GoshuinError")
        }
        invariants.require(manifest.records.name == "records.csv", "records is \(manifest.records.name)")
        var folded = Set<String>()
        for (position, photo) in manifest.photos.enumerated() {
            invariants.require(
                BackupSpecRestatement.isValidPhotoName(Array(photo.name.utf8)), "accepted photo \(photo.name)")
            invariants.require(folded.insert(photo.name.lowercased()).inserted, "accepted a case-fold duplicate")
            if position > 0 {
                invariants.require(
                    manifest.photos[position - 1].name.utf8.lexicographicallyPrecedes(photo.name.utf8),
                    "accepted unsorted photos")
            }
        }
        for file in manifest.listedFiles {
            invariants.require(file.sha256.count == 32 && file.size < 1 << 53, "a file entry out of range")
        }
        do {
            invariants.require(try Manifest.parse(manifest.encode()) == manifest, "encode ∘ parse changes it")
        } catch {
            invariants.fail("an accepted manifest's own encoding is refused: \(error)")
        }
    }
}
