import GoshuinFormat

/// Every verified packet of the files of a recovery set, grouped by recovery set ID, each kept once
/// (`Spec/recovery-par2.md` §6): the first main packet whose body hashes to its set ID, the first description
/// and slice checksums of each file, the first recovery slice of each exponent. Duplicates are counted and
/// dropped; what is kept is bounded (``Limits``), so no set of files can make a reader hold more.
struct RecoveryCatalog {
    /// The bounds on what a catalog holds.
    enum Limits {
        /// The most recovery sets told apart.
        static let sets = 16
        /// The most bytes of packet bodies kept, over every set.
        static let retainedBytes = 32 << 20
        /// The most recovery slices kept per set: one per exponent.
        static let recoverySlicesPerSet = Int(RecoverySlicePacket.maximumExponent) + 1
    }

    /// The packets of one set.
    struct SetPackets {
        /// The main packet, once one was found whose body hashes to the set ID.
        var main: MainPacket?
        /// File descriptions by file ID.
        var descriptions: [RecoveryFileID: FileDescriptionPacket] = [:]
        /// Slice checksums by file ID.
        var checksums: [RecoveryFileID: SliceChecksumPacket] = [:]
        /// Recovery slices by exponent, with their data's length.
        var recoverySlices: [UInt32: (location: RecoverySliceLocation, length: UInt64)] = [:]
        /// The creator texts seen.
        var creators: [[UInt8]] = []
    }

    /// The files read, in order; ``RecoverySliceLocation/file`` indexes this.
    private(set) var files: [String] = []
    /// The sets found.
    private(set) var sets: [RecoverySetID: SetPackets] = [:]
    /// Packets that verified but were dropped: duplicates, conflicting copies, packets past a limit.
    private(set) var droppedPackets = 0
    /// Packets of types this reader does not know (skipped, as PAR 2.0 says).
    private(set) var unknownPackets = 0
    /// Files whose scan stopped before their end (``PacketScanner``'s budgets spent).
    private(set) var filesNotReadToTheEnd: [String] = []
    /// Files of a set's name that could not be read at all, each with why: a folder, a pipe or a dangling
    /// link of that name is left aside as a damaged packet is, with a notice, and the rest of the set read.
    private(set) var filesLeftAside: [String] = []
    private var retainedBytes = 0
    private let budget: ReadingBudget

    /// An empty catalog for a reading of the set of a file of `protectedLength` bytes, which bounds it.
    init(protectedLength: UInt64) {
        budget = ReadingBudget(protectedLength: protectedLength)
    }

    /// Scans the file at `path` and adds its packets.
    ///
    /// - Throws: `invalid_argument` when it is not a regular file, `io` when it cannot be read, `interrupted`,
    ///   `out_of_memory`.
    mutating func add(fileAt path: String) throws {
        let descriptor = try FileSystem.openRegularFile(path)
        try descriptor.closeAfter {
            let size = try ContainerStructure.regularFileSize(of: descriptor)
            let index = files.count
            files.append(path)
            var scanner = PacketScanner(file: descriptor, size: size, path: path)
            try scanner.scan(charging: budget) { found in try add(found, file: index) }
            if scanner.stoppedEarly { filesNotReadToTheEnd.append(path) }
        }
    }

    /// Scans the file at `path` if it can be read, and otherwise leaves it aside with why
    /// (``filesLeftAside``); throws only a stop or a refused allocation.
    mutating func addIfReadable(fileAt path: String) throws {
        do {
            try add(fileAt: path)
        } catch let error as GoshuinError where error.code != .interrupted && error.code != .outOfMemory {
            filesLeftAside.append(error.message)
        }
    }

    private mutating func add(_ found: PacketScanner.Found, file: Int) throws {
        switch found {
        case .recoverySlice(let header, let exponent, let dataOffset, let dataLength):
            guard exponent <= RecoverySlicePacket.maximumExponent,
                var packets = packets(of: header.setID, retaining: 0)
            else { return drop() }
            guard packets.recoverySlices[exponent] == nil,
                packets.recoverySlices.count < Limits.recoverySlicesPerSet
            else { return drop() }
            packets.recoverySlices[exponent] = (
                RecoverySliceLocation(file: file, dataOffset: dataOffset, exponent: exponent), dataLength
            )
            sets[header.setID] = packets
        case .other:
            unknownPackets += 1
        case .packet(let header, let body):
            guard let type = header.type else {
                unknownPackets += 1
                return
            }
            guard var packets = packets(of: header.setID, retaining: body.count) else { return drop() }
            switch type {
            case .main:
                guard packets.main == nil, let main = MainPacket(body: body[...]),
                    try main.setID() == header.setID
                else { return drop() }
                packets.main = main
            case .fileDescription:
                guard let description = try FileDescriptionPacket(body: body[...]),
                    packets.descriptions[description.fileID] == nil
                else { return drop() }
                packets.descriptions[description.fileID] = description
            case .sliceChecksums:
                guard let checksums = SliceChecksumPacket(body: body[...]), packets.checksums[checksums.fileID] == nil
                else { return drop() }
                packets.checksums[checksums.fileID] = checksums
            case .creator:
                guard let creator = CreatorPacket(body: body[...]), !packets.creators.contains(creator.client),
                    packets.creators.count < 8
                else { return drop() }
                packets.creators.append(creator.client)
            case .recoverySlice:
                return drop()
            }
            retainedBytes += body.count
            sets[header.setID] = packets
        }
    }

    /// The packets of `setID` so far, or a new entry, when `bytes` more may be retained; `nil` past a limit.
    private func packets(of setID: RecoverySetID, retaining bytes: Int) -> SetPackets? {
        guard retainedBytes + bytes <= Limits.retainedBytes else { return nil }
        if let packets = sets[setID] { return packets }
        return sets.count < Limits.sets ? SetPackets() : nil
    }

    private mutating func drop() { droppedPackets += 1 }
}

/// What the fuzz harness checks of a scan, from outside the module: the bounds of what a catalog keeps.
package enum RecoveryScanProbe {
    /// What a scan of one file kept.
    package struct Summary: Sendable {
        /// The sets told apart.
        package let sets: Int
        /// The data ranges of the recovery slices kept (offset, length).
        package let recoverySlices: [(offset: UInt64, length: UInt64)]
        /// The size of the file scanned.
        package let fileSize: UInt64
        /// Whether the scan stopped before the end.
        package let stoppedEarly: Bool
    }

    /// Scans the file at `path` as a recovery file.
    package static func scan(fileAt path: String) throws -> Summary {
        var catalog = RecoveryCatalog(protectedLength: .max)
        try catalog.add(fileAt: path)
        let slices = catalog.sets.values.flatMap { $0.recoverySlices.values }.map {
            (offset: $0.location.dataOffset, length: $0.length)
        }
        return Summary(
            sets: catalog.sets.count, recoverySlices: slices,
            fileSize: UInt64(FileSystem.status(ofPath: path)?.size ?? 0),
            stoppedEarly: !catalog.filesNotReadToTheEnd.isEmpty)
    }

    /// The most sets a catalog tells apart.
    package static var setLimit: Int { RecoveryCatalog.Limits.sets }
}
