// The kernels this engine runs best: WebAssembly with SIMD128 where the engine has it and the page's policy
// allows it (CSP 'wasm-unsafe-eval'), plain JavaScript otherwise. Engines refuse at different moments: an
// engine without SIMD128 at compilation, Chromium and Firefox without 'wasm-unsafe-eval' at compilation,
// WebKit only when the module is instantiated; so the whole creation is tried.

/** options: { module } a compiled kernels.wasm (wasmKernelsModule(), sent to a Worker), { javascript: true } */
function createKernels(options) {
  if (!(options && options.javascript) && typeof WebAssembly === "object") {
    try {
      return createWasmKernels(options);
    } catch (error) {
      // the JavaScript kernels below
    }
  }
  return createJsKernels();
}
