/// A creator packet (`Spec/recovery-par2.md` §3.6): the name of the program that wrote the file, ASCII,
/// padded with zeros to a multiple of 4. Readers show it and ignore it otherwise.
struct CreatorPacket: Equatable, Sendable {
    /// The longest client text a reader keeps (par2cmdline's bound).
    static let maximumBodyLength = 100_000
    /// What goshuin-toolkit writes.
    static let goshuinToolkit = CreatorPacket(client: Array("Created by goshuin-toolkit recovery 1.".utf8))

    /// The text, without its padding.
    let client: [UInt8]

    /// A packet with this text.
    init(client: [UInt8]) { self.client = client }

    /// The packet from its body; `nil` when it is too long or empty.
    init?(body: ArraySlice<UInt8>) {
        guard body.count <= Self.maximumBodyLength else { return nil }
        client = PacketEncoding.withoutTrailingZeros(body)
        guard !client.isEmpty else { return nil }
    }

    /// The body's bytes.
    var body: [UInt8] { PacketEncoding.paddedToFour(client) }
}
