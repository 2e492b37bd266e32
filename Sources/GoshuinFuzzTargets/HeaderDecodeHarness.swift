import GoshuinFormat

extension FuzzHarness {
    /// `Header.decode` and the key-free structure check of both versions. Version 1's decoder
    /// (`Header.decode(_:)`) succeeds exactly when a version 1 reader's restated checks 1–7 pass, and a decoded
    /// header re-encodes to the same 45 bytes with the layout of §3. The reader of both versions
    /// (`Header.decode(_:fileSize:)`, `ContainerStructure.validate(headerBytes:fileSize:)`) gives, for file sizes
    /// around every boundary the header implies, exactly the verdict of checks 1–8 of the version the version
    /// byte names; a version 2 header it accepts re-encodes to the same 77 bytes with the layout of its §3.
    @_spi(Fuzzing) public static let headerDecode = FuzzHarness(name: "header-decode") { input in
        HeaderDecodeHarness.check(input)
    }
}

/// The checks of ``FuzzHarness/headerDecode``: the input is a file's start; the file sizes are chosen around it.
enum HeaderDecodeHarness {
    /// The messages' prefix.
    static let invariants = InvariantCheck(harness: "header-decode")

    /// Checks version 1's decoder, then the reader of both versions at every chosen file size.
    static func check(_ input: [UInt8]) {
        checkVersionOneDecoder(input)
        for fileSize in fileSizes(for: input) { checkStructure(input, fileSize: fileSize) }
    }

    /// `Header.decode(_:)`, the decoder of version 1's 45 bytes: the verdict of a version 1 reader's checks 1–7.
    static func checkVersionOneDecoder(_ input: [UInt8]) {
        let verdict = ContainerSpecRestatement.checkHeader(input)
        let decoded: Header
        do {
            decoded = try Header.decode(input)
        } catch let error as GoshuinError {
            guard case .failure(let expected) = verdict else {
                invariants.fail("decode refused with \(error.code.rawValue) a header within the spec's bounds")
            }
            invariants.require(
                error.code.rawValue == expected.code,
                "decode failed with \(error.code.rawValue), the spec says \(expected)")
            return
        } catch {
            invariants.fail("decode threw \(error), not a GoshuinError")
        }
        guard case .success(let layout) = verdict else {
            invariants.fail("decode accepted a header the spec refuses: \(verdict)")
        }
        checkAcceptedVersionOne(decoded, input: input, layout: layout)
    }

    /// The file sizes the structure check is asked about: the input's own, the extremes, the boundaries of
    /// checks 1 and 4, and those the header implies: version 1's expected size, one less and one more, and one
    /// taken from bytes 45–52; version 2's record boundaries (`77 + k·S + r` for r = 0, 15, 16, 17 and S − 1, for
    /// a few records and around 2^32 of them), and a size taken from bytes 77–84.
    static func fileSizes(for input: [UInt8]) -> [UInt64] {
        var sizes: [UInt64] = [UInt64(input.count), 0, 44, 45, 76, 77, 93, UInt64.max, UInt64.max - 1]
        if case .success(let layout) = ContainerSpecRestatement.checkHeader(input) {
            sizes += [layout.expectedFileSize, layout.expectedFileSize - 1, layout.expectedFileSize + 1]
        }
        if input.count >= 53 { sizes.append(ContainerReaderRestatement.bigEndian(input[45..<53])) }
        if input.count >= 85 { sizes.append(ContainerReaderRestatement.bigEndian(input[77..<85])) }
        if input.count >= 45 {
            let fullRecord = UInt128(ContainerReaderRestatement.bigEndian(input[41..<45])) + 16
            for records: UInt128 in [0, 1, 2, 4_294_967_295, 4_294_967_296] {
                for last: UInt128 in [0, 15, 16, 17, fullRecord - 1] {
                    let size = 77 + records * fullRecord + last
                    if size <= UInt128(UInt64.max) { sizes.append(UInt64(size)) }
                }
            }
        }
        return sizes
    }

    /// A decoded version 1 header: the same bytes again, the same fields, the spec's layout.
    static func checkAcceptedVersionOne(_ header: Header, input: [UInt8], layout: ContainerSpecRestatement.Layout) {
        let headerBytes = Array(input.prefix(ContainerSpecRestatement.headerLength))
        invariants.require(header.encode() == headerBytes, "the decoded header does not re-encode to the same 45 bytes")
        invariants.require(
            HeaderFields(parsing: input)?.encode() == headerBytes, "HeaderFields do not re-encode to the same bytes")
        invariants.require(
            UInt64(header.chunkSize) == layout.chunkSize && header.plaintextLength == layout.plaintextLength,
            "the decoded fields differ from the bytes")
        do {
            let rebuilt = try Header(
                kdfIterations: header.kdfIterations, salt: header.salt, nonceBase: header.nonceBase,
                chunkSize: header.chunkSize, plaintextLength: header.plaintextLength)
            invariants.require(rebuilt == header, "a header rebuilt from the decoded fields differs")
        } catch {
            invariants.fail("the decoded fields are refused by Header.init: \(error)")
        }
        checkVersionOneLayout(header.layout, against: layout)
    }

    /// The library's version 1 layout against §3's.
    static func checkVersionOneLayout(_ layout: ContainerLayout, against spec: ContainerSpecRestatement.Layout) {
        let count = spec.chunkCount
        invariants.require(layout.chunkCount == count, "chunkCount \(layout.chunkCount), the spec says \(count)")
        invariants.require(
            layout.expectedFileSize == spec.expectedFileSize,
            "expectedFileSize \(layout.expectedFileSize), the spec says \(spec.expectedFileSize)")
        invariants.require(spec.expectedFileSize < 1 << 59, "§3: the expected file size is below 2^59")
        let last = count - 1
        let lastLength = spec.plaintextLength(ofChunk: last)
        invariants.require((1...spec.chunkSize).contains(lastLength), "§3: the last chunk holds 1 … chunkSize bytes")
        invariants.require(
            UInt64(layout.plaintextLength(ofChunk: last)) == lastLength, "the last chunk's length differs from §3")
        invariants.require(
            UInt64(layout.expectedPrefix(ofChunk: last)) == lastLength + 16, "the last prefix differs from §5")
        invariants.require(
            layout.recordOffset(ofChunk: last) == spec.prefixOffset(ofChunk: last), "the last offset differs from §3")
        invariants.require(
            layout.recordOffset(ofChunk: last) + 20 + lastLength == spec.expectedFileSize,
            "the last chunk does not end the file")
        if count > 1 {
            invariants.require(UInt64(layout.plaintextLength(ofChunk: 0)) == spec.chunkSize, "chunk 0 is not full")
        }
    }

    /// The reader of both versions on a file of `fileSize` bytes starting with `input`: both entry points give
    /// the restated verdict, and a header they accept is that of its version.
    static func checkStructure(_ input: [UInt8], fileSize: UInt64) {
        let expected = ContainerReaderRestatement.checkHeaderAndSize(headerBytes: input, fileSize: fileSize)
        let validated = outcome(of: "the structure check", fileSize: fileSize) {
            try ContainerStructure.validate(headerBytes: input, fileSize: fileSize)
        }
        let decoded = outcome(of: "decode(_:fileSize:)", fileSize: fileSize) {
            try Header.decode(input, fileSize: fileSize)
        }
        for (name, result) in [("the structure check", validated), ("decode(_:fileSize:)", decoded)] {
            switch (result, expected) {
            case (.failure(let error), .failure(let rejection)):
                invariants.require(
                    error.code.rawValue == rejection.code,
                    "for a file of \(fileSize) bytes \(name) gives \(error.code.rawValue), the spec says \(rejection)")
            case (.failure(let error), .success):
                invariants.fail(
                    "for a file of \(fileSize) bytes \(name) gives \(error.code.rawValue), the spec says success")
            case (.success, .failure(let rejection)):
                invariants.fail("for a file of \(fileSize) bytes \(name) gives success, the spec says \(rejection)")
            case (.success(let header), .success(.one(let layout))):
                invariants.require(
                    header.version == .v1 && header.encode() == Array(input.prefix(45)),
                    "\(name) accepted a version 1 header as another")
                checkVersionOneLayout(header.layout, against: layout)
            case (.success(let header), .success(.two(let layout))):
                checkAcceptedVersionTwo(header, input: input, layout: layout, fileSize: fileSize)
            }
        }
        if case .success(let first) = validated, case .success(let second) = decoded {
            invariants.require(first == second, "decode(_:fileSize:) and the structure check give different headers")
        }
    }

    /// The header `body` returns, or the ``GoshuinError`` it throws; any other error breaks an invariant.
    static func outcome(of operation: String, fileSize: UInt64, _ body: () throws -> Header) -> Result<
        Header, GoshuinError
    > {
        do {
            return .success(try body())
        } catch let error as GoshuinError {
            return .failure(error)
        } catch {
            invariants.fail("\(operation) for a file of \(fileSize) bytes threw \(error), not a GoshuinError")
        }
    }

    /// A version 2 header accepted for a file of `fileSize` bytes: its fields are the input's 77 bytes, rebuilt
    /// from them it is the same header, and its layout is that of `Spec/container-v2.md` §3.
    static func checkAcceptedVersionTwo(
        _ header: Header, input: [UInt8], layout: ContainerV2SpecRestatement.Layout, fileSize: UInt64
    ) {
        let headerBytes = Array(input.prefix(77))
        invariants.require(header.version == .v2, "a version 2 header decoded as version \(header.version)")
        invariants.require(header.encode() == headerBytes, "the decoded header does not re-encode to the same 77 bytes")
        invariants.require(header.byteCount == 77, "a version 2 header of \(header.byteCount) bytes")
        let fields = HeaderFieldsV2(parsing: input)
        invariants.require(fields?.encode() == headerBytes, "HeaderFieldsV2 do not re-encode to the same bytes")
        invariants.require(
            UInt64(header.kdfIterations) == ContainerReaderRestatement.bigEndian(input[5..<9])
                && header.salt == Array(input[9..<25]) && header.payloadSalt == Array(input[25..<41])
                && UInt64(header.chunkSize) == layout.chunkSize && header.headerMac == Array(input[45..<77])
                && header.nonceBase.isEmpty,
            "the decoded version 2 fields differ from the bytes")
        if let fields {
            do {
                let rebuilt = try Header(validating: fields, plaintextLength: header.plaintextLength)
                invariants.require(rebuilt == header, "a header rebuilt from the decoded fields differs")
            } catch {
                invariants.fail("the decoded fields are refused by Header(validating:plaintextLength:): \(error)")
            }
        }
        checkVersionTwoLayout(header, against: layout, fileSize: fileSize)
    }

    /// The library's version 2 layout against §3's: `n` records, the last of `r` bytes ending the file, the
    /// payload length `(n − 1)·chunkSize + r − 16`, and the size a writer gives such a payload.
    static func checkVersionTwoLayout(
        _ header: Header, against spec: ContainerV2SpecRestatement.Layout, fileSize: UInt64
    ) {
        let layout = header.layout
        let count = spec.recordCount
        invariants.require(
            header.chunkCount == count && layout.chunkCount == count,
            "\(layout.chunkCount) records, §3 says \(count)")
        invariants.require(
            header.plaintextLength == spec.payloadLength,
            "a payload of \(header.plaintextLength) bytes, §3 says \(spec.payloadLength)")
        invariants.require(
            header.fileSize == fileSize && layout.expectedFileSize == fileSize && spec.fileSize == fileSize,
            "the layout describes a file of \(layout.expectedFileSize) bytes, not \(fileSize)")
        invariants.require(
            (16..<spec.fullRecordLength).contains(spec.lastRecordLength), "§3: the last record has 16 … S − 1 bytes")
        invariants.require(
            UInt128(fileSize) == 77 + UInt128(spec.payloadLength) + 16 * UInt128(count),
            "§3: a file of n records of a P-byte payload has 77 + P + 16·n bytes")
        let last = spec.finalRecord
        invariants.require(
            layout.recordOffset(ofChunk: last) == spec.record(last).offset
                && UInt64(layout.recordLength(ofChunk: last)) == spec.lastRecordLength,
            "the last record lies elsewhere than §3 says")
        invariants.require(
            UInt64(layout.plaintextLength(ofChunk: last)) == spec.lastRecordLength - 16,
            "the last record holds \(layout.plaintextLength(ofChunk: last)) bytes, §5 says r − 16")
        invariants.require(
            layout.plaintextOffset(ofChunk: last) == spec.payloadRange(ofRecord: last).lowerBound,
            "the last record's payload offset differs from §5")
        if count > 1 {
            invariants.require(
                UInt64(layout.recordLength(ofChunk: 0)) == spec.fullRecordLength
                    && UInt64(layout.plaintextLength(ofChunk: 0)) == spec.chunkSize,
                "record 0 of \(count) is not a full record")
        }
    }
}
