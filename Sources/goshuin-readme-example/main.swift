import GoshuinBackup
import GoshuinFormat
import GoshuinRecovery

// Between paths: the input and the destination are checked before the passphrase is asked for
// (askPassphrase() is the program's prompt), and the output appears only once it is complete.
let parameters = SealParameters(iterations: 600_000, chunkSize: 4 << 20)  // the defaults: format version 1
try GoshuinFile.seal(
    inputPath: "notes.zip", outputPath: "notes.goshuin", passphrase: askPassphrase(), parameters: parameters)
try GoshuinFile.open(inputPath: "notes.goshuin", outputPath: "notes-again.zip", passphrase: askPassphrase())

// Step by step, in an order the types keep: every check that needs no key, then the passphrase, then chunks.
let locked = try LockedContainer(checkingFileAt: "notes.goshuin")  // the header, the size, every length prefix
print("notes.goshuin: format version \(locked.header.version.rawValue), \(locked.header.plaintextLength) bytes")
let container = try locked.unlock(with: askPassphrase())  // the keys derived; version 2's header MAC checked
try container.verify()  // every chunk authenticated on every core, nothing written
var streamed = 0
try container.readInOrder { plaintext in streamed += plaintext.count }  // each chunk once it authenticated
let reader = try container.reader()  // random access: only the chunks a read needs are decrypted
let isZip = try reader.read(at: 0, count: 2) { bytes in bytes.count == 2 && bytes[0] == 0x50 && bytes[1] == 0x4B }
print("read \(streamed) bytes in order; \(isZip ? "a ZIP" : "not a ZIP")")

// Sealing what the program makes as it goes: version 2 needs no length first.
let draft = try SealParameters(version: .v2).draft(sealingTo: "journal.goshuin")  // the destination checked
let keyed = try draft.key(with: askPassphrase())
let journal = try keyed.seal { sealer in
    for line in ["first entry\n", "second entry\n"] { try sealer.write(contentsOf: line.utf8) }
}
print("journal.goshuin: \(journal.plaintextLength) bytes sealed, format version \(journal.version.rawValue)")

// Backups: a folder of records.csv and photos, checked whole before the passphrase, then sealed in one pass.
let folder = try BackupFolder(checking: "my-backup")
print("my-backup: records.csv and \(folder.photoCount) photos, \(folder.dataSize) bytes")
try folder.seal(to: "backup.goshuin", passphrase: askPassphrase())
let listing = try BackupFile.list(inputPath: "backup.goshuin", passphrase: askPassphrase())
print("backup.goshuin: made \(listing.manifest.createdAt), \(listing.entries.count) entries")
try BackupFile.extract(inputPath: "backup.goshuin", into: "restored", passphrase: askPassphrase())

// Recovery sets, no passphrase: backup.goshuin.par2 and backup.goshuin.vol00+20.par2 beside the backup, which
// par2cmdline and par2cmdline-turbo read too; where it is damaged; a repair, checked before it goes out.
try RecoverySet.protect(inputPath: "backup.goshuin", redundancy: try RecoveryRedundancy(percent: 5))
let found = try RecoverySet.verify(inputPath: "backup.goshuin")
print("backup.goshuin: \(found.damagedSliceCount) damaged slices, repairable: \(found.isRepairable)")
try RecoverySet.repair(inputPath: "backup.goshuin", to: .newFile("fixed.goshuin"))  // or .inPlace
