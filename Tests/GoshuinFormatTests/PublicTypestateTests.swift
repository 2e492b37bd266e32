import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The public typestate (`Spec/decisions/0035`): a file checked, then unlocked, then read; a header
/// drafted for a path, then keyed, then sealed. Each step refuses what it should before the next, and the
/// files and descriptors it takes are released.
@Suite struct PublicTypestateTests {
    static let passphrase = Passphrase(Fixtures.passphrase)

    /// A sealed file of `payload` in `directory`, in `version`, with 1 KiB chunks.
    static func sealed(_ payload: [UInt8], _ version: FormatVersion, in directory: TemporaryDirectory) throws
        -> String
    {
        let input = directory.write("plain", payload)
        let output = directory.file("sealed.goshuin")
        try GoshuinFile.seal(
            inputPath: input, outputPath: output, passphrase: passphrase,
            parameters: SealParameters(iterations: 1_000, chunkSize: 1_024, version: version))
        return output
    }

    /// Every byte `container` releases in order.
    static func streamed(_ container: UnlockedContainer) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try container.readInOrder { plaintext in
            for index in plaintext.indices { bytes.append(plaintext[index]) }
        }
        return bytes
    }

    @Test(arguments: FormatVersion.allCases) func aCheckedFileIsReadEveryWay(version: FormatVersion) throws {
        let directory = TemporaryDirectory()
        let payload = Fixtures.payload(5_000)
        let locked = try LockedContainer(checkingFileAt: try Self.sealed(payload, version, in: directory))
        #expect(locked.header.version == version && locked.header.plaintextLength == 5_000)
        let container = try locked.unlock(with: Self.passphrase)
        try container.verify()
        #expect(try Self.streamed(container) == payload)
        let reader = try container.reader()
        #expect(reader.size == 5_000)
        // Within a chunk, across three chunks, at the end, past it, and a read inside a read.
        for (offset, count) in [(10, 20), (1_000, 2_100), (4_990, 100), (5_000, 4), (0, 0)] {
            let read = try reader.read(at: UInt64(offset), count: count) { bytes in
                bytes.indices.map { bytes[$0] }
            }
            let end = min(offset + count, payload.count)
            #expect(read == Array(payload[min(offset, end)..<end]), "\(offset) + \(count)")
        }
        let (outer, inner) = try reader.read(at: 0, count: 8) { first in
            let inner = try reader.read(at: 4_000, count: 8) { second in second.indices.map { second[$0] } }
            return (first.indices.map { first[$0] }, inner)
        }
        #expect(outer == Array(payload[0..<8]) && inner == Array(payload[4_000..<4_008]))
    }

    @Test func eachStepRefusesWhatItShould() throws {
        let directory = TemporaryDirectory()
        let v1 = try Self.sealed(Fixtures.payload(3_000), .v1, in: directory)
        let bytes = Fixtures.readBytes(v1)
        // A cut file: refused while locked, with no passphrase asked for.
        let cut = directory.write("cut.goshuin", Array(bytes.dropLast(1)))
        #expect(throws: GoshuinError(.truncated, "")) { try LockedContainer(checkingFileAt: cut) }
        #expect(throws: GoshuinError(.io, "")) { try LockedContainer(checkingFileAt: directory.file("none")) }
        // Version 1 learns of a wrong passphrase from its chunks; version 2 from its header MAC, at unlock.
        let wrong = try LockedContainer(checkingFileAt: v1).unlock(with: Passphrase("wrong"))
        #expect(throws: GoshuinError(.authFailed, "")) { try wrong.verify() }
        #expect(throws: GoshuinError(.authFailed, "")) { try Self.streamed(wrong) }
        let other = TemporaryDirectory()
        let v2 = try Self.sealed(Fixtures.payload(3_000), .v2, in: other)
        #expect(throws: GoshuinError(.authFailed, "")) {
            try LockedContainer(checkingFileAt: v2).unlock(with: Passphrase("wrong"))
        }
        // A damaged chunk: nothing of it is released, the chunks before it are.
        let damaged = directory.write("damaged.goshuin", bytes.flippingBit(at: bytes.count - 30))
        let container = try LockedContainer(checkingFileAt: damaged).unlock(with: Self.passphrase)
        var released = 0
        #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 2)) {
            try container.readInOrder { released += $0.count }
        }
        #expect(released == 2_048)
        #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 2)) { try container.reader() }
    }

    /// The path a descriptor reached, or `nil` when it is closed.
    static func target(of descriptor: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
    }

    /// A container opened from a path closes its file once neither it, nor what it unlocked, nor a reader
    /// holds it; a reader alone keeps it open. (Another test may reuse the number meanwhile: what counts is
    /// that it no longer names this file.)
    @Test func aFileOpenedByPathIsClosedWithItsLastHolder() throws {
        let directory = TemporaryDirectory()
        let path = try Self.sealed(Fixtures.payload(4_000), .v2, in: directory)
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        func openedReader() throws -> (DecryptingReader, Int32) {
            let locked = try LockedContainer(checkingFileAt: path)
            return (try locked.unlock(with: Self.passphrase).reader(), locked.input.rawValue)
        }
        var (reader, descriptor): (DecryptingReader?, Int32) = try openedReader()
        #expect(Self.target(of: descriptor) == resolved)
        #expect(try reader?.read(at: 3_999, count: 1) { $0[0] } == Fixtures.payload(4_000)[3_999])
        reader = nil
        #expect(Self.target(of: descriptor) != resolved)
        do {
            let locked = try LockedContainer(checkingFileAt: path)
            descriptor = locked.input.rawValue
            try locked.unlock(with: Self.passphrase).verify()
        }
        #expect(Self.target(of: descriptor) != resolved)
    }

    @Test func aDraftChecksTheDestinationAndTheParametersFirst() throws {
        let directory = TemporaryDirectory()
        let existing = directory.write("existing.goshuin", [1, 2, 3])
        #expect(throws: GoshuinError(.outputExists, "")) { try SealParameters().draft(sealingTo: existing) }
        #expect(throws: GoshuinError(.io, "")) {
            try SealParameters().draft(sealingTo: directory.file("no-folder/out.goshuin"), plaintextLength: 1)
        }
        #expect(throws: GoshuinError(.iterationsOutOfRange, "")) {
            try SealParameters(iterations: 10).draft(sealingTo: directory.file("out.goshuin"), plaintextLength: 1)
        }
        #expect(throws: GoshuinError(.invalidArgument, "")) {
            try SealParameters(version: .v1).draft(sealingTo: directory.file("out.goshuin"))
        }
        #expect(throws: GoshuinError(.emptyPassphrase, "")) {
            try SealParameters(iterations: 1_000, version: .v2).draft(sealingTo: directory.file("out.goshuin")).key(
                with: Passphrase(""))
        }
        // Replacing is asked for: a regular file is replaced, and only once sealed.
        let draft = try SealParameters(iterations: 1_000, version: .v2).draft(
            sealingTo: existing, replaceExisting: true)
        try draft.key(with: Self.passphrase).seal { try $0.write(contentsOf: [9, 9]) }
        #expect(try Self.streamed(LockedContainer(checkingFileAt: existing).unlock(with: Self.passphrase)) == [9, 9])
        #expect(directory.entries == ["existing.goshuin"])
    }

    @Test(arguments: FormatVersion.allCases) func aKeyedHeaderSealsWhatItIsGiven(version: FormatVersion) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("made.goshuin")
        // More than the sealer's 64 KiB buffer, from a sequence with no contiguous storage, then from spans.
        let generated = (0..<150_000).lazy.map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let tail = Fixtures.payload(3_000)
        let parameters = SealParameters(iterations: 1_000, chunkSize: 4_096, version: version)
        let draft = try parameters.draft(
            sealingTo: path, plaintextLength: version == .v1 ? UInt64(150_000 + tail.count) : nil)
        let header = try draft.key(with: Self.passphrase).seal { sealer in
            try sealer.write(contentsOf: generated)
            try sealer.write(tail[0..<1_000].span)
            try sealer.write(contentsOf: tail[1_000...])
        }
        #expect(header.plaintextLength == UInt64(150_000 + tail.count) && header.version == version)
        let container = try LockedContainer(checkingFileAt: path).unlock(with: Self.passphrase)
        #expect(try Self.streamed(container) == Array(generated) + tail)
        #expect(container.header == header)
    }

    @Test func aFailedSealLeavesNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("made.goshuin")
        let keyed = try SealParameters(iterations: 1_000, chunkSize: 1_024).draft(sealingTo: path, plaintextLength: 5)
            .key(with: Self.passphrase)
        // Fewer bytes than drafted, more, and the writer's own failure.
        #expect(throws: GoshuinError(.io, "")) { try keyed.seal { try $0.write(contentsOf: [1, 2, 3]) } }
        #expect(throws: GoshuinError(.io, "")) { try keyed.seal { try $0.write(contentsOf: [1, 2, 3, 4, 5, 6]) } }
        struct WriterFailed: Error {}
        #expect(throws: WriterFailed.self) { try keyed.seal { _ in throw WriterFailed() } }
        #expect(directory.entries.isEmpty)
        // A sealer kept past its seal takes nothing more.
        var kept: StreamingSealer?
        try keyed.seal { sealer in
            try sealer.write(contentsOf: [1, 2, 3, 4, 5])
            kept = sealer
        }
        #expect(throws: GoshuinError(.invalidArgument, "")) { try kept?.write(contentsOf: [6]) }
        #expect(directory.entries == ["made.goshuin"])
    }

    @Test func aHeaderDraftedForNoPathDoesNotSeal() throws {
        let keyed = try SealParameters(iterations: 1_000).draft(plaintextLength: 1).key(with: Self.passphrase)
        #expect(throws: GoshuinError(.invalidArgument, "")) { try keyed.seal { _ in } }
    }
}
