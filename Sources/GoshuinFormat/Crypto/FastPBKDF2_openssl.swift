internal import COpenSSL

/// PBKDF2-HMAC-SHA256 with the HMAC pads hashed once (the fastpbkdf2 approach): each iteration is then two
/// calls of OpenSSL's SHA-256 block function on prepared blocks, instead of two full HMAC computations.
/// Bit-identical to ``PBKDF2/deriveSHA256(password:salt:iterations:length:)`` (the tests compare them on
/// every Wycheproof vector and on random inputs). The measured gain is in `Spec/decisions/0003`.
package enum FastPBKDF2 {
    private static let blockLength = 64
    private static let digestLength = 32
    /// The bit length of a 64-byte pad block plus a 32-byte message: the length field of every block here.
    private static let paddedMessageBits: UInt64 = (64 + 32) * 8

    /// Derives `length` bytes from `password` and `salt` with `iterations` rounds; every
    /// `progressInterval` iterations (never when 0) `progress` gets the iterations done in the block.
    package static func deriveSHA256(
        password: UnsafeRawBufferPointer, salt: [UInt8], iterations: UInt32, length: Int,
        progressInterval: UInt32 = 0, progress: (UInt32) -> Void = { _ in }
    ) throws -> SecretBytes {
        guard iterations >= 1, length >= 1, length <= 32 * 1_024 else {
            throw GoshuinError(.invalidArgument, "PBKDF2 parameters out of range")
        }
        var pads = try HMACPads(password: password)
        defer { pads.wipe() }
        return try SecretBytes(count: length) { output in
            var blockIndex: UInt32 = 1
            var produced = 0
            while produced < length {
                var block = try derivedBlock(
                    pads: &pads, salt: salt, blockIndex: blockIndex, iterations: iterations,
                    progressInterval: progressInterval, progress: progress)
                let count = min(digestLength, length - produced)
                block.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: output[produced..<produced + count]).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
                }
                SecretBytes.wipe(&block)
                produced += count
                blockIndex += 1
            }
        }
    }

    /// `T_i = U_1 ⊕ … ⊕ U_c` for block `blockIndex` (RFC 8018 §5.2).
    private static func derivedBlock(
        pads: inout HMACPads, salt: [UInt8], blockIndex: UInt32, iterations: UInt32, progressInterval: UInt32,
        progress: (UInt32) -> Void
    ) throws -> [UInt8] {
        // U_1 = HMAC(P, S ‖ INT(i)), with the ordinary update and final calls.
        var inner = pads.inner
        var outer = pads.outer
        var digest = [UInt8](repeating: 0, count: digestLength)
        defer {
            SecretBytes.wipe(&digest)
            withUnsafeMutableBytes(of: &inner) { secureZero($0) }
            withUnsafeMutableBytes(of: &outer) { secureZero($0) }
        }
        let counter = withUnsafeBytes(of: blockIndex.bigEndian) { Array($0) }
        try requireOpenSSLSuccess(
            salt.withUnsafeBytes { SHA256_Update(&inner, $0.baseAddress, $0.count) }, "SHA256_Update")
        try requireOpenSSLSuccess(counter.withUnsafeBytes { SHA256_Update(&inner, $0.baseAddress, 4) }, "SHA256_Update")
        try requireOpenSSLSuccess(SHA256_Final(&digest, &inner), "SHA256_Final")
        try requireOpenSSLSuccess(SHA256_Update(&outer, digest, digestLength), "SHA256_Update")
        try requireOpenSSLSuccess(SHA256_Final(&digest, &outer), "SHA256_Final")
        var result = digest
        guard iterations > 1 else { return result }

        // U_j = HMAC(P, U_{j-1}): one prepared block for the inner hash (U ‖ padding), one for the outer
        // (inner digest ‖ padding); each hash is then one block-function call from the saved pad state.
        let innerBlock = UnsafeMutableRawBufferPointer.allocate(byteCount: blockLength, alignment: 16)
        let outerBlock = UnsafeMutableRawBufferPointer.allocate(byteCount: blockLength, alignment: 16)
        defer {
            secureZero(innerBlock)
            secureZero(outerBlock)
            innerBlock.deallocate()
            outerBlock.deallocate()
        }
        for block in [innerBlock, outerBlock] {
            block.initializeMemory(as: UInt8.self, repeating: 0)
            block[digestLength] = 0x80
            block.storeBytes(of: paddedMessageBits.bigEndian, toByteOffset: blockLength - 8, as: UInt64.self)
        }
        digest.withUnsafeBytes { innerBlock.copyMemory(from: $0) }
        var accumulated = Words(bigEndianBytes: UnsafeRawBufferPointer(innerBlock))
        let innerBase = innerBlock.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let outerBase = outerBlock.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var untilReport = progressInterval
        for iteration in 1..<iterations {
            // A requested stop (Ctrl-C) ends even 2,000,000 iterations within a few milliseconds.
            if iteration & 0xFFFF == 0 { try Interruption.check() }
            if untilReport == 1 {
                progress(iteration)
                untilReport = progressInterval
            } else if untilReport > 1 {
                untilReport -= 1
            }
            inner.h = pads.inner.h
            SHA256_Transform(&inner, innerBase)
            Words(inner.h).storeBigEndian(into: outerBlock)
            outer.h = pads.outer.h
            SHA256_Transform(&outer, outerBase)
            let next = Words(outer.h)
            next.storeBigEndian(into: innerBlock)
            accumulated.formXor(next)
        }
        accumulated.storeBigEndian(into: &result)
        return result
    }
}

/// The SHA-256 states after absorbing the HMAC key XOR ipad and XOR opad blocks.
private struct HMACPads {
    var inner = SHA256_CTX()
    var outer = SHA256_CTX()

    init(password: UnsafeRawBufferPointer) throws {
        var key = [UInt8](repeating: 0, count: 64)
        defer { SecretBytes.wipe(&key) }
        if password.count > 64 {
            _ = SHA256(password.baseAddress?.assumingMemoryBound(to: UInt8.self), password.count, &key)
        } else if let base = password.baseAddress {
            key.withUnsafeMutableBytes {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: password.count))
            }
        }
        var innerPad = key.map { $0 ^ 0x36 }
        var outerPad = key.map { $0 ^ 0x5C }
        defer {
            SecretBytes.wipe(&innerPad)
            SecretBytes.wipe(&outerPad)
        }
        try requireOpenSSLSuccess(SHA256_Init(&inner), "SHA256_Init")
        try requireOpenSSLSuccess(SHA256_Update(&inner, innerPad, 64), "SHA256_Update")
        try requireOpenSSLSuccess(SHA256_Init(&outer), "SHA256_Init")
        try requireOpenSSLSuccess(SHA256_Update(&outer, outerPad, 64), "SHA256_Update")
    }

    mutating func wipe() {
        withUnsafeMutableBytes(of: &inner) { secureZero($0) }
        withUnsafeMutableBytes(of: &outer) { secureZero($0) }
    }
}

/// Eight SHA-256 words.
private struct Words {
    var values: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    init(_ state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)) { values = state }

    init(bigEndianBytes bytes: UnsafeRawBufferPointer) {
        func word(_ index: Int) -> UInt32 {
            UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        }
        values = (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
    }

    mutating func formXor(_ other: Words) {
        values.0 ^= other.values.0
        values.1 ^= other.values.1
        values.2 ^= other.values.2
        values.3 ^= other.values.3
        values.4 ^= other.values.4
        values.5 ^= other.values.5
        values.6 ^= other.values.6
        values.7 ^= other.values.7
    }

    func storeBigEndian(into buffer: UnsafeMutableRawBufferPointer) {
        buffer.storeBytes(of: values.0.bigEndian, toByteOffset: 0, as: UInt32.self)
        buffer.storeBytes(of: values.1.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: values.2.bigEndian, toByteOffset: 8, as: UInt32.self)
        buffer.storeBytes(of: values.3.bigEndian, toByteOffset: 12, as: UInt32.self)
        buffer.storeBytes(of: values.4.bigEndian, toByteOffset: 16, as: UInt32.self)
        buffer.storeBytes(of: values.5.bigEndian, toByteOffset: 20, as: UInt32.self)
        buffer.storeBytes(of: values.6.bigEndian, toByteOffset: 24, as: UInt32.self)
        buffer.storeBytes(of: values.7.bigEndian, toByteOffset: 28, as: UInt32.self)
    }

    func storeBigEndian(into bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { storeBigEndian(into: $0) }
    }
}
