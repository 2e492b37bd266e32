// GF(2^16) region multiply-accumulate (PAR 2.0's field, 0x1100B) in plain JavaScript: target ^= c · source
// for each (target, c). Multiplication by c is linear over GF(2), so c·w = c·(low byte) ⊕ c·(high byte << 8):
// two tables of 256 products a coefficient, built from c·x^b by linearity. Two words are done at a time
// through 32-bit views when both regions allow (a little-endian platform, offsets that are multiples of 4),
// with the tables also shifted into the high half; the rest a word at a time.

var GF16_POLYNOMIAL = 0x1100b;

/** For c: [c·b, c·(b << 8), c·b << 16, c·(b << 8) << 16] for every byte b, 256 entries each. */
function gf16ProductTables(c) {
  var basis = new Int32Array(16); // c · x^bit
  for (var bit = 0, value = c; bit < 16; bit++) {
    basis[bit] = value;
    value <<= 1;
    if (value & 0x10000) value ^= GF16_POLYNOMIAL;
  }
  var tables = new Int32Array(1024);
  for (var b = 1; b < 256; b++) {
    var lowest = 31 - Math.clz32(b & -b); // b's other bits make a smaller b done before
    var low = tables[b & (b - 1)] ^ basis[lowest];
    var high = tables[256 + (b & (b - 1))] ^ basis[8 + lowest];
    tables[b] = low;
    tables[256 + b] = high;
    tables[512 + b] = low << 16;
    tables[768 + b] = high << 16;
  }
  return tables;
}

function gf16MulAddOne(tables, c, source, target) {
  var length = source.length;
  var pairs = 0; // 32-bit words done through the views
  if (LITTLE_ENDIAN && ((source.byteOffset | target.byteOffset) & 3) === 0) {
    pairs = length >> 2;
    var s = new Int32Array(source.buffer, source.byteOffset, pairs);
    var d = new Int32Array(target.buffer, target.byteOffset, pairs);
    var i;
    if (c === 1) {
      for (i = 0; i < pairs; i++) d[i] ^= s[i];
    } else {
      var t = tables;
      for (i = 0; i < pairs; i++) {
        var x = s[i];
        d[i] ^= t[x & 0xff] ^ t[256 + ((x >>> 8) & 0xff)] ^ t[512 + ((x >>> 16) & 0xff)] ^ t[768 + (x >>> 24)];
      }
    }
  }
  for (var at = pairs * 4; at < length; at += 2) {
    var low = source[at];
    var high = at + 1 < length ? source[at + 1] : 0; // an odd length ends with a word whose high byte is 0
    var product = c === 1 ? low | (high << 8) : tables[low] ^ tables[256 + high];
    target[at] ^= product;
    target[at + 1] ^= product >>> 8;
  }
}

function gf16MulAddJs(coefficients, source, targets) {
  checkMulAddArguments(coefficients, source, targets);
  for (var i = 0; i < targets.length; i++) {
    var c = coefficients[i];
    if (c !== 0 && source.length > 0) gf16MulAddOne(c === 1 ? null : gf16ProductTables(c), c, source, targets[i]);
  }
}
