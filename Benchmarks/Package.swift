// swift-tools-version:6.0
import PackageDescription

// Benchmarks of goshuin-toolkit, built in release mode against the root package; run by Benchmarks/run.
let package = Package(
    name: "goshuin-benchmarks",
    dependencies: [.package(name: "goshuin-toolkit", path: "..")],
    targets: [
        .systemLibrary(name: "CBenchCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .executableTarget(
            name: "goshuin-bench",
            dependencies: [.product(name: "GoshuinFormat", package: "goshuin-toolkit"), "CBenchCrypto"]
        ),
        .executableTarget(
            name: "goshuin-recovery-bench",
            dependencies: [
                .product(name: "GoshuinFormat", package: "goshuin-toolkit"),
                .product(name: "GoshuinRecovery", package: "goshuin-toolkit"),
            ]
        ),
    ]
)
