// goshuin-recovery-bench: the recovery library's operations as commands, for Benchmarks/run to time against
// par2cmdline-turbo and OpenSSL in the same run (each its own process, so its peak RSS is its own), and the
// GF(2^16) kernels. Output lines are `key=value` pairs for the script to read.
//
//   goshuin-recovery-bench kernels [MIB]               GB/s of each kernel, 1, 6 and 20 destinations, in cache
//                                                      (MIB of destination bytes each, 8 GiB by default)
//   goshuin-recovery-bench digests [MIB]               GB/s of each slice-digest kernel, 8 streams of 128 KiB,
//                                                      and of one OpenSSL MD5 stream (MIB each, 2 GiB by default)
//   goshuin-recovery-bench protect FILE PERCENT [W [S]] RecoverySet.protect (W workers, default all; slice
//                                                      size S instead of the plan's)
//   goshuin-recovery-bench verify FILE                 RecoverySet.verify; fails unless intact
//   goshuin-recovery-bench repair FILE OUTPUT          RecoverySet.repair to OUTPUT (replaced)
//   goshuin-recovery-bench stream FILE PERCENT         RecoveryWriter fed FILE in 1 MiB reads, as a sealer
//                                                      would feed it (the set replaces one already there)
import Glibc
import GoshuinFormat
@_spi(Benchmarks) import GoshuinRecovery

func fail(_ message: String) -> Never {
    print("error=\(message)")
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "kernels" where arguments.count <= 2:
        let total = arguments.count == 2 ? (Int(arguments[1]) ?? 0) << 20 : 8 << 30
        var pairs: [String] = []
        for name in RecoveryBenchmarking.kernelNames {
            for destinations in [1, 6, 20] {
                // Source and destinations within about 512 KiB, as the encoder's blocks are.
                let length = max(2_048, (512 << 10) / (destinations + 1) / 64 * 64)
                let rate = try RecoveryBenchmarking.kernelThroughput(
                    name: name, destinations: destinations, length: length, totalBytes: total)
                pairs.append("\(name)_\(destinations)=\((rate / 1e7).rounded() / 100)")
            }
        }
        pairs.append("best=\(RecoveryBenchmarking.bestKernelName)")
        print(pairs.joined(separator: " "))
    case "digests" where arguments.count <= 2:
        let total = arguments.count == 2 ? (Int(arguments[1]) ?? 0) << 20 : 2 << 30
        var pairs: [String] = []
        for name in ["openssl"] + RecoveryBenchmarking.sliceDigestKernelNames {
            // A group of slices as SliceHashing reads them: 128 KiB of each, in cache.
            let rate = try RecoveryBenchmarking.sliceDigestThroughput(
                name: name, streams: name == "openssl" ? 1 : 8, length: 128 << 10, totalBytes: total)
            pairs.append("\(name)=\((rate / 1e7).rounded() / 100)")
        }
        print(pairs.joined(separator: " "))
    case "protect" where (3...5).contains(arguments.count):
        guard let percent = Double(arguments[2]) else { fail("the redundancy is a number of percent") }
        let workers = arguments.count >= 4 ? Int(arguments[3]) ?? 0 : 0
        let sliceSize = arguments.count == 5 ? UInt64(arguments[4]) : nil
        let files =
            workers > 0
            ? try RecoveryBenchmarking.protect(
                inputPath: arguments[1], redundancy: try RecoveryRedundancy(percent: percent), workers: workers,
                sliceSize: sliceSize)
            : try RecoverySet.protect(
                inputPath: arguments[1], redundancy: try RecoveryRedundancy(percent: percent), replaceExisting: true)
        print(
            "slice_size=\(files.sliceSize) input_slices=\(files.inputSlices) recovery_slices=\(files.recoverySlices) bytes=\(files.bytes)"
        )
    case "verify" where arguments.count == 2:
        let verification = try RecoverySet.verify(inputPath: arguments[1])
        guard verification.isIntact else { fail("the file is damaged") }
        print("intact=1 slices=\(verification.sliceCount)")
    case "repair" where arguments.count == 3:
        let result = try RecoverySet.repair(inputPath: arguments[1], to: .newFile(arguments[2], replaceExisting: true))
        print("rebuilt=\(result.verification.damagedSliceCount) used=\(result.recoverySlicesUsed)")
    case "stream" where arguments.count == 3:
        guard let percent = Double(arguments[2]) else { fail("the redundancy is a number of percent") }
        let path = arguments[1]
        let input = open(path, O_RDONLY)
        guard input >= 0 else { fail("cannot open \(path)") }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0 else { fail("cannot examine \(path)") }
        let length = UInt64(status.st_size)
        var start = [UInt8](repeating: 0, count: 77)
        let got = start.withUnsafeMutableBytes { pread(input, $0.baseAddress, 77, 0) }
        let header = try? Header.decode(start.prefix(max(0, got)), fileSize: length)
        let redundancy = try RecoveryRedundancy(percent: percent)
        let writer =
            try header.map {
                try RecoveryWriter(protecting: path, header: $0, redundancy: redundancy, replaceExisting: true)
            }
            ?? RecoveryWriter(protecting: path, fileLength: length, redundancy: redundancy, replaceExisting: true)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, $0.count, off_t(offset)) }
            guard count > 0 else { break }
            try writer.append(Array(buffer[0..<count]))
            offset += count
        }
        let files = try writer.finish()
        print("encoded_while_writing=\(writer.encodesWhileWriting ? 1 : 0) recovery_slices=\(files.recoverySlices)")
    default:
        fail(
            "usage: goshuin-recovery-bench kernels | protect FILE PERCENT [WORKERS] | verify FILE | repair FILE OUTPUT")
    }
} catch let error as GoshuinError {
    fail("\(error.code.rawValue): \(error.message)")
}
