/// A passphrase: the exact bytes given, with no Unicode normalization and no trimming
/// (`Spec/container-v1.md` §4), held in wipeable memory.
public struct Passphrase: Sendable, CustomStringConvertible {
    /// The longest passphrase goshuin-toolkit seals with or reads from any source, in bytes
    /// (`Spec/container-v1.md` §4).
    public static let maximumLength = 4_096

    /// The passphrase bytes.
    package let bytes: SecretBytes
    /// The keys derived from it so far, shared by its copies (``KeyDerivation``).
    package let derivedKeys = DerivedKeyMemo()

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

/// The keys derived from one passphrase, by salt and iteration count: a file whose first bytes were
/// authenticated as they arrived (``LeadingAuthentication``) is then read with the key already derived,
/// not after a second PBKDF2 of hundreds of thousands of iterations. The keys are secrets, wiped with the
/// passphrase's last copy; a few are kept at most.
package final class DerivedKeyMemo: Sendable {
    private struct Entry: Sendable {
        let salt: [UInt8]
        let iterations: UInt32
        let key: SecretBytes
    }

    private let entries = LockedState<[Entry]>([])
    private static let limit = 4

    /// The key derived for `salt` and `iterations`, if it was.
    package func key(salt: [UInt8], iterations: UInt32) -> SecretBytes? {
        entries.withLock { all in all.first { $0.salt == salt && $0.iterations == iterations }?.key }
    }

    /// Keeps `key` as the one derived for `salt` and `iterations`.
    package func remember(_ key: SecretBytes, salt: [UInt8], iterations: UInt32) {
        entries.withLock { all in
            all.removeAll { $0.salt == salt && $0.iterations == iterations }
            all.append(Entry(salt: salt, iterations: iterations, key: key))
            if all.count > Self.limit { all.removeFirst() }
        }
    }
}
