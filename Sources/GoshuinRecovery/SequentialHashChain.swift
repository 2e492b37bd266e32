import GoshuinFormat
import Synchronization

/// The MD5 of a file's bytes in order, block by block: one block at a time, each after the one before, on
/// whichever worker is free (`Spec/recovery-par2.md` §7: the whole-file MD5 is sequential by nature).
final class SequentialHashChain: WorkComponent, @unchecked Sendable {
    // @unchecked: `next` and `running` change under the pool's lock; the hasher is used by one task at a time,
    // in order, because the next block is ready only once the one before completed.
    /// The bytes of block `index` into the buffer given (its whole length).
    typealias Reader = @Sendable (_ offset: UInt64, _ buffer: UnsafeMutableRawBufferPointer) throws -> Void
    /// Where each block goes after it was read and hashed (a copy being written), if anywhere.
    typealias Writer = @Sendable (_ offset: UInt64, _ bytes: UnsafeRawBufferPointer) throws -> Void

    static let blockSize = 1 << 20

    /// Whether block `index` may be read yet (its bytes are written by other tasks of the same pool).
    typealias Gate = (_ index: Int) -> Bool

    private let length: UInt64
    private let reader: Reader
    private let writer: Writer?
    private let gate: Gate?
    private let hasher: MD5Hasher
    private var next = 0
    private var running = false
    private var completed = 0
    private let blockCount: Int
    /// Bytes hashed so far.
    let bytesDone = Atomic<UInt64>(0)

    /// A chain over `length` bytes; `gate`, when given, is asked under the pool's lock whether a block is ready.
    init(length: UInt64, reader: @escaping Reader, writer: Writer? = nil, gate: Gate? = nil) throws {
        self.length = length
        self.reader = reader
        self.writer = writer
        self.gate = gate
        hasher = try MD5Hasher()
        blockCount = Int((length + UInt64(Self.blockSize) - 1) / UInt64(Self.blockSize))
    }

    func nextTask() -> Int? {
        guard !running, next < blockCount, gate?(next) ?? true else { return nil }
        running = true
        next += 1
        return next - 1
    }

    var isFinished: Bool { completed == blockCount }

    func complete(_ task: Int) {
        running = false
        completed += 1
    }

    func run(_ task: Int, scratch: WorkerScratch) throws {
        let offset = UInt64(task) * UInt64(Self.blockSize)
        let count = Int(min(UInt64(Self.blockSize), length - offset))
        let buffer = try scratch.buffer(.read, count: count)
        try reader(offset, buffer)
        try hasher.update(UnsafeRawBufferPointer(buffer))
        try writer?(offset, UnsafeRawBufferPointer(buffer))
        bytesDone.add(UInt64(count), ordering: .relaxed)
    }

    /// The digest, once every block ran.
    func digest() throws -> [UInt8] {
        precondition(isFinished, "the chain has run")
        return try hasher.finalize()
    }
}
