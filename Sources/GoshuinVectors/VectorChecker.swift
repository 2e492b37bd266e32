import GoshuinFormat

/// The verdict on one known-answer vector, with everything a person debugging another implementation
/// needs: each problem with what the vector says and what this implementation computed.
package struct VectorCheckResult: Sendable {
    /// How the vector fared.
    package enum Outcome: String, Sendable {
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
    package let name: String
    /// The outcome.
    package let outcome: Outcome
    /// For a pass, what was expected (`success`, `chunk_damaged at chunk 2`, …) and what ran; otherwise the
    /// first problem.
    package let detail: String
    /// Every problem found (empty for a pass), each once: readers or sealers that computed the same are one
    /// problem, naming them.
    package let problems: [VectorProblem]
    /// The known mistakes of another implementation that the vector's file shows, for a vector that failed.
    package let likelyCauses: [VectorDiagnosis]
    /// What was not checked, and why (a success vector whose passphrase this toolkit does not seal with).
    package let notes: [String]
    /// What this implementation computed, for a vector that could be read.
    package let computed: VectorComputation?

    init(
        name: String, outcome: Outcome, detail: String, problems: [VectorProblem] = [],
        likelyCauses: [VectorDiagnosis] = [], notes: [String] = [], computed: VectorComputation? = nil
    ) {
        self.name = name
        self.outcome = outcome
        self.detail = detail
        self.problems = problems
        self.likelyCauses = likelyCauses
        self.notes = notes
        self.computed = computed
    }
}

/// One disagreement between a vector and this implementation.
package struct VectorProblem: Error, Sendable {
    /// What was checked, naming the readers or sealers that computed it: `key (…)`, `every reader (…)`,
    /// `re-seal by the parallel sealer of …`, …
    package let check: String
    /// What the vector says.
    package let expected: String
    /// What this implementation computed.
    package let computed: String
    /// Where two hex values of the same length (the last word of each) first differ, counting hex digits
    /// from 1; `nil` when they are not two such values.
    package let firstDifferentHexDigit: Int?
    /// The readers or sealers that computed it, in the order they ran; empty for a problem of the vector's
    /// own values (its key, its files).
    package let by: [String]

    /// A problem; where `expected` and `computed` end in hex values of one length, where they first differ.
    package init(check: String, expected: String, computed: String, by: [String] = []) {
        self.check = check
        self.expected = expected
        self.computed = computed
        self.by = by
        firstDifferentHexDigit = Self.firstDifference(expected, computed)
    }

    /// `check: expected …, computed …`.
    package var description: String {
        "\(check): expected \(expected), computed \(computed)"
            + (firstDifferentHexDigit.map { " (they differ from hex digit \($0))" } ?? "")
    }

    private static func firstDifference(_ one: String, _ other: String) -> Int? {
        let isHex = { (word: Substring) in
            word.count >= 8 && word.allSatisfy { $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }
        }
        guard let first = one.split(separator: " ").last, let second = other.split(separator: " ").last,
            isHex(first), isHex(second), first.count == second.count
        else { return nil }
        return zip(first, second).enumerated().first { $0.element.0 != $0.element.1 }.map { $0.offset + 1 }
    }
}

/// What this implementation computed for a vector.
package struct VectorComputation: Sendable {
    /// The result of one reader on the vector's file.
    package struct ReaderResult: Sendable {
        /// Which reader: `streaming`, `parallel`, `random access (in order)`, `random access (final chunk first)`.
        package let reader: String
        /// `success` or the error code.
        package let verdict: String
        /// The chunk index of a `chunk_damaged` or `chunk_length_invalid`.
        package let chunkIndex: UInt64?
        /// The bytes released in order before the end (the whole payload on success); `nil` for a reader
        /// that does not release in order.
        package let released: (length: UInt64, sha256: [UInt8])?
    }

    /// PBKDF2-HMAC-SHA256 of the vector's passphrase, salt and iterations.
    package let key: [UInt8]
    /// The SHA-256 of the vector's `.goshuin` file.
    package let fileSha256: [UInt8]
    /// Each reader's result.
    package let readers: [ReaderResult]
    /// For a success vector, each sealer's output: its SHA-256 and, where it differs from the file, the
    /// first differing byte and where it falls.
    package let reseals: [(sealer: String, sha256: [UInt8], firstDifference: String?)]
}

/// Checks known-answer vectors against this implementation (`Spec/vectors-v1.md` §3), running every vector
/// through every reader and sealer of the toolkit and reporting every problem it finds.
package enum VectorChecker {
    /// The readers every vector goes through, by the names its problems give them.
    package static var readerNames: [String] { VectorRun.readerNames }
    /// The sealers every success vector is sealed again with, by the names its problems give them.
    package static var sealerNames: [String] { VectorRun.Sealer.allCases.map(\.rawValue) }

    /// The largest vector JSON file read.
    package static let maximumVectorFileSize = 1 << 20

    /// Checks each `*.json` file directly in `directory` (not in subfolders), in name order, then RFC 5869's
    /// HKDF cases when the folder holds `rfc5869/hkdf-sha256.json` (`Spec/vectors-v1.md` §5.5). Every file of
    /// the set is opened through the folder's descriptor without following a link: anything but a regular
    /// file there makes the vector that names it malformed.
    ///
    /// - Throws: only when the directory cannot be listed, or `interrupted` when a stop was requested
    ///   (no vector is judged on a run that was cut short).
    package static func check(directory: String) throws -> [VectorCheckResult] {
        let folder = try VectorFolder(path: directory)
        let vectors = try folder.names().filter { $0.hasSuffix(".json") }.map { try check(folder, $0) }
        return vectors + (HKDFCases.check(in: folder).map { [$0] } ?? [])
    }

    /// Checks the vector whose JSON file is at `path`; the files it names are looked up beside it and must
    /// be regular files there.
    ///
    /// - Throws: `interrupted` when a stop was requested; every problem of the vector is in the result.
    package static func check(vectorAt path: String) throws -> VectorCheckResult {
        try check(try VectorFolder(path: FileSystem.parentDirectory(of: path)), FileSystem.lastComponent(of: path))
    }

    private static func check(_ folder: VectorFolder, _ fileName: String) throws -> VectorCheckResult {
        let result = judge(fileName, in: folder)
        // A reader stopped by the request would look like a failing vector.
        try Interruption.check()
        return result
    }

    private static func judge(_ fileName: String, in folder: VectorFolder) -> VectorCheckResult {
        let name = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
        func malformed(_ problems: [VectorProblem]) -> VectorCheckResult {
            VectorCheckResult(
                name: name, outcome: .malformed, detail: problems.first?.description ?? "malformed",
                problems: problems)
        }
        let vector: KnownAnswerVector
        do {
            let descriptor = try folder.openRegularFile(fileName)
            let bytes = try descriptor.closeAfter {
                try FileSystem.readAll(descriptor, maximumSize: maximumVectorFileSize, name: fileName)
            }
            guard let parsed = try KnownAnswerVector.parseIfVector(bytes, expectedName: name) else {
                return VectorCheckResult(name: name, outcome: .skipped, detail: "not a vector (no \"format\" member)")
            }
            vector = parsed
        } catch {
            return malformed(Self.problems(error))
        }
        var problems: [VectorProblem] = []
        // What the vector is (its JSON, its files, their hashes and lengths, its fileSize) decides whether it
        // is malformed; what this implementation computes from it, whether it failed (`vectors-v1.md` §3).
        var opened: (file: FileDescriptor, sha256: [UInt8])
        do {
            opened = try openFiles(vector, in: folder, problems: &problems)
        } catch {
            return malformed(problems + Self.problems(error))
        }
        defer { try? opened.file.close() }
        guard problems.isEmpty else { return malformed(problems) }
        if let fileSize = vector.fileSize {
            do {
                let extended = try zeroExtendedCopy(of: opened.file, to: fileSize)
                try? opened.file.close()
                opened.file = extended
            } catch {
                // A limit of this checker's machine, not a fault of the vector: failed, never passed.
                let problem = VectorProblem(
                    check: "fileSize", expected: "a file of \(fileSize) bytes to open", computed: "\(error)")
                return VectorCheckResult(name: name, outcome: .failed, detail: problem.description, problems: [problem])
            }
        }
        let run = VectorRun(vector: vector, folder: folder, file: opened.file)
        var notes: [String] = []
        let computation = run.compute(fileSha256: opened.sha256, problems: &problems, notes: &notes)
        let likelyCauses = problems.isEmpty || vector.fileSize != nil ? [] : run.diagnose(key: computation.key)
        return VectorCheckResult(
            name: name, outcome: problems.isEmpty ? .passed : .failed,
            detail: problems.first?.description ?? run.passDescription,
            problems: problems, likelyCauses: likelyCauses, notes: notes, computed: computation)
    }

    /// The problems an error stands for.
    private static func problems(_ error: any Error) -> [VectorProblem] {
        switch error {
        case let malformed as MalformedVector: return malformed.problems
        case let problem as VectorProblem: return [problem]
        case let error as GoshuinError:
            return [VectorProblem(check: "reading the vector", expected: "readable files", computed: error.message)]
        default: return [VectorProblem(check: "reading the vector", expected: "readable files", computed: "\(error)")]
        }
    }

    /// Opens the vector's files, regular files of its folder, and checks their hashes and lengths: a file
    /// that differs makes the vector malformed, with what was found. Returns the `.goshuin` file, open, and
    /// its SHA-256.
    private static func openFiles(_ vector: KnownAnswerVector, in folder: VectorFolder, problems: inout [VectorProblem])
        throws -> (file: FileDescriptor, sha256: [UInt8])
    {
        let file = try folder.openRegularFile(vector.file)
        do {
            let fileDigest = try digest(of: file, from: 0)
            if fileDigest.sha256 != vector.fileSha256 {
                problems.append(
                    VectorProblem(
                        check: "fileSha256 of \(vector.file)", expected: Hex.encode(vector.fileSha256),
                        computed: Hex.encode(fileDigest.sha256)))
            }
            let plaintext: (length: UInt64, sha256: [UInt8])
            switch vector.plaintext {
            case .bytes(let bytes): plaintext = (UInt64(bytes.count), try SHA256Hasher.hash(bytes))
            case .file(let name):
                let plaintextFile = try folder.openRegularFile(name)
                plaintext = try plaintextFile.closeAfter { try digest(of: plaintextFile, from: 0) }
            }
            if plaintext.length != vector.plaintextLength || plaintext.sha256 != vector.plaintextSha256 {
                problems.append(
                    VectorProblem(
                        check: "the plaintext", expected: Self.describe(vector.plaintextLength, vector.plaintextSha256),
                        computed: Self.describe(plaintext.length, plaintext.sha256)))
            }
            if let fileSize = vector.fileSize, fileSize <= fileDigest.length {
                problems.append(
                    VectorProblem(
                        check: "fileSize", expected: "more than the \(fileDigest.length) bytes of \(vector.file)",
                        computed: "\(fileSize)"))
            }
            return (file, fileDigest.sha256)
        } catch {
            try? file.close()
            throw error
        }
    }

    /// The file a vector with `fileSize` describes (`Spec/vectors-v1.md` §5.4): a private copy of `file`
    /// extended with zeros to `size` bytes, sparse (its zeros take no room).
    private static func zeroExtendedCopy(of file: FileDescriptor, to size: UInt64) throws -> FileDescriptor {
        let copy = try FileSystem.anonymousFile()
        do {
            try file.seek(to: 0)
            try copy.copyAll(from: file, reading: "a vector's file", writing: "a temporary file")
            try describingFailure("cannot make the \(size)-byte sparse file the vector describes") {
                try copy.setSize(Int64(size))
            }
            return copy
        } catch {
            try? copy.close()
            throw error
        }
    }

    /// `N bytes, SHA-256 …`.
    static func describe(_ length: UInt64, _ sha256: [UInt8]) -> String {
        "\(length) bytes with SHA-256 \(Hex.encode(sha256))"
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
