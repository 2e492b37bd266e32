// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "goshuin-toolkit",
    products: [
        .library(name: "GoshuinFormat", targets: ["GoshuinFormat"]),
        .executable(name: "goshuin-tool", targets: ["goshuin-tool"]),
        // The fuzz harness bodies, shared by the fuzzers in Fuzz/ and the regression tests.
        .library(name: "GoshuinFuzzTargets", targets: ["GoshuinFuzzTargets"]),
    ],
    targets: [
        // OpenSSL's libcrypto from Debian's libssl-dev. Only Sources/GoshuinFormat/Crypto imports it.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib and its contrib minizip 1.1 from Debian's zlib1g-dev and libminizip-dev. Only
        // Sources/GoshuinFormat/Backup imports it.
        .systemLibrary(
            name: "CMinizip",
            pkgConfig: "minizip",
            providers: [.apt(["libminizip-dev", "zlib1g-dev"])]
        ),
        .target(
            name: "GoshuinFormat",
            dependencies: ["COpenSSL", "CMinizip"]
        ),
        .executableTarget(
            name: "goshuin-tool",
            dependencies: ["GoshuinFormat"]
        ),
        .target(
            name: "GoshuinFuzzTargets",
            dependencies: ["GoshuinFormat"]
        ),
        .testTarget(
            name: "GoshuinFormatTests",
            dependencies: ["GoshuinFormat", "GoshuinFuzzTargets"]
        ),
        // A developer's tool: random known-answer vector sets for cross-checking other implementations.
        .executableTarget(
            name: "goshuin-vectors",
            dependencies: ["GoshuinFormat"]
        ),
        .testTarget(
            name: "GoshuinToolTests",
            dependencies: ["GoshuinFormat", "goshuin-tool"]
        ),
    ]
)
