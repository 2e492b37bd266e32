import GoshuinFormat

extension FuzzHarness {
    /// `Header.decode` and the key-free structure check: decoding succeeds exactly when the spec's restated
    /// checks 1–7 pass, fails with the code of the first failing one, and a decoded header re-encodes to the
    /// same 45 bytes with the layout of §3.
    @_spi(Fuzzing) public static let headerDecode = FuzzHarness(name: "header-decode") { input in
        HeaderDecodeHarness.check(input)
    }
}

enum HeaderDecodeHarness {
    static let invariants = InvariantCheck(harness: "header-decode")

    static func check(_ input: [UInt8]) {
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
            checkStructureRejects(input, with: expected)
            return
        } catch {
            invariants.fail("decode threw \(error), not a GoshuinError")
        }
        guard case .success(let layout) = verdict else {
            invariants.fail("decode accepted a header the spec refuses: \(verdict)")
        }
        checkAccepted(decoded, input: input, layout: layout)
    }

    /// A decoded header: the same bytes again, the same fields, the spec's layout, and the file-size check of
    /// check 8 around the expected size.
    static func checkAccepted(_ header: Header, input: [UInt8], layout: ContainerSpecRestatement.Layout) {
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
        checkLayout(header.layout, against: layout)
        let expectedSize = layout.expectedFileSize
        expectStructure(headerBytes, fileSize: expectedSize, toFailWith: nil)
        expectStructure(headerBytes, fileSize: expectedSize - 1, toFailWith: "truncated")
        expectStructure(headerBytes, fileSize: expectedSize + 1, toFailWith: "trailing_data")
        if input.count >= 53 {
            let chosenSize = ContainerSpecRestatement.bigEndian(input[45..<53])
            let code = ContainerSpecRestatement.checkSize(chosenSize, of: layout)?.code
            expectStructure(headerBytes, fileSize: chosenSize, toFailWith: code)
        }
    }

    static func checkLayout(_ layout: ContainerLayout, against spec: ContainerSpecRestatement.Layout) {
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

    /// A header the spec refuses: the structure check refuses it with the same code whatever the file size.
    static func checkStructureRejects(_ input: [UInt8], with expected: ContainerSpecRestatement.Rejection) {
        expectStructure(input, fileSize: UInt64(input.count), toFailWith: expected.code)
        expectStructure(input, fileSize: UInt64.max, toFailWith: expected.code)
    }

    static func expectStructure(_ headerBytes: [UInt8], fileSize: UInt64, toFailWith expectedCode: String?) {
        let code: String?
        do {
            _ = try ContainerStructure.validate(headerBytes: headerBytes, fileSize: fileSize)
            code = nil
        } catch let error as GoshuinError {
            code = error.code.rawValue
        } catch {
            invariants.fail("the structure check threw \(error), not a GoshuinError")
        }
        invariants.require(
            code == expectedCode,
            "for a file of \(fileSize) bytes the structure check gives \(code ?? "success"),"
                + " the spec says \(expectedCode ?? "success")")
    }
}
