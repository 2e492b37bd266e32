internal import CGaloisRegion
import GoshuinFormat

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

/// Split tables in memory the caller owns (a worker's scratch, from ``AllocatedBytes``): as many tables as
/// fit, prepared in place, so that tables for thousands of constants never need an array of their own.
struct RegionTableStorage {
    /// The bytes of one table.
    static let tableSize = MemoryLayout<galois_region_tables>.stride

    private let base: UnsafeMutablePointer<galois_region_tables>
    /// How many tables fit.
    let capacity: Int

    /// Tables in `memory` (aligned to 16, as ``AllocatedBytes`` is).
    init(_ memory: UnsafeMutableRawBufferPointer) {
        guard let start = memory.baseAddress else { preconditionFailure("scratch memory has an address") }
        base = start.bindMemory(to: galois_region_tables.self, capacity: memory.count / Self.tableSize)
        capacity = memory.count / Self.tableSize
    }

    /// Prepares tables `first ..< first + constants.count` for `constants`.
    func prepare(from first: Int, _ constants: some Collection<UInt16>) {
        precondition(first + constants.count <= capacity, "the tables fit the storage")
        for (offset, constant) in constants.enumerated() { galois_region_prepare(constant, base + first + offset) }
    }

    /// For each d: `destinations[d] ^= constant_(first + d) · source`, over `length` bytes (even), with the
    /// tables from `first` on, one per destination.
    func multiplyAdd(
        from first: Int, _ source: UnsafeRawBufferPointer,
        into destinations: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>,
        length: Int, kernel: RegionKernel
    ) {
        precondition(length % 2 == 0 && length <= source.count, "a region is a whole number of 16-bit words")
        precondition(first + destinations.count <= capacity, "one table per destination")
        guard length > 0, !destinations.isEmpty, let bytes = source.baseAddress, let targets = destinations.baseAddress
        else { return }
        galois_region_multiply_add(
            galois_region_kernel(rawValue: UInt32(kernel.rawValue)), base + first,
            bytes.assumingMemoryBound(to: UInt8.self), targets, destinations.count, length)
    }
}

/// Multiplications a word at a time, without split tables: for regions of a few words, where preparing a
/// table per constant would cost more than the products (a set of 4-byte slices).
enum WordMultiplication {
    /// The region length below which words beat tables: a table costs about as much as 64 bytes of products.
    static let shortRegion = 64

    /// For each d: `destinations[d] ^= constants[d] · source`, over `length` bytes (even).
    static func multiplyAdd(
        _ constants: UnsafeBufferPointer<UInt16>, _ source: UnsafeRawBufferPointer,
        into destinations: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>?>, length: Int
    ) {
        precondition(length % 2 == 0 && length <= source.count, "a region is a whole number of 16-bit words")
        precondition(constants.count == destinations.count, "one constant per destination")
        guard length > 0, let values = constants.baseAddress, let bytes = source.baseAddress,
            let targets = destinations.baseAddress
        else { return }
        galois_word_multiply_add(
            values, bytes.assumingMemoryBound(to: UInt8.self), targets, constants.count, length)
    }

    /// For each d: `destinations[d] ^= constants[d] · source`, over `count` words: one row of a matrix into
    /// several, the source read once for all of them (split tables in memory from ``AllocatedBytes``).
    static func multiplyAdd(
        _ constants: [UInt16], _ source: UnsafePointer<UInt16>, into destinations: [UnsafeMutablePointer<UInt8>?],
        count: Int
    ) throws {
        precondition(constants.count == destinations.count, "one constant per destination")
        guard !constants.isEmpty, count > 0 else { return }
        let tables = try AllocatedBytes(count: constants.count * RegionTableStorage.tableSize, wipesOnRelease: false)
        let storage = RegionTableStorage(tables.bytes)
        storage.prepare(from: 0, constants)
        destinations.withUnsafeBufferPointer { targets in
            storage.multiplyAdd(
                from: 0, UnsafeRawBufferPointer(start: source, count: 2 * count), into: targets, length: 2 * count,
                kernel: .best)
        }
    }

    /// `destination ^= constant · source`, over `count` words: one row of a matrix into another.
    static func multiplyAdd(
        _ constant: UInt16, _ source: UnsafePointer<UInt16>, into destination: UnsafeMutablePointer<UInt16>,
        count: Int
    ) {
        guard constant != 0, count > 0 else { return }
        let length = 2 * count
        var target: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(destination).assumingMemoryBound(
            to: UInt8.self)
        let bytes = UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self)
        if length < shortRegion {
            var value = constant
            galois_word_multiply_add(&value, bytes, &target, 1, length)
        } else {
            var table = galois_region_tables()
            galois_region_prepare(constant, &table)
            galois_region_multiply_add(
                galois_region_kernel(rawValue: UInt32(RegionKernel.best.rawValue)), &table, bytes, &target, 1, length)
        }
    }
}

extension InputSliceConstants {
    /// The coefficients of input slice `index` in the recovery slices of `exponents`, in their order.
    static func coefficients(ofSlice index: Int, exponents: [UInt32]) -> [UInt16] {
        [UInt16](unsafeUninitializedCapacity: exponents.count) { buffer, count in
            exponents.withUnsafeBufferPointer {
                galois_powers(constant(ofSlice: index), $0.baseAddress, exponents.count, buffer.baseAddress)
            }
            count = exponents.count
        }
    }
}
