import GoshuinFormat

/// The names of a recovery set's files, as par2cmdline gives them, and how the files of a set are found
/// beside the file they protect (`Spec/recovery-par2.md` §2).
enum RecoverySetNames {
    /// `NAME.par2`: the index file, with the critical packets and no recovery slices.
    static func indexName(for fileName: String) -> String { fileName + ".par2" }

    /// `NAME.volA+B.par2`: the volume file holding `count` recovery slices from exponent `first`. As par2cmdline
    /// spells it when it writes one volume file: A is zero-padded to as many digits as the exponent after the
    /// last (`first + count`) has, B to as many as `count` has.
    static func volumeName(for fileName: String, first: Int, count: Int) -> String {
        let firstDigits = String(first + count).count
        let countDigits = String(count).count
        return fileName + ".vol" + zeroPadded(first, firstDigits) + "+" + zeroPadded(count, countDigits) + ".par2"
    }

    /// Whether `name` (bytes of a directory entry) is a file of the set of `fileName`: `NAME.par2` or
    /// `NAME.volA+B.par2` (also `NAME.volA-B.par2`, an older spelling), with A and B decimal digits. par2cmdline's
    /// exponential multi-volume sets are named so.
    static func isSetFile(_ name: [UInt8], of fileName: String) -> Bool {
        let base = Array(fileName.utf8)
        guard name.count > base.count, Array(name[0..<base.count]) == base else { return false }
        let rest = Array(name[base.count...])
        if rest == Array(".par2".utf8) { return true }
        let prefix = Array(".vol".utf8)
        let suffix = Array(".par2".utf8)
        guard rest.count > prefix.count + suffix.count, Array(rest[0..<prefix.count]) == prefix,
            Array(rest[(rest.count - suffix.count)...]) == suffix
        else { return false }
        let middle = rest[prefix.count..<(rest.count - suffix.count)]
        guard let separator = middle.firstIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") })
        else { return false }
        let first = middle[middle.startIndex..<separator]
        let count = middle[(separator + 1)...]
        let isDigits = { (part: ArraySlice<UInt8>) in
            !part.isEmpty && part.count <= 10 && part.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        return isDigits(first) && isDigits(count)
    }

    /// The paths of the set files of the file at `path`, in its folder, index first, then the volumes in
    /// name order.
    static func setFiles(besides path: String) throws -> [String] {
        let folder = FileSystem.parentDirectory(of: path)
        let fileName = FileSystem.lastComponent(of: path)
        let names = try describingFailure("cannot list the folder \(DisplayText.quoted(folder))") {
            try OpenDirectory(path: folder).names()
        }
        let found = names.filter { isSetFile($0, of: fileName) }.compactMap { String(validating: $0, as: UTF8.self) }
        let index = indexName(for: fileName)
        return found.sorted { ($0 == index ? 0 : 1, $0) < ($1 == index ? 0 : 1, $1) }.map { folder + "/" + $0 }
    }

    /// The set files named by `recoveryPath`, a `.par2` file: it, and the other files of its set in its folder
    /// (`X.par2` and `X.vol…par2` for the `X` its name starts with).
    static func setFiles(named recoveryPath: String) throws -> [String] {
        let name = FileSystem.lastComponent(of: recoveryPath)
        guard let base = baseName(ofSetFile: name) else { return [recoveryPath] }
        let folder = FileSystem.parentDirectory(of: recoveryPath)
        let siblings = try setFiles(besides: folder + "/" + base)
        return siblings.contains(folder + "/" + name) ? siblings : [recoveryPath] + siblings
    }

    /// `X` for a name `X.par2` or `X.volA+B.par2` (the shortest such `X`); `nil` for another name.
    static func baseName(ofSetFile name: String) -> String? {
        let bytes = Array(name.utf8)
        for end in 1..<max(bytes.count, 1) where bytes[end] == UInt8(ascii: ".") {
            let base = String(decoding: bytes[0..<end], as: UTF8.self)
            if isSetFile(bytes, of: base) { return base }
        }
        return nil
    }

    /// Whether the file at `path` starts with a PAR 2.0 packet's magic: a recovery file, whatever its name.
    static func startsWithPacketMagic(_ path: String) -> Bool {
        guard let file = try? FileSystem.openRegularFile(path) else { return false }
        defer { try? file.close() }
        let start = try? FileSystem.read(file, at: 0, count: PacketHeader.magic.count)
        return start == PacketHeader.magic
    }

    private static func zeroPadded(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
