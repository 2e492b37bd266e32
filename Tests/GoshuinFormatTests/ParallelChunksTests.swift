import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The parallel path gives the bytes and the errors of the streaming one.
@Suite struct ParallelChunksTests {
    static let parameters = SealParameters(
        iterations: 1_000, chunkSize: 1_024, fixedSalt: Array(0..<16), fixedNonceBase: Array(0..<8))

    static func seal(_ plaintext: [UInt8], workers: Int) throws -> [UInt8] {
        let input = try FileSystem.anonymousFile()
        let output = try FileSystem.anonymousFile()
        defer {
            try? input.close()
            try? output.close()
        }
        try input.writeAll(plaintext)
        try input.seek(to: 0)
        try ContainerSealer.seal(
            from: input, plaintextLength: UInt64(plaintext.count), to: output, passphrase: Passphrase("p"),
            parameters: parameters, workerCount: workers)
        let size = try #require(try output.regularFileSize())
        return try #require(try FileSource(output).readExactly(at: 0, count: Int(size)))
    }

    /// Opens `file` through the parallel path; the error, and the output when it succeeded.
    static func parallelOpen(_ file: [UInt8], passphrase: String = "p", workers: Int = 4) throws -> (
        GoshuinError?, [UInt8]
    ) {
        let directory = TemporaryDirectory()
        let path = directory.write("in.goshuin", file)
        let input = try FileDescriptor.openForReading(path)
        let output = try FileSystem.anonymousFile()
        defer { try? output.close() }
        return try input.closeAfter {
            do {
                try ContainerOpener.open(input, to: output, passphrase: Passphrase(passphrase), workerCount: workers)
                let size = try #require(try output.regularFileSize())
                return (nil, try #require(try FileSource(output).readExactly(at: 0, count: Int(size))))
            } catch let error as GoshuinError {
                return (error, [])
            }
        }
    }

    /// Seals through the streaming sealer: `plaintext` comes through a pipe, which the parallel path cannot
    /// read at positions.
    static func sealThroughAPipe(_ plaintext: [UInt8]) throws -> [UInt8] {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (reading, writing) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        let writer = Thread {
            try? writing.writeAll(plaintext)
            try? writing.close()
        }
        writer.start()
        let output = try FileSystem.anonymousFile()
        defer {
            try? reading.close()
            try? output.close()
        }
        try ContainerSealer.seal(
            from: reading, plaintextLength: UInt64(plaintext.count), to: output, passphrase: Passphrase("p"),
            parameters: parameters, workerCount: 4)
        let size = try #require(try output.regularFileSize())
        return try #require(try FileSource(output).readExactly(at: 0, count: Int(size)))
    }

    @Test(arguments: [1, 1_023, 1_024, 1_025, 9_000, 64 * 1_024 + 5])
    func parallelSealIsByteIdenticalToTheStreamingSealer(length: Int) throws {
        let plaintext = Fixtures.payload(length)
        let streaming = try Self.sealThroughAPipe(plaintext)
        #expect(streaming.count == 45 + 20 * ((length + 1_023) / 1_024) + length)
        for workers in [1, 2, 3, 8] {
            #expect(try Self.seal(plaintext, workers: workers) == streaming, "\(workers) workers")
        }
        let sequential = streaming
        let (error, opened) = try Self.parallelOpen(sequential)
        #expect(error == nil)
        #expect(opened == plaintext)
    }

    @Test func parallelOpenFailsLikeTheSequentialOpen() throws {
        let file = try Self.seal(Fixtures.payload(12_000), workers: 1)
        let record = { (index: Int) in 45 + index * 1_044 }
        var mutations: [[UInt8]] = [
            file.flippingBit(at: record(0) + 9),
            file.flippingBit(at: record(5) + 9),
            file.flippingBit(at: file.count - 1),
            file.flippingBit(at: 20),
        ]
        var firstFour = file
        for index in 0..<4 { firstFour = firstFour.flippingBit(at: record(index) + 9) }
        mutations.append(firstFour)
        var firstThree = file
        for index in 0..<3 { firstThree = firstThree.flippingBit(at: record(index) + 9) }
        mutations.append(firstThree)
        for (number, mutated) in mutations.enumerated() {
            let sequential = Fixtures.open(mutated, passphrase: "p").error
            for workers in [2, 4] {
                let (parallel, _) = try Self.parallelOpen(mutated, workers: workers)
                #expect(
                    parallel == sequential, "mutation \(number), \(workers) workers: \(String(describing: parallel))")
                #expect(parallel != nil)
            }
        }
        let (wrong, _) = try Self.parallelOpen(file, passphrase: "q")
        #expect(wrong == GoshuinError(.authFailed, ""))
    }
}
