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
            try descriptor.seek(to: 0)
        } catch {
            invariants.fail("cannot write a scratch file: \(error)")
        }
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
            if let file = try? FileSystem.anonymousFile(in: directory) { return file }
        }
        invariants.fail("cannot make a scratch file in \(directories.joined(separator: " or "))")
    }
}
