import GoshuinFormat
import GoshuinRecovery

extension FuzzHarness {
    /// The packet reader of PAR 2.0 recovery sets on arbitrary bytes, as the index file `data.bin.par2`
    /// beside a fixed damaged file `data.bin` (``RecoveryPacketsHarness``): the scan keeps what its bounds
    /// allow and only slices inside the file; verify and repair fail only with a code of the recovery
    /// category; a repair that succeeds leaves a file its set calls intact, one that fails leaves the file as
    /// it was; nothing but the repaired file is ever written, nothing is left behind.
    @_spi(Fuzzing) public static let recoveryPackets = FuzzHarness(name: "recovery-packets") { input in
        RecoveryPacketsHarness.check(input)
    }
}

enum RecoveryPacketsHarness {
    static let invariants = InvariantCheck(harness: "recovery-packets")

    /// The protected file's bytes before the damage: 6,000 deterministic bytes (xorshift64*, seed 27). The
    /// seeds in `Fuzz/Regressions/recovery-packets/` are sets made for these bytes (`Fuzz/README.md`).
    static let original: [UInt8] = {
        var state: UInt64 = 27 &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<6_000).map { _ in
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return UInt8(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> 32)
        }
    }()

    /// The file as the harness finds it: bytes 1,000 … 1,099 zeroed.
    static let damaged: [UInt8] = {
        var bytes = original
        for index in 1_000..<1_100 { bytes[index] = 0 }
        return bytes
    }()

    static func check(_ input: [UInt8]) {
        let folder: String
        do {
            folder = try FileSystem.makeTemporaryDirectory(prefix: "goshuin-fuzz-recovery-")
        } catch {
            invariants.fail("cannot make a scratch folder: \(error)")
        }
        defer {
            for name in (try? FileSystem.directoryEntries(folder)) ?? [] { FileSystem.removeFile(folder + "/" + name) }
            FileSystem.removeEmptyDirectory(folder)
        }
        let data = folder + "/data.bin"
        let set = folder + "/data.bin.par2"
        write(damaged, to: data)
        write(input, to: set)

        do {
            let summary = try RecoveryScanProbe.scan(fileAt: set)
            invariants.require(summary.sets <= RecoveryScanProbe.setLimit, "more sets kept than the limit")
            for slice in summary.recoverySlices {
                invariants.require(
                    slice.offset <= summary.fileSize && slice.length <= summary.fileSize - slice.offset,
                    "a recovery slice kept outside the file")
            }
        } catch let error as GoshuinError {
            invariants.fail("scanning failed: \(error)")
        } catch {
            invariants.fail("scanning threw \(error)")
        }

        let verification: RecoveryVerification
        do {
            verification = try RecoverySet.verify(inputPath: data)
        } catch let error as GoshuinError {
            invariants.require(error.code.category == .recovery, "verify failed with \(error)")
            expectOnly(folder, data: damaged)
            return
        } catch {
            invariants.fail("verify threw \(error)")
        }
        invariants.require(
            verification.damage.allSatisfy { $0.bytes.upperBound <= verification.expectedLength },
            "a damaged range past the file's length")
        invariants.require(
            verification.damagedSliceCount <= verification.sliceCount, "more damaged slices than slices")
        invariants.require(!verification.isIntact || verification.fileHashMatches == true, "intact without the MD5")
        guard !verification.isIntact, verification.isRepairable else {
            expectOnly(folder, data: damaged)
            return
        }
        do {
            try RecoverySet.repair(inputPath: data, to: .inPlace)
            let after = try RecoverySet.verify(inputPath: data)
            invariants.require(after.isIntact && after.fileHashMatches == true, "a repaired file its set calls damaged")
            expectOnly(folder, data: nil)
        } catch let error as GoshuinError {
            invariants.require(error.code.category == .recovery, "repair failed with \(error)")
            expectOnly(folder, data: damaged)
        } catch {
            invariants.fail("repair threw \(error)")
        }
    }

    private static func write(_ bytes: [UInt8], to path: String) {
        do {
            let file = try FileDescriptor.open(path, [.writeOnly, .create, .exclusive])
            try file.closeAfter { try file.writeAll(bytes) }
        } catch {
            invariants.fail("cannot write \(path): \(error)")
        }
    }

    /// The folder holds the data file and the set, nothing else, and the data file is `data` (when given).
    private static func expectOnly(_ folder: String, data: [UInt8]?) {
        let names = (try? FileSystem.directoryEntries(folder)) ?? []
        invariants.require(names == ["data.bin", "data.bin.par2"], "the folder holds \(names)")
        if let data {
            let now = (try? FileSystem.readFile(folder + "/data.bin", maximumSize: 1 << 20)) ?? []
            invariants.require(now == data, "the data file changed")
        }
    }
}
