import GoshuinFormat

/// `protect`: a recovery set for a file that exists (`Spec/recovery-par2.md` §5). The file is read three
/// ways at once by the workers of one pool: block after block for the whole-file MD5 (a sequential chain, on
/// whichever core is free), eight slices at a time for the slices' MD5 and CRC-32, and in strips of every
/// slice for the Reed-Solomon encoding, within the memory budget of ``StripCombiner``.
enum FileProtection {
    /// Protects the file at `path`.
    static func protect(
        path: String, redundancy: RecoveryRedundancy, replaceExisting: Bool, workers: Int,
        kernel: RegionKernel = .best, sliceSize: UInt64? = nil, progress: RecoveryProgressHandler?
    ) throws -> RecoverySetFiles {
        let input = try FileSystem.openRegularFile(path)
        return try input.closeAfter {
            let before = try describingFailure("cannot examine \(DisplayText.quoted(path))") { try input.status() }
            let length = UInt64(before.size)
            guard length > 0 else {
                throw GoshuinError(
                    .invalidArgument, "\(DisplayText.quoted(path)) is empty: there is nothing to protect")
            }
            try refuseWhatNoRepairWrites(input, path: path)
            let plan =
                try sliceSize.map { RecoveryPlan(fileLength: length, sliceSize: $0, redundancy: redundancy) }
                ?? RecoveryPlan(
                    fileLength: length, recordLength: try recordLength(of: input, fileSize: length),
                    redundancy: redundancy)
            if replaceExisting { try refuseReplacingASetThatRepairs(path) }
            let layout = RecoverySetLayout(plan: plan, fileName: Array(FileSystem.lastComponent(of: path).utf8))
            let output = try RecoverySetOutput(protecting: path, layout: layout, replaceExisting: replaceExisting)
            return try protect(
                input, name: path, as: before, layout: layout, output: output, workers: workers, kernel: kernel,
                progress: progress, ifChanged: "changed while it was being protected; protect it again")
        }
    }

    /// Computes the set of the file open at `input` (named `name`, whose status was `before` when its plan was
    /// made) into `output`, which it starts, and finishes it: unless the file changed meanwhile (any write moves
    /// its status change time, which nobody but the kernel sets back), when the error says that it `ifChanged`,
    /// or `check` refuses the slices' checksums. On any failure `output` is discarded.
    static func protect(
        _ input: FileDescriptor, name: String, as before: FileStatus, layout: RecoverySetLayout,
        output: RecoverySetOutput, workers: Int, kernel: RegionKernel, progress: RecoveryProgressHandler?,
        ifChanged: String, check: ([SliceChecksumPacket.Checksum]) throws -> Void = { _ in }
    ) throws -> RecoverySetFiles {
        do {
            let hash16k = try MD5Hasher.hash(
                try FileSystem.read(input, at: 0, count: FileDescriptionPacket.hash16kLength)[...])
            try output.start(identity: try layout.identity(hash16k: hash16k))
            let (fileHash, checksums) = try encode(
                input, name: name, layout: layout, output: output, workers: workers, kernel: kernel,
                progress: progress)
            let after = try describingFailure("cannot examine \(DisplayText.quoted(name))") { try input.status() }
            guard after.isUnchanged(comparedTo: before) else {
                throw GoshuinError(.io, "\(DisplayText.quoted(name)) \(ifChanged)")
            }
            try check(checksums)
            return try output.finish(fileHash: fileHash, checksums: checksums)
        } catch {
            output.discard()
            throw error
        }
    }

    /// Refuses to replace the set beside the file at `path` when that set finds the file damaged and can
    /// repair it: a new set would describe the damage as the file, and the damage would stay for good.
    static func refuseReplacingASetThatRepairs(_ path: String) throws {
        guard !((try? RecoverySetNames.setFiles(besides: path)) ?? []).isEmpty,
            let verification = try? RecoverySet.verify(inputPath: path), !verification.isIntact,
            verification.isRepairable
        else { return }
        throw GoshuinError(
            .outputExists,
            "the recovery set beside \(DisplayText.quoted(path)) finds it damaged and can repair it: a new set would"
                + " take the damage for the file; repair the file first, or remove the old set's files if it was"
                + " changed on purpose")
    }

    /// Refuses a file a set should not be made for (`Spec/recovery-par2.md` §5.1): a recovery file (it
    /// starts with a PAR 2.0 packet's magic), and a file that starts as a `.goshuin` file but fails the checks
    /// that need no key, which a repair would never write (§7.4).
    static func refuseWhatNoRepairWrites(_ input: FileDescriptor, path: String) throws {
        let start = try FileSystem.read(input, at: 0, count: PacketHeader.magic.count)
        guard start != PacketHeader.magic else {
            throw GoshuinError(
                .invalidArgument,
                "\(DisplayText.quoted(path)) is a PAR 2.0 recovery file: recovery files protect a file, and are not"
                    + " protected themselves")
        }
        guard start.starts(with: Header.magic) else { return }
        do {
            _ = try ContainerStructure.validate(input)
        } catch let error as GoshuinError where error.code.category == .container {
            throw GoshuinError(
                .invalidArgument,
                "\(DisplayText.quoted(path)) starts as a .goshuin file but is not a well-formed one (\(error.code):"
                    + " \(error.message)): a repair could never write it back, so no recovery set is made for it")
        }
    }

    /// The record length of the `.goshuin` file open at `input`, when its header and size pass the checks
    /// that need no key; `nil` for any other file (it is protected in units of 4 KiB).
    static func recordLength(of input: FileDescriptor, fileSize: UInt64) throws -> Int? {
        let start = try FileSystem.read(input, at: 0, count: ContainerStructure.headerReadLength)
        guard let header = try? ContainerStructure.validate(headerBytes: start, fileSize: fileSize) else { return nil }
        return header.layout.geometry.fullRecordLength
    }

    /// Reads the file once for each of the three kinds of work and writes the recovery data; returns the
    /// file's MD5 and its slices' checksums.
    static func encode(
        _ input: FileDescriptor, name: String, layout: RecoverySetLayout, output: RecoverySetOutput, workers: Int,
        kernel: RegionKernel, progress: RecoveryProgressHandler?
    ) throws -> (fileHash: [UInt8], checksums: [SliceChecksumPacket.Checksum]) {
        let plan = layout.plan
        let length = plan.fileLength
        let regions = (0..<plan.inputSliceCount).map { index in
            SliceRegion(
                file: input, start: UInt64(index) * plan.sliceSize, available: plan.length(ofSlice: index), name: name)
        }
        let chain = try SequentialHashChain(length: length) { offset, buffer in
            let received = try describingFailure("cannot read \(DisplayText.quoted(name))") {
                try input.readFully(into: buffer, atOffset: Int64(offset))
            }
            guard received == buffer.count else {
                throw GoshuinError(.io, "\(DisplayText.quoted(name)) shrank while being protected")
            }
        }
        let slices = SliceHashing(regions: regions, sliceSize: Int(plan.sliceSize), toleratingShortFiles: false)
        let exponents = (0..<plan.recoverySliceCount).map { UInt32($0) }
        let combiner = try StripCombiner(
            sources: regions, accumulatorCount: plan.recoverySliceCount, sliceSize: Int(plan.sliceSize),
            coefficients: { source in InputSliceConstants.coefficients(ofSlice: source, exponents: exponents) },
            delivery: { exponent, offset, bytes in
                try output.writeRecovery(exponent: exponent, offset: offset, bytes: bytes)
            },
            kernel: kernel)
        progress?(.protecting(bytesDone: 0, bytesTotal: length))
        try ComponentQueue.run([chain, combiner, slices], workers: workers) {
            let done =
                chain.bytesDone.load(ordering: .relaxed) + slices.bytesDone.load(ordering: .relaxed)
                + min(length, combiner.bytesDone.load(ordering: .relaxed))
            // Each of the three kinds of work reads the whole file once: their mean is the part done.
            progress?(.protecting(bytesDone: done / 3, bytesTotal: length))
        }
        progress?(.protecting(bytesDone: length, bytesTotal: length))
        return (try chain.digest(), slices.checksums())
    }
}
