import GoshuinFormat

/// What `Benchmarks/` measures that the public API does not offer: one kernel at a time, and a chosen worker
/// count.
@_spi(Benchmarks) public enum RecoveryBenchmarking {
    /// The kernels this processor runs, by name (`portable`, `ssse3`, `avx2`), the fastest last.
    public static var kernelNames: [String] { RegionKernel.allCases.filter(\.isAvailable).map(\.name) }

    /// The kernel ``RecoverySet`` uses.
    public static var bestKernelName: String { RegionKernel.best.name }

    /// Destination bytes a second of the kernel named `name` multiplying a `length`-byte region into
    /// `destinations` destinations, over about `totalBytes` of destination bytes (the buffers stay in cache).
    public static func kernelThroughput(name: String, destinations: Int, length: Int, totalBytes: Int) throws
        -> Double
    {
        guard let kernel = RegionKernel.allCases.first(where: { $0.name == name && $0.isAvailable }) else {
            throw GoshuinError(.invalidArgument, "no kernel \(name) on this processor")
        }
        let coefficients = RegionCoefficients(
            (0..<destinations).map { UInt16(truncatingIfNeeded: 0x1234 &+ 977 &* $0) })
        let source = try AllocatedBytes(count: length, wipesOnRelease: false)
        source.bytes.initializeMemory(as: UInt8.self, repeating: 0x5A)
        let targets = try (0..<destinations).map { _ in try AllocatedBytes(count: length, wipesOnRelease: false) }
        for target in targets { target.bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        let pointers = targets.map { $0.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        let rounds = max(1, totalBytes / max(1, length * destinations))
        let clock = ContinuousClock()
        let start = clock.now
        withExtendedLifetime(targets) {
            pointers.withUnsafeBufferPointer { destinations in
                for _ in 0..<rounds {
                    coefficients.multiplyAdd(
                        UnsafeRawBufferPointer(source.bytes), into: destinations, length: length, kernel: kernel)
                }
            }
        }
        let duration = clock.now - start
        let elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return Double(rounds * length * destinations) / max(elapsed, 1e-9)
    }

    /// The slice-digest kernels this processor runs, by name (`portable`, `avx2`).
    public static var sliceDigestKernelNames: [String] {
        SliceDigests.Kernel.allCases.filter(\.isAvailable).map(\.name)
    }

    /// Bytes a second, all streams together, of the slice-digest kernel named `name` hashing `streams`
    /// streams of `length` bytes each (in memory), about `totalBytes` in all; and, with `name` `openssl`, of
    /// one OpenSSL MD5 stream, the same way.
    public static func sliceDigestThroughput(name: String, streams: Int, length: Int, totalBytes: Int) throws
        -> Double
    {
        let kernel = SliceDigests.Kernel.allCases.first { $0.name == name && $0.isAvailable }
        guard kernel != nil || name == "openssl" else {
            throw GoshuinError(.invalidArgument, "no slice-digest kernel \(name) on this processor")
        }
        let data = try AllocatedBytes(count: streams * length, wipesOnRelease: false)
        data.bytes.initializeMemory(as: UInt8.self, repeating: 0xA5)
        let pieces = (0..<streams).map {
            UnsafeRawBufferPointer(rebasing: data.bytes[($0 * length)..<(($0 + 1) * length)])
        }
        let rounds = max(1, totalBytes / max(1, streams * length))
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<rounds {
            if let kernel {
                var digests = SliceDigests(count: streams, kernel: kernel)
                digests.update(pieces)
                _ = digests.finalize()
            } else {
                for piece in pieces {
                    let hasher = try MD5Hasher()
                    try hasher.update(piece)
                    _ = try hasher.finalize()
                }
            }
        }
        let duration = clock.now - start
        let elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return Double(rounds * streams * length) / max(elapsed, 1e-9)
    }

    /// ``RecoverySet/protect(inputPath:redundancy:replaceExisting:progress:)`` with `workers` workers and,
    /// when given, a slice size other than the plan's (a multiple of 4, for at most 32,768 slices).
    public static func protect(
        inputPath: String, redundancy: RecoveryRedundancy, workers: Int, sliceSize: UInt64? = nil
    ) throws -> RecoverySetFiles {
        if let sliceSize {
            guard sliceSize > 0, sliceSize % 4 == 0 else {
                throw GoshuinError(.invalidArgument, "a slice size is a positive multiple of 4")
            }
        }
        return try FileProtection.protect(
            path: inputPath, redundancy: redundancy, replaceExisting: true, workers: workers, sliceSize: sliceSize,
            progress: nil)
    }
}
