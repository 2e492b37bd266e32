// Seeds: Fuzz/Regressions/recovery-packets/*
@_spi(Fuzzing) import GoshuinFuzzTargets

/// libFuzzer's entry point: one input through `FuzzHarness.recoveryPackets`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.recoveryPackets.runFuzzerInput(data, size)
}
