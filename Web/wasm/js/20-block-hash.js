// The plain-JavaScript MD5 and SHA-256 (21-md5.js, 22-sha256.js) share this: the input taken in whole
// 64-byte blocks straight from the caller's bytes, the rest kept for the next update, and the padding of
// RFC 1321 §3.1-3.2 and FIPS 180-4 §5.1.1 (0x80, zeros, the length in bits as 8 bytes, little-endian for
// MD5, big-endian for SHA-256). A subclass has `words` (its chaining words, an Int32Array) and
// `compress(bytes, start, count)`, which folds `count` blocks from bytes[start] in.

var ZERO_BLOCKS = new Uint8Array(4096); // zeros fed to updateZeros

// Blocks per call of `compress`. Engines optimize a function once it has been called often enough; one
// call over megabytes runs in code entered mid-loop, which V8 throws away at the loop's end (SHA-256:
// 53 MB/s against 140 in calls of 256 blocks) and JavaScriptCore does not enter at all (MD5 in WebKitGTK:
// 6-20 MB/s against 200).
var BLOCKS_PER_CALL = 256;

class BlockHashJs {
  constructor() {
    this.buffer = new Uint8Array(64);
    this.buffered = 0;
    this.length = 0; // bytes so far; a Number is exact to 2^53
    this.spent = false;
  }

  /** bytes[start, end), whole blocks, folded in a bounded number of blocks at a time. */
  blocks(bytes, start, end) {
    for (var at = start; at < end; at += 64 * BLOCKS_PER_CALL) this.compress(bytes, at, Math.min(BLOCKS_PER_CALL, (end - at) / 64));
  }

  update(bytes) {
    throwIfSpent(this);
    requireBytes(bytes, "the bytes to hash");
    var at = 0;
    var count = bytes.length;
    this.length += count;
    if (this.buffered > 0) {
      var take = Math.min(64 - this.buffered, count);
      this.buffer.set(bytes.subarray(0, take), this.buffered);
      this.buffered += take;
      at = take;
      if (this.buffered < 64) return this;
      this.blocks(this.buffer, 0, 64);
      this.buffered = 0;
    }
    var whole = (count - at) & ~63;
    if (whole > 0) {
      this.blocks(bytes, at, at + whole);
      at += whole;
    }
    if (at < count) {
      this.buffer.set(bytes.subarray(at), 0);
      this.buffered = count - at;
    }
    return this;
  }

  /** As update with `count` zero bytes, without allocating them. */
  updateZeros(count) {
    for (var rest = requireCount(count, "the count of zero bytes"); rest > 0; rest -= ZERO_BLOCKS.length)
      this.update(rest < ZERO_BLOCKS.length ? ZERO_BLOCKS.subarray(0, rest) : ZERO_BLOCKS);
    return this;
  }

  /** The padding and the length folded in; the hash is spent. */
  finish(bigEndianLength) {
    throwIfSpent(this);
    var tail = new Uint8Array(this.buffered < 56 ? 64 : 128);
    tail.set(this.buffer.subarray(0, this.buffered));
    tail[this.buffered] = 0x80;
    var end = tail.length;
    var low = (this.length % 0x20000000) * 8; // the length in bits, its low and high 32 bits
    var high = Math.floor(this.length / 0x20000000);
    for (var i = 0; i < 4; i++) {
      var lowByte = (low >>> (8 * i)) & 0xff;
      var highByte = (high >>> (8 * i)) & 0xff;
      if (bigEndianLength) {
        tail[end - 1 - i] = lowByte;
        tail[end - 5 - i] = highByte;
      } else {
        tail[end - 8 + i] = lowByte;
        tail[end - 4 + i] = highByte;
      }
    }
    this.blocks(tail, 0, end);
    this.spent = true;
  }

  /**
   * The state as bytes, laid out as the wasm kernels' struct (the chaining words little-endian, the length as
   * u64le, the buffered count as u32le, 4 unused bytes, the 64-byte buffer), so that either implementation
   * takes up what the other saved (`fromState`): a hash handed from one thread to another.
   */
  saveState() {
    throwIfSpent(this);
    var wordBytes = this.words.length * 4;
    var state = new Uint8Array(wordBytes + 16 + 64);
    var view = new DataView(state.buffer);
    for (var i = 0; i < this.words.length; i++) view.setInt32(4 * i, this.words[i], true);
    view.setUint32(wordBytes, this.length % 0x100000000, true);
    view.setUint32(wordBytes + 4, Math.floor(this.length / 0x100000000), true);
    view.setUint32(wordBytes + 8, this.buffered, true);
    state.set(this.buffer, wordBytes + 16);
    return state;
  }

  /** A hash that goes on from `state` (saveState's bytes); throws a RangeError on bytes that cannot be one. */
  static fromState(state) {
    var hash = new this();
    var wordBytes = hash.words.length * 4;
    var counts = savedStateCounts(state, wordBytes + 80);
    var view = new DataView(state.buffer, state.byteOffset, state.length);
    for (var i = 0; i < hash.words.length; i++) hash.words[i] = view.getInt32(4 * i, true);
    hash.length = counts.length;
    hash.buffered = counts.buffered;
    hash.buffer.set(state.subarray(wordBytes + 16));
    return hash;
  }

  /** An independent copy of this hash's state. */
  clone() {
    throwIfSpent(this);
    var copy = new this.constructor();
    copy.buffer.set(this.buffer);
    copy.buffered = this.buffered;
    copy.length = this.length;
    copy.words.set(this.words);
    return copy;
  }
}

/** The chaining words as bytes: little-endian (MD5) or big-endian (SHA-256). */
function wordsToBytes(words, bigEndian) {
  var out = new Uint8Array(words.length * 4);
  for (var i = 0; i < out.length; i++) {
    var shift = bigEndian ? 24 - 8 * (i & 3) : 8 * (i & 3);
    out[i] = words[i >> 2] >>> shift;
  }
  return out;
}
