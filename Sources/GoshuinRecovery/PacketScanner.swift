import GoshuinFormat

/// Finds the packets of one recovery file (`Spec/recovery-par2.md` §6): it looks for the magic anywhere,
/// checks a header's length against the file and its type's bound before reading the body, accepts a packet
/// only when its MD5 verifies, and goes on after the magic of one that does not. Recovery slice data is hashed
/// as it streams by and never held.
///
/// It never runs away (`Spec/decisions/0049`): the file is read once, in a window that only slides forward,
/// searched by ``ByteSearch``; a candidate that fails costs its hashing and nothing is read again for it. Every
/// byte hashed is charged to the file's own budget (``hashBudget(fileSize:)``), and every byte searched or
/// hashed to the reading's (``ReadingBudget``); once either is spent the scan stops and the file is reported
/// as not read to its end.
struct PacketScanner {
    /// A packet found and verified.
    enum Found {
        /// A critical or creator packet, its body read.
        case packet(PacketHeader, body: [UInt8])
        /// A recovery slice: where its data starts, how long it is, its exponent.
        case recoverySlice(PacketHeader, exponent: UInt32, dataOffset: UInt64, dataLength: UInt64)

        var header: PacketHeader {
            switch self {
            case .packet(let header, _), .recoverySlice(let header, _, _, _): return header
            }
        }
    }

    /// The longest packet of an unknown type that is hashed to be skipped whole; a longer one is searched
    /// through for packets instead.
    static let unknownPacketLimit: UInt64 = 16 << 20
    /// The bytes read at a time, to search and to hash.
    static let windowSize = 1 << 20

    private let file: FileDescriptor
    private let size: UInt64
    private let path: String
    private var budget: UInt64

    /// How many bytes may be hashed in all for a file of `fileSize` bytes: every packet once, and as much
    /// again for candidates that fail, and 64 MiB more.
    static func hashBudget(fileSize: UInt64) -> UInt64 { 2 * fileSize + (64 << 20) }

    /// Whether the scan stopped before the end because a budget was spent.
    private(set) var stoppedEarly = false

    init(file: FileDescriptor, size: UInt64, path: String) {
        self.file = file
        self.size = size
        self.path = path
        budget = Self.hashBudget(fileSize: size)
    }

    /// Scans the whole file, calling `report` for each packet in file order, charging `reading`.
    mutating func scan(charging reading: ReadingBudget, _ report: (Found) throws -> Void) throws {
        let window = try AllocatedBytes(count: Self.windowSize, wipesOnRelease: false)
        let hashing = try AllocatedBytes(count: Self.windowSize, wipesOnRelease: false)
        var windowStart: UInt64 = 0
        var windowCount = 0
        var offset: UInt64 = 0
        let headerLength = UInt64(PacketHeader.byteCount)
        while offset + headerLength <= size {
            try Interruption.check()
            // The window holds [windowStart, windowStart + windowCount): it is read again only from a later
            // offset than it starts at, so every byte is searched once.
            if offset < windowStart || offset + headerLength > windowStart + UInt64(windowCount) {
                let count = Int(min(UInt64(Self.windowSize), size - offset))
                guard reading.spend(UInt64(count)) else { return stop() }
                let received = try describingFailure("cannot read \(DisplayText.quoted(path))") {
                    try file.readFully(
                        into: UnsafeMutableRawBufferPointer(rebasing: window.bytes[0..<count]), atOffset: Int64(offset))
                }
                (windowStart, windowCount) = (offset, received)
                guard UInt64(received) >= headerLength else { return }
            }
            let searched = UnsafeRawBufferPointer(
                rebasing: window.bytes[Int(offset - windowStart)..<windowCount])
            guard let found = ByteSearch.firstOffset(of: PacketHeader.magic, in: searched) else {
                // The magic may straddle the window's end: the next window starts just before it.
                let end = windowStart + UInt64(windowCount)
                guard end < size else { return }
                offset = max(offset + 1, end - UInt64(PacketHeader.magic.count - 1))
                continue
            }
            let candidate = offset + UInt64(found)
            guard candidate + headerLength <= size else { return }
            if candidate + headerLength > windowStart + UInt64(windowCount) {
                offset = candidate
                continue
            }
            let start = Int(candidate - windowStart)
            let headerBytes = Array(window.bytes[start..<(start + PacketHeader.byteCount)])
            if let packet = try verifiedPacket(
                at: candidate, headerBytes: headerBytes, reading: reading, scratch: hashing)
            {
                try report(packet)
                offset = candidate + packet.header.length
            } else if stoppedEarly {
                return
            } else {
                offset = candidate + 1
            }
        }
    }

    private mutating func stop() {
        stoppedEarly = true
    }

    /// The packet at `offset` whose header is `headerBytes`, if it verifies. A recovery slice's data is hashed
    /// through `scratch`.
    private mutating func verifiedPacket(
        at offset: UInt64, headerBytes: [UInt8], reading: ReadingBudget, scratch: AllocatedBytes
    ) throws -> Found? {
        guard let header = PacketHeader(parsingBytes: headerBytes), header.length <= size - offset else { return nil }
        let limit = header.type?.maximumLength ?? Self.unknownPacketLimit
        guard header.length <= limit else { return nil }
        guard header.length <= budget, reading.spend(header.length) else {
            stop()
            return nil
        }
        budget -= header.length
        let bodyOffset = offset + UInt64(PacketHeader.byteCount)
        switch header.type {
        case .recoverySlice:
            guard header.bodyLength >= 8 else { return nil }
            let hasher = try MD5Hasher()
            try hasher.update(headerBytes[PacketHeader.hashedStart...])
            var exponentBytes: [UInt8] = []
            var done: UInt64 = 0
            while done < header.bodyLength {
                try Interruption.check()
                let step = Int(min(UInt64(scratch.bytes.count), header.bodyLength - done))
                let part = UnsafeMutableRawBufferPointer(rebasing: scratch.bytes[0..<step])
                let received = try describingFailure("cannot read \(DisplayText.quoted(path))") {
                    try file.readFully(into: part, atOffset: Int64(bodyOffset + done))
                }
                guard received == step else {
                    throw GoshuinError(.io, "\(DisplayText.quoted(path)) shrank while being read")
                }
                if done == 0 { exponentBytes = Array(part[0..<4]) }
                try hasher.update(UnsafeRawBufferPointer(part))
                done += UInt64(step)
            }
            guard try hasher.finalize() == header.packetHash else { return nil }
            var exponentCursor = ByteCursor(exponentBytes)
            guard let exponent = exponentCursor.littleEndian(UInt32.self) else { return nil }
            return .recoverySlice(
                header, exponent: exponent, dataOffset: bodyOffset + 4, dataLength: header.bodyLength - 4)
        default:
            // Bounded by the type's limit above: at most ~1 MiB for a critical packet, 16 MiB for another.
            let body = try read(at: bodyOffset, count: Int(header.bodyLength))
            guard body.count == Int(header.bodyLength) else { return nil }
            let hasher = try MD5Hasher()
            try hasher.update(headerBytes[PacketHeader.hashedStart...])
            try hasher.update(body[...])
            guard try hasher.finalize() == header.packetHash else { return nil }
            return .packet(header, body: body)
        }
    }

    private func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let received = try bytes.withUnsafeMutableBytes { buffer in
            try describingFailure("cannot read \(DisplayText.quoted(path))") {
                try file.readFully(into: buffer, atOffset: Int64(offset))
            }
        }
        return received == count ? bytes : Array(bytes[0..<received])
    }
}

/// What one reading of a recovery set may spend, over all its files: the bytes searched for packets and the
/// bytes hashed (`Spec/decisions/0049`), `64 MiB + 4 · L` for a file of `L` bytes. A set for the file fits
/// in it, even at 100% redundancy with its critical packets repeated; a file much larger than any set for
/// it (a sparse volume file of gigabytes) is read for that much and no more.
final class ReadingBudget {
    /// The bytes left.
    private(set) var remaining: UInt64

    /// The budget of a reading for a file of `protectedLength` bytes.
    init(protectedLength: UInt64) {
        let (scaled, overflow) = protectedLength.multipliedReportingOverflow(by: 4)
        remaining = overflow ? .max : scaled.addingReportingOverflow(64 << 20).partialValue
    }

    /// Takes `count` bytes; false (and nothing taken) when fewer are left.
    func spend(_ count: UInt64) -> Bool {
        guard count <= remaining else { return false }
        remaining -= count
        return true
    }
}

extension PacketHeader {
    /// A header from its 64 bytes, or `nil` (``init(parsing:)``).
    init?(parsingBytes bytes: [UInt8]) {
        var cursor = ByteCursor(bytes)
        self.init(parsing: &cursor)
    }
}
