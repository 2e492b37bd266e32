// GF(2^16), the field of PAR 2.0's Reed-Solomon code: polynomial x^16 + x^12 + x^3 + x + 1 (0x1100B), 2 a
// generator; a slice is a run of 16-bit little-endian words. Scalars by log/exp tables; regions (the inner
// loop of a repair: target ^= c · source over megabytes) by a table of c·x for every 16-bit x, two words at
// a time through 32-bit views, or, for smaller regions where building that table would cost more than it
// saves, by four 256-entry tables of 32-bit values, or for the smallest by log/exp a word at a time. The
// tests check every way against the log/exp scalars.

var GF16_ORDER = 65535; // the multiplicative group's order
var GF16_LOG = new Uint16Array(65536);
var GF16_EXP = new Uint16Array(2 * GF16_ORDER); // exp[i] for 0 ≤ i < 2·65535: a sum of two logs needs no reduction
(function () {
  for (var i = 0, x = 1; i < GF16_ORDER; i++) {
    GF16_EXP[i] = x;
    GF16_EXP[i + GF16_ORDER] = x;
    GF16_LOG[x] = i;
    x <<= 1;
    if (x & 0x10000) x ^= 0x1100b;
  }
})();

function gf16Multiply(a, b) {
  return a === 0 || b === 0 ? 0 : GF16_EXP[GF16_LOG[a] + GF16_LOG[b]];
}

/** a^-1 for a ≠ 0. */
function gf16Inverse(a) {
  return GF16_EXP[(GF16_ORDER - GF16_LOG[a]) % GF16_ORDER];
}

/**
 * PAR 2.0's input-slice constants ("Recovery Slice packet"): slice i of the set (files in the main packet's
 * order, slices in file order) has the constant 2^n(i), n(i) the i-th n ≥ 1 with n mod 3, 5, 17 and 257
 * all non-zero. There are 32,768 (2, 4, 16, 128, 256, 2048, …), hence PAR 2.0's limit of 32,768 slices.
 */
var PAR2_MAX_INPUT_SLICES = 32768;
var PAR2_INPUT_LOGS = (function () {
  var logs = new Uint16Array(PAR2_MAX_INPUT_SLICES);
  for (var n = 1, i = 0; i < PAR2_MAX_INPUT_SLICES; n++)
    if (n % 3 !== 0 && n % 5 !== 0 && n % 17 !== 0 && n % 257 !== 0) logs[i++] = n;
  return logs;
})();

/** The coefficient of input slice `slice` in the recovery slice of exponent `exponent`: constant^exponent. */
function par2Coefficient(slice, exponent) {
  return GF16_EXP[(PAR2_INPUT_LOGS[slice] * exponent) % GF16_ORDER];
}

var GF16_FULL_TABLE = new Uint16Array(65536); // c·x for every x: one lookup a word
var GF16_SPLIT_TABLES = new Int32Array(1024); // c·(low byte), c·(high byte), each also shifted into the high half
var GF16_FULL_TABLE_FROM = 131072; // bytes from which building the full table (65,536 entries) pays for itself
var GF16_SPLIT_TABLES_FROM = 512; // bytes from which the split tables (512 products) pay for themselves

/** c·x for every 16-bit x into GF16_FULL_TABLE, by linearity: c·(x ⊕ 2^k) = c·x ⊕ c·2^k. */
function fillFullTable(c) {
  var table = GF16_FULL_TABLE;
  var lc = GF16_LOG[c];
  table[0] = 0;
  for (var k = 0, bit = 1; k < 16; k++, bit <<= 1) {
    var v = GF16_EXP[lc + k];
    for (var x = 0; x < bit; x++) table[bit + x] = table[x] ^ v;
  }
}

function fillSplitTables(c) {
  var t = GF16_SPLIT_TABLES;
  var lc = GF16_LOG[c];
  for (var x = 0; x < 256; x++) {
    var low = x === 0 ? 0 : GF16_EXP[GF16_LOG[x] + lc];
    var high = x === 0 ? 0 : GF16_EXP[GF16_LOG[x << 8] + lc];
    t[x] = low;
    t[256 + x] = high;
    t[512 + x] = low << 16;
    t[768 + x] = high << 16;
  }
}

/**
 * target ^= c · source, both Uint8Arrays of 16-bit little-endian words, over source's bytes (an odd last
 * byte is a word whose high byte is 0; target must hold that whole word).
 */
function gf16MultiplyAdd(c, source, target) {
  var length = source.length;
  if (c === 0 || length === 0) return;
  if (target.length < length + (length & 1)) throw new RangeError("the target is shorter than the source");
  var aligned = LITTLE_ENDIAN && ((source.byteOffset | target.byteOffset) & 3) === 0;
  var wordCount = aligned && (c === 1 || length >= GF16_SPLIT_TABLES_FROM) ? length >> 2 : 0;
  if (wordCount > 0) {
    var s = new Int32Array(source.buffer, source.byteOffset, wordCount);
    var d = new Int32Array(target.buffer, target.byteOffset, wordCount);
    var i;
    if (c === 1) {
      for (i = 0; i < wordCount; i++) d[i] ^= s[i];
    } else if (length >= GF16_FULL_TABLE_FROM) {
      fillFullTable(c);
      var full = GF16_FULL_TABLE;
      for (i = 0; i < wordCount; i++) {
        var x = s[i];
        d[i] ^= full[x & 0xffff] | (full[x >>> 16] << 16);
      }
    } else {
      fillSplitTables(c);
      var t = GF16_SPLIT_TABLES;
      for (i = 0; i < wordCount; i++) {
        var y = s[i];
        d[i] ^= t[y & 255] ^ t[256 + ((y >>> 8) & 255)] ^ t[512 + ((y >>> 16) & 255)] ^ t[768 + (y >>> 24)];
      }
    }
  }
  // The rest (or everything: a short region, unaligned, or a big-endian platform) a word at a time.
  var lc = GF16_LOG[c];
  for (var at = wordCount * 4; at < length; at += 2) {
    var word = source[at] | (at + 1 < length ? source[at + 1] << 8 : 0);
    if (word === 0) continue;
    var product = GF16_EXP[GF16_LOG[word] + lc];
    target[at] ^= product & 0xff;
    target[at + 1] ^= product >>> 8;
  }
}
