/// The options of `goshuin-tool`, by their long names: the one place each is spelled.
enum OptionName: String, CaseIterable {
    case output = "--output"
    case extract = "--extract"
    case force = "--force"
    case quiet = "--quiet"
    case json = "--json"
    case help = "--help"
    case iterations = "--iterations"
    case chunkSize = "--chunk-size"
    case passphraseFile = "--passphrase-file"
    case passphraseDescriptor = "--passphrase-fd"
    case list = "--list"
    case backup = "--backup"
    case leaveOutUnsupported = "--leave-out-unsupported"
    case salvage = "--salvage"
    case format = "--format"
    case redundancy = "--redundancy"
    case recovery = "--recovery"
    case inPlace = "--in-place"
    case newPassphraseFile = "--new-passphrase-file"
    case newPassphraseDescriptor = "--new-passphrase-fd"
    case askNewPassphrase = "--ask-new-passphrase"
}

/// One option a command accepts.
struct OptionSpec {
    /// The long name.
    let name: OptionName
    /// The short name, such as `-o`.
    let short: String?
    /// The placeholder of its value; `nil` for a flag.
    let valueName: String?
    /// One line of help.
    let help: String

    init(_ name: OptionName, short: String? = nil, value valueName: String? = nil, _ help: String) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
    }
}
