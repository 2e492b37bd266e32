import Foundation
import GoshuinFormat

/// A fresh directory under the system's temporary directory, removed when released.
package final class TemporaryDirectory {
    package let path: String

    package init() {
        path = NSTemporaryDirectory() + "goshuin-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    package func file(_ name: String) -> String { path + "/" + name }

    /// The names in the directory, sorted.
    package var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    @discardableResult
    package func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = file(name)
        _ = FileManager.default.createFile(atPath: target, contents: Data(bytes))
        return target
    }
}

package enum Fixtures {
    /// The package's root directory.
    package static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// Deterministic bytes that differ at every position.
    package static func payload(_ length: Int, seed: UInt8 = 1) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ ($0 >> 8)) }
    }

    package static let passphrase = "correct horse battery staple"

    /// Low-iteration parameters so tests run fast; fixed salt and nonce only where a test needs them.
    package static func parameters(chunkSize: UInt32 = 1_024) -> SealParameters {
        SealParameters(iterations: 1_000, chunkSize: chunkSize)
    }

    /// Seals `plaintext` into a file in `directory` and returns the file's bytes.
    package static func seal(
        _ plaintext: [UInt8], in directory: TemporaryDirectory, chunkSize: UInt32 = 1_024,
        passphrase: String = Fixtures.passphrase, name: String = "sealed.goshuin"
    ) throws -> [UInt8] {
        let input = directory.write("plain-\(name)", plaintext)
        let output = directory.file(name)
        try GoshuinFile.seal(
            inputPath: input, outputPath: output, passphrase: Passphrase(passphrase),
            parameters: parameters(chunkSize: chunkSize))
        try FileManager.default.removeItem(atPath: input)
        return readBytes(output)
    }

    package static func readBytes(_ path: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: path) ?? Data())
    }

    /// Opens `bytes` as a .goshuin file through the streaming API; the plaintext released and the error.
    package static func open(_ bytes: [UInt8], passphrase: String = Fixtures.passphrase) -> (
        released: [UInt8], error: GoshuinError?
    ) {
        let directory = TemporaryDirectory()
        let path = directory.write("input.goshuin", bytes)
        var released: [UInt8] = []
        do {
            let input = try FileDescriptor.openForReading(path)
            try input.closeAfter {
                try ContainerOpener.open(input, passphrase: Passphrase(passphrase)) { released += $0 }
            }
            return (released, nil)
        } catch let error as GoshuinError {
            return (released, error)
        } catch {
            return (released, GoshuinError(.io, "\(error)"))
        }
    }

    /// A header's 45 bytes with the given fields.
    package static func headerBytes(
        magic: [UInt8] = Array("GSHN".utf8), version: UInt8 = 1, iterations: UInt32 = 1_000, chunkSize: UInt32 = 1_024,
        plaintextLength: UInt64 = 1
    ) -> [UInt8] {
        HeaderFields(
            magic: magic, version: version, kdfIterations: iterations, salt: [UInt8](repeating: 7, count: 16),
            nonceBase: [UInt8](repeating: 9, count: 8), chunkSize: chunkSize, plaintextLength: plaintextLength
        ).encode()
    }
}

extension Array where Element == UInt8 {
    /// A copy with bit `bit` of byte `offset` flipped.
    package func flippingBit(at offset: Int, bit: Int = 0) -> [UInt8] {
        var copy = self
        copy[offset] ^= UInt8(1 << bit)
        return copy
    }

    /// A copy with the big-endian u32 at `offset` replaced.
    package func replacingUInt32(at offset: Int, with value: UInt32) -> [UInt8] {
        var copy = self
        for index in 0..<4 { copy[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
        return copy
    }
}
