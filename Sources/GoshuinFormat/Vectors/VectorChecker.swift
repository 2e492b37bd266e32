import Glibc

/// The verdict on one known-answer vector.
public struct VectorCheckResult: Sendable {
    /// How the vector fared.
    public enum Outcome: String, Sendable {
        /// Every check of `Spec/vectors-v1.md` §3 held.
        case passed
        /// The vector is well-formed but a check failed: the implementation that made it disagrees.
        case failed
        /// The vector file does not follow the format; it cannot pass.
        case malformed
    }

    /// The vector's name (its file name without `.json`).
    public let name: String
    /// The outcome.
    public let outcome: Outcome
    /// For a failure, what disagreed; for a pass, what was expected.
    public let detail: String
}

/// Checks known-answer vectors against this implementation (`Spec/vectors-v1.md` §3).
public enum VectorChecker {
    /// The largest vector JSON file read.
    public static let maximumVectorFileSize = 1 << 20

    /// Checks each `*.json` vector directly in `directory`, in name order.
    public static func check(directory: String) throws -> [VectorCheckResult] {
        try FileSystem.directoryEntries(directory).filter { $0.hasSuffix(".json") }.map { entry in
            check(vectorAt: directory + "/" + entry)
        }
    }

    /// Checks the vector whose JSON file is at `path`; the files it names are looked up beside it.
    public static func check(vectorAt path: String) -> VectorCheckResult {
        let fileName = AtomicOutput.lastComponent(of: path)
        let name = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
        let directory = AtomicOutput.directory(of: path)
        let vector: KnownAnswerVector
        do {
            vector = try KnownAnswerVector.parse(
                FileSystem.readFile(path, maximumSize: maximumVectorFileSize), expectedName: name)
            try checkFiles(vector, directory: directory)
        } catch let error as GoshuinError {
            return VectorCheckResult(name: name, outcome: .malformed, detail: error.message)
        } catch {
            return VectorCheckResult(name: name, outcome: .malformed, detail: "\(error)")
        }
        do {
            try checkKey(vector)
            switch vector.expect {
            case .success: try checkSuccess(vector, directory: directory)
            case .failure(let code): try checkFailure(vector, code: code, directory: directory)
            }
        } catch let disagreement as Disagreement {
            return VectorCheckResult(name: name, outcome: .failed, detail: disagreement.reason)
        } catch {
            return VectorCheckResult(name: name, outcome: .failed, detail: "unexpected error: \(error)")
        }
        return VectorCheckResult(name: name, outcome: .passed, detail: expectationText(vector))
    }

    private struct Disagreement: Error {
        let reason: String
    }

    private static func expectationText(_ vector: KnownAnswerVector) -> String {
        switch vector.expect {
        case .success: return "success"
        case .failure(let code):
            return code.rawValue + (vector.chunkIndex.map { " at chunk \($0)" } ?? "")
        }
    }

    /// The named files exist and have the stated hashes and length (otherwise the vector is malformed).
    private static func checkFiles(_ vector: KnownAnswerVector, directory: String) throws {
        let fileDigest = try digestOfFile(directory + "/" + vector.file)
        guard fileDigest.sha256 == vector.fileSha256 else {
            throw KnownAnswerVector.malformed("the SHA-256 of \(vector.file) is not fileSha256")
        }
        let plaintextDigest = try digestOfPlaintext(vector, directory: directory)
        guard plaintextDigest.length == vector.plaintextLength, plaintextDigest.sha256 == vector.plaintextSha256 else {
            throw KnownAnswerVector.malformed("the plaintext does not have plaintextLength and plaintextSha256")
        }
    }

    private static func checkKey(_ vector: KnownAnswerVector) throws {
        let key = try KeyDerivation.deriveKey(
            passphrase: Passphrase(bytes: vector.passphraseBytes), salt: vector.salt, iterations: vector.iterations)
        guard key.exposedBytes == vector.key else {
            throw Disagreement(reason: "PBKDF2-HMAC-SHA256 of the passphrase, salt and iterations is not key")
        }
    }

    private static func checkSuccess(_ vector: KnownAnswerVector, directory: String) throws {
        let passphrase = Passphrase(bytes: vector.passphraseBytes)
        let input = try GoshuinFile.openInput(directory + "/" + vector.file)
        let released = DigestSink()
        do {
            try input.closeAfter {
                try ContainerOpener.open(input, passphrase: passphrase) { released.update($0) }
            }
        } catch let error as GoshuinError {
            throw Disagreement(reason: "expected success, got \(error.code.rawValue): \(error.message)")
        }
        let opened = released.finish()
        guard opened.length == vector.plaintextLength, opened.sha256 == vector.plaintextSha256 else {
            throw Disagreement(reason: "opening gives \(opened.length) bytes that are not the plaintext")
        }
        let resealed = try reseal(vector, passphrase: passphrase, directory: directory)
        guard resealed.sha256 == vector.fileSha256 else {
            throw Disagreement(
                reason: "sealing the plaintext with the vector's parameters gives other bytes than \(vector.file)")
        }
    }

    private static func checkFailure(_ vector: KnownAnswerVector, code: GoshuinError.Code, directory: String) throws {
        let passphrase = Passphrase(bytes: vector.passphraseBytes)
        let inputPath = directory + "/" + vector.file
        let input = try GoshuinFile.openInput(inputPath)
        let released = DigestSink()
        let failure: GoshuinError? = try input.closeAfter {
            do {
                try ContainerOpener.open(input, passphrase: passphrase) { released.update($0) }
                return nil
            } catch let error as GoshuinError {
                return error
            }
        }
        try requireFailure(failure, code: code, chunkIndex: vector.chunkIndex, via: "the streaming API")
        let releasedDigest = released.finish()
        guard releasedDigest.length == vector.releasedLength, releasedDigest.sha256 == vector.releasedSha256 else {
            throw Disagreement(
                reason: "the streaming reader released \(releasedDigest.length) bytes, not the"
                    + " \(vector.releasedLength ?? 0) stated by releasedLength and releasedSha256")
        }
        try checkNoOutputLeft(inputPath: inputPath, passphrase: passphrase, code: code, chunkIndex: vector.chunkIndex)
    }

    private static func requireFailure(
        _ failure: GoshuinError?, code: GoshuinError.Code, chunkIndex: UInt64?, via route: String
    ) throws {
        guard let failure else {
            throw Disagreement(reason: "expected \(code.rawValue), but the file opened (\(route))")
        }
        guard failure.code == code else {
            throw Disagreement(
                reason: "expected \(code.rawValue), got \(failure.code.rawValue) (\(route)): \(failure.message)")
        }
        if let chunkIndex, failure.chunkIndex != chunkIndex {
            throw Disagreement(
                reason: "expected \(code.rawValue) at chunk \(chunkIndex), got it at chunk"
                    + " \(failure.chunkIndex.map(String.init) ?? "none") (\(route))")
        }
    }

    /// Opening to a path must fail the same way and leave nothing in the destination's directory.
    private static func checkNoOutputLeft(
        inputPath: String, passphrase: Passphrase, code: GoshuinError.Code, chunkIndex: UInt64?
    ) throws {
        let directory = try makeTemporaryDirectory()
        defer { rmdir(directory) }
        var failure: GoshuinError?
        do {
            try GoshuinFile.open(inputPath: inputPath, outputPath: directory + "/payload", passphrase: passphrase)
        } catch let error as GoshuinError {
            failure = error
        }
        let leftovers = try FileSystem.directoryEntries(directory)
        for leftover in leftovers { unlink(directory + "/" + leftover) }
        try requireFailure(failure, code: code, chunkIndex: chunkIndex, via: "opening to a file")
        guard leftovers.isEmpty else {
            throw Disagreement(reason: "opening to a file left \(leftovers.joined(separator: ", ")) behind")
        }
    }

    private static func reseal(_ vector: KnownAnswerVector, passphrase: Passphrase, directory: String) throws
        -> (length: UInt64, sha256: [UInt8])
    {
        let plaintext = try plaintextDescriptor(vector, directory: directory)
        return try plaintext.closeAfter {
            let output = try FileSystem.anonymousFile()
            return try output.closeAfter {
                let parameters = SealParameters(
                    iterations: vector.iterations, chunkSize: vector.chunkSize, fixedSalt: vector.salt,
                    fixedNonceBase: vector.nonceBase)
                try ContainerSealer.seal(
                    from: plaintext, plaintextLength: vector.plaintextLength, to: output, passphrase: passphrase,
                    parameters: parameters)
                return try digest(of: output, from: 0)
            }
        }
    }

    private static func plaintextDescriptor(_ vector: KnownAnswerVector, directory: String) throws -> FileDescriptor {
        switch vector.plaintext {
        case .file(let name):
            return try GoshuinFile.openInput(directory + "/" + name)
        case .bytes(let bytes):
            let descriptor = try FileSystem.anonymousFile()
            do {
                try descriptor.writeAll(bytes)
                try descriptor.seek(to: 0)
            } catch {
                try? descriptor.close()
                throw error.goshuinError("cannot write a temporary file")
            }
            return descriptor
        }
    }

    private static func digestOfPlaintext(_ vector: KnownAnswerVector, directory: String) throws -> (
        length: UInt64, sha256: [UInt8]
    ) {
        switch vector.plaintext {
        case .bytes(let bytes): return (UInt64(bytes.count), SHA256Hasher.hash(bytes))
        case .file(let name): return try digestOfFile(directory + "/" + name)
        }
    }

    private static func digestOfFile(_ path: String) throws -> (length: UInt64, sha256: [UInt8]) {
        let descriptor = try GoshuinFile.openInput(path)
        return try descriptor.closeAfter { try digest(of: descriptor, from: 0) }
    }

    /// The length and SHA-256 of everything from `offset` to the end of `descriptor`.
    static func digest(of descriptor: FileDescriptor, from offset: Int64) throws -> (length: UInt64, sha256: [UInt8]) {
        let sink = DigestSink()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var position = offset
        while true {
            let count: Int
            do {
                count = try descriptor.readFully(into: buffer, atOffset: position)
            } catch {
                throw error.goshuinError("cannot read a vector's file")
            }
            if count == 0 { break }
            sink.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
        }
        return sink.finish()
    }

    private static func makeTemporaryDirectory() throws -> String {
        var template = Array((FileSystem.temporaryDirectory + "/goshuin-check-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let created else {
            throw Errno.current.goshuinError("cannot create a temporary directory")
        }
        return created
    }
}

/// Counts and hashes bytes as they stream past.
final class DigestSink {
    private let hasher = SHA256Hasher()
    private(set) var length: UInt64 = 0

    func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bytes)
        length += UInt64(bytes.count)
    }

    func finish() -> (length: UInt64, sha256: [UInt8]) { (length, hasher.finalize()) }
}
