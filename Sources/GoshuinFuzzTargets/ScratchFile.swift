import Glibc
import GoshuinFormat

/// A regular file holding given bytes, for the APIs that read a ``FileDescriptor``: made in `/dev/shm` (memory)
/// where it exists, else in `/tmp`, and unlinked at once, so nothing stays behind even when a harness traps.
///
/// One file per call: the regression tests run harnesses concurrently.
enum ScratchFile {
    private static let directories = ["/dev/shm", "/tmp"]

    /// Runs `body` with a descriptor of a new file holding `bytes`, positioned at its start; closes it after.
    static func withFile<Result>(
        containing bytes: [UInt8], invariants: InvariantCheck, _ body: (FileDescriptor) throws -> Result
    ) rethrows -> Result {
        let descriptor = makeUnlinkedFile(invariants: invariants)
        defer { try? descriptor.close() }
        do {
            try descriptor.writeAll(bytes)
        } catch {
            invariants.fail("cannot write a scratch file: \(error)")
        }
        guard lseek(descriptor.rawValue, 0, SEEK_SET) == 0 else { invariants.fail("cannot rewind a scratch file") }
        return try body(descriptor)
    }

    /// Every byte of the regular file open at `descriptor`.
    static func contents(of descriptor: FileDescriptor, invariants: InvariantCheck) -> [UInt8] {
        do {
            let size = Int(try descriptor.regularFileSize() ?? 0)
            var bytes = [UInt8](repeating: 0, count: size)
            let received = try bytes.withUnsafeMutableBytes { buffer in
                try descriptor.readFully(into: buffer, atOffset: 0)
            }
            invariants.require(received == size, "a scratch file of \(size) bytes gave \(received)")
            return bytes
        } catch {
            invariants.fail("cannot read a scratch file: \(error)")
        }
    }

    private static func makeUnlinkedFile(invariants: InvariantCheck) -> FileDescriptor {
        for directory in directories {
            var template = Array("\(directory)/goshuin-fuzz-XXXXXX".utf8CString)
            let raw = template.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { mkstemp($0) } ?? -1
            }
            guard raw >= 0 else { continue }
            _ = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { unlink($0) } }
            return FileDescriptor(rawValue: raw)
        }
        invariants.fail("cannot make a scratch file in \(directories.joined(separator: " or "))")
    }
}
