import Foundation
import GoshuinFormat
import GoshuinTestSupport
import Testing

/// The output rules: nothing partial, nothing left behind, nothing replaced unless asked.
@Suite struct AtomicOutputTests {
    @Test func failedOpenLeavesNoFile() throws {
        let directory = TemporaryDirectory()
        let file = try Fixtures.seal(Fixtures.payload(5_000), in: directory)
        let damaged = directory.write("damaged.goshuin", file.flippingBit(at: file.count - 1))
        #expect(throws: GoshuinError(.chunkDamaged, "", chunkIndex: 4)) {
            try GoshuinFile.open(
                inputPath: damaged, outputPath: directory.file("out"), passphrase: Passphrase(Fixtures.passphrase))
        }
        #expect(directory.entries == ["damaged.goshuin", "sealed.goshuin"])
    }

    @Test func existingDestinationIsNeverReplacedUnlessAsked() throws {
        let directory = TemporaryDirectory()
        let plaintext = Fixtures.payload(3_000)
        _ = try Fixtures.seal(plaintext, in: directory)
        let destination = directory.write("out", Array("precious".utf8))
        #expect(throws: GoshuinError(.outputExists, "")) {
            try GoshuinFile.open(
                inputPath: directory.file("sealed.goshuin"), outputPath: destination,
                passphrase: Passphrase(Fixtures.passphrase))
        }
        #expect(Fixtures.readBytes(destination) == Array("precious".utf8))
        // A failure with replacing allowed leaves it untouched too.
        #expect(throws: GoshuinError(.authFailed, "")) {
            try GoshuinFile.open(
                inputPath: directory.file("sealed.goshuin"), outputPath: destination, passphrase: Passphrase("wrong"),
                replaceExisting: true)
        }
        #expect(Fixtures.readBytes(destination) == Array("precious".utf8))
        try GoshuinFile.open(
            inputPath: directory.file("sealed.goshuin"), outputPath: destination,
            passphrase: Passphrase(Fixtures.passphrase), replaceExisting: true)
        #expect(Fixtures.readBytes(destination) == plaintext)
        #expect(directory.entries == ["out", "sealed.goshuin"])
    }

    @Test func danglingSymlinkCountsAsExisting() throws {
        let directory = TemporaryDirectory()
        _ = try Fixtures.seal(Fixtures.payload(100), in: directory)
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("link"), withDestinationPath: "/nonexistent/x")
        #expect(throws: GoshuinError(.outputExists, "")) {
            try GoshuinFile.open(
                inputPath: directory.file("sealed.goshuin"), outputPath: directory.file("link"),
                passphrase: Passphrase(Fixtures.passphrase))
        }
    }

    @Test func sealingAnEmptyPayloadIsRefusedAndWritesNothing() throws {
        let directory = TemporaryDirectory()
        let input = directory.write("empty", [])
        #expect(throws: GoshuinError(.emptyPayload, "")) {
            try GoshuinFile.seal(
                inputPath: input, outputPath: directory.file("out.goshuin"), passphrase: Passphrase("p"),
                parameters: Fixtures.parameters())
        }
        #expect(directory.entries == ["empty"])
    }

    @Test func inputAndOutputMayNotBeTheSameFile() throws {
        let directory = TemporaryDirectory()
        let input = directory.write("data", Fixtures.payload(10))
        #expect(throws: GoshuinError(.invalidArgument, "")) {
            try GoshuinFile.seal(
                inputPath: input, outputPath: input, passphrase: Passphrase("p"), parameters: Fixtures.parameters(),
                replaceExisting: true)
        }
        #expect(Fixtures.readBytes(input) == Fixtures.payload(10))
    }

    @Test func missingInputIsAnIOErrorWithTheSystemText() {
        #expect {
            try GoshuinFile.open(inputPath: "/nonexistent/in", outputPath: "/tmp/never", passphrase: Passphrase("p"))
        } throws: { error in
            (error as? GoshuinError)?.code == .io && "\(error)".contains("No such file")
        }
    }

    @Test func secretsDoNotPrint() {
        let passphrase = Passphrase("hunter2")
        #expect(!"\(passphrase)".contains("hunter2"))
        #expect(!"\(passphrase.bytes)".contains("hunter2"))
    }
}
