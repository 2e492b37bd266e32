// CRC-32 (ISO 3309, the ZIP and PAR 2.0 one: reflected, 0xEDB88320) in plain JavaScript: slicing by 8,
// and its zero extension and combination by multiplication by x^(8n) modulo the polynomial (src/crc32.c
// explains both).

var CRC32_POLYNOMIAL = 0xedb88320;

var CRC32_TABLES = (function () {
  var tables = new Int32Array(8 * 256); // table k: a byte's effect on the register with k zero bytes after it
  for (var byte = 0; byte < 256; byte++) {
    var value = byte;
    for (var bit = 0; bit < 8; bit++) value = value & 1 ? (value >>> 1) ^ CRC32_POLYNOMIAL : value >>> 1;
    tables[byte] = value;
  }
  for (var k = 1; k < 8; k++)
    for (var b = 0; b < 256; b++) {
      var previous = tables[(k - 1) * 256 + b];
      tables[k * 256 + b] = (previous >>> 8) ^ tables[previous & 0xff];
    }
  return tables;
})();

function crc32UpdateJs(crc, bytes) {
  var t = CRC32_TABLES;
  var r = ~crc;
  var i = 0;
  var length = bytes.length;
  for (var end8 = length - (length & 7); i < end8; i += 8) {
    var w = r ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    r =
      t[1792 + (w & 0xff)] ^ t[1536 + ((w >>> 8) & 0xff)] ^ t[1280 + ((w >>> 16) & 0xff)] ^ t[1024 + (w >>> 24)] ^
      t[768 + bytes[i + 4]] ^ t[512 + bytes[i + 5]] ^ t[256 + bytes[i + 6]] ^ t[bytes[i + 7]];
  }
  for (; i < length; i++) r = (r >>> 8) ^ t[(r ^ bytes[i]) & 0xff];
  return ~r >>> 0;
}

/** a·b modulo the polynomial, both reflected (bit 31 is x^0). */
function crc32MultiplyModulo(a, b) {
  var product = 0;
  for (var bit = 0x80000000; bit !== 0; bit >>>= 1) {
    if (a & bit) product ^= b;
    b = b & 1 ? (b >>> 1) ^ CRC32_POLYNOMIAL : b >>> 1;
  }
  return product;
}

var CRC32_POWERS_OF_X = (function () {
  var powers = new Int32Array(64); // x^(2^k)
  powers[0] = 0x40000000;
  for (var k = 1; k < 64; k++) powers[k] = crc32MultiplyModulo(powers[k - 1], powers[k - 1]);
  return powers;
})();

/** x^(8·count) modulo the polynomial; count below 2^53, its bits taken as a Number allows. */
function crc32Shift(count) {
  var power = 0x80000000; // x^0
  var k = 3; // 8·count: bit j of count is bit j + 3 of the exponent
  for (var rest = count; rest > 0; k++) {
    if (rest % 2 === 1) power = crc32MultiplyModulo(power, CRC32_POWERS_OF_X[k]);
    rest = Math.floor(rest / 2);
  }
  return power;
}

function crc32ZerosJs(crc, count) {
  return ~crc32MultiplyModulo(~crc, crc32Shift(requireCount(count, "the count of zero bytes"))) >>> 0;
}

function crc32CombineJs(crcA, crcB, lengthB) {
  return (crc32MultiplyModulo(crcA, crc32Shift(requireCount(lengthB, "the second part's length"))) ^ crcB) >>> 0;
}
