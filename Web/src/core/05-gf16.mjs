// GF(2^16), the field of PAR 2.0's Reed-Solomon code: polynomial x^16 + x^12 + x^3 + x + 1 (0x1100B), 2 a
// generator; a slice is a run of 16-bit little-endian words. Scalars by log/exp tables; regions (the inner
// loop of a repair: target ^= c · source over megabytes) by the kernels (02-kernels.mjs), whose tests check
// them against log/exp scalars.

import { kernels } from "./02-kernels.mjs";

export var GF16_ORDER = 65535; // the multiplicative group's order
export var GF16_LOG = new Uint16Array(65536);
export var GF16_EXP = new Uint16Array(2 * GF16_ORDER); // exp[i] for 0 ≤ i < 2·65535: a sum of two logs needs no reduction
(function () {
  for (var i = 0, x = 1; i < GF16_ORDER; i++) {
    GF16_EXP[i] = x;
    GF16_EXP[i + GF16_ORDER] = x;
    GF16_LOG[x] = i;
    x <<= 1;
    if (x & 0x10000) x ^= 0x1100b;
  }
})();

export function gf16Multiply(a, b) {
  return a === 0 || b === 0 ? 0 : GF16_EXP[GF16_LOG[a] + GF16_LOG[b]];
}

/** a^-1 for a ≠ 0. */
export function gf16Inverse(a) {
  return GF16_EXP[(GF16_ORDER - GF16_LOG[a]) % GF16_ORDER];
}

/**
 * PAR 2.0's input-slice constants ("Recovery Slice packet"): slice i of the set (files in the main packet's
 * order, slices in file order) has the constant 2^n(i), n(i) the i-th n ≥ 1 with n mod 3, 5, 17 and 257
 * all non-zero. There are 32,768 (2, 4, 16, 128, 256, 2048, …), hence PAR 2.0's limit of 32,768 slices.
 */
export var PAR2_MAX_INPUT_SLICES = 32768;
export var PAR2_INPUT_LOGS = (function () {
  var logs = new Uint16Array(PAR2_MAX_INPUT_SLICES);
  for (var n = 1, i = 0; i < PAR2_MAX_INPUT_SLICES; n++)
    if (n % 3 !== 0 && n % 5 !== 0 && n % 17 !== 0 && n % 257 !== 0) logs[i++] = n;
  return logs;
})();

/** The coefficient of input slice `slice` in the recovery slice of exponent `exponent`: constant^exponent. */
export function par2Coefficient(slice, exponent) {
  return GF16_EXP[(PAR2_INPUT_LOGS[slice] * exponent) % GF16_ORDER];
}

/**
 * target ^= c · source, both Uint8Arrays of 16-bit little-endian words, over source's bytes (an odd last
 * byte is a word whose high byte is 0; target must hold that whole word).
 */
export function gf16MultiplyAdd(c, source, target) {
  kernels().gf16MulAdd([c], source, [target]);
}

/** target[offset …] ^= c · source, without a view for a short source (tiny slices: millions of calls). */
export function multiplyAddAt(c, source, target, offset) {
  if (c === 0) return;
  if (source.length >= 256) {
    gf16MultiplyAdd(c, source, target.subarray(offset));
    return;
  }
  var lc = GF16_LOG[c];
  for (var at = 0; at < source.length; at += 2) {
    var word = source[at] | (at + 1 < source.length ? source[at + 1] << 8 : 0);
    if (word === 0) continue;
    var product = GF16_EXP[GF16_LOG[word] + lc];
    target[offset + at] ^= product & 0xff;
    target[offset + at + 1] ^= product >>> 8;
  }
}
