internal import CMD5Lanes

/// The MD5s (RFC 1321) of up to ``maximumCount`` equally long streams at once, fed the same number of bytes
/// each at a time: the slices of a recovery set, which are all as long as the slice size, hashed in lockstep
/// by the `CMD5Lanes` C target (eight lanes of AVX2, or one stream after another in portable C;
/// `Spec/decisions/0046`). A single stream (the whole-file MD5) is OpenSSL's ``MD5Hasher``.
struct SliceDigests {
    /// The compression kernels of `CMD5Lanes`.
    enum Kernel: Int, CaseIterable, Sendable {
        /// Portable C, one stream after another.
        case portable = 0
        /// Eight streams in the lanes of AVX2 registers.
        case avx2 = 1

        /// The fastest kernel this processor runs.
        static let best = Kernel(rawValue: Int(md5_lanes_best_kernel().rawValue)) ?? .portable

        /// Whether this processor runs the kernel.
        var isAvailable: Bool { md5_lanes_kernel_available(md5_lanes_kernel(rawValue: UInt32(rawValue))) != 0 }

        /// A name for reports.
        var name: String {
            switch self {
            case .portable: return "portable"
            case .avx2: return "avx2"
            }
        }
    }

    /// The most streams hashed at once.
    static let maximumCount = Int(MD5_LANES_MAXIMUM)
    private static let blockLength = 64

    /// The number of streams.
    let count: Int
    private let kernel: Kernel
    private var states: [md5_lanes_state]
    /// Bytes of each stream so far.
    private var length: UInt64 = 0
    /// Each stream's bytes past its last whole block (`length % 64` of them), 64 bytes a stream.
    private var pending: [UInt8]

    /// `count` new streams (1 to ``maximumCount``).
    init(count: Int, kernel: Kernel = .best) {
        precondition((1...Self.maximumCount).contains(count), "one to eight streams")
        self.count = count
        self.kernel = kernel
        let start = md5_lanes_state(words: (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476))
        states = Array(repeating: start, count: count)
        pending = Array(repeating: 0, count: count * Self.blockLength)
    }

    /// Adds `pieces[i]` to stream i; every piece is as long as the first.
    mutating func update(_ pieces: [UnsafeRawBufferPointer]) {
        precondition(pieces.count == count, "one piece a stream")
        let total = pieces[0].count
        precondition(pieces.allSatisfy { $0.count == total }, "the streams stay equally long")
        var consumed = 0
        let held = Int(length % UInt64(Self.blockLength))
        if held > 0 {
            consumed = min(Self.blockLength - held, total)
            for (stream, piece) in pieces.enumerated() {
                let start = stream * Self.blockLength + held
                pending.withUnsafeMutableBytes {
                    UnsafeMutableRawBufferPointer(rebasing: $0[start..<(start + consumed)]).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: piece[0..<consumed]))
                }
            }
            if held + consumed == Self.blockLength {
                pending.withUnsafeBytes { held in
                    let starts = (0..<count).map { stream in held.baseAddress.map { $0 + stream * Self.blockLength } }
                    compress(starts, blocks: 1)
                }
            }
        }
        let blocks = (total - consumed) / Self.blockLength
        if blocks > 0 {
            compress(pieces.map { $0.baseAddress.map { $0 + consumed } }, blocks: blocks)
            consumed += blocks * Self.blockLength
        }
        if consumed < total {
            // What is left is less than a block, and the held bytes (if any) went into one just now.
            for (stream, piece) in pieces.enumerated() {
                let start = stream * Self.blockLength
                pending.withUnsafeMutableBytes {
                    UnsafeMutableRawBufferPointer(rebasing: $0[start..<(start + total - consumed)]).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: piece[consumed..<total]))
                }
            }
        }
        length += UInt64(total)
    }

    /// The 16-byte digest of each stream, in order; the streams take no more bytes.
    mutating func finalize() -> [[UInt8]] {
        // RFC 1321's padding is the same for streams of the same length: 0x80, zeros up to 56 bytes past a
        // block's start, and the length in bits, little-endian.
        let held = Int(length % UInt64(Self.blockLength))
        var padding = [UInt8](repeating: 0, count: (held < 56 ? 56 : 120) - held + 8)
        padding[0] = 0x80
        let bits = length &* 8
        for byte in 0..<8 { padding[padding.count - 8 + byte] = UInt8(truncatingIfNeeded: bits >> (8 * byte)) }
        padding.withUnsafeBytes { bytes in update(Array(repeating: bytes, count: count)) }
        return states.map { state in
            let words = [state.words.0, state.words.1, state.words.2, state.words.3]
            return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        }
    }

    /// Compresses `blocks` blocks of `data[i]` into stream i (every pointer is to at least that many bytes).
    private mutating func compress(_ data: [UnsafeRawPointer?], blocks: Int) {
        let pointers = data.map { $0?.assumingMemoryBound(to: UInt8.self) }
        let kernel = md5_lanes_kernel(rawValue: UInt32(self.kernel.rawValue))
        states.withUnsafeMutableBufferPointer { states in
            md5_lanes_compress(kernel, states.baseAddress, pointers, count, blocks)
        }
    }
}
