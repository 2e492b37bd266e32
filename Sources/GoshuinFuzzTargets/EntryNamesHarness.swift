import GoshuinBackup
import GoshuinFormat

extension FuzzHarness {
    /// `EntryName` on arbitrary bytes: the library accepts exactly the ZIP entry names and the photo names
    /// the spec allows (`BackupSpecRestatement`), a photo name is always a safe entry name, and no accepted
    /// name holds a path separator, NUL or a dot-only component.
    @_spi(Fuzzing) public static let entryNames = FuzzHarness(name: "entry-names") { input in
        EntryNamesHarness.check(input)
    }
}

enum EntryNamesHarness {
    static let invariants = InvariantCheck(harness: "entry-names")

    static func check(_ input: [UInt8]) {
        let safe = EntryName.isSafeEntryName(input)
        invariants.require(
            safe == BackupSpecRestatement.isSafeEntryName(input), "isSafeEntryName disagrees with the spec")
        if safe {
            invariants.require(
                !input.contains(0x2F) && !input.contains(0x5C) && !input.contains(0), "a separator or NUL passed")
        }
        guard let text = String(validating: input, as: UTF8.self) else { return }
        let photo = EntryName.isValidPhotoName(text)
        invariants.require(
            photo == BackupSpecRestatement.isValidPhotoName(input), "isValidPhotoName disagrees with the spec")
        invariants.require(!photo || safe, "a photo name that is not a safe entry name")
        let folded = EntryName.foldedCase(text)
        invariants.require(folded.utf8.count == input.count, "case folding changed the length")
        invariants.require(EntryName.foldedCase(folded) == folded, "case folding is not idempotent")
    }
}
