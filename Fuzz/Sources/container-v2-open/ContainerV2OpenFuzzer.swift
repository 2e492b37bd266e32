// Seeds: KnownAnswer/v2-*.goshuin
@_spi(Fuzzing) import GoshuinFuzzTargets

/// libFuzzer's entry point: one input through `FuzzHarness.containerV2Open`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.containerV2Open.runFuzzerInput(data, size)
}
