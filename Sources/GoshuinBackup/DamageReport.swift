import GoshuinFormat

/// Names what the damaged chunks of a backup hold (`Spec/backup-v1.md` §4.2, *What it says*): every chunk
/// authenticated, each run of lost chunks matched against the entries' spans of an intact central
/// directory. For a reader that refuses the backup, so that the person learns which photos the damage
/// touches and that salvage can restore the others.
enum DamageReport {
    /// `error` (a damaged chunk found while reading the backup of `container`) with one detail line per run
    /// of damaged or missing chunks; the error itself, its code and chunk, unchanged.
    static func annotate(_ error: GoshuinError, _ container: UnlockedContainer) -> GoshuinError {
        guard error.code == .chunkDamaged, let salvage = try? ContainerSalvage(container) else { return error }
        return GoshuinError(
            .chunkDamaged, error.message, chunkIndex: error.chunkIndex, details: lines(for: salvage))
    }

    /// A line for each run of lost chunks: `chunk 12 holds IMG_0012.HEIC and the start of IMG_0013.HEIC`.
    static func lines(for salvage: ContainerSalvage) -> [String] {
        let directory = try? ZipStructureScanner.scanCentralDirectory(salvage.reader)
        return salvage.lostRanges.map { run in
            let chunks =
                run.chunks.count == 1
                ? "chunk \(run.chunks.lowerBound)" : "chunks \(run.chunks.lowerBound)–\(run.chunks.upperBound)"
            let verb =
                run.state == .missing
                ? (run.chunks.count == 1 ? "is missing; it held" : "are missing; they held")
                : (run.chunks.count == 1 ? "holds" : "hold")
            guard !run.bytes.isEmpty else {
                // Version 2's last record, of a tag alone: an empty final chunk, or a longer one cut short.
                return "\(chunks), the final one, would hold no byte of the backup; failing, it confirms nothing,"
                    + " so where the backup ends is unknown"
            }
            guard let directory else {
                // Not the backup's end, necessarily: its list of contents is what cannot be read.
                let bytes = "payload bytes \(run.bytes.lowerBound)–\(run.bytes.upperBound - 1)"
                return "\(chunks) \(verb) \(bytes); the backup's central directory cannot be read (it is damaged,"
                    + " missing or refused), so what the damage touches cannot be named"
            }
            return "\(chunks) \(verb) " + parts(of: run.bytes, in: directory).joined(separator: ", ")
        }
    }

    /// What of the backup lies in `bytes`: whole entries, the start, end or a part of others, the central
    /// directory.
    private static func parts(of bytes: Range<UInt64>, in directory: ZipDirectory) -> [String] {
        let entries = directory.entriesInFileOrder
        var parts: [String] = []
        for (position, entry) in entries.enumerated() {
            let end =
                position + 1 < entries.count
                ? entries[position + 1].localHeaderOffset : directory.centralDirectoryOffset
            let span = entry.localHeaderOffset..<max(entry.localHeaderOffset, end)
            guard span.overlaps(bytes) || (span.isEmpty && bytes.contains(span.lowerBound)) else { continue }
            let startsInside = bytes.contains(span.lowerBound)
            let endsInside = span.upperBound <= bytes.upperBound
            let name = DisplayText.escaped(entry.name)
            switch (startsInside, endsInside) {
            case (true, true): parts.append(name)
            case (true, false): parts.append("the start of \(name)")
            case (false, true): parts.append("the end of \(name)")
            case (false, false): parts.append("part of \(name)")
            }
        }
        if bytes.upperBound > directory.centralDirectoryOffset { parts.append("the central directory") }
        if parts.count > 1, let last = parts.popLast() { parts[parts.count - 1] += " and " + last }
        return parts
    }
}
