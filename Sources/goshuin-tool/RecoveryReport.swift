import GoshuinFormat
import GoshuinRecovery

/// How `verify` and `repair` word a file checked against its recovery set (`Spec/recovery-par2.md` §7): where
/// it is damaged, in chunks for a `.goshuin` file, and what to run next, as text and as JSON.
enum RecoveryReport {
    /// The set's name as the person sees it beside the file: its index `FILE.par2` when it was read, else its
    /// first file.
    static func setName(_ verification: RecoveryVerification) -> String {
        let files = verification.recoveryFiles
        let index = files.first { $0.hasSuffix(".par2") && !FileSystem.lastComponent(of: $0).contains(".vol") }
        return FileSystem.lastComponent(of: index ?? files.first ?? "")
    }

    /// Where the file is damaged: `chunk 48`, `the header and chunks 3-4, 9`, `slices 2-5` for a file that is
    /// not a `.goshuin` file, with how much is missing from a file cut short.
    static func places(_ verification: RecoveryVerification) -> String {
        var parts: [String] = []
        if verification.damage.contains(where: \.includesHeader) { parts.append("the header") }
        let records = verification.damage.compactMap(\.records)
        if !records.isEmpty {
            let single = records.count == 1 && records[0].lowerBound == records[0].upperBound
            parts.append((single ? "chunk " : "chunks ") + list(records))
        } else if !verification.damage.isEmpty, !parts.contains("the header") {
            let slices = verification.damage.map { UInt64($0.slices.lowerBound)...UInt64($0.slices.upperBound) }
            let single = slices.count == 1 && slices[0].lowerBound == slices[0].upperBound
            parts.append((single ? "slice " : "slices ") + list(slices))
        }
        if verification.actualLength < verification.expectedLength {
            parts.append(
                "the file is cut short (\(ProgressReporter.size(verification.expectedLength - verification.actualLength))"
                    + " missing)")
        } else if verification.actualLength > verification.expectedLength {
            parts.append(
                "\(ProgressReporter.size(verification.actualLength - verification.expectedLength)) follow its end")
        }
        if parts.isEmpty { parts.append("the whole file's MD5 differs") }
        return parts.joined(separator: "; ")
    }

    /// The chunks the damage falls in, in order, each once.
    static func damagedChunks(_ verification: RecoveryVerification) -> [UInt64] {
        var chunks: [UInt64] = []
        for range in verification.damage.compactMap(\.records) {
            for chunk in range where chunks.last.map({ chunk > $0 }) ?? true { chunks.append(chunk) }
        }
        return chunks
    }

    /// The command that repairs the file at `path` (naming the set when it was given by path).
    static func repairCommand(_ path: String, recoveryPath: String?) -> String {
        "goshuin-tool repair \(path)" + (recoveryPath.map { " --recovery \($0)" } ?? "")
    }

    /// The command that restores what is intact of the backup at `path`.
    static func salvageCommand(_ path: String) -> String { "goshuin-tool open \(path) --extract DIR --salvage" }

    /// `N slices damaged, M recovery slices available`: why a damaged file cannot be repaired, in numbers.
    static func budget(_ verification: RecoveryVerification) -> String {
        let others =
            verification.otherUnknownSlices > 0
            ? " (and \(verification.otherUnknownSlices) slices of the set's other files)" : ""
        return "\(slices(verification.damagedSliceCount)) damaged\(others),"
            + " \(verification.recoverySlicesAvailable) recovery slices available"
    }

    /// One line for a damaged file: where, whether the set repairs it, and the command to run.
    static func damageLine(_ verification: RecoveryVerification, path: String, recoveryPath: String?) -> String {
        let set = setName(verification)
        if verification.isRepairable {
            return "damaged: \(places(verification)); repairable with \(set) (\(verification.recoverySlicesNeeded) of"
                + " \(verification.recoverySlicesAvailable) recovery slices needed):"
                + " \(repairCommand(path, recoveryPath: recoveryPath))"
        }
        return "damaged: \(places(verification)); not repairable with \(set) (\(budget(verification))); to restore"
            + " what is intact: \(salvageCommand(path))"
    }

    /// One line for an intact file.
    static func intactLine(_ verification: RecoveryVerification) -> String {
        "intact: every slice and the whole file match \(setName(verification))"
            + " (\(verification.recoverySlicesAvailable) recovery"
            + " \(verification.recoverySlicesAvailable == 1 ? "slice" : "slices"): up to"
            + " \(slices(verification.recoverySlicesAvailable)) can be rebuilt)"
    }

    /// The JSON of a check: the same as the line says, as numbers and lists.
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
        return .object([
            ("usable", .bool(true)),
            ("set", .string(setName(verification))),
            ("files", .array(verification.recoveryFiles.map { .string($0) })),
            ("intact", .bool(verification.isIntact)),
            ("repairable", .bool(verification.isRepairable)),
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
            (
                "next",
                !damaged
                    ? .null
                    : .string(
                        verification.isRepairable
                            ? repairCommand(path, recoveryPath: recoveryPath) : salvageCommand(path))
            ),
        ])
    }

    /// The JSON of a set found beside the file that cannot be used.
    static func unusableJSON(_ error: GoshuinError) -> JSONValue {
        .object([("usable", .bool(false)), ("code", .string(error.code.rawValue)), ("message", .string(error.message))])
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

    /// `1 slice`, `N slices`.
    static func slices(_ count: Int) -> String { count == 1 ? "1 slice" : "\(count) slices" }

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
