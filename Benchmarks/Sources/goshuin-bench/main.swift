// goshuin-bench: the measurements Benchmarks/run cannot take from the command line, each against a peer
// in the same process and run. Output lines are `key=value` pairs for the script to read.
//
//   goshuin-bench kdf ITERATIONS ROUNDS     OpenSSL's PKCS5_PBKDF2_HMAC, FastPBKDF2, and the floor: the
//                                           2·ITERATIONS chained SHA-256 block calls any PBKDF2 needs
//   goshuin-bench workers FILE WORKERS      seal and open FILE (on /dev/shm) with 1 and with WORKERS workers
import CBenchCrypto
import Glibc
@_spi(Benchmarks) import GoshuinFormat

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
        referenceKey = try Benchmarking.openSSLKey(password: password, salt: salt, iterations: iterations)
    }
    let fast = try best(rounds) {
        fastKey = try Benchmarking.fastKey(password: password, salt: salt, iterations: iterations)
    }
    guard referenceKey == fastKey else {
        print("error=the two PBKDF2 implementations disagree")
        exit(1)
    }
    // Each iteration hashes two blocks, each depending on the previous: the chain's latency is a floor.
    var context = SHA256_CTX()
    SHA256_Init(&context)
    var block = [UInt8](repeating: 0x5C, count: 64)
    let floor = best(rounds) {
        for _ in 0..<(2 * Int(iterations)) {
            SHA256_Transform(&context, block)
            block[0] = UInt8(truncatingIfNeeded: context.h.0)
        }
    }
    print("openssl_seconds=\(reference) fast_seconds=\(fast) floor_seconds=\(floor)")
}

func workers(path: String, count: Int) throws {
    let passphrase = Passphrase("benchmark")
    let parameters = SealParameters(iterations: 1_000)
    var results: [String] = []
    for workerCount in [1, count] {
        let sealed = path + ".w\(workerCount).goshuin"
        let opened = path + ".w\(workerCount).out"
        let sealSeconds = try best(1) {
            try Benchmarking.seal(
                inputPath: path, outputPath: sealed, passphrase: passphrase, parameters: parameters,
                workerCount: workerCount)
        }
        let openSeconds = try best(1) {
            try Benchmarking.open(
                inputPath: sealed, outputPath: opened, passphrase: passphrase, workerCount: workerCount)
        }
        results.append("seal_w\(workerCount)=\(sealSeconds) open_w\(workerCount)=\(openSeconds)")
        unlink(sealed)
        unlink(opened)
    }
    print(results.joined(separator: " "))
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "kdf" where arguments.count == 3:
        try kdf(iterations: UInt32(arguments[1]) ?? 600_000, rounds: Int(arguments[2]) ?? 5)
    case "workers" where arguments.count == 3:
        try workers(path: arguments[1], count: Int(arguments[2]) ?? 2)
    default:
        print("usage: goshuin-bench kdf ITERATIONS ROUNDS | goshuin-bench workers FILE WORKERS")
        exit(64)
    }
} catch {
    print("error=\(error)")
    exit(1)
}
