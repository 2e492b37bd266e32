import Glibc
// goshuin-bench: the measurements Benchmarks/run cannot take from the command line, each a ratio against
// a peer in the same process and run.
//
//   goshuin-bench kdf ITERATIONS ROUNDS   OpenSSL's PKCS5_PBKDF2_HMAC against FastPBKDF2, best of ROUNDS each
import GoshuinFormat

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The best wall time of `rounds` runs of `body`.
func best(_ rounds: Int, _ body: () throws -> Void) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<rounds {
        let start = now()
        try body()
        fastest = min(fastest, now() - start)
    }
    return fastest
}

func kdf(iterations: UInt32, rounds: Int) throws {
    let password = Array("correct horse battery staple".utf8)
    let salt = (0..<16).map { UInt8($0) }
    var referenceKey: [UInt8] = []
    var fastKey: [UInt8] = []
    let reference = try best(rounds) {
        referenceKey = try password.withUnsafeBytes {
            try PBKDF2.deriveSHA256(password: $0, salt: salt, iterations: iterations, length: 32).exposedBytes
        }
    }
    let fast = try best(rounds) {
        fastKey = try password.withUnsafeBytes {
            try FastPBKDF2.deriveSHA256(password: $0, salt: salt, iterations: iterations, length: 32).exposedBytes
        }
    }
    guard referenceKey == fastKey else {
        print("MISMATCH: the two implementations disagree")
        exit(1)
    }
    print("kdf iterations=\(iterations) openssl_seconds=\(reference) fast_seconds=\(fast) ratio=\(fast / reference)")
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "kdf":
        let iterations = arguments.count > 1 ? UInt32(arguments[1]) ?? 600_000 : 600_000
        let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
        try kdf(iterations: iterations, rounds: rounds)
    default:
        print("usage: goshuin-bench kdf [ITERATIONS] [ROUNDS]")
        exit(64)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
