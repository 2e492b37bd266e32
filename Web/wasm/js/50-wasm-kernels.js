// The kernels in WebAssembly with SIMD128 (kernels.wasm, built by build.mjs from src/*.c and embedded
// below as base64): one module, one linear memory that every kernel reads, so that bytes put there once
// (`allocate`) are checked by CRC-32, hashed by MD5 and multiplied into targets without another copy.
//
// Memory: [stack | static data | control block | staging | buffers handed out by `allocate` …]. The
// control block holds a hash's state during a call, a digest, and the addresses and coefficients of a
// multiply-add. Bytes not in the module's memory are copied through the staging area a piece at a time.
// The memory grows when `allocate` needs more and never shrinks: a kernels object dropped frees it all.
//
// Every kernel call is bounded (CALL_BYTES): engines switch a function from its first, quickly compiled
// code to its optimized code only between calls (V8 has no on-stack replacement for wasm), so one call
// over a gigabyte would run unoptimized throughout.

var WASM_PAGE_BYTES = 65536;
var CALL_BYTES = 1 << 20;
var STAGING_BYTES = 1 << 20;
var BUFFER_ALIGNMENT = 16;

// The control block, at the module's __heap_base.
var CONTROL_STATE = 0; // a hash's state during a call (md5_lanes: 336 bytes)
var CONTROL_DIGEST = 512; // up to 4 × 16 bytes
var CONTROL_LANES = 576; // MD5_LANES addresses
var CONTROL_TARGETS = 640; // GF16_TARGETS_PER_CALL addresses
var CONTROL_COEFFICIENTS = 768; // GF16_TARGETS_PER_CALL 16-bit coefficients
var CONTROL_BYTES = 1024;

var compiledKernelsModule = null;

/** The compiled kernels.wasm, compiled once (a Worker can be sent it: createKernels({ module })). */
function wasmKernelsModule() {
  if (compiledKernelsModule === null) {
    var text = atob(KERNELS_WASM_BASE64);
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    compiledKernelsModule = new WebAssembly.Module(bytes);
  }
  return compiledKernelsModule;
}

/** First-fit allocation of the module's memory from `start` up, growing it when nothing fits. */
class LinearMemoryAllocator {
  constructor(memory, start) {
    this.memory = memory;
    this.formerBuffers = new WeakSet(); // the memory's ArrayBuffers before it grew, now detached
    this.holes = []; // free ranges by offset, none adjacent
    var end = memory.buffer.byteLength;
    if (end < start) this.growBy(Math.ceil((start - end) / WASM_PAGE_BYTES));
    end = memory.buffer.byteLength;
    if (end > start) this.holes.push({ offset: start, length: end - start });
  }

  allocate(length) {
    var size = Math.max(BUFFER_ALIGNMENT, Math.ceil(length / BUFFER_ALIGNMENT) * BUFFER_ALIGNMENT);
    var index = this.holes.findIndex(function (hole) { return hole.length >= size; });
    if (index < 0) index = this.grow(size);
    var hole = this.holes[index];
    var offset = hole.offset;
    hole.offset += size;
    hole.length -= size;
    if (hole.length === 0) this.holes.splice(index, 1);
    return { offset: offset, size: size };
  }

  /** Grows the memory so that its last hole holds `size` bytes; returns that hole's index. */
  grow(size) {
    var end = this.memory.buffer.byteLength;
    var last = this.holes[this.holes.length - 1];
    var tail = last && last.offset + last.length === end ? last.length : 0;
    var pages = Math.ceil((size - tail) / WASM_PAGE_BYTES);
    this.growBy(pages);
    if (tail > 0) last.length += pages * WASM_PAGE_BYTES;
    else this.holes.push({ offset: end, length: pages * WASM_PAGE_BYTES });
    return this.holes.length - 1;
  }

  growBy(pages) {
    var before = this.memory.buffer;
    try {
      this.memory.grow(pages);
    } catch (error) {
      throw new RangeError("the kernels' memory cannot grow to " + (before.byteLength + pages * WASM_PAGE_BYTES) + " bytes");
    }
    this.formerBuffers.add(before);
  }

  release(offset, size) {
    var holes = this.holes;
    var index = 0;
    while (index < holes.length && holes[index].offset < offset) index++;
    holes.splice(index, 0, { offset: offset, length: size });
    var next = holes[index + 1];
    if (next && offset + size === next.offset) {
      holes[index].length += next.length;
      holes.splice(index + 1, 1);
    }
    var previous = holes[index - 1];
    if (previous && previous.offset + previous.length === offset) {
      previous.length += holes[index].length;
      holes.splice(index, 1);
    }
  }
}

function createWasmKernels(options) {
  var module = (options && options.module) || wasmKernelsModule();
  var exports = new WebAssembly.Instance(module, {}).exports;
  var memory = exports.memory;
  var control = exports.__heap_base.value;
  var staging = control + CONTROL_BYTES;
  var allocator = new LinearMemoryAllocator(memory, staging + STAGING_BYTES);
  var heapView = new Uint8Array(memory.buffer);

  /** All of the module's memory, as a view that follows its growth. */
  function heap() {
    if (heapView.buffer !== memory.buffer) heapView = new Uint8Array(memory.buffer);
    return heapView;
  }

  function isInMemory(bytes) {
    return bytes instanceof Uint8Array && bytes.buffer === memory.buffer;
  }

  /**
   * Throws for a view of the memory taken before it grew: its buffer is detached and it reads as empty,
   * so a kernel would silently see no bytes at all.
   */
  function requireCurrent(bytes, what) {
    requireBytes(bytes, what);
    if (allocator.formerBuffers.has(bytes.buffer))
      throw new TypeError(what + " are a view of the kernels' memory from before it grew: take buffer.bytes again");
    return bytes;
  }

  /**
   * call(address, length) over `bytes` in pieces of at most CALL_BYTES: in place when they are in the
   * module's memory, otherwise each piece copied to the staging area first.
   */
  function feed(bytes, call) {
    var inPlace = isInMemory(bytes);
    for (var at = 0; at < bytes.length; at += CALL_BYTES) {
      var length = Math.min(CALL_BYTES, bytes.length - at);
      if (inPlace) {
        call(bytes.byteOffset + at, length);
      } else {
        heap().set(bytes.subarray(at, at + length), staging);
        call(staging, length);
      }
    }
  }

  /** call(piece) for pieces of at most CALL_BYTES that add up to `count` zero bytes. */
  function zerosInCalls(count, call) {
    for (var rest = requireCount(count, "the count of zero bytes"); rest > 0; rest -= CALL_BYTES) call(Math.min(rest, CALL_BYTES));
  }

  class WasmKernelBuffer {
    constructor(length) {
      this.length = requireCount(length, "a buffer's length");
      var block = allocator.allocate(length);
      this.offset = block.offset;
      this.size = block.size;
      this.view = new Uint8Array(memory.buffer, this.offset, length);
    }

    /** The buffer's bytes, in the module's memory; take them again after a later `allocate`. */
    get bytes() {
      if (this.offset < 0) throw new Error("this buffer was freed");
      if (this.view.buffer !== memory.buffer) this.view = new Uint8Array(memory.buffer, this.offset, this.length);
      return this.view;
    }

    free() {
      if (this.offset < 0) return;
      allocator.release(this.offset, this.size);
      this.offset = -1;
      this.view = null;
    }
  }

  /**
   * An incremental hash whose state the module keeps in a struct: the struct's bytes live here between
   * calls and in the control block during one, so that no hash holds any of the module's memory. `init`
   * null makes an empty shell, which clone() fills.
   */
  class WasmHash {
    constructor(init, stateBytes) {
      this.stateBytes = stateBytes;
      this.state = new Uint8Array(stateBytes);
      this.spent = false;
      if (init) {
        init(control + CONTROL_STATE);
        this.leave();
      }
    }

    enter() {
      throwIfSpent(this);
      heap().set(this.state, control + CONTROL_STATE);
      return control + CONTROL_STATE;
    }

    leave() {
      this.state.set(heap().subarray(control + CONTROL_STATE, control + CONTROL_STATE + this.stateBytes));
    }

    clone() {
      throwIfSpent(this);
      var copy = new this.constructor(null);
      copy.state.set(this.state);
      return copy;
    }

    /** `length` bytes of digest from `final(state, out)`; the hash is spent. */
    finish(final, length) {
      final(this.enter(), control + CONTROL_DIGEST);
      this.spent = true;
      return heap().slice(control + CONTROL_DIGEST, control + CONTROL_DIGEST + length);
    }
  }

  /** A one-stream hash's class over the module's init, update (and update_zeros) and final. */
  function singleStreamHash(init, update, updateZeros, final, stateBytes, digestBytes) {
    return class extends WasmHash {
      constructor(fresh) {
        super(fresh === null ? null : init, stateBytes);
      }

      update(bytes) {
        requireCurrent(bytes, "the bytes to hash");
        var state = this.enter();
        feed(bytes, function (address, length) { update(state, address, length); });
        this.leave();
        return this;
      }

      updateZeros(count) {
        var state = this.enter();
        zerosInCalls(count, function (piece) { updateZeros(state, piece); });
        this.leave();
        return this;
      }

      digest() {
        return this.finish(final, digestBytes);
      }

      /** The state as bytes (the struct of src/block_hash.h's layout), as the JavaScript kernels' saveState. */
      saveState() {
        throwIfSpent(this);
        return this.state.slice();
      }

      /** A hash that goes on from `state` (saveState's bytes, of either implementation). */
      static fromState(state) {
        savedStateCounts(state, stateBytes);
        var hash = new this(null);
        hash.state.set(state);
        return hash;
      }
    };
  }

  var Md5 = singleStreamHash(exports.md5_init, exports.md5_update, exports.md5_update_zeros, exports.md5_final, exports.md5_state_bytes(), 16);
  var Sha256 = singleStreamHash(exports.sha256_init, exports.sha256_update, exports.sha256_update_zeros, exports.sha256_final, exports.sha256_state_bytes(), 32);

  /** Up to MD5_LANES equally long streams hashed together, one per lane; fewer repeat the first. */
  class Md5Lanes extends WasmHash {
    constructor(streams) {
      super(streams === null ? null : exports.md5_lanes_init, exports.md5_lanes_state_bytes());
      this.streams = streams === undefined ? MD5_LANES : streams;
      if (streams !== null && (!Number.isInteger(this.streams) || this.streams < 1 || this.streams > MD5_LANES))
        throw new RangeError("Md5Lanes hashes 1 to " + MD5_LANES + " streams");
    }

    update(arrays) {
      if (Array.isArray(arrays)) arrays.forEach(function (bytes) { requireCurrent(bytes, "each stream's bytes"); });
      var length = laneLength(arrays, this.streams);
      var state = this.enter();
      var most = CALL_BYTES / MD5_LANES;
      var lanes = new Uint32Array(MD5_LANES);
      for (var at = 0; at < length; at += most) {
        var piece = Math.min(most, length - at);
        for (var i = 0; i < MD5_LANES; i++) {
          var bytes = arrays[i < this.streams ? i : 0];
          if (i >= this.streams) {
            lanes[i] = lanes[0];
          } else if (isInMemory(bytes)) {
            lanes[i] = bytes.byteOffset + at;
          } else {
            lanes[i] = staging + i * most;
            heap().set(bytes.subarray(at, at + piece), lanes[i]);
          }
        }
        new Uint32Array(memory.buffer, control + CONTROL_LANES, MD5_LANES).set(lanes);
        exports.md5_lanes_update(state, control + CONTROL_LANES, piece);
      }
      this.leave();
      return this;
    }

    updateZeros(count) {
      var state = this.enter();
      zerosInCalls(count, function (piece) { exports.md5_lanes_update_zeros(state, piece); });
      this.leave();
      return this;
    }

    clone() {
      var copy = super.clone();
      copy.streams = this.streams;
      return copy;
    }

    /** Each stream's 16-byte digest, in order; the hash is spent. */
    digest() {
      var digests = this.finish(exports.md5_lanes_final, 16 * MD5_LANES);
      var out = [];
      for (var i = 0; i < this.streams; i++) out.push(digests.slice(16 * i, 16 * i + 16));
      return out;
    }
  }

  /**
   * targets[i] ^= coefficients[i] · source for each i. Regions in the module's memory are used in place;
   * others go through the staging area a piece at a time (targets copied in and back out).
   */
  function gf16MulAdd(coefficients, source, targets) {
    requireCurrent(source, "the source");
    if (Array.isArray(targets)) targets.forEach(function (target) { requireCurrent(target, "the targets"); });
    checkMulAddArguments(coefficients, source, targets);
    var pairs = [];
    for (var i = 0; i < targets.length; i++) if (coefficients[i] !== 0) pairs.push({ c: coefficients[i], target: targets[i] });
    for (var first = 0; first < pairs.length; first += GF16_TARGETS_PER_CALL)
      mulAddGroup(source, pairs.slice(first, first + GF16_TARGETS_PER_CALL));
  }

  function mulAddGroup(source, pairs) {
    var sourceInPlace = isInMemory(source);
    var staged = pairs.filter(function (pair) { return !isInMemory(pair.target); }).length + (sourceInPlace ? 0 : 1);
    // A piece: 32-byte steps; with staging, small enough that the source and each staged target fit
    // (leaving room for the byte an odd length adds).
    var most = staged === 0 ? CALL_BYTES : Math.max(32, Math.floor((STAGING_BYTES / staged - 16) / 32) * 32);
    var slotBytes = staged === 0 ? 0 : Math.floor(STAGING_BYTES / staged / BUFFER_ALIGNMENT) * BUFFER_ALIGNMENT;
    var coefficients = new Uint16Array(memory.buffer, control + CONTROL_COEFFICIENTS, pairs.length);
    for (var i = 0; i < pairs.length; i++) coefficients[i] = pairs[i].c;
    var addresses = new Uint32Array(pairs.length);
    for (var at = 0; at < source.length; at += most) {
      var length = Math.min(most, source.length - at);
      var extent = length + (length & 1); // the bytes of the targets a piece changes
      var slot = staging;
      var sourceAddress = source.byteOffset + at;
      if (!sourceInPlace) {
        heap().set(source.subarray(at, at + length), slot);
        sourceAddress = slot;
        slot += slotBytes;
      }
      var copies = [];
      for (i = 0; i < pairs.length; i++) {
        var target = pairs[i].target;
        if (isInMemory(target)) {
          addresses[i] = target.byteOffset + at;
        } else {
          heap().set(target.subarray(at, at + extent), slot);
          copies.push({ target: target, slot: slot });
          addresses[i] = slot;
          slot += slotBytes;
        }
      }
      new Uint32Array(memory.buffer, control + CONTROL_TARGETS, pairs.length).set(addresses);
      exports.gf16_multiply_add(sourceAddress, length, pairs.length, control + CONTROL_TARGETS, control + CONTROL_COEFFICIENTS);
      for (i = 0; i < copies.length; i++) copies[i].target.set(heap().subarray(copies[i].slot, copies[i].slot + extent), at);
    }
  }

  return {
    implementation: "wasm-simd128",
    allocate: function (length) {
      return new WasmKernelBuffer(length);
    },
    isInMemory: isInMemory,
    memoryBytes: function () {
      return memory.buffer.byteLength;
    },
    crc32Update: function (crc, bytes) {
      requireCurrent(bytes, "the bytes to check");
      feed(bytes, function (address, length) { crc = exports.crc32_update(crc, address, length); });
      return crc >>> 0;
    },
    crc32Zeros: function (crc, count) {
      return exports.crc32_zeros(crc, requireCount(count, "the count of zero bytes")) >>> 0;
    },
    crc32Combine: function (crcA, crcB, lengthB) {
      return exports.crc32_combine(crcA, crcB, requireCount(lengthB, "the second part's length")) >>> 0;
    },
    Md5: Md5,
    Md5Lanes: Md5Lanes,
    Sha256: Sha256,
    md5: function (bytes) {
      return new Md5().update(bytes).digest();
    },
    sha256: function (bytes) {
      return new Sha256().update(bytes).digest();
    },
    gf16MulAdd: gf16MulAdd,
  };
}
