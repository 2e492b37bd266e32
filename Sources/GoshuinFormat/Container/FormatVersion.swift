/// The container format versions this toolkit reads and writes: a file's version byte chooses one, alone
/// and once (`Spec/container-v2.md` §7, check 3; `Spec/decisions/0030`).
public enum FormatVersion: UInt8, Sendable, CaseIterable, Comparable {
    /// `Spec/container-v1.md`: a 45-byte header holding the payload length, length-prefixed chunks.
    case v1 = 1
    /// `Spec/container-v2.md`: a 77-byte header with a MAC, records without prefixes, a flagged final record.
    case v2 = 2

    /// The version writers use unless another is asked for: version 1, until the app reads version 2.
    public static let sealingDefault = FormatVersion.v1

    /// The header's size in bytes.
    public var headerLength: Int {
        switch self {
        case .v1: return 45
        case .v2: return 77
        }
    }

    /// Versions order by their number.
    public static func < (lhs: FormatVersion, rhs: FormatVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}
