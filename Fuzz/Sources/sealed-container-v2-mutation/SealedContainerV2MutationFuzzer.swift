// No seeds from KnownAnswer/: its input is parameters, not a file. Fuzz/Regressions/ starts its corpus.
@_spi(Fuzzing) import GoshuinFuzzTargets

/// libFuzzer's entry point: one input through `FuzzHarness.sealedContainerV2Mutation`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.sealedContainerV2Mutation.runFuzzerInput(data, size)
}
