import GoshuinFormat
import Testing

@testable import GoshuinRecovery

/// The MD5 of several streams at once: every kernel this processor runs gives, for each stream, the digest
/// OpenSSL gives of the same bytes, for one to eight streams, lengths around every block and padding
/// boundary, pieces of any size (a byte, less than a block, several blocks), unaligned buffers, and the
/// RFC 1321 test suite.
@Suite struct SliceDigestsTests {
    static let kernels = SliceDigests.Kernel.allCases.filter(\.isAvailable)

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func theKernelsThisProcessorRunsIncludeThePortableOne() {
        #expect(Self.kernels.contains(.portable))
        #expect(SliceDigests.Kernel.best.isAvailable)
    }

    @Test(arguments: SliceDigests.Kernel.allCases.filter(\.isAvailable))
    func theTestSuiteOfRFC1321(kernel: SliceDigests.Kernel) {
        let suite: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f"
            ),
            (
                String(repeating: "1234567890", count: 8),
                "57edf4a22be3c955ac49da2e2107b67a"
            ),
        ]
        // All seven at once would need equal lengths: each is hashed in every lane of a group of copies.
        for (text, expected) in suite {
            for count in [1, 3, 8] {
                let bytes = Array(text.utf8)
                var digests = SliceDigests(count: count, kernel: kernel)
                bytes.withUnsafeBytes { piece in digests.update(Array(repeating: piece, count: count)) }
                #expect(digests.finalize().map(Self.hex) == Array(repeating: expected, count: count), "\(text)")
            }
        }
    }

    @Test(arguments: SliceDigests.Kernel.allCases.filter(\.isAvailable))
    func everyStreamIsOpenSSLsDigestOfItsBytes(kernel: SliceDigests.Kernel) throws {
        var random = GaloisFieldTests.Random(state: 46)
        let lengths = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 4_096, 4_116, 65_539, 262_144]
        for trial in 0..<120 {
            let length = trial < lengths.count ? lengths[trial] : random.below(20_000)
            let count = 1 + random.below(SliceDigests.maximumCount)
            let offset = random.below(7)
            // The streams side by side in one array, each `stride` bytes, its bytes from `offset` on.
            let stride = length + offset
            let storage = (0..<(count * stride)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var digests = SliceDigests(count: count, kernel: kernel)
            storage.withUnsafeBytes { all in
                var position = offset
                while position < stride {
                    // Pieces of a byte, of less than a block, of blocks and a bit.
                    let size = min(stride - position, [1, 13, 64, 200, 1_000, 7_000][random.below(6)])
                    digests.update(
                        (0..<count).map { stream in
                            UnsafeRawBufferPointer(
                                rebasing: all[(stream * stride + position)..<(stream * stride + position + size)])
                        })
                    position += size
                }
            }
            let expected = try (0..<count).map { stream in
                try MD5Hasher.hash(storage[(stream * stride + offset)..<((stream + 1) * stride)])
            }
            #expect(digests.finalize() == expected, "trial \(trial): \(count) streams of \(length) bytes")
        }
    }
}
