import GoshuinFormat

/// Walk mode (`Spec/backup-v1.md` §4.2): the local headers from payload offset 0, intact bytes only.
struct SalvageWalk<Target: SalvageTarget> {
    let salvage: ContainerSalvage
    private var salvaged: Target
    private var names = Set<String>()
    /// Whether the walk has resumed at a signature it searched for: from then on it may be inside a photo,
    /// whose bytes someone else chose, so an entry named records.csv is not the backup's.
    private var resumed = false
    /// Whether records.csv was met as an entry (restored or lost).
    private var recordsMet = false
    /// The bytes of the restored records.csv, as far as ``PhotoMentions`` reads them.
    private var recordsBytes: [UInt8]?
    /// The end of the furthest entry data read so far.
    private var readUpTo: UInt64 = 0
    /// The bytes of entry data read again so far (``mayRead(_:)``).
    private var readAgainSpent: UInt64 = 0

    init(salvage: ContainerSalvage, target: Target) {
        self.salvage = salvage
        salvaged = target
    }

    /// The entries restored, in file order.
    var restored: [String] { salvaged.restored }
    /// The entries lost, in file order.
    var lost: [SalvageReport.LostEntry] { salvaged.lost }
    /// Where what was restored went.
    var target: Target { salvaged }

    private var reader: DecryptingReader { salvage.reader }
    private var size: UInt64 { salvage.header.plaintextLength }

    private func intact(_ range: Range<UInt64>) -> Bool { range.upperBound <= size && salvage.loss(in: range) == nil }

    /// The bytes at `range`, when intact.
    private func bytes(_ range: Range<UInt64>) throws -> [UInt8]? {
        guard intact(range) else { return nil }
        return try reader.readExactly(at: range.lowerBound, count: Int(range.upperBound - range.lowerBound))
    }

    mutating func run() throws {
        let reader = self.reader
        var inflating: AllocatedBytes?
        var position: UInt64? = 0
        var entries = 0
        while let p = position, entries < ZipStructureScanner.maximumEntryCount {
            try Interruption.check()
            if let signature = try bytes(p..<p + 4), ZipRecord.starts(signature, with: ZipCentralRecord.signature) {
                break
            }
            guard let entry = try entry(at: p), entry.name != Manifest.recordsName || !resumed else {
                position = try resume(after: p)
                continue
            }
            entries += 1
            let isRecords = entry.name == Manifest.recordsName
            if isRecords { recordsMet = true }
            var captured: [UInt8] = []
            let readData = { (write: (UnsafeRawBufferPointer) throws -> Void) in
                _ = try BackupArchive.readData(
                    of: entry.zipEntry, at: entry.dataOffset, from: reader, inflating: &inflating
                ) { piece in
                    if isRecords, captured.count < PhotoMentions.maximumBytesRead {
                        captured += piece.prefix(PhotoMentions.maximumBytesRead - captured.count)
                    }
                    try write(piece)
                }
            }
            let folded = EntryName.foldedCase(entry.name)
            // Whether the entry's data passed its checks, which alone confirms the sizes of its header.
            var dataChecked = false
            if let loss = salvage.loss(in: entry.dataOffset..<entry.dataEnd) {
                salvaged.lose(entry.name, loss.state.rawValue)
            } else if entry.dataEnd > size {
                // Past the payload's known end: the header lies.
                salvaged.lose(entry.name, GoshuinError.Code.zipMalformed.rawValue)
            } else if !mayRead(entry) {
                salvaged.lose(entry.name, GoshuinError.Code.zipLimitExceeded.rawValue)
            } else if names.contains(folded) {
                // A name restored already: lost, but for its own fault first when its data fails its checks.
                let fault = try Self.fault(of: readData)
                dataChecked = fault == nil
                salvaged.lose(entry.name, fault ?? GoshuinError.Code.duplicateEntry.rawValue)
            } else if try salvaged.restore(
                entry.zipEntry, dataOffset: entry.dataOffset, spanEnd: nil, read: readData)
            {
                names.insert(folded)
                dataChecked = true
                if isRecords { recordsBytes = captured }
            }
            guard dataChecked else {
                // Sizes nothing confirmed (a header inside a photo's data may claim any): the walk resumes
                // after this header rather than skip what they claim.
                position = try resume(after: p)
                continue
            }
            // Nothing intact lies past the end of what the file holds.
            guard entry.dataEnd < salvage.presentEnd else { break }
            position = entry.dataEnd
        }
        try salvaged.finish()
        nameWhatWasNotFound()
    }

    /// The walk's next offset after `offset` by a signature search, from which on it may be inside a photo.
    private mutating func resume(after offset: UInt64) throws -> UInt64? {
        resumed = true
        return try nextLocalHeader(after: offset)
    }

    /// Every backup holds records.csv: lost, `not_found`, when the walk did not meet it before it resumed and
    /// a chunk is lost (an intact payload without one is no backup, not a damaged one). And each photo a
    /// restored records.csv mentions that was neither restored nor named lost.
    private mutating func nameWhatWasNotFound() {
        let notFound = "not_found"
        let damaged = !salvage.damagedChunks.isEmpty || salvage.firstMissingChunk != nil
        if !recordsMet, damaged { salvaged.lose(Manifest.recordsName, notFound, first: true) }
        guard let recordsBytes else { return }
        var known = Set(lost.map { EntryName.foldedCase($0.name) })
        known.formUnion(names)
        for name in PhotoMentions.names(in: recordsBytes) where known.insert(EntryName.foldedCase(name)).inserted {
            salvaged.lose(name, notFound)
        }
    }

    /// Whether the walk may read `entry`'s data, charging what it would read again. Headers nested in one
    /// another's claimed data (forged inside a photo) would have the same bytes read once per header: the
    /// bytes of an entry's data before the end of the furthest data read so far are charged, and at most as
    /// many as the file holds may be (`Spec/backup-v1.md` §4.2). A genuine archive's entries never overlap.
    private mutating func mayRead(_ entry: WalkedEntry) -> Bool {
        let readAgain = min(entry.dataEnd, readUpTo) - min(entry.dataOffset, min(entry.dataEnd, readUpTo))
        guard readAgain <= salvage.presentEnd - readAgainSpent else { return false }
        readAgainSpent += readAgain
        readUpTo = max(readUpTo, entry.dataEnd)
        return true
    }

    /// The code of the payload fault `read` meets reading an entry's data into nothing, `nil` when it passes.
    private static func fault(of read: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> String? {
        do {
            try read { _ in }
            return nil
        } catch let error as GoshuinError where error.code.isPayloadFault {
            return error.code.rawValue
        }
    }

    /// An entry the walk may take at `offset`, or `nil` when none starts there by the rules of §4.2.
    private func entry(at offset: UInt64) throws -> WalkedEntry? {
        let fixedLength = UInt64(ZipLocalHeader.fixedLength)
        guard let fixed = try bytes(offset..<offset + fixedLength) else { return nil }
        var cursor = ByteCursor(fixed)
        guard let header = ZipLocalHeader(&cursor), ZipFlags(rawValue: header.flags).isDisjoint(with: .refused),
            header.method == 0 || header.method == 8
        else { return nil }
        let nameStart = offset + fixedLength
        let extraStart = nameStart + UInt64(header.nameLength)
        let dataOffset = extraStart + UInt64(header.extraLength)
        guard let nameBytes = try bytes(nameStart..<extraStart), let extra = try bytes(extraStart..<dataOffset),
            EntryName.isSafeEntryName(nameBytes)
        else { return nil }
        let name = String(decoding: nameBytes, as: UTF8.self)
        // manifest.json is not an entry of the walk: the walk moves on to the next local header.
        guard name == Manifest.recordsName || EntryName.isValidPhotoName(name),
            let fields = try? ZipExtraFields(extra[...], name: name)
        else { return nil }
        var compressed = UInt64(header.compressedSize)
        var uncompressed = UInt64(header.uncompressedSize)
        if header.compressedSize == ZipRecord.limit32 || header.uncompressedSize == ZipRecord.limit32 {
            guard var values = fields.zip64, let zipUncompressed = values.littleEndian(UInt64.self),
                let zipCompressed = values.littleEndian(UInt64.self), values.isAtEnd
            else { return nil }
            (compressed, uncompressed) = (zipCompressed, zipUncompressed)
        }
        if header.method == 0 {
            guard compressed == uncompressed else { return nil }
        } else {
            let (limit, overflow) = compressed.multipliedReportingOverflow(
                by: ZipStructureScanner.maximumCompressionRatio)
            guard overflow || uncompressed <= limit else { return nil }
        }
        // A claim past 2^64 is an entry all the same, whose data lies past any end: the loss rules name it.
        let (sum, overflow) = dataOffset.addingReportingOverflow(compressed)
        let dataEnd = overflow ? UInt64.max : sum
        let timestamp =
            fields.modificationTime.map { Int($0) }
            ?? ((header.modificationTime, header.modificationDate) == DOSTime.earliest
                ? nil : DOSTime.decode(time: header.modificationTime, date: header.modificationDate))
        return WalkedEntry(
            zipEntry: ZipEntry(
                name: name, method: header.method, crc32: header.crc32, compressedSize: compressed,
                uncompressedSize: uncompressed, localHeaderOffset: offset, centralRecordOffset: 0, index: 0,
                modificationTime: timestamp),
            dataOffset: dataOffset, dataEnd: dataEnd)
    }

    /// The next offset after `offset` whose four bytes are intact and hold the local-header signature. Only
    /// the chunks the file holds are looked at (a cut file's header may claim 2^32 more), each intact one in
    /// windows of ``WalkScan/window`` bytes, so a signature costs what lies before it, not the rest of its chunk.
    private func nextLocalHeader(after offset: UInt64) throws -> UInt64? {
        let layout = salvage.header.layout
        let end = salvage.presentEnd
        var position = offset + 1
        while position + 4 <= end {
            try Interruption.check()
            let chunk = layout.chunkIndex(containing: position)
            let chunkEnd = layout.plaintextOffset(ofChunk: chunk) + UInt64(layout.plaintextLength(ofChunk: chunk))
            defer { position = max(position, chunkEnd) }
            guard salvage.isIntact(chunk: chunk) else { continue }
            // A signature may run three bytes into the next chunk when that one is intact too.
            let reach: UInt64 = chunk + 1 < layout.chunkCount && salvage.isIntact(chunk: chunk + 1) ? 3 : 0
            let limit = min(end, chunkEnd + reach)
            while position + 4 <= limit {
                let windowEnd = min(limit, position + WalkScan.window)
                guard let window = try bytes(position..<windowEnd) else { break }
                for index in 0...(window.count - 4)
                where window[index] == WalkScan.signature[0]
                    && window[(index + 1)...(index + 3)].elementsEqual(WalkScan.signature[1...])
                {
                    return position + UInt64(index)
                }
                guard windowEnd < limit else { break }
                position = windowEnd - 3  // the last three bytes again, with the ones after them
            }
        }
        return nil
    }

    /// An entry the walk found: its local header's values, as the reader of its data needs them.
    private struct WalkedEntry {
        let zipEntry: ZipEntry
        let dataOffset: UInt64
        let dataEnd: UInt64
        var name: String { zipEntry.name }
        var modificationTime: Int? { zipEntry.modificationTime }
    }
}

/// What the walk's signature search looks for, and how far it reads at once.
private enum WalkScan {
    /// The bytes the signature search reads at once.
    static let window: UInt64 = 64 * 1_024

    /// The local header's signature.
    static let signature = ZipRecord.signatureBytes(ZipLocalHeader.signature)
}
