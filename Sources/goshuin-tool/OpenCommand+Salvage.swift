import GoshuinBackup
import GoshuinFormat

/// `open … --salvage`: what a damaged or cut file still holds, and what is lost, said for a person and in
/// `--json` (`Spec/container-v1.md` §7.4, `Spec/backup-v1.md` §4.2).
extension OpenCommand {
    /// `open BACKUP --extract FOLDER --salvage`.
    static func salvageExtract(
        _ input: FileDescriptor, _ inputPath: String, into destination: ExtractionDestination,
        _ passphraseReader: PassphraseReader, _ reporter: ProgressReporter
    ) throws -> CommandResult {
        let report = try BackupSalvage.salvage(
            input, into: destination, passphrase: passphraseReader.read(confirm: false), progress: reporter.handler)
        let chunks = lostChunksText(report)
        for lost in report.lost {
            Console.notice("lost \(lost.name): \(reasonText(lost, report))")
        }
        let photos = report.restored.filter { $0 != "records.csv" && $0 != "manifest.json" }.count
        let records = report.restored.contains("records.csv") ? "records.csv and " : ""
        var line: String
        switch report.mode {
        case .directory:
            let total = report.manifest.map { $0.photos.count } ?? photos
            line = "restored \(records)\(photos) of \(total) photos into \(destination.path)"
            if !report.lost.isEmpty {
                line += "; lost " + report.lost.map(\.name).joined(separator: ", ") + " (\(chunks))"
            }
        case .walk:
            line =
                report.restored.isEmpty
                ? "restored nothing: no entry of the backup is whole in what is intact (\(chunks))"
                : "restored \(records)\(SealCommand.photos(photos)) into \(destination.path), checked for size and"
                    + " CRC-32 only: the backup's list of contents is lost (\(chunks))"
            if !report.lost.isEmpty, !report.restored.isEmpty {
                let names = report.lost.map(\.name)
                line += "; lost " + (names.count <= 10 ? names.joined(separator: ", ") : "\(names.count) files")
            }
        }
        Console.result(line)
        if !report.isComplete, report.restored.contains(Manifest.recordsName), inputPath != "-" {
            Console.result(RecoveryReport.rescueAdvice(inputPath))
        }
        let lostJSON = report.lost.map {
            JSONValue.object([("name", .string($0.name)), ("reason", .string($0.reason))])
        }
        return CommandResult(
            summary: .object([
                ("ok", .bool(report.isComplete)), ("command", .string(name)), ("file", .string(inputPath)),
                ("extractedTo", report.restored.isEmpty ? .null : .string(destination.path)),
                ("mode", .string(report.mode.rawValue)),
                ("restored", .array(report.restored.map { .string($0) })), ("lost", .array(lostJSON)),
                ("manifestLost", .bool(report.manifestLost)),
                ("damagedChunks", .array(report.damagedChunks.map { .integer($0) })),
                ("firstMissingChunk", report.firstMissingChunk.map { .integer($0) } ?? .null),
                ("chunkCount", .integer(report.chunkCount)),
            ]), status: report.isComplete ? .success : .dataError)
    }

    /// `open FILE -o OUTPUT --salvage`: every chunk that authenticates at its offset, zeros for the rest.
    static func salvageOutput(
        _ inputPath: String, to outputPath: String, _ arguments: ParsedArguments, _ reporter: ProgressReporter
    ) throws -> CommandResult {
        let warnings = [ToolWarning.openedIntoGoshuinName(outputPath)].compactMap { $0 }
        let salvage = try writing(
            from: inputPath, to: outputPath, arguments, warnings: warnings, progress: reporter.handler
        ) {
            input, output, passphraseReader in
            let salvage = try ContainerSalvage(
                input, passphrase: passphraseReader.read(confirm: false), progress: reporter.handler)
            try salvage.write(into: output)
            return salvage
        }
        let ranges = salvage.lostRanges
        for range in ranges {
            if range.bytes.isEmpty {
                let why =
                    range.state == .missing
                    ? "missing: the file ends before its final chunk" : "damaged: it is the final chunk"
                Console.notice(
                    "\(chunkText(range.chunks)) \(why), so whatever followed byte \(range.bytes.lowerBound) is lost")
            } else {
                Console.notice(
                    "lost bytes \(range.bytes.lowerBound)–\(range.bytes.upperBound - 1) (\(chunkText(range.chunks))"
                        + " \(range.state.rawValue)); written as zeros")
            }
        }
        // Version 2 knows where the payload ends from its final chunk alone (container-v2 §7.3).
        let endKnown = salvage.header.version == .v1 || salvage.isIntact(chunk: salvage.header.layout.finalChunk)
        if !endKnown {
            Console.notice(
                "the payload's end is unknown: its final chunk is lost, and the file may have held more than"
                    + " \(ProgressReporter.size(salvage.header.plaintextLength))")
        }
        // A lost final chunk that held no byte loses the end alone: no range of bytes to count.
        let byteRanges = ranges.filter { !$0.bytes.isEmpty }
        let lostBytes = byteRanges.reduce(UInt64(0)) { $0 + UInt64($1.bytes.count) }
        let lostEnd = endKnown ? "" : byteRanges.isEmpty ? "the end lost" : ", and the end"
        let what =
            ranges.isEmpty
            ? "nothing lost"
            : byteRanges.isEmpty
                ? lostEnd
                : "\(ProgressReporter.size(lostBytes)) lost in \(byteRanges.count) "
                    + (byteRanges.count == 1 ? "range" : "ranges") + lostEnd
        Console.result(
            "salvaged \(Paths.describeInput(inputPath)) into \(Paths.describe(outputPath)), "
                + "\(ProgressReporter.size(salvage.header.plaintextLength)); \(what)")
        let rangesJSON = ranges.map { range in
            JSONValue.object([
                ("start", .integer(range.bytes.lowerBound)), ("end", .integer(range.bytes.upperBound)),
                ("firstChunk", .integer(range.chunks.lowerBound)), ("lastChunk", .integer(range.chunks.upperBound)),
                ("state", .string(range.state.rawValue)),
            ])
        }
        return CommandResult(
            summary: .object([
                ("ok", .bool(ranges.isEmpty)), ("command", .string(name)), ("file", .string(inputPath)),
                ("output", .string(outputPath)), ("formatVersion", .integer(salvage.header.version.rawValue)),
                ("plaintextLength", .integer(salvage.header.plaintextLength)), ("endKnown", .bool(endKnown)),
                ("lostRanges", .array(rangesJSON)), ("warnings", .array(warnings.map(\.json))),
            ]), status: ranges.isEmpty ? .success : .dataError)
    }

    /// `chunk 12`, `chunks 12–13`.
    static func chunkText(_ chunks: ClosedRange<UInt64>) -> String {
        chunks.count == 1 ? "chunk \(chunks.lowerBound)" : "chunks \(chunks.lowerBound)–\(chunks.upperBound)"
    }

    /// The lost chunks of a salvage in words: `chunks 12–13 damaged, chunks 40–63 missing`.
    static func lostChunksText(_ report: SalvageReport) -> String {
        var runs: [String] = []
        var start: UInt64?
        var previous: UInt64?
        for index in report.damagedChunks {
            if let last = previous, last + 1 == index {
                previous = index
                continue
            }
            if let first = start, let last = previous { runs.append(chunkText(first...last) + " damaged") }
            (start, previous) = (index, index)
        }
        if let first = start, let last = previous { runs.append(chunkText(first...last) + " damaged") }
        if let missing = report.firstMissingChunk {
            runs.append(chunkText(missing...report.chunkCount - 1) + " missing: the file was cut")
        }
        return runs.isEmpty ? "no chunk is damaged" : runs.joined(separator: ", ")
    }

    /// Why an entry is lost, in words.
    static func reasonText(_ lost: SalvageReport.LostEntry, _ report: SalvageReport) -> String {
        switch lost.reason {
        case "damaged": return "it lies in a damaged chunk"
        case "missing": return "it lies in a part of the file that is missing"
        case "not_found":
            let place =
                report.damagedChunks.isEmpty && report.firstMissingChunk != nil
                ? "the backup was cut before it" : "it lay in a damaged or missing part of the file"
            return lost.name == Manifest.recordsName
                ? "not found where the backup keeps it: \(place)" : "not found: records.csv names it, but \(place)"
        default: return "it fails its checks (\(lost.reason))"
        }
    }
}
