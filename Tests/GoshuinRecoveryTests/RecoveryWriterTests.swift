import Foundation
import Glibc
import GoshuinFormat
import Testing

@testable import GoshuinRecovery

/// The streaming writer makes, from the bytes fed in order, the very set `protect` makes from the file: byte
/// for byte, whether it computes the recovery slices as the bytes come or, past its memory budget, from the
/// finished file.
@Suite struct RecoveryWriterTests {
    static func feed(_ bytes: [UInt8], to writer: RecoveryWriter, seed: UInt64) throws {
        var random = GaloisFieldTests.Random(state: seed)
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, 1 + random.below(random.below(4) == 0 ? 3_000_000 : 70_000))
            try writer.append(Array(bytes[offset..<(offset + count)]))
            offset += count
        }
    }

    @Test(arguments: [
        (3_000_000, 1_024, true), (2_500_001, 4_096, false), (1_401, 1_024, true), (70_000, 65_536, false),
    ])
    func theWriterMakesTheSetProtectMakes(length: Int, chunkSize: Int, fitsInMemory: Bool) throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let bytes = try Recovery.seal(
            Recovery.noise(length, seed: UInt64(length)), to: path, chunkSize: UInt32(chunkSize))
        let header = try Header.decode(bytes.prefix(77), fileSize: UInt64(bytes.count))
        let plan = RecoveryPlan(
            fileLength: UInt64(bytes.count), recordLength: header.layout.geometry.fullRecordLength,
            redundancy: .default)
        let writer = try RecoveryWriter(
            protecting: path, fileLength: UInt64(bytes.count), recordLength: header.layout.geometry.fullRecordLength,
            redundancy: .default, replaceExisting: false,
            accumulatorBudget: fitsInMemory ? Int(plan.recoveryBytes) : Int(plan.recoveryBytes) - 1, workers: 2,
            kernel: .best)
        #expect(writer.encodesWhileWriting == fitsInMemory)
        try Self.feed(bytes, to: writer, seed: UInt64(chunkSize))
        let streamed = try writer.finish()
        let streamedBytes = (Recovery.read(streamed.indexPath), Recovery.read(streamed.volumePath))
        try FileManager.default.removeItem(atPath: streamed.indexPath)
        try FileManager.default.removeItem(atPath: streamed.volumePath)
        let protected = try RecoverySet.protect(inputPath: path)
        #expect(protected == streamed)
        #expect(Recovery.read(protected.indexPath) == streamedBytes.0, "the index files are the same bytes")
        #expect(Recovery.read(protected.volumePath) == streamedBytes.1, "the volume files are the same bytes")
        let verification = try RecoverySet.verify(inputPath: path)
        #expect(verification.isIntact && verification.fileHashMatches == true)
    }

    /// Past its budget the writer reads the file back: a file changed after it was written (a byte of slice 3,
    /// its modification time put back, so that only the CRC-32s taken as it was written can tell) gets no
    /// set, and nothing is left.
    @Test func aFileThatDoesNotReadBackAsItWasWrittenGetsNoSet() throws {
        let folder = ScratchFolder()
        let path = folder.file("backup.goshuin")
        let bytes = try Recovery.seal(Recovery.noise(2_500_001, seed: 9), to: path, chunkSize: 4_096)
        let header = try Header.decode(bytes.prefix(77), fileSize: UInt64(bytes.count))
        let writer = try RecoveryWriter(
            protecting: path, fileLength: UInt64(bytes.count), recordLength: header.layout.geometry.fullRecordLength,
            redundancy: .default, replaceExisting: false, accumulatorBudget: 0, workers: 2, kernel: .best)
        #expect(!writer.encodesWhileWriting)
        try Self.feed(bytes, to: writer, seed: 3)
        let plan = RecoveryPlan(
            fileLength: UInt64(bytes.count), recordLength: header.layout.geometry.fullRecordLength,
            redundancy: .default)
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate]
        var changed = bytes
        changed[Int(plan.sliceSize) * 3 + 100] ^= 0x01
        try Data(changed).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: modified as Any], ofItemAtPath: path)
        #expect {
            try writer.finish()
        } throws: { error in
            (error as? GoshuinError)?.code == .io && "\(error)".contains("slice 3 of")
                && "\(error)".contains("reads back other than it was written")
        }
        #expect(folder.entries == ["backup.goshuin"], "no set file and no temporary file is left")
    }

    /// A file written while its set is computed from it, its bytes and its modification time put back (to the
    /// nanosecond), is refused: only its status change time tells, and no set is left.
    @Test func aFileWrittenAndPutBackWhileItIsReadGetsNoSet() throws {
        let folder = ScratchFolder()
        let bytes = Recovery.noise(300_000, seed: 5)
        let path = folder.write("file.bin", bytes)
        let input = try FileSystem.openRegularFile(path)
        try input.closeAfter {
            let before = try input.status()
            let plan = RecoveryPlan(fileLength: UInt64(bytes.count), recordLength: nil, redundancy: .default)
            let layout = RecoverySetLayout(plan: plan, fileName: Array("file.bin".utf8))
            let output = try RecoverySetOutput(protecting: path, layout: layout, replaceExisting: false)
            var status = stat()
            try #require(stat(path, &status) == 0)
            let writer = try #require(FileHandle(forWritingAtPath: path))
            try writer.seek(toOffset: 1_000)
            try writer.write(contentsOf: Data(bytes[1_000..<1_001]))
            try writer.close()
            var times = [status.st_atim, status.st_mtim]
            try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
            #expect {
                try FileProtection.protect(
                    input, name: path, as: before, layout: layout, output: output, workers: 2, kernel: .best,
                    progress: nil, ifChanged: "changed while it was read")
            } throws: { error in
                (error as? GoshuinError)?.code == .io && "\(error)".contains("changed while it was read")
            }
        }
        #expect(folder.entries == ["file.bin"], "no set file and no temporary file is left")
        #expect(folder.read("file.bin") == bytes)
    }

    @Test func aWriterFedTooFewOrTooManyBytesWritesNothing() throws {
        let folder = ScratchFolder()
        let path = folder.write("file.bin", Recovery.noise(10_000))
        let short = try RecoveryWriter(protecting: path, fileLength: 10_000)
        try short.append(Array(Recovery.noise(10_000)[0..<9_999]))
        #expect(throws: GoshuinError(.invalidArgument, "")) { try short.finish() }
        let long = try RecoveryWriter(protecting: path, fileLength: 10_000)
        #expect(throws: GoshuinError(.invalidArgument, "")) { try long.append(Recovery.noise(10_001)) }
        long.cancel()
        #expect(folder.entries == ["file.bin"], "no set file and no temporary file is left")
    }

    @Test func aCancelledWriterLeavesNothing() throws {
        let folder = ScratchFolder()
        let path = folder.write("file.bin", Recovery.noise(5_000_000))
        do {
            let writer = try RecoveryWriter(protecting: path, fileLength: 5_000_000)
            try writer.append(Recovery.noise(2_000_000))
        }
        #expect(folder.entries == ["file.bin"], "released unfinished: cancelled")
        let writer = try RecoveryWriter(protecting: path, fileLength: 5_000_000)
        try writer.append(Recovery.noise(1_000))
        writer.cancel()
        #expect(folder.entries == ["file.bin"])
    }
}
