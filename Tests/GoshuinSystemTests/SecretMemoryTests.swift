import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// Secrets live on pages that a core dump leaves out (`MADV_DONTDUMP`: "dd" in `/proc/self/smaps`).
@Suite struct SecretMemoryTests {
    /// The VmFlags of the mapping of this process that holds `address`.
    static func mappingFlags(of address: UnsafeRawPointer?) throws -> [String] {
        let address = try #require(address)
        // Read to its end: a /proc file has no size to read by.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let target = UInt(bitPattern: address)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= target && target < bounds[1]
            } else if inside, line.hasPrefix("VmFlags:") {
                return fields.dropFirst().map(String.init)
            }
        }
        return []
    }

    @Test func aPassphraseAndAKeyAreLeftOutOfCoreDumps() throws {
        let passphrase = Passphrase("correct horse battery staple")
        let passphraseFlags = try passphrase.bytes.withUnsafeBytes { try Self.mappingFlags(of: $0.baseAddress) }
        #expect(passphraseFlags.contains("dd"), "\(passphraseFlags)")
        let key = try KeyDerivation.deriveKey(
            passphrase: passphrase, salt: [UInt8](repeating: 1, count: 16), iterations: 1_000)
        let keyFlags = try key.withUnsafeBytes { try Self.mappingFlags(of: $0.baseAddress) }
        #expect(keyFlags.contains("dd"), "\(keyFlags)")
    }

    @Test func chunkBuffersAreLeftOutOfCoreDumpsAndOthersAreNot() throws {
        let plaintext = try AllocatedBytes(count: 4 << 20, wipesOnRelease: true)
        #expect(try Self.mappingFlags(of: plaintext.bytes.baseAddress).contains("dd"))
        let ordinary = try AllocatedBytes(count: 4 << 20, wipesOnRelease: false)
        #expect(try !Self.mappingFlags(of: ordinary.bytes.baseAddress).contains("dd"))
    }
}
