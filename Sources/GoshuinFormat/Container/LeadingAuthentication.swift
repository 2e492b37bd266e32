/// The first bytes of a `.goshuin` file authenticated before the rest of it has arrived: a file read from
/// standard input is spooled as far as its header says matters (`Spec/decisions/0014`), and a header is
/// not authenticated by itself, so a forged one could declare 2^40 bytes. What the passphrase can check
/// first is checked first: version 2's header MAC (check 9 of `Spec/container-v2.md` §7), version 1's chunk
/// 0 (with chunks 1–3, the probe window of `Spec/container-v1.md` §7.1, as far as they are there, when it
/// fails). A reader stops at the first failure, with the code those bytes give.
package struct LeadingAuthentication: Sendable {
    private enum Kind: Sendable {
        case v1(Header)
        case v2(HeaderFieldsV2)
    }

    private let kind: Kind
    /// How many bytes from the file's start the first authentication needs: version 2's header; version 1's
    /// header and its first record (chunks 1–3, the probe window, are read when chunk 0 fails, as far as they
    /// are there).
    package let leadingLength: Int

    /// The check of a file that starts with `head` (at least a version 2 header's 77 bytes, or all the file
    /// has), when its header passes the checks that need neither the key nor the file's size; `nil`
    /// otherwise (the whole file's checks say why).
    package init?(head: [UInt8]) {
        guard head.count >= 5, head.starts(with: Header.magic) else { return nil }
        switch FormatVersion(rawValue: head[4]) {
        case .v1?:
            guard let header = try? Header.decode(head) else { return nil }
            kind = .v1(header)
            leadingLength = Int(header.layout.recordOffset(ofChunk: 1))
        case .v2?:
            guard let fields = HeaderFieldsV2(parsing: head), (try? fields.validate()) != nil else { return nil }
            kind = .v2(fields)
            leadingLength = FormatVersion.v2.headerLength
        case nil:
            return nil
        }
    }

    /// Authenticates the first bytes of `file`, of which `available` are there (at least ``leadingLength``,
    /// unless the file is shorter: a record not all there fails), with `passphrase`, reporting the key
    /// derivation to `progress`. Each record is read into memory of its own, one at a time. The key is derived
    /// once for the passphrase (``Passphrase``'s memo), so the reader of the whole file that follows does not
    /// derive it again.
    ///
    /// - Throws: `auth_failed`, `chunk_damaged` (chunk 0, when one of chunks 1–3 there authenticates),
    ///   `chunk_length_invalid`, `io`, `out_of_memory`.
    package func authenticate(
        _ file: FileDescriptor, available: UInt64, passphrase: Passphrase, progress: ProgressHandler?
    ) throws {
        switch kind {
        case .v2(let fields):
            let keys = try ContainerKeys(
                passphrase: passphrase, version: .v2, salt: fields.kdfSalt, payloadSalt: fields.payloadSalt,
                iterations: fields.kdfIterations, progress: progress)
            guard try keys.verifiesHeader(fields) else { throw GoshuinError.headerMacFailed }
        case .v1(let header):
            let keys = try ContainerKeys(passphrase: passphrase, header: header, progress: progress)
            let cipher = try ChunkCipher(key: keys.payloadKey, header: header)
            let layout = header.layout
            let authenticates = { (index: UInt64) throws -> Bool in
                let start = layout.recordOffset(ofChunk: index)
                let length = layout.recordLength(ofChunk: index)
                guard start + UInt64(length) <= available else { return false }
                let record = try AllocatedBytes(count: length, wipesOnRelease: true)
                let received = try describingFailure("cannot read a temporary file") {
                    try file.readFully(into: record.bytes, atOffset: Int64(start))
                }
                guard received == length else { return false }
                return try cipher.openRecord(record.bytes, index: index, final: index == layout.finalChunk) != nil
            }
            guard try !authenticates(0) else { return }
            throw try ChunkVerdict.error(lowestFailing: 0, layout: layout, authenticates: authenticates)
        }
    }
}
