import GoshuinFormat

/// The packets of a recovery set for one file and where each goes in the set's two files
/// (`Spec/recovery-par2.md` §2, §5): the index file holds the main packet, the file description, the slice
/// checksums and the creator packet; the volume file holds the recovery slices, exponents 0 ..< r, with the
/// three critical packets repeated among them as par2cmdline spreads them, and the creator packet last.
///
/// Every length is known before the file is read, so the recovery data can be written at its final place
/// strip by strip, and the critical packets last. The set's identity (its main packet and ID) needs the
/// file's first 16 KiB (``RecoverySetIdentity``).
struct RecoverySetLayout {
    /// A packet's place in the volume file.
    enum VolumeEntry: Hashable {
        /// The recovery slice of this exponent.
        case recoverySlice(exponent: UInt32)
        /// The main packet.
        case main
        /// The file description.
        case description
        /// The slice checksums.
        case checksums
        /// The creator packet.
        case creator
    }

    /// The plan.
    let plan: RecoveryPlan
    /// The protected file's name, as the set records it.
    let fileName: [UInt8]
    /// The volume file's packets in order, with their offsets.
    let volumeEntries: [(entry: VolumeEntry, offset: UInt64)]
    /// The volume file's size.
    let volumeSize: UInt64
    /// The index file's size.
    let indexSize: UInt64
    /// Where each recovery slice's data starts in the volume file, by exponent.
    private let recoveryDataOffsets: [UInt64]

    /// The layout for `plan` of the file named `fileName`.
    init(plan: RecoveryPlan, fileName: [UInt8]) {
        self.plan = plan
        self.fileName = fileName
        let header = UInt64(PacketHeader.byteCount)
        let lengths: [VolumeEntry: UInt64] = [
            .main: header + UInt64(MainPacket.bodyLength(fileCount: 1)),
            .description: header + 56 + UInt64(PacketEncoding.paddedToFour(fileName).count),
            .checksums: header + 16 + 20 * UInt64(plan.inputSliceCount),
            .creator: header + UInt64(CreatorPacket.goshuinToolkit.body.count),
        ]
        var entries: [(VolumeEntry, UInt64)] = []
        var offset: UInt64 = 0
        func append(_ entry: VolumeEntry) {
            entries.append((entry, offset))
            if case .recoverySlice = entry {
                offset += RecoverySlicePacket.length(sliceSize: plan.sliceSize)
            } else {
                offset += lengths[entry] ?? 0
            }
        }
        // par2cmdline's spread: after each recovery slice, `copies · 3` critical packets are owed per `count`
        // slices, where copies is the bit length of count; they are written main, description, checksums, in
        // turn.
        let count = plan.recoverySliceCount
        let copies = UInt64(count.bitWidth - count.leadingZeroBitCount)
        let critical: [VolumeEntry] = [.main, .description, .checksums]
        var owed: UInt64 = 0
        var next = 0
        for exponent in 0..<count {
            append(.recoverySlice(exponent: UInt32(exponent)))
            owed += copies * UInt64(critical.count)
            while owed >= UInt64(count) {
                append(critical[next % critical.count])
                next += 1
                owed -= UInt64(count)
            }
        }
        append(.creator)
        volumeEntries = entries
        recoveryDataOffsets = entries.compactMap { entry, offset in
            guard case .recoverySlice = entry else { return nil }
            return offset + UInt64(PacketHeader.byteCount) + 4
        }
        volumeSize = offset
        indexSize = [VolumeEntry.main, .description, .checksums, .creator].reduce(0) { $0 + (lengths[$1] ?? 0) }
    }

    /// Where the data of the recovery slice of `exponent` starts in the volume file.
    func recoveryDataOffset(exponent: UInt32) -> UInt64 { recoveryDataOffsets[Int(exponent)] }

    /// The set's identity for the file whose first 16 KiB hash to `hash16k`.
    func identity(hash16k: [UInt8]) throws -> RecoverySetIdentity {
        let fileID = try RecoveryFileID(hash16k: hash16k, length: plan.fileLength, name: fileName)
        let main = MainPacket(sliceSize: plan.sliceSize, recoverableFiles: [fileID])
        return RecoverySetIdentity(hash16k: hash16k, main: main, setID: try main.setID())
    }

    /// The critical packets, once the file's MD5 and its slices' checksums are known.
    func criticalPackets(
        identity: RecoverySetIdentity, fileHash: [UInt8], checksums: [SliceChecksumPacket.Checksum]
    ) throws -> CriticalPackets {
        let setID = identity.setID
        let description = try FileDescriptionPacket(
            fileHash: fileHash, hash16k: identity.hash16k, length: plan.fileLength, name: fileName)
        precondition(
            description.fileID == identity.main.recoverableFiles[0], "the description is of the main packet's file")
        let ifsc = SliceChecksumPacket(fileID: description.fileID, checksums: checksums)
        return CriticalPackets(
            main: try identity.main.encode(),
            description: try PacketEncoding.packet(.fileDescription, setID: setID, body: description.body),
            checksums: try PacketEncoding.packet(.sliceChecksums, setID: setID, body: ifsc.body),
            creator: try PacketEncoding.packet(.creator, setID: setID, body: CreatorPacket.goshuinToolkit.body))
    }

    /// The four packets every file of the set carries.
    struct CriticalPackets {
        let main: [UInt8]
        let description: [UInt8]
        let checksums: [UInt8]
        let creator: [UInt8]

        /// The index file's bytes.
        var index: [UInt8] { main + description + checksums + creator }

        /// The bytes of `entry` (not a recovery slice).
        func bytes(of entry: VolumeEntry) -> [UInt8] {
            switch entry {
            case .main: return main
            case .description: return description
            case .checksums: return checksums
            case .creator: return creator
            case .recoverySlice: preconditionFailure("a recovery slice is written by its own path")
            }
        }
    }
}

/// What makes a set this file's: the MD5 of its first 16 KiB, the main packet it gives, and the set ID.
struct RecoverySetIdentity {
    /// The MD5 of the file's first 16 KiB.
    let hash16k: [UInt8]
    /// The main packet.
    let main: MainPacket
    /// The MD5 of its body.
    let setID: RecoverySetID
}
