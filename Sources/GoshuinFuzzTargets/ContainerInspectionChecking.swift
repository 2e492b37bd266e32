import GoshuinFormat

/// The invariants of the key-free `ContainerInspection` (`goshuin-tool inspect`) on a whole file of either
/// version: its verdict is that of checks 1–8 (`Spec/container-v1.md` §7, `Spec/container-v2.md` §7 and §9.2),
/// the fields it shows are the file's bytes as stored, and its numbers are those of each version's §3.
enum ContainerInspectionChecking {
    /// Checks `inspection` of `file`.
    static func check(_ inspection: ContainerInspection, of file: [UInt8], invariants: InvariantCheck) {
        let expected: String
        switch ContainerReaderRestatement.checkHeaderAndSize(of: file) {
        case .success: expected = "consistent"
        case .failure(let rejection): expected = rejection.code
        }
        invariants.require(
            inspection.verdict == expected, "inspection says \(inspection.verdict), checks 1–8 say \(expected)")
        invariants.require(inspection.fileSize == UInt64(file.count), "inspection's file size")
        switch inspection.fields {
        case .v1(let fields)?:
            invariants.require(
                file.count >= 45 && file[4] == 1 && fields.encode() == Array(file.prefix(45)),
                "inspection shows version 1 fields that are not the file's 45 bytes")
            checkVersionOneNumbers(inspection, of: file, invariants: invariants)
        case .v2(let fields)?:
            invariants.require(
                file.count >= 77 && file[4] == 2 && fields.encode() == Array(file.prefix(77)),
                "inspection shows version 2 fields that are not the file's 77 bytes")
            checkVersionTwoNumbers(inspection, of: file, invariants: invariants)
        case .start(let magic, let version)?:
            invariants.require(
                file.count >= 5 && magic == Array(file[0..<4]) && version == file[4],
                "inspection shows a start that is not the file's first 5 bytes")
            invariants.require(
                !(file[4] == 1 && file.count >= 45) && !(file[4] == 2 && file.count >= 77),
                "inspection shows only the start of a whole header of a version it reads")
            checkNoNumbers(inspection, invariants: invariants)
        case nil:
            // `fields` is documented as `nil` below 45 bytes; the library gives `.start` from 5 bytes on, and
            // both are accepted here.
            invariants.require(file.count < 45, "inspection shows no field of a file of \(file.count) bytes")
            checkNoNumbers(inspection, invariants: invariants)
        }
    }

    /// Version 1 (§3): the chunk count the fields imply, and the expected size exactly when checks 1–7 pass.
    static func checkVersionOneNumbers(
        _ inspection: ContainerInspection, of file: [UInt8], invariants: InvariantCheck
    ) {
        invariants.require(
            inspection.chunkCount.map { UInt128($0) } == ContainerSpecRestatement.impliedChunkCount(ofHeader: file),
            "inspection's chunk count \(inspection.chunkCount.map(String.init) ?? "none") differs from §3")
        if case .success(let layout) = ContainerSpecRestatement.checkHeader(file) {
            invariants.require(
                inspection.expectedFileSize == layout.expectedFileSize, "inspection's expected file size")
        } else {
            invariants.require(inspection.expectedFileSize == nil, "an expected size for a refused header")
        }
        invariants.require(
            inspection.impliedPlaintextLength == nil && inspection.lastRecordLength == nil,
            "inspection gives version 2's numbers for a version 1 file")
    }

    /// Version 2 (§3, §9.2): `n` and `r` as the file size gives them when shown, and shown whenever checks 1–7
    /// pass; the payload length they imply exactly when checks 1–8 pass; no expected size (the size is the
    /// layout).
    static func checkVersionTwoNumbers(
        _ inspection: ContainerInspection, of file: [UInt8], invariants: InvariantCheck
    ) {
        let chunkSize = ContainerReaderRestatement.bigEndian(file[41..<45])
        let implied = ContainerV2SpecRestatement.impliedRecords(chunkSize: chunkSize, fileSize: UInt64(file.count))
        if let count = inspection.chunkCount {
            invariants.require(
                UInt128(count) == implied.count, "inspection's record count \(count), §3 says \(implied.count)")
        }
        if let last = inspection.lastRecordLength {
            invariants.require(
                UInt128(last) == implied.last, "inspection's last record of \(last) bytes, §3 says \(implied.last)")
        }
        let fileSize = UInt64(file.count)
        let checksOneToSeven = ContainerReaderRestatement.checkVersion(headerBytes: file, fileSize: fileSize).flatMap {
            _ in ContainerV2SpecRestatement.checkHeader(headerBytes: file, fileSize: fileSize)
        }
        if case .success = checksOneToSeven {
            invariants.require(
                inspection.chunkCount != nil && inspection.lastRecordLength != nil,
                "inspection shows no layout for a file that passes checks 1–7")
        }
        var layout: ContainerV2SpecRestatement.Layout?
        if case .success(.two(let passing)) = ContainerReaderRestatement.checkHeaderAndSize(of: file) {
            layout = passing
        }
        invariants.require(
            inspection.impliedPlaintextLength == layout?.payloadLength,
            "inspection's payload length \(inspection.impliedPlaintextLength.map(String.init) ?? "none"),"
                + " §3 says \(layout.map { String($0.payloadLength) } ?? "none")")
        invariants.require(inspection.expectedFileSize == nil, "inspection gives a version 2 file an expected size")
    }

    /// No header that this toolkit reads: no number derived from one.
    static func checkNoNumbers(_ inspection: ContainerInspection, invariants: InvariantCheck) {
        invariants.require(
            inspection.chunkCount == nil && inspection.expectedFileSize == nil
                && inspection.impliedPlaintextLength == nil && inspection.lastRecordLength == nil,
            "inspection derives numbers from a header it does not read")
    }
}
