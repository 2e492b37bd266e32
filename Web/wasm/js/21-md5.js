// MD5 (RFC 1321) in plain JavaScript: one stream (Md5Js), and Md5LanesJs, the same API as the wasm's
// four lanes done one stream after another. Whole blocks are read as little-endian words straight from the
// caller's buffer when it allows (a little-endian platform, an offset that is a multiple of 4), else
// through a small aligned copy. The 64 steps are written out in RFC 1321's order (§3.4: rounds 1-4, each
// step's message word, constant T[i] and shift) as calls of four tiny functions that engines inline, so
// that every value stays in a register.

// JavaScriptCore optimizes a function only after enough calls, not inside one long loop: blocks are folded
// in calls of at most this many (WebKitGTK: 6-20 MB/s in one call over megabytes, 200 in calls of 256).
var MD5_BLOCKS_PER_CALL = 256;
var MD5_INITIAL_WORDS = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476];

function md5F(a, b, c, d, x, s, t) {
  a = (a + (d ^ (b & (c ^ d))) + x + t) | 0;
  return (((a << s) | (a >>> (32 - s))) + b) | 0;
}
function md5G(a, b, c, d, x, s, t) {
  a = (a + (c ^ (d & (b ^ c))) + x + t) | 0;
  return (((a << s) | (a >>> (32 - s))) + b) | 0;
}
function md5H(a, b, c, d, x, s, t) {
  a = (a + (b ^ c ^ d) + x + t) | 0;
  return (((a << s) | (a >>> (32 - s))) + b) | 0;
}
function md5I(a, b, c, d, x, s, t) {
  a = (a + (c ^ (b | ~d)) + x + t) | 0;
  return (((a << s) | (a >>> (32 - s))) + b) | 0;
}

/** `count` blocks of little-endian words in `w` (an Int32Array) from word `q`, folded into `h`. */
function md5Blocks(h, w, q, count) {
  var a0 = h[0], b0 = h[1], c0 = h[2], d0 = h[3];
  for (var end = q + 16 * count; q < end; q += 16) {
    var a = a0, b = b0, c = c0, d = d0;
    a = md5F(a, b, c, d, w[q], 7, 0xd76aa478 | 0); d = md5F(d, a, b, c, w[q + 1], 12, 0xe8c7b756 | 0);
    c = md5F(c, d, a, b, w[q + 2], 17, 0x242070db | 0); b = md5F(b, c, d, a, w[q + 3], 22, 0xc1bdceee | 0);
    a = md5F(a, b, c, d, w[q + 4], 7, 0xf57c0faf | 0); d = md5F(d, a, b, c, w[q + 5], 12, 0x4787c62a | 0);
    c = md5F(c, d, a, b, w[q + 6], 17, 0xa8304613 | 0); b = md5F(b, c, d, a, w[q + 7], 22, 0xfd469501 | 0);
    a = md5F(a, b, c, d, w[q + 8], 7, 0x698098d8 | 0); d = md5F(d, a, b, c, w[q + 9], 12, 0x8b44f7af | 0);
    c = md5F(c, d, a, b, w[q + 10], 17, 0xffff5bb1 | 0); b = md5F(b, c, d, a, w[q + 11], 22, 0x895cd7be | 0);
    a = md5F(a, b, c, d, w[q + 12], 7, 0x6b901122 | 0); d = md5F(d, a, b, c, w[q + 13], 12, 0xfd987193 | 0);
    c = md5F(c, d, a, b, w[q + 14], 17, 0xa679438e | 0); b = md5F(b, c, d, a, w[q + 15], 22, 0x49b40821 | 0);
    a = md5G(a, b, c, d, w[q + 1], 5, 0xf61e2562 | 0); d = md5G(d, a, b, c, w[q + 6], 9, 0xc040b340 | 0);
    c = md5G(c, d, a, b, w[q + 11], 14, 0x265e5a51 | 0); b = md5G(b, c, d, a, w[q], 20, 0xe9b6c7aa | 0);
    a = md5G(a, b, c, d, w[q + 5], 5, 0xd62f105d | 0); d = md5G(d, a, b, c, w[q + 10], 9, 0x02441453 | 0);
    c = md5G(c, d, a, b, w[q + 15], 14, 0xd8a1e681 | 0); b = md5G(b, c, d, a, w[q + 4], 20, 0xe7d3fbc8 | 0);
    a = md5G(a, b, c, d, w[q + 9], 5, 0x21e1cde6 | 0); d = md5G(d, a, b, c, w[q + 14], 9, 0xc33707d6 | 0);
    c = md5G(c, d, a, b, w[q + 3], 14, 0xf4d50d87 | 0); b = md5G(b, c, d, a, w[q + 8], 20, 0x455a14ed | 0);
    a = md5G(a, b, c, d, w[q + 13], 5, 0xa9e3e905 | 0); d = md5G(d, a, b, c, w[q + 2], 9, 0xfcefa3f8 | 0);
    c = md5G(c, d, a, b, w[q + 7], 14, 0x676f02d9 | 0); b = md5G(b, c, d, a, w[q + 12], 20, 0x8d2a4c8a | 0);
    a = md5H(a, b, c, d, w[q + 5], 4, 0xfffa3942 | 0); d = md5H(d, a, b, c, w[q + 8], 11, 0x8771f681 | 0);
    c = md5H(c, d, a, b, w[q + 11], 16, 0x6d9d6122 | 0); b = md5H(b, c, d, a, w[q + 14], 23, 0xfde5380c | 0);
    a = md5H(a, b, c, d, w[q + 1], 4, 0xa4beea44 | 0); d = md5H(d, a, b, c, w[q + 4], 11, 0x4bdecfa9 | 0);
    c = md5H(c, d, a, b, w[q + 7], 16, 0xf6bb4b60 | 0); b = md5H(b, c, d, a, w[q + 10], 23, 0xbebfbc70 | 0);
    a = md5H(a, b, c, d, w[q + 13], 4, 0x289b7ec6 | 0); d = md5H(d, a, b, c, w[q], 11, 0xeaa127fa | 0);
    c = md5H(c, d, a, b, w[q + 3], 16, 0xd4ef3085 | 0); b = md5H(b, c, d, a, w[q + 6], 23, 0x04881d05 | 0);
    a = md5H(a, b, c, d, w[q + 9], 4, 0xd9d4d039 | 0); d = md5H(d, a, b, c, w[q + 12], 11, 0xe6db99e5 | 0);
    c = md5H(c, d, a, b, w[q + 15], 16, 0x1fa27cf8 | 0); b = md5H(b, c, d, a, w[q + 2], 23, 0xc4ac5665 | 0);
    a = md5I(a, b, c, d, w[q], 6, 0xf4292244 | 0); d = md5I(d, a, b, c, w[q + 7], 10, 0x432aff97 | 0);
    c = md5I(c, d, a, b, w[q + 14], 15, 0xab9423a7 | 0); b = md5I(b, c, d, a, w[q + 5], 21, 0xfc93a039 | 0);
    a = md5I(a, b, c, d, w[q + 12], 6, 0x655b59c3 | 0); d = md5I(d, a, b, c, w[q + 3], 10, 0x8f0ccc92 | 0);
    c = md5I(c, d, a, b, w[q + 10], 15, 0xffeff47d | 0); b = md5I(b, c, d, a, w[q + 1], 21, 0x85845dd1 | 0);
    a = md5I(a, b, c, d, w[q + 8], 6, 0x6fa87e4f | 0); d = md5I(d, a, b, c, w[q + 15], 10, 0xfe2ce6e0 | 0);
    c = md5I(c, d, a, b, w[q + 6], 15, 0xa3014314 | 0); b = md5I(b, c, d, a, w[q + 13], 21, 0x4e0811a1 | 0);
    a = md5I(a, b, c, d, w[q + 4], 6, 0xf7537e82 | 0); d = md5I(d, a, b, c, w[q + 11], 10, 0xbd3af235 | 0);
    c = md5I(c, d, a, b, w[q + 2], 15, 0x2ad7d2bb | 0); b = md5I(b, c, d, a, w[q + 9], 21, 0xeb86d391 | 0);
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  }
  h[0] = a0;
  h[1] = b0;
  h[2] = c0;
  h[3] = d0;
}

class Md5Js extends BlockHashJs {
  constructor() {
    super();
    this.words = new Int32Array(MD5_INITIAL_WORDS);
    this.scratch = null; // an aligned copy of unaligned input
  }

  blocks(bytes, start, end) {
    var offset = bytes.byteOffset + start;
    var count = (end - start) / 64;
    if (LITTLE_ENDIAN && (offset & 3) === 0) {
      var words = new Int32Array(bytes.buffer, offset, count * 16);
      for (var first = 0; first < count; first += MD5_BLOCKS_PER_CALL)
        md5Blocks(this.words, words, first * 16, Math.min(MD5_BLOCKS_PER_CALL, count - first));
      return;
    }
    if (this.scratch === null) this.scratch = new Int32Array(MD5_BLOCKS_PER_CALL * 16);
    for (var at = start; at < end; ) {
      var round = Math.min((end - at) / 64, MD5_BLOCKS_PER_CALL);
      for (var i = 0; i < round * 16; i++, at += 4)
        this.scratch[i] = bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);
      md5Blocks(this.words, this.scratch, 0, round);
    }
  }

  /** The 16-byte digest; the hash is spent. */
  digest() {
    this.finish(false);
    return wordsToBytes(this.words, false);
  }
}

/** Md5Lanes' API over streams hashed one after another. */
class Md5LanesJs {
  constructor(streams) {
    this.streams = streams === undefined ? MD5_LANES : streams;
    if (!Number.isInteger(this.streams) || this.streams < 1 || this.streams > MD5_LANES)
      throw new RangeError("Md5Lanes hashes 1 to " + MD5_LANES + " streams");
    this.hashes = [];
    for (var i = 0; i < this.streams; i++) this.hashes.push(new Md5Js());
  }

  get spent() {
    return this.hashes[0].spent;
  }

  update(arrays) {
    throwIfSpent(this);
    laneLength(arrays, this.streams);
    for (var i = 0; i < this.streams; i++) this.hashes[i].update(arrays[i]);
    return this;
  }

  updateZeros(count) {
    throwIfSpent(this);
    for (var i = 0; i < this.streams; i++) this.hashes[i].updateZeros(count);
    return this;
  }

  clone() {
    throwIfSpent(this);
    var copy = new Md5LanesJs(this.streams);
    copy.hashes = this.hashes.map(function (hash) { return hash.clone(); });
    return copy;
  }

  /** Each stream's 16-byte digest, in order; the hash is spent. */
  digest() {
    return this.hashes.map(function (hash) { return hash.digest(); });
  }
}
