/// The fields of a 77-byte version 2 header as stored, not necessarily valid (`Spec/container-v2.md` §2):
/// what `inspect` shows, and what a ``Header`` holds once they passed ``validate()``.
package struct HeaderFieldsV2: Equatable, Sendable {
    /// The info of the header MAC's key, `K_header` (§4).
    package static let headerKeyInfo = Array("goshuin/v2/header-mac".utf8)
    /// The info of the records' key, `K_payload` (§4).
    package static let payloadKeyInfo = Array("goshuin/v2/payload".utf8)
    /// The bytes the MAC covers: 0 … 44.
    package static let authenticatedLength = 45

    /// Bytes 0–3, `GSHN` in a valid file.
    package let magic: [UInt8]
    /// Byte 4, 2 in a version 2 file.
    package let version: UInt8
    /// Bytes 5–8, big-endian.
    package let kdfIterations: UInt32
    /// Bytes 9–24: PBKDF2's salt.
    package let kdfSalt: [UInt8]
    /// Bytes 25–40: HKDF's salt.
    package let payloadSalt: [UInt8]
    /// Bytes 41–44, big-endian.
    package let chunkSize: UInt32
    /// Bytes 45–76: HMAC-SHA256(K_header, bytes 0 … 44), unverified until the passphrase is given.
    package let headerMac: [UInt8]

    /// Fields as given; nothing is checked.
    package init(
        magic: [UInt8] = Header.magic, version: UInt8 = FormatVersion.v2.rawValue, kdfIterations: UInt32,
        kdfSalt: [UInt8], payloadSalt: [UInt8], chunkSize: UInt32, headerMac: [UInt8]
    ) {
        self.magic = magic
        self.version = version
        self.kdfIterations = kdfIterations
        self.kdfSalt = kdfSalt
        self.payloadSalt = payloadSalt
        self.chunkSize = chunkSize
        self.headerMac = headerMac
    }

    /// Reads the fields from the first 77 bytes; `nil` when there are fewer.
    package init?(parsing bytes: some Collection<UInt8>) {
        var cursor = ByteCursor(Array(bytes.prefix(FormatVersion.v2.headerLength)))
        guard let magic = cursor.bytes(4), let version = cursor.bigEndian(UInt8.self),
            let kdfIterations = cursor.bigEndian(UInt32.self), let kdfSalt = cursor.bytes(Header.saltLength),
            let payloadSalt = cursor.bytes(Header.saltLength), let chunkSize = cursor.bigEndian(UInt32.self),
            let headerMac = cursor.bytes(HMACSHA256.length)
        else { return nil }
        self.init(
            magic: magic, version: version, kdfIterations: kdfIterations, kdfSalt: kdfSalt, payloadSalt: payloadSalt,
            chunkSize: chunkSize, headerMac: headerMac)
    }

    /// The 45 bytes the MAC covers, big-endian.
    package var authenticatedBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FormatVersion.v2.headerLength)
        bytes += magic
        bytes.append(version)
        bytes.appendBigEndian(kdfIterations)
        bytes += kdfSalt
        bytes += payloadSalt
        bytes.appendBigEndian(chunkSize)
        return bytes
    }

    /// The 77 bytes.
    package func encode() -> [UInt8] { authenticatedBytes + headerMac }

    /// These fields with `mac` as their header MAC.
    package func withMac(_ mac: [UInt8]) -> HeaderFieldsV2 {
        HeaderFieldsV2(
            magic: magic, version: version, kdfIterations: kdfIterations, kdfSalt: kdfSalt, payloadSalt: payloadSalt,
            chunkSize: chunkSize, headerMac: mac)
    }

    /// Checks 5–6 of `Spec/container-v2.md` §7 (the magic and version were checked to come here), and the
    /// lengths of the salts and the MAC (`invalid_argument`, for fields made rather than parsed).
    package func validate() throws {
        guard magic == Header.magic, version == FormatVersion.v2.rawValue, kdfSalt.count == Header.saltLength,
            payloadSalt.count == Header.saltLength, headerMac.count == HMACSHA256.length
        else {
            throw GoshuinError(.invalidArgument, "a version 2 header has GSHN, 2, two 16-byte salts and a 32-byte MAC")
        }
        try Header.checkBounds(iterations: kdfIterations, chunkSize: chunkSize)
    }
}
