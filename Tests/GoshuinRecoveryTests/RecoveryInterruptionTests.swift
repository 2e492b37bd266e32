import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

@testable import GoshuinRecovery

/// A stop request (`Interruption.request()`, what a signal handler calls) ends protect, repair and the
/// streaming writer at their next task with `interrupted`, leaving nothing behind and the damaged file as it
/// was. Each runs in a child process of its own (an exit test): the request is process-wide.
@Suite(.slowTier) struct RecoveryInterruptionTests {
    /// Exits 0 when `body` throws `interrupted` and the folder then holds exactly what it held, with the
    /// bytes they had; otherwise 2 when `body` finished, 3 when the folder changed, 4 when it failed otherwise
    /// (the exit code is what the parent's expectation shows).
    static func expectStopped(in folder: ScratchFolder, _ body: () throws -> Void) -> Never {
        let before = folder.entries.map { folder.read($0) }
        let names = folder.entries
        do {
            try body()
            print("it finished")
            exit(2)
        } catch let error as GoshuinError where error.code == .interrupted {
            if folder.entries == names && folder.entries.map({ folder.read($0) }) == before { exit(0) }
            print("left behind: \(folder.entries)")
            exit(3)
        } catch {
            print("failed with \(error)")
            exit(4)
        }
    }

    @Test func aStopDuringProtectLeavesNothing() async {
        await #expect(processExitsWith: .success) {
            let folder = ScratchFolder()
            let path = folder.write("data.bin", Recovery.noise(20_000_000))
            Self.expectStopped(in: folder) {
                try RecoverySet.protect(inputPath: path) { event in
                    if case .protecting(let done, _) = event, done > 0 { Interruption.request() }
                }
            }
        }
    }

    @Test func aStopDuringRepairLeavesTheDamagedFileAsItWas() async {
        await #expect(processExitsWith: .success) {
            let folder = ScratchFolder()
            // Large enough that the rebuilding and the writing that follows it report progress at least once
            // on a fast machine; the stop is asked at the first report of either, before the commit.
            let path = folder.write("data.bin", Recovery.noise(64_000_000))
            _ = try? RecoverySet.protect(inputPath: path)
            Recovery.overwrite(path, at: 1_000_000, count: 100)
            Self.expectStopped(in: folder) {
                try RecoverySet.repair(inputPath: path, to: .inPlace) { event in
                    switch event {
                    case .rebuilding, .writing: Interruption.request()
                    default: break
                    }
                }
            }
        }
    }

    @Test func aStopWhileStreamingLeavesNothing() async {
        await #expect(processExitsWith: .success) {
            let folder = ScratchFolder()
            let path = folder.write("data.bin", Recovery.noise(8_000_000))
            Self.expectStopped(in: folder) {
                let writer = try RecoveryWriter(protecting: path, fileLength: 8_000_000)
                let bytes = Recovery.noise(8_000_000)
                try writer.append(Array(bytes[0..<3_000_000]))
                Interruption.request()
                try writer.append(Array(bytes[3_000_000...]))
                _ = try writer.finish()
            }
        }
    }
}
