// The kernels this engine runs best: WebAssembly with SIMD128 where the engine has it and the page's policy
// allows it (CSP 'wasm-unsafe-eval'), plain JavaScript otherwise.

/** Whether this engine compiles kernels.wasm (WebAssembly with SIMD128 and bulk memory). */
function wasmKernelsAvailable() {
  try {
    wasmKernelsModule();
    return true;
  } catch (error) {
    return false;
  }
}

/** options: { module } a compiled kernels.wasm (wasmKernelsModule(), sent to a Worker), { javascript: true } */
function createKernels(options) {
  if (!(options && options.javascript) && typeof WebAssembly === "object" && (options && options.module || wasmKernelsAvailable()))
    return createWasmKernels(options);
  return createJsKernels();
}
