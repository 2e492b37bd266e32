// Bytes: little- and big-endian integers, hex, UTF-8, comparison. Every file in src/core is a fragment of
// one function scope (see build.mjs): what it declares is visible to the others and to the page.

var textEncoder = new TextEncoder();

export function u16le(bytes, at) {
  return bytes[at] | (bytes[at + 1] << 8);
}

export function u32le(bytes, at) {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/** A u64le as a BigInt: ZIP64 values can exceed 2^53. */
export function u64le(bytes, at) {
  return BigInt(u32le(bytes, at)) | (BigInt(u32le(bytes, at + 4)) << 32n);
}

export function u32be(bytes, at) {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
}

export function u64be(bytes, at) {
  return (BigInt(u32be(bytes, at)) << 32n) | BigInt(u32be(bytes, at + 4));
}

export function toHex(bytes) {
  var text = "";
  for (var i = 0; i < bytes.length; i++) text += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
  return text;
}

export function utf8Bytes(text) {
  return textEncoder.encode(text);
}

export function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bytes of a name as printable text for a message: printable ASCII as is, anything else as \xHH. */
export function quotedName(bytes) {
  var text = '"';
  var shown = Math.min(bytes.length, 80);
  for (var i = 0; i < shown; i++) {
    var b = bytes[i];
    if (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c) text += String.fromCharCode(b);
    else text += "\\x" + (b < 16 ? "0" : "") + b.toString(16);
  }
  return text + (bytes.length > 80 ? '…"' : '"');
}

/**
 * A byte count for people, in goshuin-tool's one unit system: under 1,024 bytes "1 byte" or "N bytes", else
 * KiB, MiB, GiB, TiB (1,024-based) with one decimal below 10 ("4.0 MiB", "1.4 KiB") and a whole number from
 * 10 ("18 MiB"), rounded half up as the tool rounds.
 */
export function formatSize(bytes) {
  bytes = Number(bytes);
  if (bytes < 1024) return bytes === 1 ? "1 byte" : bytes + " bytes";
  var units = ["KiB", "MiB", "GiB", "TiB"];
  var value = bytes;
  var unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (value < 10) {
    var tenths = Math.round(value * 10);
    return Math.floor(tenths / 10) + "." + (tenths % 10) + " " + units[unit];
  }
  return Math.round(value) + " " + units[unit];
}

/** The byte arrays of `pieces`, one after another, in one new array. */
export function concatBytes(pieces) {
  var length = 0;
  pieces.forEach(function (piece) {
    length += piece.length;
  });
  var bytes = new Uint8Array(length);
  var at = 0;
  pieces.forEach(function (piece) {
    bytes.set(piece, at);
    at += piece.length;
  });
  return bytes;
}

/** `bytes`' whole buffer given back now where the engine can (it must not be used again), else left to a collection. */
export function giveBack(bytes) {
  if (typeof bytes.buffer.transfer === "function") bytes.buffer.transfer(0);
}

/**
 * Large buffers used again by one thread instead of new ones: a new buffer of megabytes costs the faults and
 * the zeroing of its pages, which in the page's workers took more CPU than the work done with its bytes
 * (Spec/decisions/0068). `take(size)` is a view of `size` bytes at the start of a kept buffer of `size` bytes
 * or at most `slack` more (default: less than `roundTo` more), or of a new one of `size` rounded up to
 * `roundTo` (1: exactly `size`); `keep(bytes)` keeps the buffer of a view no one uses any more, at most
 * `count` of them (the oldest goes). A kept buffer's bytes are what they were: a taker writes every byte it
 * uses.
 */
export class SpareBuffers {
  constructor(count, roundTo, slack) {
    this.count = count;
    this.roundTo = roundTo;
    this.slack = slack === undefined ? roundTo - 1 : slack;
    this.kept = [];
  }

  take(size) {
    for (var i = 0; i < this.kept.length; i++) {
      var length = this.kept[i].byteLength;
      if (length >= size && length - size <= this.slack) return new Uint8Array(this.kept.splice(i, 1)[0], 0, size);
    }
    return new Uint8Array(new ArrayBuffer(Math.ceil(size / this.roundTo) * this.roundTo), 0, size);
  }

  keep(bytes) {
    var buffer = bytes.buffer;
    if (buffer.byteLength === 0 || this.kept.indexOf(buffer) >= 0) return; // moved elsewhere, or kept already
    if (this.kept.length >= this.count) this.kept.shift();
    this.kept.push(buffer);
  }
}
