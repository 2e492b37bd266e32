// Seeds: KnownAnswer/*.json
@_spi(Fuzzing) import GoshuinFuzzTargets

/// libFuzzer's entry point: one input through `FuzzHarness.jsonDocuments`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.jsonDocuments.runFuzzerInput(data, size)
}
