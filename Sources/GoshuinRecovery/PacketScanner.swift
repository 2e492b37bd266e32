import GoshuinFormat

/// Finds the packets of one recovery file (`Spec/recovery-par2.md` §6): it looks for the magic anywhere,
/// checks a header's length against the file and its type's bound before reading the body, accepts a packet
/// only when its MD5 verifies, and goes on after the magic of one that does not. Recovery slice data is hashed
/// as it streams by and never held.
///
/// It never runs away: every step moves forward, and the bytes hashed for packets that fail are charged to a
/// budget (``hashBudget(fileSize:)``); once it is spent, no more candidates are hashed and the file is
/// reported as not read to its end.
struct PacketScanner {
    /// A packet found and verified.
    enum Found {
        /// A critical or creator packet, its body read.
        case packet(PacketHeader, body: [UInt8])
        /// A recovery slice: where its data starts, how long it is, its exponent.
        case recoverySlice(PacketHeader, exponent: UInt32, dataOffset: UInt64, dataLength: UInt64)
    }

    /// The longest packet of an unknown type that is hashed to be skipped whole; a longer one is searched
    /// through for packets instead.
    static let unknownPacketLimit: UInt64 = 16 << 20
    /// The bytes read at a time.
    static let windowSize = 1 << 20

    private let file: FileDescriptor
    private let size: UInt64
    private let path: String
    private var budget: UInt64

    /// How many bytes may be hashed in all for a file of `fileSize` bytes: every packet once, and as much
    /// again for candidates that fail, and 64 MiB more.
    static func hashBudget(fileSize: UInt64) -> UInt64 { 2 * fileSize + (64 << 20) }

    /// Whether the scan stopped before the end because the budget was spent.
    private(set) var stoppedEarly = false

    init(file: FileDescriptor, size: UInt64, path: String) {
        self.file = file
        self.size = size
        self.path = path
        budget = Self.hashBudget(fileSize: size)
    }

    /// Scans the whole file, calling `found` for each packet in file order.
    mutating func scan(_ found: (Found) throws -> Void) throws {
        var offset: UInt64 = 0
        var window = [UInt8](repeating: 0, count: Self.windowSize + PacketHeader.byteCount)
        while let candidate = try nextMagic(from: offset, window: &window) {
            try Interruption.check()
            if let packet = try verifiedPacket(at: candidate) {
                try found(packet)
                let length: UInt64
                switch packet {
                case .packet(let header, _): length = header.length
                case .recoverySlice(let header, _, _, _): length = header.length
                }
                offset = candidate + length
            } else if stoppedEarly {
                return
            } else {
                offset = candidate + 1
            }
        }
    }

    /// The packet at `offset`, if one starts there and verifies.
    private mutating func verifiedPacket(at offset: UInt64) throws -> Found? {
        let headerBytes = try read(at: offset, count: PacketHeader.byteCount)
        var cursor = ByteCursor(headerBytes)
        guard let header = PacketHeader(parsing: &cursor), header.length <= size - offset else { return nil }
        let limit = header.type?.maximumLength ?? Self.unknownPacketLimit
        guard header.length <= limit else { return nil }
        guard header.length <= budget else {
            stoppedEarly = true
            return nil
        }
        budget -= header.length
        switch header.type {
        case .recoverySlice:
            guard header.bodyLength >= 8 else { return nil }
            let hasher = try MD5Hasher()
            try hasher.update(headerBytes[PacketHeader.hashedStart...])
            try hash(from: offset + UInt64(PacketHeader.byteCount), count: header.bodyLength, into: hasher)
            guard try hasher.finalize() == header.packetHash else { return nil }
            var exponentCursor = ByteCursor(try read(at: offset + UInt64(PacketHeader.byteCount), count: 4))
            guard let exponent = exponentCursor.littleEndian(UInt32.self) else { return nil }
            return .recoverySlice(
                header, exponent: exponent, dataOffset: offset + UInt64(PacketHeader.byteCount) + 4,
                dataLength: header.bodyLength - 4)
        default:
            // Bounded by the type's limit above: at most ~1 MiB for a critical packet, 16 MiB for another.
            let body = try read(at: offset + UInt64(PacketHeader.byteCount), count: Int(header.bodyLength))
            guard body.count == Int(header.bodyLength) else { return nil }
            let hasher = try MD5Hasher()
            try hasher.update(headerBytes[PacketHeader.hashedStart...])
            try hasher.update(body[...])
            guard try hasher.finalize() == header.packetHash else { return nil }
            return .packet(header, body: body)
        }
    }

    /// The offset of the next magic at or after `offset`, reading window by window.
    private func nextMagic(from offset: UInt64, window: inout [UInt8]) throws -> UInt64? {
        var start = offset
        let magic = PacketHeader.magic
        while start + UInt64(PacketHeader.byteCount) <= size {
            try Interruption.check()
            let count = Int(min(UInt64(window.count), size - start))
            let received = try window.withUnsafeMutableBytes { buffer in
                try describingFailure("cannot read \(DisplayText.quoted(path))") {
                    try file.readFully(
                        into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), atOffset: Int64(start))
                }
            }
            guard received >= magic.count else { return nil }
            let found = window.withUnsafeBytes { buffer -> Int? in
                var index = 0
                while index + magic.count <= received {
                    if buffer[index] == magic[0], buffer[index + 1] == magic[1], buffer[index + 2] == magic[2],
                        buffer[index + 3] == magic[3], buffer[index + 4] == magic[4], buffer[index + 5] == magic[5],
                        buffer[index + 6] == magic[6], buffer[index + 7] == magic[7]
                    {
                        return index
                    }
                    index += 1
                }
                return nil
            }
            if let found { return start + UInt64(found) }
            guard received == count, count > magic.count else { return nil }
            start += UInt64(received - (magic.count - 1))
        }
        return nil
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

    private func hash(from offset: UInt64, count: UInt64, into hasher: MD5Hasher) throws {
        let buffer = try AllocatedBytes(count: Self.windowSize, wipesOnRelease: false)
        var done: UInt64 = 0
        while done < count {
            try Interruption.check()
            let step = Int(min(UInt64(buffer.bytes.count), count - done))
            let part = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<step])
            let received = try describingFailure("cannot read \(DisplayText.quoted(path))") {
                try file.readFully(into: part, atOffset: Int64(offset + done))
            }
            guard received == step else {
                throw GoshuinError(.io, "\(DisplayText.quoted(path)) shrank while being read")
            }
            try hasher.update(UnsafeRawBufferPointer(part))
            done += UInt64(step)
        }
    }
}
