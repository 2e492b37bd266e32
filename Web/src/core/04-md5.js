// MD5 (RFC 1321), incremental: PAR 2.0 names every file, slice and packet by its MD5, and WebCrypto has none.
// Whole 64-byte blocks are read as little-endian words straight from the caller's buffer when it allows
// (a little-endian platform, an offset that is a multiple of 4), else through a small aligned copy. The 64
// steps are written out, in RFC 1321's order (§3.4: rounds 1-4, each step's constant T[i] and shift), so
// that an engine keeps every value in a register; the tests compare the digests with RFC 1321's suite (A.5)
// and with Node's MD5.

var LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
// Blocks per call of md5Blocks. JavaScriptCore optimizes a function once it has been called often enough
// and does not enter optimized code inside a running loop of this size: one call over megabytes stays in
// its slowest tier (WebKitGTK 2.50: 6-20 MB/s, against about 200 MB/s in calls of 256 blocks).
var MD5_BLOCKS_PER_CALL = 256;
var ZEROS = new Uint8Array(65536); // padding fed to a digest (PAR 2.0 pads the last slice with zeros)

/** `count` 64-byte blocks of little-endian words in `words` from word `start`, folded into the state `h`. */
function md5Blocks(h, words, start, count) {
  var a0 = h[0], b0 = h[1], c0 = h[2], d0 = h[3];
  var end = start + count * 16;
  for (var q = start; q < end; q += 16) {
    var x0 = words[q], x1 = words[q + 1], x2 = words[q + 2], x3 = words[q + 3];
    var x4 = words[q + 4], x5 = words[q + 5], x6 = words[q + 6], x7 = words[q + 7];
    var x8 = words[q + 8], x9 = words[q + 9], x10 = words[q + 10], x11 = words[q + 11];
    var x12 = words[q + 12], x13 = words[q + 13], x14 = words[q + 14], x15 = words[q + 15];
    var a = a0, b = b0, c = c0, d = d0;
    a = (a + ((b & c) | (~b & d)) + x0 + (0xd76aa478 | 0)) | 0;  a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x1 + (0xe8c7b756 | 0)) | 0;  d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x2 + (0x242070db | 0)) | 0;  c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x3 + (0xc1bdceee | 0)) | 0;  b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + ((b & c) | (~b & d)) + x4 + (0xf57c0faf | 0)) | 0;  a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x5 + (0x4787c62a | 0)) | 0;  d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x6 + (0xa8304613 | 0)) | 0;  c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x7 + (0xfd469501 | 0)) | 0;  b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + ((b & c) | (~b & d)) + x8 + (0x698098d8 | 0)) | 0;  a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x9 + (0x8b44f7af | 0)) | 0;  d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x10 + (0xffff5bb1 | 0)) | 0;  c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x11 + (0x895cd7be | 0)) | 0;  b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + ((b & c) | (~b & d)) + x12 + (0x6b901122 | 0)) | 0;  a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x13 + (0xfd987193 | 0)) | 0;  d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x14 + (0xa679438e | 0)) | 0;  c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x15 + (0x49b40821 | 0)) | 0;  b = (((b << 22) | (b >>> 10)) + c) | 0;

    a = (a + ((b & d) | (c & ~d)) + x1 + (0xf61e2562 | 0)) | 0;  a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x6 + (0xc040b340 | 0)) | 0;  d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x11 + (0x265e5a51 | 0)) | 0;  c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x0 + (0xe9b6c7aa | 0)) | 0;  b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + ((b & d) | (c & ~d)) + x5 + (0xd62f105d | 0)) | 0;  a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x10 + (0x02441453 | 0)) | 0;  d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x15 + (0xd8a1e681 | 0)) | 0;  c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x4 + (0xe7d3fbc8 | 0)) | 0;  b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + ((b & d) | (c & ~d)) + x9 + (0x21e1cde6 | 0)) | 0;  a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x14 + (0xc33707d6 | 0)) | 0;  d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x3 + (0xf4d50d87 | 0)) | 0;  c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x8 + (0x455a14ed | 0)) | 0;  b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + ((b & d) | (c & ~d)) + x13 + (0xa9e3e905 | 0)) | 0;  a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x2 + (0xfcefa3f8 | 0)) | 0;  d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x7 + (0x676f02d9 | 0)) | 0;  c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x12 + (0x8d2a4c8a | 0)) | 0;  b = (((b << 20) | (b >>> 12)) + c) | 0;

    a = (a + (b ^ c ^ d) + x5 + (0xfffa3942 | 0)) | 0;  a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x8 + (0x8771f681 | 0)) | 0;  d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x11 + (0x6d9d6122 | 0)) | 0;  c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x14 + (0xfde5380c | 0)) | 0;  b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + (b ^ c ^ d) + x1 + (0xa4beea44 | 0)) | 0;  a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x4 + (0x4bdecfa9 | 0)) | 0;  d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x7 + (0xf6bb4b60 | 0)) | 0;  c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x10 + (0xbebfbc70 | 0)) | 0;  b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + (b ^ c ^ d) + x13 + (0x289b7ec6 | 0)) | 0;  a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x0 + (0xeaa127fa | 0)) | 0;  d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x3 + (0xd4ef3085 | 0)) | 0;  c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x6 + (0x04881d05 | 0)) | 0;  b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + (b ^ c ^ d) + x9 + (0xd9d4d039 | 0)) | 0;  a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x12 + (0xe6db99e5 | 0)) | 0;  d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x15 + (0x1fa27cf8 | 0)) | 0;  c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x2 + (0xc4ac5665 | 0)) | 0;  b = (((b << 23) | (b >>> 9)) + c) | 0;

    a = (a + (c ^ (b | ~d)) + x0 + (0xf4292244 | 0)) | 0;  a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x7 + (0x432aff97 | 0)) | 0;  d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x14 + (0xab9423a7 | 0)) | 0;  c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x5 + (0xfc93a039 | 0)) | 0;  b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + (c ^ (b | ~d)) + x12 + (0x655b59c3 | 0)) | 0;  a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x3 + (0x8f0ccc92 | 0)) | 0;  d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x10 + (0xffeff47d | 0)) | 0;  c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x1 + (0x85845dd1 | 0)) | 0;  b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + (c ^ (b | ~d)) + x8 + (0x6fa87e4f | 0)) | 0;  a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x15 + (0xfe2ce6e0 | 0)) | 0;  d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x6 + (0xa3014314 | 0)) | 0;  c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x13 + (0x4e0811a1 | 0)) | 0;  b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + (c ^ (b | ~d)) + x4 + (0xf7537e82 | 0)) | 0;  a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x11 + (0xbd3af235 | 0)) | 0;  d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x2 + (0x2ad7d2bb | 0)) | 0;  c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x9 + (0xeb86d391 | 0)) | 0;  b = (((b << 21) | (b >>> 11)) + c) | 0;

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

/** Little-endian words of `bytes[at …]` into `into` (an Int32Array), `count` of them, on any platform. */
function loadWordsLE(bytes, at, count, into) {
  for (var i = 0; i < count; i++, at += 4) into[i] = bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);
}

class Md5 extends BlockHash {
  constructor() {
    super();
    this.h = new Int32Array([0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476]);
    this.scratch = null;
  }

  /** As `update` with `count` zero bytes, without allocating them. */
  updateZeros(count) {
    while (count > 0) {
      var take = Math.min(count, ZEROS.length);
      this.update(ZEROS.subarray(0, take));
      count -= take;
    }
    return this;
  }

  blocks(bytes, start, end) {
    var blocks = (end - start) / 64;
    var offset = bytes.byteOffset + start;
    if (LITTLE_ENDIAN && (offset & 3) === 0) {
      var words = new Int32Array(bytes.buffer, offset, blocks * 16);
      for (var first = 0; first < blocks; first += MD5_BLOCKS_PER_CALL)
        md5Blocks(this.h, words, first * 16, Math.min(MD5_BLOCKS_PER_CALL, blocks - first));
      return;
    }
    if (this.scratch === null) this.scratch = new Int32Array(MD5_BLOCKS_PER_CALL * 16);
    for (var at = start; at < end; ) {
      var round = Math.min((end - at) / 64, MD5_BLOCKS_PER_CALL);
      loadWordsLE(bytes, at, round * 16, this.scratch);
      md5Blocks(this.h, this.scratch, 0, round);
      at += round * 64;
    }
  }

  /** An independent copy of this digest's state (a file's digest resumed from where a first pass stopped). */
  clone() {
    var copy = this.copyBufferTo(new Md5());
    copy.h.set(this.h);
    return copy;
  }

  /** The 16-byte digest; the object is spent. */
  digest() {
    this.finish(false);
    var out = new Uint8Array(16);
    for (var j = 0; j < 16; j++) out[j] = (this.h[j >> 2] >>> (8 * (j & 3))) & 0xff;
    return out;
  }
}

function md5(bytes) {
  return new Md5().update(bytes).digest();
}
