// The linear algebra of a PAR 2.0 repair (Spec/recovery-par2.md §7.3, Spec/decisions/0049). The unknowns
// u_0 … u_(k−1) (slices to rebuild) satisfy, for each recovery slice e used, Σ_j c_j^e · x_j = b_e (b_e: the
// recovery slice with the known slices' share taken out). The solution is given as rows: x_j = Σ_s
// rows[j][s] · b_(slot s).
//
// When the intact recovery slices include k consecutive exponents a … a + k − 1, the matrix [c_j^(a+d)] is a
// Vandermonde matrix of distinct constants times the diagonal c_j^a: invertible, so the repair is possible
// without an elimination, and its inverse takes O(k²) (Lagrange's basis polynomials). Otherwise Gauss-Jordan
// elimination over GF(2^16) with pivoting, recovery slices taken by increasing exponent and one whose row
// depends on those taken passed over for the next (PAR 2.0's matrix is not always invertible); its memory
// and work are checked before it starts. Both yield to the browser between rows.

import { formatSize } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import {
  GF16_EXP, GF16_LOG, GF16_ORDER, gf16Inverse, gf16Multiply, PAR2_INPUT_LOGS, par2Coefficient,
} from "./05-gf16.mjs";
import { limits } from "./22-entry-data.mjs";

/** target ^= f · source over the first `count` field elements of two Uint16Arrays (the matrix's rows). */
function rowMultiplyAdd(f, source, target, count) {
  if (f === 0) return;
  var lf = GF16_LOG[f];
  for (var i = 0; i < count; i++) {
    var x = source[i];
    if (x !== 0) target[i] ^= GF16_EXP[GF16_LOG[x] + lf];
  }
}

function rowScale(f, row) {
  var lf = GF16_LOG[f];
  for (var i = 0; i < row.length; i++) if (row[i] !== 0) row[i] = GF16_EXP[GF16_LOG[row[i]] + lf];
}

/** The constant of input slice `slice` (its coefficient for the exponent 1). */
function par2Constant(slice) {
  return GF16_EXP[PAR2_INPUT_LOGS[slice]];
}

/** browser_limit when `bytes` more would pass limits.recoveryMemory (before they are allocated). */
export function checkMemory(bytes, what) {
  if (bytes > limits.recoveryMemory)
    throw new GoshuinError(
      "browser_limit",
      what + " would take " + formatSize(bytes) + " (the page holds at most " + formatSize(limits.recoveryMemory) + "); goshuin-tool repair or par2 repair can"
    );
}

/** The first `k` consecutive exponents among `usable` (sorted, distinct): the index of the first, or -1. */
export function consecutiveRun(usable, k) {
  var run = 0;
  for (var i = 0; i < usable.length; i++) {
    run = i > 0 && usable[i].exponent === usable[i - 1].exponent + 1 ? run + 1 : 1;
    if (run >= k) return i - k + 1;
  }
  return -1;
}

/**
 * The inverse of [c_j^(a+d)] (d the row, j the column) for the slices `unknowns`: rows[j][d]. With P(z) =
 * Π_m (z + c_m) and Q_j = P / (z + c_j), rows[j][d] = q_(j,d) · c_j^(−a) / Q_j(c_j).
 */
export async function invertConsecutive(unknowns, a, pace) {
  var k = unknowns.length;
  checkMemory(2 * k * k, "The inverse of the repair's matrix");
  var constants = unknowns.map(par2Constant);
  var p = new Uint16Array(k + 1); // P's coefficients, the constant term first
  p[0] = 1;
  for (var m = 0; m < k; m++) {
    var c = constants[m];
    for (var i = m + 1; i > 0; i--) p[i] = p[i - 1] ^ gf16Multiply(c, p[i]);
    p[0] = gf16Multiply(c, p[0]);
    if ((m & 63) === 63) await pace();
  }
  var rows = new Array(k);
  for (var j = 0; j < k; j++) {
    await pace();
    var cj = constants[j];
    var lc = GF16_LOG[cj];
    var q = new Uint16Array(k);
    q[k - 1] = p[k];
    for (var d = k - 1; d > 0; d--) q[d - 1] = p[d] ^ (q[d] === 0 ? 0 : GF16_EXP[GF16_LOG[q[d]] + lc]);
    var value = 0; // Q_j(c_j) by Horner: Π_(m ≠ j) (c_j + c_m), not 0 since the constants differ
    for (var e = k - 1; e >= 0; e--) value = (value === 0 ? 0 : GF16_EXP[GF16_LOG[value] + lc]) ^ q[e];
    // c_j^(−a) / Q_j(c_j), as a logarithm.
    var scale = (((GF16_ORDER - GF16_LOG[value]) % GF16_ORDER) + GF16_ORDER - ((PAR2_INPUT_LOGS[unknowns[j]] * a) % GF16_ORDER)) % GF16_ORDER;
    for (var t = 0; t < k; t++) if (q[t] !== 0) q[t] = GF16_EXP[GF16_LOG[q[t]] + scale];
    rows[j] = q;
  }
  return rows;
}

/**
 * Gauss-Jordan elimination over GF(2^16) with pivoting, over the intact recovery slices `usable` ({
 * exponent, copy }, by increasing exponent): each new row reduced by the pivots so far; when it depends on
 * them it is passed over, otherwise it becomes a pivot on a column it is non-zero in, cleared from every
 * other pivot. Ends with a pivot on every unknown or when the recovery slices run out.
 */
export async function eliminate(unknowns, usable, pace) {
  var u = unknowns.length;
  checkMemory(4 * u * u, "The repair's matrix");
  if (u * u * 2 * u > limits.recoveryWork)
    throw new GoshuinError(
      "browser_limit",
      "rebuilding " + u + " parts of the file from recovery data that is not consecutive needs an elimination of " + u + " × " + u +
        ", more than this page does; goshuin-tool repair or par2 repair can"
    );
  var pivots = []; // { column, left, right }
  var isPivot = new Uint8Array(u);
  var slots = [];
  var passedOver = 0;
  for (var r = 0; r < usable.length && slots.length < u; r++) {
    await pace();
    var exponent = usable[r].exponent;
    var left = new Uint16Array(u);
    for (var j = 0; j < u; j++) left[j] = par2Coefficient(unknowns[j], exponent);
    var right = new Uint16Array(u);
    right[slots.length] = 1;
    var used = slots.length + 1; // a right-hand side has no coefficient past the slices taken
    for (var p = 0; p < pivots.length; p++) {
      var f = left[pivots[p].column];
      if (f !== 0) {
        rowMultiplyAdd(f, pivots[p].left, left, u);
        rowMultiplyAdd(f, pivots[p].right, right, used);
      }
    }
    var column = -1;
    for (var c = 0; c < u && column < 0; c++) if (left[c] !== 0 && !isPivot[c]) column = c;
    if (column < 0) {
      passedOver++; // this slice's row depends on those taken: PAR 2.0's matrix is not always invertible
      continue;
    }
    var scale = gf16Inverse(left[column]);
    rowScale(scale, left);
    rowScale(scale, right);
    for (var q = 0; q < pivots.length; q++) {
      var g = pivots[q].left[column];
      if (g !== 0) {
        rowMultiplyAdd(g, left, pivots[q].left, u);
        rowMultiplyAdd(g, right, pivots[q].right, used);
      }
    }
    pivots.push({ column: column, left: left, right: right });
    isPivot[column] = 1;
    slots.push(usable[r]);
  }
  var rows = new Array(u);
  pivots.forEach(function (pivot) {
    rows[pivot.column] = pivot.right.subarray(0, slots.length);
  });
  return { slots: slots, rows: rows, solved: slots.length === u, passedOver: passedOver, consecutive: false };
}

/**
 * The solution for the slices `unknowns` (their indices in the set) from the intact recovery slices `usable`
 * ({ exponent, copy }, by increasing exponent): { slots (the recovery slices used), rows (for each unknown j,
 * rows[j][s] the coefficient of slot s), solved, passedOver, consecutive }.
 */
export async function solveUnknowns(unknowns, usable, pace) {
  var k = unknowns.length;
  if (k > limits.recoveryUnknowns)
    throw new GoshuinError("not_repairable", "more than " + limits.recoveryUnknowns.toLocaleString("en-US") + " parts of the file to rebuild at once (" + k + "): PAR 2.0 repairs are not made beyond that");
  var first = consecutiveRun(usable, k);
  if (first >= 0) {
    var slots = usable.slice(first, first + k);
    return { slots: slots, rows: await invertConsecutive(unknowns, slots[0].exponent, pace), solved: true, passedOver: 0, consecutive: true };
  }
  return eliminate(unknowns, usable, pace);
}
