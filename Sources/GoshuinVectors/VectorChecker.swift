import GoshuinFormat

/// The verdict on one known-answer vector, with everything a person debugging another implementation
/// needs: each problem with what the vector says and what this implementation computed.
public struct VectorCheckResult: Sendable {
    /// How the vector fared.
    public enum Outcome: String, Sendable {
        /// Every check of `Spec/vectors-v1.md` §3 held.
        case passed
        /// The vector is well-formed but a check failed: the implementation that made it disagrees.
        case failed
        /// The vector file does not follow the format; it cannot pass.
        case malformed
        /// The JSON file is not a vector at all (it has no `format` member); it is not counted.
        case skipped
    }

    /// The vector's name (its file name without `.json`).
    public let name: String
    /// The outcome.
    public let outcome: Outcome
    /// For a pass, what was expected (`success`, `chunk_damaged at chunk 2`, …); otherwise the first problem.
    public let detail: String
    /// Every problem found (empty for a pass).
    public let problems: [VectorProblem]
    /// What this implementation computed, for a vector that could be read.
    public let computed: VectorComputation?
}

/// One disagreement between a vector and this implementation.
public struct VectorProblem: Sendable {
    /// What was checked: `key`, `streaming reader`, `re-seal (parallel sealer)`, …
    public let check: String
    /// What the vector says.
    public let expected: String
    /// What this implementation computed.
    public let computed: String

    /// `check: expected …, computed …`.
    public var description: String { "\(check): expected \(expected), computed \(computed)" }
}

/// What this implementation computed for a vector.
public struct VectorComputation: Sendable {
    /// The result of one reader on the vector's file.
    public struct ReaderResult: Sendable {
        /// Which reader: `streaming`, `parallel`, `random access (in order)`, `random access (final chunk first)`.
        public let reader: String
        /// `success` or the error code.
        public let verdict: String
        /// The chunk index of a `chunk_damaged` or `chunk_length_invalid`.
        public let chunkIndex: UInt64?
        /// The bytes released in order before the end (the whole payload on success); `nil` for a reader
        /// that does not release in order.
        public let released: (length: UInt64, sha256: [UInt8])?
    }

    /// PBKDF2-HMAC-SHA256 of the vector's passphrase, salt and iterations.
    public let key: [UInt8]
    /// The SHA-256 of the vector's `.goshuin` file.
    public let fileSha256: [UInt8]
    /// Each reader's result.
    public let readers: [ReaderResult]
    /// For a success vector, each sealer's output: its SHA-256 and, where it differs from the file, the
    /// first differing byte and where it falls.
    public let reseals: [(sealer: String, sha256: [UInt8], firstDifference: String?)]
}

/// Checks known-answer vectors against this implementation (`Spec/vectors-v1.md` §3), running every vector
/// through every reader and sealer of the toolkit and reporting every problem it finds.
public enum VectorChecker {
    /// The largest vector JSON file read.
    package static let maximumVectorFileSize = 1 << 20

    /// Checks each `*.json` file directly in `directory` (not in subfolders), in name order.
    ///
    /// - Throws: only when the directory cannot be listed, or `interrupted` when a stop was requested
    ///   (no vector is judged on a run that was cut short).
    public static func check(directory: String) throws -> [VectorCheckResult] {
        try FileSystem.directoryEntries(directory).filter { $0.hasSuffix(".json") }.map { entry in
            try check(vectorAt: directory + "/" + entry)
        }
    }

    /// Checks the vector whose JSON file is at `path`; the files it names are looked up beside it and must
    /// be regular files.
    ///
    /// - Throws: `interrupted` when a stop was requested; every problem of the vector is in the result.
    public static func check(vectorAt path: String) throws -> VectorCheckResult {
        let result = judge(vectorAt: path)
        // A reader stopped by the request would look like a failing vector.
        try Interruption.check()
        return result
    }

    private static func judge(vectorAt path: String) -> VectorCheckResult {
        let fileName = FileSystem.lastComponent(of: path)
        let name = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
        let directory = FileSystem.parentDirectory(of: path)
        let vector: KnownAnswerVector
        do {
            let bytes = try FileSystem.readFile(path, maximumSize: maximumVectorFileSize)
            guard let parsed = try KnownAnswerVector.parseIfVector(bytes, expectedName: name) else {
                return VectorCheckResult(
                    name: name, outcome: .skipped, detail: "not a vector (no \"format\" member)", problems: [],
                    computed: nil)
            }
            vector = parsed
        } catch {
            let message = (error as? GoshuinError)?.message ?? "\(error)"
            return VectorCheckResult(name: name, outcome: .malformed, detail: message, problems: [], computed: nil)
        }
        var problems: [VectorProblem] = []
        var fileSha256: [UInt8] = []
        do {
            fileSha256 = try checkFiles(vector, directory: directory, problems: &problems)
        } catch {
            let message = (error as? GoshuinError)?.message ?? "\(error)"
            return VectorCheckResult(name: name, outcome: .malformed, detail: message, problems: [], computed: nil)
        }
        guard problems.isEmpty else {
            return VectorCheckResult(
                name: name, outcome: .malformed, detail: problems[0].description, problems: problems, computed: nil)
        }
        let run = VectorRun(vector: vector, directory: directory)
        let computation = run.compute(fileSha256: fileSha256, problems: &problems)
        return VectorCheckResult(
            name: name, outcome: problems.isEmpty ? .passed : .failed,
            detail: problems.first?.description ?? expectationText(vector), problems: problems,
            computed: computation)
    }

    private static func expectationText(_ vector: KnownAnswerVector) -> String {
        switch vector.expect {
        case .success: return "success"
        case .failure(let code):
            return code.rawValue + (vector.chunkIndex.map { " at chunk \($0)" } ?? "")
        }
    }

    /// The named files exist and have the stated hashes and length; a file that does not makes the vector
    /// malformed, reported with what was found. Returns the file's SHA-256.
    private static func checkFiles(_ vector: KnownAnswerVector, directory: String, problems: inout [VectorProblem])
        throws -> [UInt8]
    {
        let fileDigest = try digestOfFile(directory + "/" + vector.file)
        if fileDigest.sha256 != vector.fileSha256 {
            problems.append(
                VectorProblem(
                    check: "fileSha256 of \(vector.file)", expected: Hex.encode(vector.fileSha256),
                    computed: Hex.encode(fileDigest.sha256)))
        }
        let plaintext: (length: UInt64, sha256: [UInt8])
        switch vector.plaintext {
        case .bytes(let bytes): plaintext = (UInt64(bytes.count), try SHA256Hasher.hash(bytes))
        case .file(let name): plaintext = try digestOfFile(directory + "/" + name)
        }
        if plaintext.length != vector.plaintextLength || plaintext.sha256 != vector.plaintextSha256 {
            problems.append(
                VectorProblem(
                    check: "the plaintext", expected: Self.describe(vector.plaintextLength, vector.plaintextSha256),
                    computed: Self.describe(plaintext.length, plaintext.sha256)))
        }
        return fileDigest.sha256
    }

    /// `N bytes, SHA-256 …`.
    static func describe(_ length: UInt64, _ sha256: [UInt8]) -> String {
        "\(length) bytes with SHA-256 \(Hex.encode(sha256))"
    }

    static func digestOfFile(_ path: String) throws -> (length: UInt64, sha256: [UInt8]) {
        let descriptor = try FileSystem.openRegularFile(path)
        return try descriptor.closeAfter { try digest(of: descriptor, from: 0) }
    }

    /// The length and SHA-256 of everything from `offset` to the end of `descriptor`.
    static func digest(of descriptor: FileDescriptor, from offset: Int64, count: UInt64 = .max) throws -> (
        length: UInt64, sha256: [UInt8]
    ) {
        let sink = try DigestSink()
        let buffer = try AllocatedBytes(count: FileDescriptor.copyBufferSize, wipesOnRelease: false)
        var position = offset
        while sink.length < count {
            try Interruption.check()
            let wanted = Int(min(UInt64(buffer.bytes.count), count - sink.length))
            let received = try describingFailure("cannot read a vector's file") {
                try descriptor.readFully(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<wanted]), atOffset: position)
            }
            if received == 0 { break }
            try sink.update(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<received]))
            position += Int64(received)
        }
        return try sink.finish()
    }
}

/// Counts and hashes bytes as they stream past.
final class DigestSink {
    private let hasher: SHA256Hasher
    private(set) var length: UInt64 = 0

    init() throws { hasher = try SHA256Hasher() }

    func update(_ bytes: UnsafeRawBufferPointer) throws {
        try hasher.update(bytes)
        length += UInt64(bytes.count)
    }

    func finish() throws -> (length: UInt64, sha256: [UInt8]) { (length, try hasher.finalize()) }
}
