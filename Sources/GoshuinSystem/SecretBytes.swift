/// Bytes that must not outlive their use (a passphrase, a key): held in memory of their own and wiped
/// when the last reference goes away.
///
/// The bytes are never printed: `description` hides them.
package final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: the storage is written only during init; afterwards it is read-only until deinit.
    private let storage: UnsafeMutableRawBufferPointer
    /// The length of the storage's pages (``SecretMemory``); `nil` for memory from the allocator.
    private let mappedLength: Int?

    /// Copies `bytes` into wipeable storage.
    package init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        (storage, mappedLength) = Self.makeStorage(bytes.count)
        _ = UnsafeMutableRawBufferPointer(rebasing: storage[0..<bytes.count]).initializeMemory(
            as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// Allocates `count` zero bytes and lets `fill` write them once.
    package init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        (storage, mappedLength) = Self.makeStorage(count)
        self.count = count
        // Every property is set: if `fill` throws, the object is released and `deinit` wipes and frees the
        // storage (freeing it here as well was a double free, seen when a key derivation was interrupted).
        try fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Zeroed storage for `count` bytes: secret pages where the system gives them, the allocator otherwise
    /// (a few bytes, so a refusal there is the trap it has always been).
    private static func makeStorage(_ count: Int) -> (UnsafeMutableRawBufferPointer, Int?) {
        if let secret = SecretMemory.allocate(count) { return (secret.bytes, secret.mappedLength) }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        return (storage, nil)
    }

    deinit {
        if let mappedLength {
            SecretMemory.release(storage, mappedLength: mappedLength)
        } else {
            secureZero(storage)
            storage.deallocate()
        }
    }

    /// The number of bytes.
    package let count: Int

    /// Gives `body` read access to the bytes; they must not be copied out of it.
    package func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// A copy of the bytes as an array, for tests and known-answer vectors only; the copy is not wiped.
    package var exposedBytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Overwrites an array's bytes with zeros in a way the compiler cannot elide.
    package static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { secureZero($0) }
    }

    /// Hides the content.
    package var description: String { "SecretBytes(\(count) bytes)" }
}

/// Overwrites memory with zeros in a way the compiler cannot elide: secrets, keys and plaintext buffers
/// before they are freed.
@inline(__always)
package func secureZero(_ buffer: UnsafeMutableRawBufferPointer) { SystemCall.wipe(buffer) }
