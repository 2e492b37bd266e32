/// A passphrase: the exact bytes given, with no Unicode normalization and no trimming
/// (`Spec/container-v1.md` §4), held in wipeable memory.
public struct Passphrase: Sendable, CustomStringConvertible {
    /// The longest passphrase goshuin-toolkit seals with or reads from any source, in bytes
    /// (`Spec/container-v1.md` §4).
    public static let maximumLength = 4_096

    /// The passphrase bytes.
    package let bytes: SecretBytes

    /// The UTF-8 bytes of `text`, as they are: an NFC and an NFD spelling are different passphrases.
    public init(_ text: String) {
        bytes = SecretBytes(copying: text.utf8)
    }

    /// Raw passphrase bytes, for passphrases that are not valid UTF-8.
    public init<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        self.bytes = SecretBytes(copying: bytes)
    }

    /// A passphrase holding `secret` itself (no copy is made).
    package init(secret: SecretBytes) {
        bytes = secret
    }

    /// Whether the passphrase has no bytes.
    package var isEmpty: Bool { bytes.count == 0 }

    /// Hides the content.
    public var description: String { "Passphrase(hidden)" }
}
