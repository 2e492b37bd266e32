/// One fuzz harness: a name and the function that runs one input through the code under test and checks its
/// invariants.
///
/// The function may see any bytes. Rejecting the input is fine; a broken invariant traps with
/// `preconditionFailure`, which is what libFuzzer reports as a crash. The same function runs in the fuzzer
/// executable `Fuzz/Sources/<name>/` and in `FuzzRegressionTests`, which replays `Fuzz/Regressions/<name>/`.
@_spi(Fuzzing) public struct FuzzHarness: Sendable, CustomStringConvertible {
    /// Every harness. A new one is a file in `Sources/GoshuinFuzzTargets` plus a line here, then its shim in
    /// `Fuzz/` (`Fuzz/README.md`).
    @_spi(Fuzzing) public static let all: [FuzzHarness] = [
        .headerDecode,
        .containerOpen,
        .sealedContainerMutation,
        .jsonDocuments,
        .entryNames,
        .manifest,
        .zipStructure,
        .decryptingReader,
        .containerV2Open,
        .sealedContainerV2Mutation,
        .recoveryPackets,
    ]

    /// The name of the harness's executable in `Fuzz/` and of its folders and dictionary there.
    @_spi(Fuzzing) public let name: String
    private let body: @Sendable ([UInt8]) -> Void

    /// A harness called `name` whose `body` checks one input, trapping on a broken invariant.
    @_spi(Fuzzing) public init(name: String, body: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.body = body
    }

    /// Runs one input; traps when an invariant does not hold.
    @_spi(Fuzzing) public func run(_ input: [UInt8]) {
        body(input)
    }

    /// The body of `LLVMFuzzerTestOneInput`: runs the `size` bytes at `data` and returns 0, which lets libFuzzer
    /// keep the input in its corpus.
    @_spi(Fuzzing) public func runFuzzerInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// The harness's name.
    @_spi(Fuzzing) public var description: String { name }
}
