import Testing

@testable import GoshuinRecovery

/// The field and its kernels: every kernel this processor runs agrees bit for bit with the portable one and
/// with a log/exp reference written here from the definition (generator 0x1100B), for random coefficients
/// (0 and 1 included), lengths with odd tails past every vector width, unaligned buffers and several
/// destinations at once.
@Suite struct GaloisFieldTests {
    /// `a · b` by shift-and-add, the definition, sharing nothing with the library.
    static func referenceMultiply(_ a: UInt16, _ b: UInt16) -> UInt16 {
        var product: UInt32 = 0
        var multiplicand = UInt32(a)
        var multiplier = b
        while multiplier != 0 {
            if multiplier & 1 != 0 { product ^= multiplicand }
            multiplier >>= 1
            multiplicand <<= 1
            if multiplicand & 0x1_0000 != 0 { multiplicand ^= 0x1_100B }
        }
        return UInt16(product)
    }

    /// A reproducible generator (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    @Test func logAndExpAgreeWithTheDefinition() {
        var random = Random(state: 1)
        for _ in 0..<20_000 {
            let a = UInt16(truncatingIfNeeded: random.next())
            let b = UInt16(truncatingIfNeeded: random.next())
            #expect(GaloisField16.multiply(a, b) == Self.referenceMultiply(a, b))
        }
        for a in [UInt16(1), 2, 3, 0x8000, 0xFFFF, 0x1234] {
            #expect(GaloisField16.multiply(a, GaloisField16.inverse(a)) == 1)
        }
        #expect(GaloisField16.power(2, 16) == 0x100B, "x^16 = x^12 + x^3 + x + 1")
        #expect(GaloisField16.power(3, 0) == 1 && GaloisField16.power(0, 5) == 0)
    }

    @Test func theInputSliceConstantsAreTheSpecificationsOnes() {
        // "There are 32768 valid constants. The first few are 2 4 16 128 256 2048 …"
        #expect(InputSliceConstants.all.count == 32_768)
        #expect(Array(InputSliceConstants.all.prefix(6)) == [2, 4, 16, 128, 256, 2_048])
        #expect(Set(InputSliceConstants.all).count == 32_768, "all different")
        // Each has order 65,535: its powers reach 1 only at 65,535, never at a divisor of it.
        for constant in InputSliceConstants.all.prefix(50) {
            for divisor in [21_845, 13_107, 3_855, 255] {
                #expect(GaloisField16.power(constant, UInt32(divisor)) != 1)
            }
            #expect(GaloisField16.power(constant, 65_535) == 1)
        }
    }

    @Test func everyKernelAgreesWithThePortableOneAndTheReference() {
        let kernels = RegionKernel.allCases.filter(\.isAvailable)
        #expect(kernels.contains(.portable))
        #expect(RegionKernel.best.isAvailable)
        var random = Random(state: 27)
        let lengths = [0, 2, 4, 30, 32, 34, 62, 64, 66, 126, 128, 130, 190, 1_022, 4_096, 4_098, 65_538]
        for trial in 0..<200 {
            let length = trial < lengths.count ? lengths[trial] : 2 * random.below(3_000)
            let count = 1 + random.below(9)
            let sourceOffset = random.below(7)
            let constants = (0..<count).map { index -> UInt16 in
                switch (trial + index) % 11 {
                case 0: return 0
                case 1: return 1
                default: return UInt16(truncatingIfNeeded: random.next())
                }
            }
            let source = (0..<(length + sourceOffset)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let starting = (0..<count).map { _ in
                (0..<(length + 9)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            let destinationOffsets = (0..<count).map { _ in random.below(9) }
            var expected = starting
            for (destination, constant) in constants.enumerated() {
                for word in 0..<(length / 2) {
                    let value =
                        UInt16(source[sourceOffset + 2 * word]) | UInt16(source[sourceOffset + 2 * word + 1]) << 8
                    let product = Self.referenceMultiply(value, constant)
                    expected[destination][destinationOffsets[destination] + 2 * word] ^= UInt8(product & 0xFF)
                    expected[destination][destinationOffsets[destination] + 2 * word + 1] ^= UInt8(product >> 8)
                }
            }
            for kernel in kernels {
                var buffers = starting
                Self.multiplyAdd(
                    constants, source: source, sourceOffset: sourceOffset, into: &buffers,
                    offsets: destinationOffsets, length: length, kernel: kernel)
                #expect(buffers == expected, "kernel \(kernel.name), \(count) destinations, \(length) bytes")
            }
        }
    }

    /// The kernel on copies of `buffers`, each destination starting `offsets[d]` bytes in (unaligned).
    static func multiplyAdd(
        _ constants: [UInt16], source: [UInt8], sourceOffset: Int, into buffers: inout [[UInt8]], offsets: [Int],
        length: Int, kernel: RegionKernel
    ) {
        let coefficients = RegionCoefficients(constants)
        let storage = buffers.map { bytes -> UnsafeMutableBufferPointer<UInt8> in
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = copy.initialize(from: bytes)
            return copy
        }
        defer { for buffer in storage { buffer.deallocate() } }
        let pointers = zip(storage, offsets).map { buffer, offset in buffer.baseAddress.map { $0 + offset } }
        source.withUnsafeBytes { bytes in
            pointers.withUnsafeBufferPointer { targets in
                coefficients.multiplyAdd(
                    UnsafeRawBufferPointer(rebasing: bytes[sourceOffset...]), into: targets, length: length,
                    kernel: kernel)
            }
        }
        buffers = storage.map { Array($0) }
    }
}
