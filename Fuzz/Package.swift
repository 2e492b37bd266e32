// swift-tools-version:6.0
import PackageDescription

// The fuzzers of goshuin-toolkit, built with libFuzzer and AddressSanitizer by `Fuzz/run` (see README.md).
// Each harness is an executable `Sources/<name>/` whose only file forwards libFuzzer's input to
// `FuzzHarness.<name>` of the root package's GoshuinFuzzTargets library.
let harnesses = [
    "header-decode",
    "container-open",
    "sealed-container-mutation",
    "json-documents",
    "entry-names",
    "manifest",
    "zip-structure",
    "decrypting-reader",
    "container-v2-open",
    "sealed-container-v2-mutation",
    "recovery-packets",
]

let package = Package(
    name: "goshuin-fuzz",
    dependencies: [
        .package(name: "goshuin-toolkit", path: "..")
    ],
    targets: harnesses.map { harness in
        .executableTarget(
            name: harness,
            dependencies: [.product(name: "GoshuinFuzzTargets", package: "goshuin-toolkit")]
        )
    }
)
