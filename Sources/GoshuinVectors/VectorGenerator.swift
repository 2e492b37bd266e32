import GoshuinFormat

/// Generates random known-answer vector sets (`Spec/vectors-v1.md`): random parameters within the bounds,
/// lengths around chunk boundaries, and random damage whose expected result this implementation computes.
///
/// Another implementation checking such a set tests agreement on everything the spec fixes: bytes, error
/// codes, chunk indices and released plaintext. The same seed gives the same set.
package struct VectorGenerator {
    private var random: SplitMix64

    /// A generator whose choices follow from `seed`.
    package init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// The kinds of damage applied to a sealed file.
    enum Mutation: String, CaseIterable {
        case none = "success"
        case wrongPassphrase = "wrong-passphrase"
        case truncate, append
        case flipHeader = "flip-header"
        case flipPrefix = "flip-prefix"
        case flipBody = "flip-body"
        case swapChunks = "swap-chunks"
        case duplicateChunk = "duplicate-chunk"
        case deleteChunk = "delete-chunk"
        case setPrefix = "set-prefix"
    }

    static let passphrases = ["correct horse", "がっこう", "ヂ", "チ\u{3099}", "p@ss wörd", "🔑 key", "x"]

    /// The kinds of damage that apply to a version 2 file: it has no length prefixes.
    static let v2Mutations = Mutation.allCases.filter { $0 != .flipPrefix && $0 != .setPrefix }

    /// Writes `count` container version 1 vectors, then `v2Count` version 2 vectors (a third of each
    /// successes) into the existing directory `directory`. The version 1 vectors of a seed do not depend on
    /// `v2Count`.
    package mutating func writeRandomSet(count: Int, v2Count: Int = 0, to directory: String) throws {
        for number in 0..<count {
            let mutation =
                number % 3 == 0 ? .none : Mutation.allCases.dropFirst()[random.index(Mutation.allCases.count - 1) + 1]
            try writeVector(
                name: "random-\(number)-\(mutation.rawValue)", version: .v1, mutation: mutation, to: directory)
        }
        for number in 0..<v2Count {
            let mutations = Self.v2Mutations
            let mutation = number % 3 == 0 ? .none : mutations[1 + random.index(mutations.count - 1)]
            try writeVector(
                name: "random-v2-\(number)-\(mutation.rawValue)", version: .v2, mutation: mutation, to: directory)
        }
    }

    private mutating func writeVector(name: String, version: FormatVersion, mutation: Mutation, to directory: String)
        throws
    {
        let chunkSize = UInt32([1_024, 1_024 + random.index(3_072), 65_536][random.index(3)])
        let chunks = 1 + random.index(5)
        let length = max(
            version == .v1 ? 1 : 0, chunks * Int(chunkSize) + [-1, 0, 1, -Int(chunkSize) / 2][random.index(4)])
        let plaintext = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let passphrase = Array((Self.passphrases[random.index(Self.passphrases.count)] + "\(random.index(100))").utf8)
        let iterations = UInt32(1_000 + random.index(2_000))
        let parameters =
            version == .v1
            ? SealParameters(
                iterations: iterations, chunkSize: chunkSize, fixedSalt: random.bytes(Header.saltLength),
                fixedNonceBase: random.bytes(Header.nonceBaseLength))
            : SealParameters(
                iterations: iterations, chunkSize: chunkSize, fixedSalt: random.bytes(Header.saltLength),
                fixedPayloadSalt: random.bytes(Header.saltLength))
        let sealed = try Self.seal(plaintext, passphrase: passphrase, parameters: parameters)
        var openingPassphrase = passphrase
        var file = sealed
        if mutation == .wrongPassphrase {
            openingPassphrase += [UInt8(ascii: "!")]
        } else {
            file = mutate(
                sealed, mutation,
                layout: ContainerLayout(
                    geometry: ChunkGeometry(version: version, chunkSize: chunkSize), plaintextLength: UInt64(length)))
        }
        let filePath = directory + "/" + name + ".goshuin"
        try withAtomicOutput(to: filePath, replaceExisting: true, permissions: 0o644) { try $0.writeAll(file) }
        let outcome = try Self.open(filePath, passphrase: openingPassphrase)
        var plaintextSource = KnownAnswerVector.PlaintextSource.bytes(plaintext)
        if plaintext.count > KnownAnswerVector.maximumInlinePlaintext {
            plaintextSource = .file(name + ".plaintext")
            try withAtomicOutput(to: directory + "/" + name + ".plaintext", replaceExisting: true, permissions: 0o644) {
                try $0.writeAll(plaintext)
            }
        }
        let key = try KeyDerivation.deriveKey(
            passphrase: Passphrase(bytes: openingPassphrase), salt: parameters.fixedSalt ?? [],
            iterations: parameters.iterations)
        var vector = KnownAnswerVector(
            name: name,
            comment:
                "Random vector (container version \(version.rawValue)): \(mutation.rawValue) of a \(length)-byte payload"
                + " in \(chunkSize)-byte chunks.",
            expect: outcome.error.map { .failure($0.code) } ?? .success, chunkIndex: outcome.error?.chunkIndex,
            passphraseBytes: openingPassphrase, passphraseAsHex: random.index(4) == 0,
            iterations: parameters.iterations, salt: parameters.fixedSalt ?? [],
            nonceBase: parameters.fixedNonceBase ?? [],
            chunkSize: chunkSize, key: key.exposedBytes, plaintext: plaintextSource, plaintextLength: UInt64(length),
            plaintextSha256: try SHA256Hasher.hash(plaintext), file: name + ".goshuin",
            fileSha256: try SHA256Hasher.hash(file),
            releasedLength: outcome.error == nil ? nil : outcome.released.length,
            releasedSha256: outcome.error == nil ? nil : outcome.released.sha256)
        if version == .v2 {
            let keys = try ContainerKeys(
                passphraseKey: key, version: .v2, payloadSalt: parameters.fixedPayloadSalt ?? [])
            vector.containerVersion = .v2
            vector.payloadSalt = parameters.fixedPayloadSalt ?? []
            vector.headerKey = keys.headerKey?.exposedBytes ?? []
            vector.payloadKey = keys.payloadKey.exposedBytes
        }
        try withAtomicOutput(to: directory + "/" + name + ".json", replaceExisting: true, permissions: 0o644) {
            try $0.writeAll(Array(vector.jsonValue().prettySerialized().utf8))
        }
    }

    private mutating func mutate(_ file: [UInt8], _ mutation: Mutation, layout: ContainerLayout) -> [UInt8] {
        var bytes = file
        let chunkCount = Int(layout.chunkCount)
        let chunk = random.index(chunkCount)
        let recordStart = Int(layout.recordOffset(ofChunk: UInt64(chunk)))
        let recordEnd = recordStart + layout.recordLength(ofChunk: UInt64(chunk))
        let bodyStart = recordStart + layout.geometry.plaintextStart
        let headerLength = layout.version.headerLength
        func record(_ index: Int) -> ArraySlice<UInt8> {
            let start = Int(layout.recordOffset(ofChunk: UInt64(index)))
            return file[start..<start + layout.recordLength(ofChunk: UInt64(index))]
        }
        switch mutation {
        case .none, .wrongPassphrase: break
        case .truncate: bytes.removeLast(1 + random.index(bytes.count - 1))
        case .append: bytes += random.bytes(1 + random.index(40))
        case .flipHeader: bytes[random.index(headerLength)] ^= 1 << UInt8(random.index(8))
        case .flipPrefix: bytes[recordStart + random.index(4)] ^= 1 << UInt8(random.index(8))
        case .flipBody:
            bytes[bodyStart + random.index(recordEnd - bodyStart)] ^= 1 << UInt8(random.index(8))
        case .setPrefix:
            let value = [0, UInt32.max, UInt32(random.index(70_000))][random.index(3)]
            bytes.replaceSubrange(recordStart..<recordStart + 4, with: withUnsafeBytes(of: value.bigEndian, Array.init))
        case .swapChunks, .duplicateChunk, .deleteChunk:
            guard chunkCount > 1 else {
                bytes[bytes.count - 1] ^= 0x80
                break
            }
            var records = (0..<chunkCount).map(record)
            let other = (chunk + 1 + random.index(chunkCount - 1)) % chunkCount
            switch mutation {
            case .swapChunks: records.swapAt(chunk, other)
            case .duplicateChunk: records[other] = records[chunk]
            default: records.remove(at: chunk)
            }
            bytes = Array(file[0..<headerLength]) + records.flatMap { $0 }
        }
        return bytes
    }

    private static func seal(_ plaintext: [UInt8], passphrase: [UInt8], parameters: SealParameters) throws -> [UInt8] {
        let input = try FileSystem.anonymousFile()
        return try input.closeAfter {
            try input.writeAll(plaintext)
            try input.seek(to: 0)
            let output = try FileSystem.anonymousFile()
            return try output.closeAfter {
                try ContainerSealer.seal(
                    from: input, plaintextLength: UInt64(plaintext.count), to: output,
                    passphrase: Passphrase(bytes: passphrase), parameters: parameters)
                let length = try ContainerStructure.regularFileSize(of: output)
                return try FileSystem.read(output, at: 0, count: Int(length))
            }
        }
    }

    private static func open(_ path: String, passphrase: [UInt8]) throws -> (
        error: GoshuinError?, released: (length: UInt64, sha256: [UInt8])
    ) {
        let input = try FileSystem.openRegularFile(path)
        let released = try DigestSink()
        return try input.closeAfter {
            do {
                try ContainerOpener.open(input, passphrase: Passphrase(bytes: passphrase)) { try released.update($0) }
                return (nil, try released.finish())
            } catch let error as GoshuinError {
                return (error, try released.finish())
            }
        }
    }
}

/// SplitMix64: a small, fast, seedable generator (not for secrets), so a seed reproduces a vector set.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func index(_ count: Int) -> Int { Int(next() % UInt64(max(count, 1))) }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}
