// Bytes: little- and big-endian integers, hex, UTF-8, comparison. Every file in src/core is a fragment of
// one function scope (see build.mjs): what it declares is visible to the others and to the page.

var textEncoder = new TextEncoder();

function u16le(bytes, at) {
  return bytes[at] | (bytes[at + 1] << 8);
}

function u32le(bytes, at) {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/** A u64le as a BigInt: ZIP64 values can exceed 2^53. */
function u64le(bytes, at) {
  return BigInt(u32le(bytes, at)) | (BigInt(u32le(bytes, at + 4)) << 32n);
}

function u32be(bytes, at) {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
}

function u64be(bytes, at) {
  return (BigInt(u32be(bytes, at)) << 32n) | BigInt(u32be(bytes, at + 4));
}

function toHex(bytes) {
  var text = "";
  for (var i = 0; i < bytes.length; i++) text += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
  return text;
}

function utf8Bytes(text) {
  return textEncoder.encode(text);
}

function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bytes of a name as printable text for a message: printable ASCII as is, anything else as \xHH. */
function quotedName(bytes) {
  var text = '"';
  var shown = Math.min(bytes.length, 80);
  for (var i = 0; i < shown; i++) {
    var b = bytes[i];
    if (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c) text += String.fromCharCode(b);
    else text += "\\x" + (b < 16 ? "0" : "") + b.toString(16);
  }
  return text + (bytes.length > 80 ? '…"' : '"');
}

/** A byte count for people: 1.2 GB, 345 KB, 12 bytes. */
function formatSize(bytes) {
  if (bytes < 1000) return bytes + (bytes === 1 ? " byte" : " bytes");
  var units = ["KB", "MB", "GB", "TB"];
  var value = bytes;
  var unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return (value >= 100 ? Math.round(value) : value.toFixed(1)) + " " + units[unit];
}
