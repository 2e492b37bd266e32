// GF(2^16) region multiply-accumulate (PAR 2.0's field, 0x1100B) in plain JavaScript: target ^= c · source
// for each (target, c). Multiplication by c is linear over GF(2), so its tables are built from the 16
// products c·x^b alone: for a region of 64 KiB or more, a table of c·w for every word w (one lookup a
// word; building it costs 65,536 XORs); for a smaller one, c·(low byte) and c·(high byte << 8), 256 each
// (two lookups a word). Two words are done at a time through 32-bit views when both regions allow (a
// little-endian platform, offsets that are multiples of 4); the rest a word at a time.

var GF16_POLYNOMIAL = 0x1100b;
var GF16_FULL_TABLE_FROM = 65536; // bytes of region from which the table of every product pays for itself
// The tables, filled again for each coefficient in place: allocating them a call costs more than filling
// them, and loops over these fixed arrays are compiled for their one type.
var GF16_FULL_TABLE = new Uint16Array(65536);
var GF16_SPLIT_TABLES = new Int32Array(1024);

/** c · x^b for b = 0 … 15. */
function gf16Basis(c) {
  var basis = new Int32Array(16);
  for (var bit = 0, value = c; bit < 16; bit++) {
    basis[bit] = value;
    value <<= 1;
    if (value & 0x10000) value ^= GF16_POLYNOMIAL;
  }
  return basis;
}

/** c·w for every w < 2^bits into table[0, 2^bits): c·(w ⊕ 2^k) = c·w ⊕ c·2^k. */
function gf16FillProducts(basis, bits, table) {
  table[0] = 0;
  for (var k = 0, size = 1; k < bits; k++, size <<= 1) {
    var product = basis[k];
    for (var w = 0; w < size; w++) table[size + w] = table[w] ^ product;
  }
}

var GF16_ADD = 0; // c = 1: the product is the word itself
var GF16_FULL = 1; // GF16_FULL_TABLE holds c's products
var GF16_SPLIT = 2; // GF16_SPLIT_TABLES hold c's products

/** Fills the tables c needs for a region of `regionBytes`; returns which it filled. */
function gf16PrepareTables(c, regionBytes) {
  if (c === 1) return GF16_ADD;
  var basis = gf16Basis(c);
  if (regionBytes >= GF16_FULL_TABLE_FROM) {
    gf16FillProducts(basis, 16, GF16_FULL_TABLE);
    return GF16_FULL;
  }
  // [c·b, c·(b << 8), c·b << 16, c·(b << 8) << 16] for every byte b, 256 entries each
  var split = GF16_SPLIT_TABLES;
  gf16FillProducts(basis, 8, split);
  gf16FillProducts(basis.subarray(8), 8, split.subarray(256));
  for (var b = 0; b < 256; b++) {
    split[512 + b] = split[b] << 16;
    split[768 + b] = split[256 + b] << 16;
  }
  return GF16_SPLIT;
}

// Each loop is a function of its own: one that holds a loop that never ran (the tail, after aligned
// regions) has no type feedback for it, and V8 threw its optimized code away at every call.

/** d ^= c·s, two words at a time, for `kind` (its tables filled). */
function gf16MulAddPairs(kind, s, d) {
  var n = s.length;
  var i;
  if (kind === GF16_ADD) {
    for (i = 0; i < n; i++) d[i] ^= s[i];
  } else if (kind === GF16_FULL) {
    var full = GF16_FULL_TABLE;
    for (i = 0; i < n; i++) {
      var x = s[i];
      d[i] ^= full[x & 0xffff] | (full[x >>> 16] << 16);
    }
  } else {
    var t = GF16_SPLIT_TABLES;
    for (i = 0; i < n; i++) {
      var y = s[i];
      d[i] ^= t[y & 0xff] ^ t[256 + ((y >>> 8) & 0xff)] ^ t[512 + ((y >>> 16) & 0xff)] ^ t[768 + (y >>> 24)];
    }
  }
}

/** target ^= c·source a word at a time from byte `from`; an odd length ends with a word whose high byte is 0. */
function gf16MulAddWords(kind, source, target, from) {
  var length = source.length;
  for (var at = from; at < length; at += 2) {
    var word = source[at] | (at + 1 < length ? source[at + 1] << 8 : 0);
    var product =
      kind === GF16_ADD ? word : kind === GF16_FULL ? GF16_FULL_TABLE[word] : GF16_SPLIT_TABLES[word & 0xff] ^ GF16_SPLIT_TABLES[256 + (word >>> 8)];
    target[at] ^= product;
    target[at + 1] ^= product >>> 8;
  }
}

function gf16MulAddOne(c, source, target) {
  var kind = gf16PrepareTables(c, source.length);
  var pairs = 0; // 32-bit values done through the views
  if (LITTLE_ENDIAN && ((source.byteOffset | target.byteOffset) & 3) === 0) {
    pairs = source.length >> 2;
    gf16MulAddPairs(kind, new Int32Array(source.buffer, source.byteOffset, pairs), new Int32Array(target.buffer, target.byteOffset, pairs));
  }
  if (pairs * 4 < source.length) gf16MulAddWords(kind, source, target, pairs * 4);
}

function gf16MulAddJs(coefficients, source, targets) {
  checkMulAddArguments(coefficients, source, targets);
  for (var i = 0; i < targets.length; i++) if (coefficients[i] !== 0 && source.length > 0) gf16MulAddOne(coefficients[i], source, targets[i]);
}
