// swift-tools-version:6.0
import PackageDescription

// One module per layer, each looking only down (Spec/decisions/0013):
//   goshuin-tool, goshuin-vectors       the command-line tools
//   GoshuinVectors                      known-answer vectors: format, checker, generator (package access:
//                                       goshuin-tool check and goshuin-vectors are its programs)
//   GoshuinBackup                       the backup payload: manifest, names, ZIP records, scan, read and write
//   GoshuinRecovery                     PAR 2.0 recovery sets beside a file: protect, verify, repair
//   GoshuinFormat                       the container; its internals (Crypto, Encoding) at package access
//   GoshuinSystem                       descriptors, atomic output, threads, signals, terminals, the one
//                                       error type: thin forwarders over the C library, at package access
let package = Package(
    name: "goshuin-toolkit",
    products: [
        .library(name: "GoshuinFormat", targets: ["GoshuinFormat"]),
        .library(name: "GoshuinBackup", targets: ["GoshuinBackup"]),
        .library(name: "GoshuinRecovery", targets: ["GoshuinRecovery"]),
        .executable(name: "goshuin-tool", targets: ["goshuin-tool"]),
        // The fuzz harness bodies, shared by the fuzzers in Fuzz/ and the regression tests.
        .library(name: "GoshuinFuzzTargets", targets: ["GoshuinFuzzTargets"]),
    ],
    targets: [
        // OpenSSL's libcrypto from Debian's libssl-dev. Only Sources/GoshuinFormat/Crypto/*_openssl.swift import
        // it.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib from Debian's zlib1g-dev: inflate and deflate. Only GoshuinBackup imports it.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libdeflate from Debian's libdeflate-dev: its CRC-32 (Spec/decisions/0016), of ZIP entries and of PAR 2.0
        // slices. Only Sources/GoshuinFormat/Encoding/CRC32_libdeflate.swift imports it.
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // The C library declarations Swift's Glibc module lacks (prctl, extended attributes). Only
        // Sources/GoshuinSystem/SystemCall*_glibc.swift import it.
        .systemLibrary(name: "CSystem"),
        // GF(2^16) region multiply-accumulate for PAR 2.0's Reed-Solomon code: portable C, SSSE3 and AVX2
        // split-table kernels, chosen at run time. Only
        // Sources/GoshuinRecovery/RegionKernel_galoisregion.swift imports it.
        .target(name: "CGaloisRegion"),
        // MD5 of up to eight equally long streams at once, for the slices of a recovery set: portable C and an
        // AVX2 multi-buffer kernel, chosen at run time (Spec/decisions/0046). Only
        // Sources/GoshuinRecovery/SliceDigests_md5lanes.swift imports it.
        .target(name: "CMD5Lanes"),
        .target(
            name: "GoshuinSystem",
            dependencies: ["CSystem"],
            // The fault seam (Sources/GoshuinSystem/FaultInjection.swift): debug builds only, as swift-system's
            // ENABLE_MOCKING.
            swiftSettings: [.define("GOSHUIN_FAULT_INJECTION", .when(configuration: .debug))]
        ),
        .target(
            name: "GoshuinFormat",
            dependencies: ["GoshuinSystem", "COpenSSL", "CDeflate"]
        ),
        .target(
            name: "GoshuinRecovery",
            dependencies: ["GoshuinSystem", "GoshuinFormat", "CGaloisRegion", "CMD5Lanes"]
        ),
        .target(
            name: "GoshuinBackup",
            dependencies: ["GoshuinSystem", "GoshuinFormat", "CZlib"]
        ),
        .target(
            name: "GoshuinVectors",
            dependencies: ["GoshuinSystem", "GoshuinFormat"]
        ),
        .executableTarget(
            name: "goshuin-tool",
            dependencies: ["GoshuinSystem", "GoshuinFormat", "GoshuinBackup", "GoshuinRecovery", "GoshuinVectors"]
        ),
        // A developer's tool: random known-answer vector sets for cross-checking other implementations.
        .executableTarget(
            name: "goshuin-vectors",
            dependencies: ["GoshuinVectors"]
        ),
        // The README's Swift example, run by GoshuinToolTests in a folder of its own and checked to use only
        // the public API.
        .executableTarget(
            name: "goshuin-readme-example",
            dependencies: ["GoshuinFormat", "GoshuinBackup", "GoshuinRecovery"]
        ),
        .target(
            name: "GoshuinFuzzTargets",
            dependencies: ["GoshuinSystem", "GoshuinFormat", "GoshuinBackup", "GoshuinRecovery", "GoshuinVectors"]
        ),
        // What the test targets share: fixtures, a temporary directory, ZIPs built byte by byte, and the slow
        // tier's trait (README, "Developing").
        .target(
            name: "GoshuinTestSupport", dependencies: ["GoshuinFormat", "GoshuinBackup", "GoshuinRecovery"],
            path: "Tests/GoshuinTestSupport"),
        // One test target per library module; the tool's tests and the project-wide checks in GoshuinToolTests
        // and GoshuinFormatTests (error code lists, fuzz regressions, the decisions index).
        .testTarget(
            name: "GoshuinSystemTests",
            dependencies: ["GoshuinSystem", "GoshuinFormat", "GoshuinBackup", "GoshuinTestSupport"]
        ),
        .testTarget(
            name: "GoshuinFormatTests",
            dependencies: ["GoshuinFormat", "GoshuinBackup", "GoshuinFuzzTargets", "GoshuinTestSupport"]
        ),
        .testTarget(
            name: "GoshuinBackupTests",
            dependencies: ["GoshuinFormat", "GoshuinBackup", "GoshuinTestSupport"]
        ),
        .testTarget(
            name: "GoshuinVectorsTests",
            dependencies: ["GoshuinFormat", "GoshuinVectors", "GoshuinTestSupport"]
        ),
        .testTarget(
            name: "GoshuinRecoveryTests",
            dependencies: ["GoshuinFormat", "GoshuinRecovery", "GoshuinBackup", "GoshuinTestSupport"]
        ),
        .testTarget(
            name: "GoshuinToolTests",
            dependencies: [
                "GoshuinSystem", "GoshuinFormat", "GoshuinBackup", "GoshuinTestSupport", "goshuin-tool",
                "goshuin-readme-example",
            ]
        ),
    ]
)
