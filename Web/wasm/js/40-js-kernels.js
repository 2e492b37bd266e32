// The kernels in plain JavaScript, for engines without WebAssembly SIMD (or where a policy forbids it): the
// same API as the wasm's (50-wasm-kernels.js), and the second opinion the tests hold the wasm to.

/** A buffer of the JavaScript kernels: an ordinary array, which every kernel reads in place. */
class ArrayKernelBuffer {
  constructor(length) {
    this.length = requireCount(length, "a buffer's length");
    this.array = new Uint8Array(length);
  }

  get bytes() {
    if (this.array === null) throw new Error("this buffer was freed");
    return this.array;
  }

  free() {
    this.array = null;
  }
}

function createJsKernels() {
  return {
    implementation: "javascript",
    allocate: function (length) {
      return new ArrayKernelBuffer(length);
    },
    isInMemory: function (bytes) {
      return bytes instanceof Uint8Array;
    },
    memoryBytes: function () {
      return 0;
    },
    crc32Update: function (crc, bytes) {
      return crc32UpdateJs(crc, requireBytes(bytes, "the bytes to check"));
    },
    crc32Zeros: crc32ZerosJs,
    crc32Combine: crc32CombineJs,
    Md5: Md5Js,
    Md5Lanes: Md5LanesJs,
    Sha256: Sha256Js,
    md5: function (bytes) {
      return new Md5Js().update(bytes).digest();
    },
    sha256: function (bytes) {
      return new Sha256Js().update(bytes).digest();
    },
    gf16MulAdd: gf16MulAddJs,
  };
}
