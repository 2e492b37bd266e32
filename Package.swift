// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "goshuin-toolkit",
    products: [
        .library(name: "GoshuinFormat", targets: ["GoshuinFormat"]),
        .executable(name: "goshuin-tool", targets: ["goshuin-tool"]),
    ],
    targets: [
        // OpenSSL's libcrypto from Debian's libssl-dev. Only Sources/GoshuinFormat/Crypto imports it.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "GoshuinFormat",
            dependencies: ["COpenSSL"]
        ),
        .executableTarget(
            name: "goshuin-tool",
            dependencies: ["GoshuinFormat"]
        ),
        .testTarget(
            name: "GoshuinFormatTests",
            dependencies: ["GoshuinFormat"]
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
