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
        /// A packet of a type this reader does not know: skipped whole (PAR 2.0's optional packets).
        case other(PacketHeader)

        var header: PacketHeader {
            switch self {
            case .packet(let header, _), .recoverySlice(let header, _, _, _), .other(let header): return header
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
        var buffers = Buffers(
            window: try AllocatedBytes(count: Self.windowSize, wipesOnRelease: false),
            hashing: try AllocatedBytes(count: Self.windowSize, wipesOnRelease: false), hasher: try MD5Hasher())
        var offset: UInt64 = 0
        let headerLength = UInt64(PacketHeader.byteCount)
        while offset + headerLength <= size {
            try Interruption.check()
            // The window holds [windowStart, windowEnd): it is read again only from a later offset than it starts
            // at, so every byte is searched once.
            if offset < buffers.windowStart || offset + headerLength > buffers.windowEnd {
                let count = Int(min(UInt64(Self.windowSize), size - offset))
                guard reading.spend(UInt64(count)) else { return stop() }
                let received = try describingFailure("cannot read \(DisplayText.quoted(path))") {
                    try file.readFully(
                        into: UnsafeMutableRawBufferPointer(rebasing: buffers.window.bytes[0..<count]),
                        atOffset: Int64(offset))
                }
                (buffers.windowStart, buffers.windowCount) = (offset, received)
                guard UInt64(received) >= headerLength else { return }
            }
            let searched = UnsafeRawBufferPointer(
                rebasing: buffers.window.bytes[Int(offset - buffers.windowStart)..<buffers.windowCount])
            guard let found = ByteSearch.firstOffset(of: PacketHeader.magic, in: searched) else {
                // The magic may straddle the window's end: the next window starts just before it.
                guard buffers.windowEnd < size else { return }
                offset = max(offset + 1, buffers.windowEnd - UInt64(PacketHeader.magic.count - 1))
                continue
            }
            let candidate = offset + UInt64(found)
            guard candidate + headerLength <= size else { return }
            if candidate + headerLength > buffers.windowEnd {
                offset = candidate
                continue
            }
            if let packet = try verifiedPacket(at: candidate, reading: reading, buffers: buffers) {
                try report(packet)
                offset = candidate + packet.header.length
            } else if stoppedEarly {
                return
            } else {
                offset = candidate + 1
            }
        }
    }

    /// The memory of a scan: the window searched, a buffer to hash what lies beyond it through, and one
    /// hasher for every packet.
    private struct Buffers {
        let window: AllocatedBytes
        let hashing: AllocatedBytes
        let hasher: MD5Hasher
        var windowStart: UInt64 = 0
        var windowCount = 0

        var windowEnd: UInt64 { windowStart + UInt64(windowCount) }

        init(window: AllocatedBytes, hashing: AllocatedBytes, hasher: MD5Hasher) {
            self.window = window
            self.hashing = hashing
            self.hasher = hasher
        }

        /// The file's bytes [start, end), when the window holds them.
        func inWindow(_ start: UInt64, _ end: UInt64) -> UnsafeRawBufferPointer? {
            guard start >= windowStart, end <= windowEnd else { return nil }
            return UnsafeRawBufferPointer(
                rebasing: window.bytes[Int(start - windowStart)..<Int(end - windowStart)])
        }
    }

    private mutating func stop() {
        stoppedEarly = true
    }

    /// The packet at `offset`, whose header the window holds, if it verifies. A packet the window holds whole
    /// is hashed in it; a longer one is read through the hashing buffer.
    private mutating func verifiedPacket(at offset: UInt64, reading: ReadingBudget, buffers: Buffers) throws
        -> Found?
    {
        guard let headerRange = buffers.inWindow(offset, offset + UInt64(PacketHeader.byteCount)) else {
            return nil
        }
        let headerBytes = Array(headerRange)
        guard let header = PacketHeader(parsingBytes: headerBytes), header.length <= size - offset else { return nil }
        let limit = header.type?.maximumLength ?? Self.unknownPacketLimit
        guard header.length <= limit else { return nil }
        guard header.length <= budget, reading.spend(header.length) else {
            stop()
            return nil
        }
        budget -= header.length
        let bodyOffset = offset + UInt64(PacketHeader.byteCount)
        let hashedStart = offset + UInt64(PacketHeader.hashedStart)
        let end = offset + header.length
        let digest: [UInt8]
        var body: [UInt8] = []
        if let whole = buffers.inWindow(hashedStart, end) {
            digest = try buffers.hasher.digest(of: whole)
            if header.type != .recoverySlice, header.type != nil {
                body = Array(
                    UnsafeRawBufferPointer(rebasing: whole[(PacketHeader.byteCount - PacketHeader.hashedStart)...]))
            }
        } else if header.type == .recoverySlice || header.type == nil {
            digest = try hashThrough(buffers, from: hashedStart, to: end, headerBytes: headerBytes)
        } else {
            // Bounded by the type's limit above: at most ~1 MiB for a critical packet.
            body = try read(at: bodyOffset, count: Int(header.bodyLength))
            guard body.count == Int(header.bodyLength) else { return nil }
            digest = try (headerBytes[PacketHeader.hashedStart...] + body).withUnsafeBytes {
                try buffers.hasher.digest(of: $0)
            }
        }
        guard digest == header.packetHash else { return nil }
        switch header.type {
        case .recoverySlice:
            guard header.bodyLength >= 8 else { return nil }
            var exponentCursor = ByteCursor(try read(at: bodyOffset, count: 4))
            guard let exponent = exponentCursor.littleEndian(UInt32.self) else { return nil }
            return .recoverySlice(
                header, exponent: exponent, dataOffset: bodyOffset + 4, dataLength: header.bodyLength - 4)
        case nil:
            return .other(header)
        default:
            return .packet(header, body: body)
        }
    }

    /// The MD5 of the file's bytes [start, end) read through the hashing buffer (the packet's header, which
    /// the window holds, first).
    private func hashThrough(_ buffers: Buffers, from start: UInt64, to end: UInt64, headerBytes: [UInt8]) throws
        -> [UInt8]
    {
        let hasher = try MD5Hasher()
        try hasher.update(headerBytes[PacketHeader.hashedStart...])
        var done = start + UInt64(PacketHeader.byteCount - PacketHeader.hashedStart)
        while done < end {
            try Interruption.check()
            let step = Int(min(UInt64(buffers.hashing.bytes.count), end - done))
            let part = UnsafeMutableRawBufferPointer(rebasing: buffers.hashing.bytes[0..<step])
            let received = try describingFailure("cannot read \(DisplayText.quoted(path))") {
                try file.readFully(into: part, atOffset: Int64(done))
            }
            guard received == step else {
                throw GoshuinError(.io, "\(DisplayText.quoted(path)) shrank while being read")
            }
            try hasher.update(UnsafeRawBufferPointer(part))
            done += UInt64(step)
        }
        return try hasher.finalize()
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
