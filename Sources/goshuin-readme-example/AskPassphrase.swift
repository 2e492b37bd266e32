import GoshuinFormat

/// The example's prompt: the passphrase is the first line of standard input, read once and given each time
/// the library asks.
func askPassphrase() -> Passphrase { Passphrase(firstLine) }

/// Standard input's first line.
private let firstLine = readLine() ?? ""
