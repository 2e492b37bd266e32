/// Arithmetic in GF(2^16), the field of PAR 2.0's Reed-Solomon code: 16-bit words, addition is XOR, and
/// multiplication is modulo the generator polynomial x^16 + x^12 + x^3 + x + 1 (`0x1100B`), whose root 2
/// generates the multiplicative group of order 65,535 (`Spec/recovery-par2.md` §4).
///
/// Scalars only (the matrix of a repair, the coefficients of a slice); buffers go through ``RegionKernel``.
enum GaloisField16 {
    /// The order of the multiplicative group.
    static let order = 65_535
    /// The generator polynomial.
    static let polynomial: UInt32 = 0x1_100B

    /// `exponentials[i] = 2^i` for i in 0 ..< 65,535, repeated once more so that a sum of two logarithms
    /// needs no reduction; `logarithms[x]` for x ≠ 0.
    private static let tables: (exponentials: [UInt16], logarithms: [UInt16]) = {
        var exponentials = [UInt16](repeating: 0, count: 2 * order)
        var logarithms = [UInt16](repeating: 0, count: order + 1)
        var value: UInt32 = 1
        for power in 0..<order {
            exponentials[power] = UInt16(value)
            exponentials[power + order] = UInt16(value)
            logarithms[Int(value)] = UInt16(power)
            value <<= 1
            if value & 0x1_0000 != 0 { value ^= polynomial }
        }
        return (exponentials, logarithms)
    }()

    /// `a · b`.
    static func multiply(_ a: UInt16, _ b: UInt16) -> UInt16 {
        guard a != 0, b != 0 else { return 0 }
        let (exponentials, logarithms) = tables
        return exponentials[Int(logarithms[Int(a)]) + Int(logarithms[Int(b)])]
    }

    /// The inverse of `a`, which is not 0.
    static func inverse(_ a: UInt16) -> UInt16 {
        precondition(a != 0, "0 has no inverse")
        let (exponentials, logarithms) = tables
        return exponentials[(order - Int(logarithms[Int(a)])) % order]
    }

    /// `base^exponent` (`0^0 = 1`).
    static func power(_ base: UInt16, _ exponent: UInt32) -> UInt16 {
        guard exponent != 0 else { return 1 }
        guard base != 0 else { return 0 }
        let (exponentials, logarithms) = tables
        let logarithm = UInt64(logarithms[Int(base)]) * UInt64(exponent) % UInt64(order)
        return exponentials[Int(logarithm)]
    }

    /// `2^exponent`.
    static func exponential(_ exponent: Int) -> UInt16 { tables.exponentials[exponent % order] }
}

/// The constants of PAR 2.0's input slices: input slice i (counting over every recoverable file of the set,
/// in the main packet's order) has `2^n_i`, where n_i is the i-th exponent whose greatest common divisor with
/// 65,535 is 1, so that every constant has the full order (the specification's "There are 32768 valid
/// constants. The first few are 2 4 16 128 256 2048 …").
enum InputSliceConstants {
    /// The most input slices a set may have: one per valid constant.
    static let maximumCount = 32_768

    /// The constants of slices 0 ..< 32,768.
    static let all: [UInt16] = {
        var constants: [UInt16] = []
        constants.reserveCapacity(maximumCount)
        var exponent = 0
        while constants.count < maximumCount {
            exponent += 1
            if greatestCommonDivisor(exponent, GaloisField16.order) == 1 {
                constants.append(GaloisField16.exponential(exponent))
            }
        }
        return constants
    }()

    /// The constant of input slice `index` (below ``maximumCount``).
    static func constant(ofSlice index: Int) -> UInt16 { all[index] }

    /// The coefficient of input slice `index` in the recovery slice of `exponent`: its constant to that power.
    static func coefficient(ofSlice index: Int, exponent: UInt32) -> UInt16 {
        GaloisField16.power(all[index], exponent)
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
