internal import CGaloisRegion

/// The GF(2^16) region kernels of the `CGaloisRegion` C target: `destination ^= c · source` over buffers of
/// little-endian 16-bit words, for several destinations at once, with split tables looked up by PSHUFB
/// (SSSE3, AVX2) or one word at a time (portable).
enum RegionKernel: Int, CaseIterable, Sendable {
    /// Portable C, one word at a time.
    case portable = 0
    /// 32 bytes a step.
    case ssse3 = 1
    /// 64 bytes a step.
    case avx2 = 2

    /// The fastest kernel this processor runs.
    static let best: RegionKernel = RegionKernel(rawValue: Int(galois_region_best_kernel().rawValue)) ?? .portable

    /// Whether this processor runs the kernel.
    var isAvailable: Bool { galois_region_kernel_available(galois_region_kernel(rawValue: UInt32(rawValue))) != 0 }

    /// A name for reports.
    var name: String {
        switch self {
        case .portable: return "portable"
        case .ssse3: return "ssse3"
        case .avx2: return "avx2"
        }
    }
}

/// The split tables of some constants, prepared once and used for many regions.
struct RegionCoefficients {
    private var tables: [galois_region_tables]

    /// Tables for `constants`, in order.
    init(_ constants: [UInt16]) {
        tables = constants.map { constant in
            var table = galois_region_tables()
            galois_region_prepare(constant, &table)
            return table
        }
    }

    /// No constants yet; ``replace(with:)`` fills them.
    init(capacity: Int) {
        tables = []
        tables.reserveCapacity(capacity)
    }

    /// The number of constants.
    var count: Int { tables.count }

    /// Prepares the tables of `constants` in place, reusing the storage.
    mutating func replace(with constants: some Collection<UInt16>) {
        tables.removeAll(keepingCapacity: true)
        for constant in constants {
            var table = galois_region_tables()
            galois_region_prepare(constant, &table)
            tables.append(table)
        }
    }

    /// For each d: `destinations[d][0 ..< length] ^= constant_d · source[0 ..< length]`, where `length` is
    /// even and at most `source.count`, and every destination holds at least `length` bytes; the constants
    /// and the destinations are paired in order (as many destinations as constants).
    func multiplyAdd(
        _ source: UnsafeRawBufferPointer, into destinations: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>,
        length: Int, kernel: RegionKernel = .best
    ) {
        precondition(length % 2 == 0 && length <= source.count, "a region is a whole number of 16-bit words")
        precondition(destinations.count == tables.count, "one constant per destination")
        guard length > 0, !tables.isEmpty, let base = source.baseAddress, let targets = destinations.baseAddress
        else { return }
        tables.withUnsafeBufferPointer { prepared in
            galois_region_multiply_add(
                galois_region_kernel(rawValue: UInt32(kernel.rawValue)), prepared.baseAddress,
                base.assumingMemoryBound(to: UInt8.self), targets, tables.count, length)
        }
    }
}
