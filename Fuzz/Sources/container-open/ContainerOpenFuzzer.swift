// Seeds: KnownAnswer/*.goshuin
// Options: -detect_leaks=0
// (The parallel open's Dispatch workers keep allocations across inputs, so libFuzzer would run a leak scan
// after every input: 12 times slower. header-decode and json-documents keep the leak check.)
@_spi(Fuzzing) import GoshuinFuzzTargets

/// libFuzzer's entry point: one input through `FuzzHarness.containerOpen`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.containerOpen.runFuzzerInput(data, size)
}
