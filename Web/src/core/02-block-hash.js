// What the two hashes of 64-byte blocks share, SHA-256 (02-sha256.js) and MD5 (04-md5.js): the input taken
// in whole blocks straight from the caller's bytes, the rest kept for the next update, and the padding of
// FIPS 180-4 §5.1.1 and RFC 1321 §3.1-3.2 (0x80, zeros, the length in bits as 8 bytes, big-endian for SHA-256,
// little-endian for MD5). A subclass gives `blocks(bytes, start, end)`, which folds bytes[start, end) in.

class BlockHash {
  constructor() {
    this.buffer = new Uint8Array(64);
    this.buffered = 0;
    this.length = 0; // bytes so far; a Number is exact to 2^53
  }

  update(bytes) {
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

  /** The padding and the length folded in; the object is spent. */
  finish(bigEndianLength) {
    var tail = new Uint8Array(this.buffered < 56 ? 64 : 128);
    tail.set(this.buffer.subarray(0, this.buffered));
    tail[this.buffered] = 0x80;
    var end = tail.length;
    // The length in bits, its low and high 32 bits, exact for any length below 2^53 bytes.
    var low = (this.length % 536870912) * 8;
    var high = Math.floor(this.length / 536870912);
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
  }

  /** This state's buffered bytes and length into `copy`, a new hash of the same kind. */
  copyBufferTo(copy) {
    copy.buffer.set(this.buffer);
    copy.buffered = this.buffered;
    copy.length = this.length;
    return copy;
  }
}
