import GoshuinFormat
import GoshuinRecovery

/// How `verify` and `repair` word a file checked against its recovery set (`Spec/recovery-par2.md` §7): in
/// the words of `Spec/glossary.md` for people (parts of the file, chunks for where they are), in the
/// specification's for `--json`, and the command to run next, quoted for a shell.
enum RecoveryReport {
    /// The set's name as the person sees it beside the file: its index `FILE.par2` when it was read, else its
    /// first file.
    static func setName(_ verification: RecoveryVerification) -> String {
        let files = verification.recoveryFiles
        let index = files.first { isIndex($0) }
        return FileSystem.lastComponent(of: index ?? files.first ?? "")
    }

    /// Whether `path` is a set's index file (`X.par2`, not `X.volA+B.par2`).
    private static func isIndex(_ path: String) -> Bool {
        path.hasSuffix(".par2") && !FileSystem.lastComponent(of: path).contains(".vol")
    }

    /// `1 part`, `N parts`: slices, as people are told of them.
    static func parts(_ count: Int) -> String { count == 1 ? "1 part" : "\(count) parts" }

    /// What is damaged, in parts of the file, and where: `2 parts of the file (in chunks 47-49)`, with how
    /// much is missing from a file cut short, or what follows its end.
    static func damage(_ verification: RecoveryVerification) -> String {
        var found: [String] = []
        let count = verification.damagedSliceCount
        if count > 0 {
            found.append(
                "\(parts(count)) of the file" + (isCut(verification) ? " damaged or missing" : "")
                    + (location(verification).map { " (\($0))" } ?? ""))
        }
        if isCut(verification) {
            found.append(
                "cut short: \(ProgressReporter.size(verification.expectedLength - verification.actualLength)) missing"
                    + " at its end")
        } else if verification.actualLength > verification.expectedLength {
            found.append(
                "\(ProgressReporter.size(verification.actualLength - verification.expectedLength)) follow its end")
        }
        return found.isEmpty ? "its whole MD5 differs from the recovery files'" : found.joined(separator: "; ")
    }

    /// Where the damage is, for a `.goshuin` file: `in the header and chunks 3-4, 9`; for another file, the
    /// bytes; `nil` when nothing is damaged in place.
    static func location(_ verification: RecoveryVerification) -> String? {
        let damaged = verification.damage.filter { !$0.missing }
        guard !damaged.isEmpty else { return nil }
        var parts: [String] = []
        if damaged.contains(where: \.includesHeader) { parts.append("the header") }
        let records = damaged.compactMap(\.records)
        if !records.isEmpty {
            let single = records.count == 1 && records[0].lowerBound == records[0].upperBound
            parts.append((single ? "chunk " : "chunks ") + list(records))
        } else if parts.isEmpty {
            let bytes = "bytes " + list(damaged.map { $0.bytes.lowerBound...($0.bytes.upperBound - 1) })
            parts.append(damaged[0].bytes.lowerBound == 0 ? "its start, \(bytes)" : bytes)
        }
        return "in " + parts.joined(separator: " and ")
    }

    /// Says on standard error which set files were left aside (not readable at all) and which were not read to
    /// their end (too damaged, or too large for a set of this file, to search through).
    static func noticeFilesAside(_ verification: RecoveryVerification) {
        // In the order of their names, not of the folder's listing, which differs from one file system to another.
        for leftAside in verification.recoveryFilesLeftAside.sorted() { Console.notice("left aside: \(leftAside)") }
        for path in verification.recoveryFilesNotReadToTheEnd.sorted() {
            Console.notice(
                "not read to its end: \(DisplayText.quoted(path)) (too large or too damaged for recovery files of"
                    + " this file; what it holds further on was not used)")
        }
    }

    /// What to do with a file longer than the one its recovery files describe: they cannot say whether what
    /// follows belongs to it, and a repair does not cut it.
    static func longerAdvice(_ path: String) -> String {
        "check it with its passphrase: \(ShellQuoting.command(verifyCommand(path))); if it is intact, its recovery"
            + " files were made of a shorter copy: make new ones with"
            + " \(ShellQuoting.command(protectCommand(path, replacing: true)))"
    }

    /// The chunks the damage falls in, in order, each once.
    static func damagedChunks(_ verification: RecoveryVerification) -> [UInt64] {
        var chunks: [UInt64] = []
        for range in verification.damage.compactMap(\.records) {
            for chunk in range where chunks.last.map({ chunk > $0 }) ?? true { chunks.append(chunk) }
        }
        return chunks
    }

    /// Whether the file is cut short (``RecoveryVerification/actualLength`` below the set's length): a cut
    /// is `truncated` whoever says it.
    static func isCut(_ verification: RecoveryVerification) -> Bool {
        verification.actualLength < verification.expectedLength
    }

    /// The command that repairs the file at `path` (naming the set when it was given by path).
    static func repairCommand(_ path: String, recoveryPath: String?) -> [String] {
        ["goshuin-tool", "repair", ShellQuoting.argument(path)]
            + (recoveryPath.map { ["--recovery", ShellQuoting.argument($0)] } ?? [])
    }

    /// The command that restores what is intact of the backup at `path`.
    static func salvageCommand(_ path: String) -> [String] {
        ["goshuin-tool", "open", ShellQuoting.argument(path), "--extract", "DIR", "--salvage"]
    }

    /// The command that saves what is intact of the backup at `path` as a new backup (`rescue`).
    static func rescueCommand(_ path: String) -> [String] { ["goshuin-tool", "rescue", ShellQuoting.argument(path)] }

    /// What ends every advice to salvage the backup at `path`: the one step that brings what is intact into
    /// the app.
    static func rescueAdvice(_ path: String) -> String {
        "to bring what is intact into the app, save it as a new backup: \(ShellQuoting.command(rescueCommand(path)))"
    }

    /// The command that makes a new set for the file at `path`, replacing one beside it.
    static func protectCommand(_ path: String, replacing: Bool) -> [String] {
        ["goshuin-tool", "protect", ShellQuoting.argument(path)] + (replacing ? ["--force"] : [])
    }

    /// The command that checks a backup with its passphrase.
    static func verifyCommand(_ path: String) -> [String] {
        ["goshuin-tool", "verify", ShellQuoting.argument(path), "--backup"]
    }

    /// The command to run next for a damaged file: the repair, or when the set cannot repair it, the salvage
    /// (for a cut file, copying it again comes first, and is said in words).
    static func nextCommand(_ verification: RecoveryVerification, path: String, recoveryPath: String?) -> [String] {
        verification.isRepairable ? repairCommand(path, recoveryPath: recoveryPath) : salvageCommand(path)
    }

    /// What the recovery files can do, in parts of the file: `the recovery files backup.goshuin.par2 can
    /// rebuild up to 13 parts`, naming the volume file that is missing when only the index was found.
    ///
    /// Only its pattern can be named: the index holds no recovery slice, nor their number, which the volume's
    /// name spells (`NAME.vol0+r.par2`, `r` from the redundancy, which no packet of the index records;
    /// `Spec/recovery-par2.md` §2). What it must hold is said instead: as many parts as the damage needs.
    static func capacity(_ verification: RecoveryVerification) -> String {
        let available = verification.recoverySlicesAvailable
        let set = "the recovery files \(setName(verification))"
        guard available == 0 else { return "\(set) can rebuild up to \(parts(available))" }
        guard verification.recoveryFiles.allSatisfy(isIndex) else { return "\(set) hold nothing to rebuild with" }
        // The volume files are named after the index, which may be named after another file (--recovery).
        let index = setName(verification)
        let name = String(index.dropLast(".par2".count))
        let needed = verification.recoverySlicesNeeded
        return "\(set) can rebuild nothing: \(index) is the index alone, and the recovery data is in the volume"
            + " file made with it, \(name).vol…par2, which is not beside it (the index records neither that file's"
            + " exact name nor how many parts it can rebuild, so only its pattern is known); put every"
            + " \(name).vol…par2 file made with it beside the index"
            + (needed > 0 ? ": they repair this file if they can rebuild at least \(parts(needed))" : "")
    }

    /// `13 parts needed, the recovery files can rebuild 10`: why a damaged file cannot be repaired.
    static func shortfall(_ verification: RecoveryVerification) -> String {
        if verification.actualLength > verification.expectedLength {
            return "its recovery files describe its first \(verification.expectedLength) bytes, and a repair would"
                + " cut what follows, which they cannot decide"
        }
        let others =
            verification.otherUnknownSlices > 0
            ? " (\(parts(verification.damagedSliceCount)) of this file, \(verification.otherUnknownSlices) of the other"
                + " files its recovery files protect)" : ""
        let needed = verification.recoverySlicesNeeded
        if let limit = verification.rebuildLimit {
            let from =
                limit.exponentsNotInOneRun
                ? "recovery data that is not in one run (a volume file missing or damaged)" : "them"
            return "\(parts(needed)) to rebuild\(others); \(capacity(verification)), but this toolkit rebuilds at most"
                + " \(parts(limit.most)) at once from \(from); par2cmdline's 'par2 repair', which has no such limit,"
                + " may repair it"
        }
        if needed <= verification.recoverySlicesAvailable {
            return "\(parts(needed)) to rebuild\(others), and no \(needed) of the recovery data are independent"
                + " (PAR 2.0's matrix is singular here)"
        }
        return "\(parts(needed)) to rebuild\(others); \(capacity(verification))"
            + (verification.recoverySlicesAvailable == 0
                ? "" : " (\(needed - verification.recoverySlicesAvailable) more needed)")
    }

    /// One line for a damaged file: where, whether its recovery files repair it, and the command to run.
    static func damageLine(_ verification: RecoveryVerification, path: String, recoveryPath: String?) -> String {
        let next = ShellQuoting.command(nextCommand(verification, path: path, recoveryPath: recoveryPath))
        if verification.isRepairable {
            return "damaged: \(damage(verification)); \(capacity(verification)): \(next)"
        }
        let first = isCut(verification) ? "copy it again from where it was saved; if this is the only copy, " : ""
        return "damaged: \(damage(verification)); not repairable: \(shortfall(verification)); \(first)to restore"
            + " what is intact: \(next); \(rescueAdvice(path))"
    }

    /// One line for an intact file.
    static func intactLine(_ verification: RecoveryVerification) -> String {
        "intact: every part of the file matches its recovery files \(setName(verification)), which can rebuild up"
            + " to \(parts(verification.recoverySlicesAvailable))"
    }

    /// The JSON of a check: the same as the line says, as numbers and lists, in the specification's words.
    static func json(_ verification: RecoveryVerification, path: String, recoveryPath: String?) -> JSONValue {
        let damaged = !verification.isIntact
        let damage = verification.damage.map { range -> JSONValue in
            .object([
                ("firstSlice", .integer(range.slices.lowerBound)), ("lastSlice", .integer(range.slices.upperBound)),
                ("offset", .integer(range.bytes.lowerBound)), ("length", .integer(range.bytes.count)),
                ("missing", .bool(range.missing)), ("header", .bool(range.includesHeader)),
                ("firstChunk", range.records.map { .integer($0.lowerBound) } ?? .null),
                ("lastChunk", range.records.map { .integer($0.upperBound) } ?? .null),
            ])
        }
        let next = damaged ? nextCommand(verification, path: path, recoveryPath: recoveryPath) : nil
        return .object([
            ("usable", .bool(true)),
            ("set", .string(setName(verification))),
            ("files", .array(verification.recoveryFiles.map { .string($0) })),
            ("filesLeftAside", .array(verification.recoveryFilesLeftAside.sorted().map { .string($0) })),
            ("intact", .bool(verification.isIntact)),
            ("repairable", .bool(verification.isRepairable)),
            ("cutShort", .bool(isCut(verification))),
            ("sliceSize", .integer(verification.sliceSize)),
            ("sliceCount", .integer(verification.sliceCount)),
            ("damagedSlices", .integer(verification.damagedSliceCount)),
            ("recoverySlicesNeeded", .integer(verification.recoverySlicesNeeded)),
            ("recoverySlicesAvailable", .integer(verification.recoverySlicesAvailable)),
            ("damagedChunks", .array(damagedChunks(verification).map { .integer($0) })),
            ("headerDamaged", .bool(verification.damage.contains(where: \.includesHeader))),
            ("expectedLength", .integer(verification.expectedLength)),
            ("actualLength", .integer(verification.actualLength)),
            ("damage", .array(damage)),
            ("next", next.map { .string(ShellQuoting.command($0)) } ?? .null),
            ("nextArguments", next.map { .array($0.map { .string($0) }) } ?? .null),
        ])
    }

    /// The JSON of a set found beside the file that cannot be used: its code, its message, and for a set made
    /// for another file, the command that makes a new one.
    static func unusableJSON(_ error: GoshuinError, path: String) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("usable", .bool(false)), ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
        ]
        if error.code == .recoverySetMismatch {
            let next = protectCommand(path, replacing: true)
            members += [
                ("next", .string(ShellQuoting.command(next))), ("nextArguments", .array(next.map { .string($0) })),
            ]
        }
        return .object(members)
    }

    /// What `verify` says of a set beside the file that was made for another file.
    static func anotherFileNotice(_ path: String) -> String {
        "the recovery files beside \(DisplayText.quoted(path)) were made for another backup; they cannot check or"
            + " repair this one; make new ones with \(ShellQuoting.command(protectCommand(path, replacing: true)))"
    }

    /// The redundancy `text` asks for (`5%`, `5`, `2.5%`), or a usage error of `command` naming `option`.
    static func redundancy(_ text: String, option: OptionName, command: String) throws -> RecoveryRedundancy {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Double(number), !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }) else {
            throw ToolError.usage(
                "\(option.rawValue) takes a percentage such as 5% or 2.5%, not '\(text)'", command: command)
        }
        do {
            return try RecoveryRedundancy(percent: percent)
        } catch let error as GoshuinError {
            throw ToolError(usage: error, command: command)
        }
    }

    /// `3`, `3-5`, `3-5, 9`: ranges of numbers, in order.
    private static func list(_ ranges: [ClosedRange<UInt64>]) -> String {
        var merged: [ClosedRange<UInt64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        let shown = merged.prefix(20).map {
            $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)"
        }
        return shown.joined(separator: ", ") + (merged.count > 20 ? " and \(merged.count - 20) more runs" : "")
    }
}
