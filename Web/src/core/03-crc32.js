// CRC-32 (ISO-HDLC, the ZIP one), slicing by 8.

var CRC32_TABLES = (function () {
  var tables = new Int32Array(256 * 8);
  for (var n = 0; n < 256; n++) {
    var c = n;
    for (var k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[n] = c;
  }
  for (var n2 = 0; n2 < 256; n2++) {
    var v = tables[n2];
    for (var t = 1; t < 8; t++) {
      v = tables[v & 0xff] ^ (v >>> 8);
      tables[t * 256 + n2] = v;
    }
  }
  return tables;
})();

/** Continues a CRC-32 (start with 0) over `bytes`; returns an unsigned 32-bit value. */
function crc32Update(crc, bytes) {
  var T = CRC32_TABLES;
  var c = ~crc;
  var i = 0;
  var n = bytes.length;
  var end8 = n - (n & 7);
  for (; i < end8; i += 8) {
    var a = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    c =
      T[1792 + (a & 0xff)] ^
      T[1536 + ((a >>> 8) & 0xff)] ^
      T[1280 + ((a >>> 16) & 0xff)] ^
      T[1024 + (a >>> 24)] ^
      T[768 + bytes[i + 4]] ^
      T[512 + bytes[i + 5]] ^
      T[256 + bytes[i + 6]] ^
      T[bytes[i + 7]];
  }
  for (; i < n; i++) c = T[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
