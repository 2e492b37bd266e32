// The page's hashes and GF(2^16) region arithmetic, from the kernels of Web/wasm (inlined before this file
// by build.mjs as GoshuinKernels): WebAssembly with SIMD128 where the engine runs it and the page's policy
// allows it ('wasm-unsafe-eval'), else their plain-JavaScript fallback, of the same API and results (both
// are checked against each other and the known answers by Web/wasm/test.mjs, and the page's Node tests run
// with either). One instance a thread (the page's, and each worker's), made when first needed; its memory
// only grows, by what the largest call needs.

import GoshuinKernels from "../../wasm/kernels.mjs";

var kernelsInstance = null;
var kernelsOptions = {};

/** This thread's kernels. */
export function kernels() {
  if (kernelsInstance === null) kernelsInstance = GoshuinKernels.createKernels(kernelsOptions);
  return kernelsInstance;
}

/** Chooses the kernels from now on: `{ javascript: true }` the fallback; returns which runs. For the tests. */
export function useKernels(options) {
  kernelsOptions = options || {};
  kernelsInstance = null;
  return kernels().implementation;
}

/** CRC-32 (ISO 3309) of `bytes` continued from `crc` (0 starts one). */
export function crc32Update(crc, bytes) {
  return kernels().crc32Update(crc, bytes);
}

/** `crc` continued over `count` zero bytes (PAR 2.0 pads a file's last slice with zeros). */
export function crc32Zeros(crc, count) {
  return kernels().crc32Zeros(crc, count);
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and B's length (in logarithmic time). */
export function crc32Combine(crcA, crcB, lengthB) {
  return kernels().crc32Combine(crcA, crcB, lengthB);
}

/** Incremental MD5 (`update`, `updateZeros`, `clone`, `digest`, `saveState`), of this thread's kernels. */
export function Md5() {
  return new (kernels().Md5)();
}

/** An Md5 that goes on from `state` (an Md5's saveState(), of this thread or another). */
export function md5FromState(state) {
  return kernels().Md5.fromState(state);
}

/** MD5 of 1 to MD5_LANES equally long streams at once, one a SIMD lane: `update([a, b, …])`, `digest()` (one each). */
export function Md5Lanes(streams) {
  return new (kernels().Md5Lanes)(streams);
}

export var MD5_LANES = GoshuinKernels.MD5_LANES;

/** Incremental SHA-256, as Md5. */
export function Sha256() {
  return new (kernels().Sha256)();
}

export function md5(bytes) {
  return kernels().md5(bytes);
}

export function sha256(bytes) {
  return kernels().sha256(bytes);
}
