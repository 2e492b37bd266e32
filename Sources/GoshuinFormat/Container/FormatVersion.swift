/// The container format versions this toolkit reads and writes: a file's version byte chooses one, alone
/// and once (`Spec/container-v2.md` §7, check 3; `Spec/decisions/0030`).
public enum FormatVersion: UInt8, Sendable, CaseIterable {
    /// `Spec/container-v1.md`: a 45-byte header holding the payload length, length-prefixed chunks.
    case v1 = 1
    /// `Spec/container-v2.md`: a 77-byte header with a MAC, records without prefixes, a flagged final record.
    case v2 = 2

    /// The header's size in bytes.
    package var headerLength: Int {
        switch self {
        case .v1: return 45
        case .v2: return 77
        }
    }
}
