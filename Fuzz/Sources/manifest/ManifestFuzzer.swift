// Seeds: Fuzz/Regressions/manifest/*.json
@_spi(Fuzzing) import GoshuinFuzzTargets

/// libFuzzer's entry point: one input through `FuzzHarness.manifest`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.manifest.runFuzzerInput(data, size)
}
