import GoshuinFormat

/// Reads `manifest.json` (`Spec/backup-v1.md` §2) value by value with the shape of a manifest in mind: the
/// document an object of exactly the manifest's keys, `records` an entry object, `photos` an array of at
/// most ``Manifest/maximumPhotoCount`` entry objects. A value of the wrong shape is refused where it starts,
/// before anything inside it is read: no hostile manifest is ever held as a tree of JSON values.
struct ManifestReader {
    private var json: StrictJSONParser

    init(_ bytes: [UInt8]) { json = StrictJSONParser.reader(bytes) }

    /// The manifest; throws `manifest_invalid` for a rule broken, a ``JSONSyntaxError`` for bad JSON.
    mutating func read() throws -> Manifest {
        var format: JSONValue?
        var version: JSONValue?
        var createdAt: JSONValue?
        var records: Manifest.FileEntry?
        var photos: [Manifest.FileEntry]?
        try readObject(
            at: "manifest", keys: ["format", "version", "createdAt", "records", "photos"]
        ) { reader, key in
            switch key {
            case "format": format = try reader.scalar(at: key)
            case "version": version = try reader.scalar(at: key)
            case "createdAt": createdAt = try reader.scalar(at: key)
            case "records": records = try reader.fileEntry(at: "records")
            default: photos = try reader.photoEntries()
            }
        }
        try json.finish()
        guard case .string(Manifest.formatName)? = format else {
            throw GoshuinError.manifestInvalid("format is not \"\(Manifest.formatName)\"")
        }
        guard version?.integerValue == Manifest.version else { throw GoshuinError.manifestInvalid("version is not 1") }
        guard case .string(let created)? = createdAt else {
            throw GoshuinError.manifestInvalid("createdAt is not a string")
        }
        guard let records, let photos else { throw GoshuinError.manifestInvalid("manifest lacks its entries") }
        return try Manifest(createdAt: created, records: records, photos: photos)
    }

    /// Reads an object whose keys must be exactly `keys`, each once, calling `member` with the reader at
    /// each key's value (which it must read).
    private mutating func readObject(
        at path: String, keys: [String], _ member: (inout ManifestReader, String) throws -> Void
    ) throws {
        guard json.nextValueKind == .object else { throw GoshuinError.manifestInvalid("\(path) is not an object") }
        try json.beginObject()
        var seen = Set<String>()
        while let key = try json.nextKey() {
            guard keys.contains(key) else {
                throw GoshuinError.manifestInvalid(
                    "\(path) has the key \(DisplayText.quoted(key)), which a backup may not hold")
            }
            guard seen.insert(key).inserted else {
                throw GoshuinError.manifestInvalid(
                    "manifest.json is not valid JSON: duplicate key \(DisplayText.quoted(key)) in \(path)")
            }
            try member(&self, key)
        }
        if let missing = keys.first(where: { !seen.contains($0) }) {
            throw GoshuinError.manifestInvalid("\(path) lacks \"\(missing)\"")
        }
    }

    /// A value that must be a string, a number or a literal: an object or an array there is refused unread.
    private mutating func scalar(at path: String) throws -> JSONValue {
        guard let kind = json.nextValueKind, kind != .object, kind != .array else {
            throw GoshuinError.manifestInvalid("\(path) is not a string or a number")
        }
        return try json.readScalar()
    }

    /// `photos`: an array of entry objects, at most ``Manifest/maximumPhotoCount`` of them.
    private mutating func photoEntries() throws -> [Manifest.FileEntry] {
        guard json.nextValueKind == .array else { throw GoshuinError.manifestInvalid("photos is not an array") }
        try json.beginArray()
        var entries: [Manifest.FileEntry] = []
        while try json.nextElement() {
            guard entries.count < Manifest.maximumPhotoCount else {
                throw GoshuinError.manifestInvalid(
                    "photos lists more than \(Manifest.maximumPhotoCount) photos, the most a backup holds")
            }
            entries.append(try fileEntry(at: "photos[\(entries.count)]"))
        }
        return entries
    }

    /// An entry object `{name, size, sha256}`.
    private mutating func fileEntry(at path: String) throws -> Manifest.FileEntry {
        var name: JSONValue?
        var size: JSONValue?
        var digest: JSONValue?
        try readObject(at: path, keys: ["name", "size", "sha256"]) { reader, key in
            let value = try reader.scalar(at: "\(path).\(key)")
            switch key {
            case "name": name = value
            case "size": size = value
            default: digest = value
            }
        }
        guard case .string(let entryName)? = name else {
            throw GoshuinError.manifestInvalid("\(path).name is not a string")
        }
        // Digits only: `-0` has the value 0 but a sign no writer of sizes puts there.
        guard case .number(let text)? = size, !text.hasPrefix("-"), let bytes = size?.integerValue else {
            throw GoshuinError.manifestInvalid(
                "\(path).size is not a whole number from 0 to 2^53 − 1, written with digits only")
        }
        guard case .string(let hex)? = digest, let sha256 = Hex.decode(hex), sha256.count == 32 else {
            throw GoshuinError.manifestInvalid("\(path).sha256 is not 64 lower-case hex digits")
        }
        return Manifest.FileEntry(name: entryName, size: UInt64(bytes), sha256: sha256)
    }
}
