// MD5 (RFC 1321) in plain JavaScript: one stream (Md5Js), and Md5LanesJs, the same API as the wasm's
// four lanes done one stream after another. Whole blocks are read as little-endian words straight from the
// caller's buffer when it allows (a little-endian platform, an offset that is a multiple of 4), else
// through a small aligned copy. The 64 steps are written out in RFC 1321's order (§3.4: rounds 1-4, each
// step's message word, constant T[i] and shift) so that an engine keeps every value in a register; each
// step first adds what does not depend on the word the step before made (as src/md5.c explains).

var MD5_INITIAL_WORDS = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476];

/** `count` blocks of little-endian words in `w` (an Int32Array) from word `q`, folded into `h`. */
function md5Blocks(h, w, q, count) {
  var a0 = h[0], b0 = h[1], c0 = h[2], d0 = h[3];
  for (var end = q + 16 * count; q < end; q += 16) {
    var a = a0, b = b0, c = c0, d = d0;
    a = (a + w[q] + (0xd76aa478 | 0) + (d ^ (b & (c ^ d)))) | 0; a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + w[q + 1] + (0xe8c7b756 | 0) + (c ^ (a & (b ^ c)))) | 0; d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + w[q + 2] + (0x242070db | 0) + (b ^ (d & (a ^ b)))) | 0; c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + w[q + 3] + (0xc1bdceee | 0) + (a ^ (c & (d ^ a)))) | 0; b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + w[q + 4] + (0xf57c0faf | 0) + (d ^ (b & (c ^ d)))) | 0; a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + w[q + 5] + (0x4787c62a | 0) + (c ^ (a & (b ^ c)))) | 0; d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + w[q + 6] + (0xa8304613 | 0) + (b ^ (d & (a ^ b)))) | 0; c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + w[q + 7] + (0xfd469501 | 0) + (a ^ (c & (d ^ a)))) | 0; b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + w[q + 8] + (0x698098d8 | 0) + (d ^ (b & (c ^ d)))) | 0; a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + w[q + 9] + (0x8b44f7af | 0) + (c ^ (a & (b ^ c)))) | 0; d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + w[q + 10] + (0xffff5bb1 | 0) + (b ^ (d & (a ^ b)))) | 0; c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + w[q + 11] + (0x895cd7be | 0) + (a ^ (c & (d ^ a)))) | 0; b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + w[q + 12] + (0x6b901122 | 0) + (d ^ (b & (c ^ d)))) | 0; a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + w[q + 13] + (0xfd987193 | 0) + (c ^ (a & (b ^ c)))) | 0; d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + w[q + 14] + (0xa679438e | 0) + (b ^ (d & (a ^ b)))) | 0; c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + w[q + 15] + (0x49b40821 | 0) + (a ^ (c & (d ^ a)))) | 0; b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + w[q + 1] + (0xf61e2562 | 0) + ((~d & c) + (d & b))) | 0; a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + w[q + 6] + (0xc040b340 | 0) + ((~c & b) + (c & a))) | 0; d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + w[q + 11] + (0x265e5a51 | 0) + ((~b & a) + (b & d))) | 0; c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + w[q] + (0xe9b6c7aa | 0) + ((~a & d) + (a & c))) | 0; b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + w[q + 5] + (0xd62f105d | 0) + ((~d & c) + (d & b))) | 0; a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + w[q + 10] + (0x02441453 | 0) + ((~c & b) + (c & a))) | 0; d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + w[q + 15] + (0xd8a1e681 | 0) + ((~b & a) + (b & d))) | 0; c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + w[q + 4] + (0xe7d3fbc8 | 0) + ((~a & d) + (a & c))) | 0; b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + w[q + 9] + (0x21e1cde6 | 0) + ((~d & c) + (d & b))) | 0; a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + w[q + 14] + (0xc33707d6 | 0) + ((~c & b) + (c & a))) | 0; d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + w[q + 3] + (0xf4d50d87 | 0) + ((~b & a) + (b & d))) | 0; c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + w[q + 8] + (0x455a14ed | 0) + ((~a & d) + (a & c))) | 0; b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + w[q + 13] + (0xa9e3e905 | 0) + ((~d & c) + (d & b))) | 0; a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + w[q + 2] + (0xfcefa3f8 | 0) + ((~c & b) + (c & a))) | 0; d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + w[q + 7] + (0x676f02d9 | 0) + ((~b & a) + (b & d))) | 0; c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + w[q + 12] + (0x8d2a4c8a | 0) + ((~a & d) + (a & c))) | 0; b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + w[q + 5] + (0xfffa3942 | 0) + (b ^ c ^ d)) | 0; a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + w[q + 8] + (0x8771f681 | 0) + (a ^ b ^ c)) | 0; d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + w[q + 11] + (0x6d9d6122 | 0) + (d ^ a ^ b)) | 0; c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + w[q + 14] + (0xfde5380c | 0) + (c ^ d ^ a)) | 0; b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + w[q + 1] + (0xa4beea44 | 0) + (b ^ c ^ d)) | 0; a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + w[q + 4] + (0x4bdecfa9 | 0) + (a ^ b ^ c)) | 0; d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + w[q + 7] + (0xf6bb4b60 | 0) + (d ^ a ^ b)) | 0; c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + w[q + 10] + (0xbebfbc70 | 0) + (c ^ d ^ a)) | 0; b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + w[q + 13] + (0x289b7ec6 | 0) + (b ^ c ^ d)) | 0; a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + w[q] + (0xeaa127fa | 0) + (a ^ b ^ c)) | 0; d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + w[q + 3] + (0xd4ef3085 | 0) + (d ^ a ^ b)) | 0; c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + w[q + 6] + (0x04881d05 | 0) + (c ^ d ^ a)) | 0; b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + w[q + 9] + (0xd9d4d039 | 0) + (b ^ c ^ d)) | 0; a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + w[q + 12] + (0xe6db99e5 | 0) + (a ^ b ^ c)) | 0; d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + w[q + 15] + (0x1fa27cf8 | 0) + (d ^ a ^ b)) | 0; c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + w[q + 2] + (0xc4ac5665 | 0) + (c ^ d ^ a)) | 0; b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + w[q] + (0xf4292244 | 0) + (c ^ (b | ~d))) | 0; a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + w[q + 7] + (0x432aff97 | 0) + (b ^ (a | ~c))) | 0; d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + w[q + 14] + (0xab9423a7 | 0) + (a ^ (d | ~b))) | 0; c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + w[q + 5] + (0xfc93a039 | 0) + (d ^ (c | ~a))) | 0; b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + w[q + 12] + (0x655b59c3 | 0) + (c ^ (b | ~d))) | 0; a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + w[q + 3] + (0x8f0ccc92 | 0) + (b ^ (a | ~c))) | 0; d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + w[q + 10] + (0xffeff47d | 0) + (a ^ (d | ~b))) | 0; c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + w[q + 1] + (0x85845dd1 | 0) + (d ^ (c | ~a))) | 0; b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + w[q + 8] + (0x6fa87e4f | 0) + (c ^ (b | ~d))) | 0; a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + w[q + 15] + (0xfe2ce6e0 | 0) + (b ^ (a | ~c))) | 0; d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + w[q + 6] + (0xa3014314 | 0) + (a ^ (d | ~b))) | 0; c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + w[q + 13] + (0x4e0811a1 | 0) + (d ^ (c | ~a))) | 0; b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + w[q + 4] + (0xf7537e82 | 0) + (c ^ (b | ~d))) | 0; a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + w[q + 11] + (0xbd3af235 | 0) + (b ^ (a | ~c))) | 0; d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + w[q + 2] + (0x2ad7d2bb | 0) + (a ^ (d | ~b))) | 0; c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + w[q + 9] + (0xeb86d391 | 0) + (d ^ (c | ~a))) | 0; b = (((b << 21) | (b >>> 11)) + c) | 0;
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

  compress(bytes, start, count) {
    var offset = bytes.byteOffset + start;
    if (LITTLE_ENDIAN && (offset & 3) === 0) {
      md5Blocks(this.words, new Int32Array(bytes.buffer, offset, count * 16), 0, count);
      return;
    }
    if (this.scratch === null) this.scratch = new Int32Array(BLOCKS_PER_CALL * 16);
    for (var i = 0, at = start; i < count * 16; i++, at += 4)
      this.scratch[i] = bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);
    md5Blocks(this.words, this.scratch, 0, count);
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
