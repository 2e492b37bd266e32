// The linear algebra of a PAR 2.0 repair (82-par2-verify.js says the steps): Gauss-Jordan elimination over
// GF(2^16) with pivoting, recovery slices taken by increasing exponent and one whose row depends on those
// taken passed over for the next.

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

/**
 * Gauss-Jordan elimination over GF(2^16) with pivoting, one recovery slice at a time, by increasing exponent:
 * each new row reduced by the pivots so far; when it depends on them it is passed over, otherwise its
 * packet is checked, and if intact it becomes a pivot on a column it is non-zero in, cleared from every
 * other pivot. Ends with a pivot on every unknown or when the recovery slices run out. Returns { slots,
 * rows, solved, passedOver, damagedRecovery }: `slots` the recovery slices used ({ exponent, copy }), for
 * each unknown column c rows[c] its coefficients over `slots` (x_c = Σ rows[c][s] · b_s, b_s being recovery
 * slice s with the known slices' share taken out), `passedOver` the rows that depended on those taken.
 */
async function solveUnknowns(recovery, unknowns, signal) {
  var u = unknowns.length;
  var pivots = []; // { column, left, right }
  var isPivot = new Uint8Array(u);
  var slots = [];
  var passedOver = 0;
  var damagedRecovery = 0;
  var exponents = recovery.target.exponents;
  for (var r = 0; r < exponents.length && slots.length < u; r++) {
    var exponent = exponents[r].exponent;
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
    var copy = null;
    for (var k = 0; k < exponents[r].copies.length && copy === null; k++)
      if (await recoveryCopyIntact(recovery, exponents[r].copies[k], signal)) copy = exponents[r].copies[k];
    if (copy === null) {
      damagedRecovery++;
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
    slots.push({ exponent: exponent, copy: copy });
  }
  var rows = new Array(u);
  pivots.forEach(function (pivot) {
    rows[pivot.column] = pivot.right.subarray(0, slots.length);
  });
  return { slots: slots, rows: rows, solved: slots.length === u, passedOver: passedOver, damagedRecovery: damagedRecovery };
}
