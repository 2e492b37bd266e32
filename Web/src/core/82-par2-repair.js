// Verifying a backup against its PAR 2.0 recovery set and repairing it in memory. No passphrase: the
// slices' MD5s and CRC-32s locate the damage, the Reed-Solomon code of PAR 2.0 rebuilds it.
//
// 1. `readRecoverySet`: the picked files scanned (80-par2-packets.js), the set and the file in it that is
//    this backup.
// 2. `verifyWithRecovery`: one pass over the backup; each slice at its offset (slice i at i · sliceSize)
//    checked by its CRC-32 and MD5 (the last one padded with zeros), and the whole file's MD5 computed
//    up to the first slice that fails. A slice past the end of a cut file is missing; bytes past the length
//    the set gives (a file added to) are not the backup's. Then recovery slices by increasing exponent,
//    their packets' MD5s checked, until as many are intact as there are slices to rebuild.
// 3. `rebuildWithRecovery`: the unknowns are the damaged and missing slices, and the slices of any other
//    file the set protects (the page is given the backup only). Recovery slices are taken by increasing
//    exponent into a Gauss-Jordan elimination over GF(2^16) with pivoting; a slice whose row depends on
//    the rows taken (PAR 2.0's matrix is not always invertible) is passed over for the next one. From the
//    inverse, each slice to rebuild is a sum over the recovery slices taken and the intact slices of the
//    backup (rebuildPlan: by coefficients or by syndromes, one more pass over the backup either way; none
//    for one slice and the recovery slice of exponent 0, from the XOR the check kept). Each rebuilt slice
//    must match its MD5 and CRC-32; the repaired backup is a Blob of the original's intact runs and the
//    rebuilt slices (the file is not copied), accepted only when its whole MD5 is the file description's.
//
// Every step reports progress and stops between reads when asked (options.signal), like the rest of the
// core.

var RECOVERY_WINDOW = 8388608; // bytes read at a time from the backup and the recovery files
var RECOVERY_WORK_PER_READ = 33554432; // multiply-add bytes between two reads, so the page stays responsive
var VERIFY_PART = 65536; // the check's digests read each piece in parts this size, which stay in cache
var SLICE_INTACT = 0;
var SLICE_DAMAGED = 1;
var SLICE_MISSING = 2;

/** Pieces of `source` in [offset, end), each at most `pieceSize` bytes, the next one read while the caller works. */
async function* readPieces(source, offset, end, pieceSize, signal) {
  var read = function (at) {
    var promise = source.read(at, Math.min(pieceSize, end - at));
    promise.catch(function () {}); // a read the caller no longer waits for must not be an unhandled rejection
    return promise;
  };
  var next = offset < end ? read(offset) : null;
  while (next !== null) {
    var bytes = await next;
    if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
    var at = offset;
    offset += bytes.length;
    next = offset < end ? read(offset) : null;
    yield { offset: at, bytes: bytes };
  }
}

/** A piece size for a pass over slices: whole slices when they fit in a window, else windows. */
function slicePieceSize(sliceSize, window) {
  return sliceSize <= window ? Math.floor(window / sliceSize) * sliceSize : window;
}

/**
 * `visit(slice, within, bytes)` for the bytes of [0, end) of `source`, split where slices of `sliceSize`
 * bytes begin: `within` is the offset of `bytes` in its slice.
 */
async function forEachSlicePiece(source, sliceSize, end, pieceSize, signal, visit) {
  for await (var piece of readPieces(source, 0, end, pieceSize, signal)) {
    var bytes = piece.bytes;
    for (var at = 0; at < bytes.length; ) {
      var position = piece.offset + at;
      var slice = Math.floor(position / sliceSize);
      var within = position - slice * sliceSize;
      var take = Math.min(bytes.length - at, sliceSize - within);
      visit(slice, within, bytes.subarray(at, at + take));
      at += take;
    }
  }
}

function crc32Zeros(crc, count) {
  while (count > 0) {
    var take = Math.min(count, ZEROS.length);
    crc = crc32Update(crc, ZEROS.subarray(0, take));
    count -= take;
  }
  return crc;
}

/** Whether `md5` and `crc` are slice `index`'s in the checksums packet (MD5 16 bytes, CRC-32 u32le, per slice). */
function sliceMatches(checksums, index, digest, crc) {
  var at = 20 * index;
  return u32le(checksums, at + 16) === crc && bytesEqual(digest, checksums.subarray(at, at + 16));
}

/** Runs of slices that are not intact: [{ first, last, reason }], at most SALVAGE_RUNS_KEPT of them. */
function damagedRuns(status) {
  var runs = [];
  for (var i = 0; i < status.length && runs.length < SALVAGE_RUNS_KEPT; i++) {
    if (status[i] === SLICE_INTACT) continue;
    var reason = status[i] === SLICE_MISSING ? "missing" : "damaged";
    var last = i;
    while (last + 1 < status.length && status[last + 1] === status[i]) last++;
    runs.push({ first: i, last: last, reason: reason });
    i = last;
  }
  return runs;
}

/**
 * The recovery set of `backup` (a Blob or File) among `recoveryFiles` (Blobs or Files: the .par2 files
 * picked; any others are scanned and hold no packet). `options.onProgress("recovery-scan", done, total)`.
 * Throws recovery_set_invalid (no usable set) or recovery_set_mismatch (a set for another file).
 */
async function readRecoverySet(backup, recoveryFiles, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var started = now();
  var backupSource = blobSource(backup);
  var sources = recoveryFiles.map(blobSource);
  var total = sources.reduce(function (sum, source) {
    return sum + source.size;
  }, 0);
  var scan = new RecoveryScan(total);
  var done = 0;
  progress("recovery-scan", 0, total);
  for (var i = 0; i < sources.length; i++) {
    await scanRecoveryFile(scan, sources[i], i, options.signal, function (count) {
      done += count;
      progress("recovery-scan", done, total);
    });
  }
  var first = await backupSource.read(0, Math.min(16384, backupSource.size));
  var target = recoveryTarget(scan, { size: backupSource.size, md5First16k: md5(first) });
  return { backup: backup, backupSource: backupSource, sources: sources, scan: scan, target: target, scanMs: now() - started };
}

/**
 * Every slice of the backup checked against the set, and as many recovery slices as a repair needs: the
 * check a repair starts from. Returns { recovery, status (a Uint8Array per slice: 0 intact, 1 damaged,
 * 2 missing), runs, damaged, missing, intact, intactFile, addedBytes, unknowns (slices to rebuild, other
 * files' included), recoverySlices (present), usable and damagedRecovery (of those checked), repairable,
 * … }. `options.onProgress(stage, done, total)`: "recovery-verify" (bytes), then "recovery-slices"
 * (recovery slices found intact, of those needed). Throws recovery_set_mismatch when no slice of the
 * backup matches a set matched by its length alone (and able to rebuild every slice) or by nothing.
 */
async function verifyWithRecovery(recovery, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var started = now();
  var target = recovery.target;
  var size = recovery.backupSource.size;
  var length = target.description.length;
  var sliceSize = target.sliceSize;
  var end = Math.min(size, length);
  var status = new Uint8Array(target.sliceCount).fill(SLICE_MISSING);
  // The whole file's MD5 goes on while every slice so far matched; it stops at the start of the first that
  // does not, where the repair resumes it over the rebuilt slice.
  var fileDigest = new Md5();
  var digestStopped = false;
  var atSliceStart = null;
  var open = -1; // the slice begun and not yet whole
  var crc = 0;
  var digest = null;
  var done = 0;
  var stopDigest = function () {
    if (digestStopped) return;
    digestStopped = true;
    fileDigest = atSliceStart;
  };
  // The XOR of the intact slices, the known share of the recovery slice of exponent 0 (every constant to
  // the power 0 is 1): with one slice to rebuild it is rebuilt from that alone, without a second pass.
  // A slice's bytes are added as they pass and taken out again when it fails.
  var parity = null;
  if (target.otherSlices.length === 0 && target.exponents.length > 0 && target.exponents[0].exponent === 0 && sliceSize <= limits.recoveryMemory)
    parity = new Uint8Array(sliceSize);
  var openParts = [];
  var takeOut = function () {
    for (var p = 0; p < openParts.length; p++) gf16MultiplyAdd(1, openParts[p].bytes, parity.subarray(openParts[p].within));
  };
  progress("recovery-verify", 0, end);
  await forEachSlicePiece(recovery.backupSource, sliceSize, end, slicePieceSize(sliceSize, RECOVERY_WINDOW), options.signal, function (slice, within, bytes) {
    if (within === 0) {
      open = slice;
      openParts = [];
      status[slice] = SLICE_DAMAGED; // until it is whole and matches
      crc = 0;
      digest = new Md5();
      if (!digestStopped) atSliceStart = fileDigest.clone();
    }
    // In parts that stay in the processor's cache while the three digests read them.
    for (var at = 0; at < bytes.length; at += VERIFY_PART) {
      var part = bytes.subarray(at, Math.min(bytes.length, at + VERIFY_PART));
      crc = crc32Update(crc, part);
      digest.update(part);
      if (!digestStopped) fileDigest.update(part);
      if (parity) gf16MultiplyAdd(1, part, parity.subarray(within + at));
    }
    if (parity) openParts.push({ within: within, bytes: bytes });
    var realLength = Math.min(sliceSize, length - slice * sliceSize);
    if (within + bytes.length === realLength) {
      open = -1;
      crc = crc32Zeros(crc, sliceSize - realLength);
      digest.updateZeros(sliceSize - realLength);
      if (sliceMatches(target.checksums, slice, digest.digest(), crc)) status[slice] = SLICE_INTACT;
      else {
        stopDigest();
        if (parity) takeOut();
      }
      openParts = [];
    }
    done += bytes.length;
    progress("recovery-verify", done, end);
  });
  if (open >= 0) {
    stopDigest(); // the file ends inside this slice
    if (parity) takeOut();
  }
  var damaged = 0;
  var missing = 0;
  var firstBad = -1;
  for (var i = 0; i < status.length; i++) {
    if (status[i] === SLICE_INTACT) continue;
    if (firstBad < 0) firstBad = i;
    if (status[i] === SLICE_MISSING) missing++;
    else damaged++;
  }
  var intact = status.length - damaged - missing;
  // Other files' slices are unknowns only when there is something to rebuild.
  var unknowns = damaged + missing === 0 ? 0 : damaged + missing + target.otherSlices.length;
  var intactFile = false;
  if (firstBad < 0) {
    if (!bytesEqual(fileDigest.digest(), target.description.md5))
      throw recoveryInvalid("every slice matches its checksum but the whole file's MD5 is not the one of the file description: the recovery set contradicts itself");
    intactFile = true;
  }
  // Recovery slices by increasing exponent, until as many are intact as there are unknowns: the count a
  // repair can rely on (the solver takes them from here, and checks no packet twice).
  var usable = 0;
  var damagedRecovery = 0;
  for (var r = 0; r < target.exponents.length && usable < unknowns; r++) {
    var intactCopy = false;
    for (var c = 0; c < target.exponents[r].copies.length && !intactCopy; c++)
      intactCopy = await recoveryCopyIntact(recovery, target.exponents[r].copies[c], options.signal);
    if (intactCopy) usable++;
    else damagedRecovery++;
    progress("recovery-slices", usable, unknowns);
  }
  // A set matched by its length alone, or by nothing, must be proved by a slice of the backup: else it
  // may be another file's, and a "repair" would hand out that file.
  if (intact === 0 && (target.match === "sole" || (target.match === "size" && usable >= unknowns)))
    throw new GoshuinError(
      "recovery_set_mismatch",
      "no slice of this backup matches the recovery set, whose file has other first 16 KiB" +
        (target.match === "sole" ? " and another length" : "") + ": it was made for another file"
    );
  return {
    recovery: recovery,
    status: status,
    runs: damagedRuns(status),
    damaged: damaged,
    missing: missing,
    intact: intact,
    intactFile: intactFile, // every slice intact and the file's MD5 right (there may be bytes added to it)
    addedBytes: Math.max(0, size - length),
    fileDigest: fileDigest, // the whole file's MD5 over slices 0 … resumeSlice − 1
    resumeSlice: firstBad < 0 ? status.length : firstBad,
    unknowns: unknowns,
    recoverySlices: target.exponents.length, // present; those checked: usable + damagedRecovery
    usable: usable,
    damagedRecovery: damagedRecovery,
    repairable: usable >= unknowns,
    parity: parity, // the XOR of the intact slices, or null
    verifyMs: now() - started,
  };
}

function insufficient(check, available, damagedRecovery) {
  var target = check.recovery.target;
  var bad = check.damaged + check.missing;
  var error = new GoshuinError(
    "recovery_insufficient",
    bad + " slice" + (bad === 1 ? " is" : "s are") + " damaged or missing" +
      (target.otherSlices.length ? " (and the set protects " + target.otherSlices.length + " slices of other files, which count as missing here)" : "") +
      ", and the recovery files hold " + available + " usable recovery slice" + (available === 1 ? "" : "s") +
      (damagedRecovery ? " (" + damagedRecovery + " more are damaged)" : "") +
      ": " + check.unknowns + " are needed"
  );
  if (check.intact === 0 && target.match !== "exact" && target.match !== "start")
    error.detail += "; no slice of the backup matches the set either: if these recovery files are another file's, pick the backup's";
  error.message = error.code + ": " + error.detail;
  error.damagedSlices = bad;
  error.recoverySlices = available;
  error.neededSlices = check.unknowns;
  return error;
}

/** The MD5 of a recovery slice packet, checked once; false when it fails. Charged to the scan's budget. */
async function recoveryCopyIntact(recovery, copy, signal) {
  if (copy.verified !== null) return copy.verified;
  var scan = recovery.scan;
  scan.hashed += copy.length;
  if (scan.hashed > scan.budget)
    throw recoveryInvalid("the recovery files hold too many damaged recovery slices to check (more than " + scan.budget + " bytes hashed)");
  var digest = new Md5();
  for await (var piece of readPieces(recovery.sources[copy.source], copy.offset + 32, copy.offset + copy.length, RECOVERY_WINDOW, signal))
    digest.update(piece.bytes);
  copy.verified = bytesEqual(digest.digest(), copy.hash);
  return copy.verified;
}

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

/**
 * How to sum what the solution says (the same bytes either way). By coefficients: rebuilt[j] = Σ_s rows[j][s] ·
 * R_s ⊕ Σ_g m_jg · D_g with m_jg = Σ_s rows[j][s] · c_g^e_s: k multiply-adds per intact byte, k·u scalar
 * products per intact slice, k slices held. By syndromes: b_s = R_s ⊕ Σ_g c_g^e_s · D_g, then rebuilt[j] =
 * Σ_s rows[j][s] · b_s: u multiply-adds per intact byte, u scalars per slice, k·u per slice byte at the end,
 * u + k slices held. Syndromes when they cost less (small slices, where k·u scalar products per slice
 * outweigh its bytes) and fit in memory. Costs in 16-bit words and scalar products.
 */
function rebuildPlan(k, u, intactSlices, sliceSize) {
  var words = sliceSize / 2;
  var byCoefficients = { bySyndromes: false, memory: k * sliceSize, scalars: k * u * intactSlices };
  var bySyndromes = { bySyndromes: true, memory: (u + k) * sliceSize, scalars: u * intactSlices };
  var costOfCoefficients = byCoefficients.scalars + k * intactSlices * words + k * u * words;
  var costOfSyndromes = bySyndromes.scalars + u * intactSlices * words + k * u * words;
  return costOfSyndromes < costOfCoefficients && bySyndromes.memory <= limits.recoveryMemory ? bySyndromes : byCoefficients;
}

/** Bytes read at a time when each byte read costs `perByte` multiply-adds, so that the page stays responsive. */
function workPieceSize(perByte) {
  return Math.max(65536, Math.min(RECOVERY_WINDOW, Math.floor(RECOVERY_WORK_PER_READ / perByte / 4) * 4));
}

/** `visit(within, bytes)` over the data of a recovery slice packet, in pieces. */
async function readRecoverySlice(recovery, copy, pieceSize, signal, visit) {
  var start = copy.offset + PAR2_PEEK;
  for await (var piece of readPieces(recovery.sources[copy.source], start, start + recovery.target.sliceSize, pieceSize, signal))
    visit(piece.offset - start, piece.bytes);
}

/** The rebuilt slices by syndromes (see rebuildPlan). `onBytes(count)` follows the bytes read. */
async function rebuildBySyndromes(check, slots, rows, signal, onBytes) {
  var target = check.recovery.target;
  var source = check.recovery.backupSource;
  var sliceSize = target.sliceSize;
  var syndromes = [];
  for (var s = 0; s < slots.length; s++) {
    var syndrome = new Uint8Array(sliceSize);
    await readRecoverySlice(check.recovery, slots[s].copy, RECOVERY_WINDOW, signal, function (within, bytes) {
      syndrome.set(bytes, within);
      onBytes(bytes.length);
    });
    syndromes.push(syndrome);
  }
  var powers = new Uint16Array(slots.length);
  var powersOf = -1;
  var end = Math.min(source.size, target.description.length);
  await forEachSlicePiece(source, sliceSize, end, slicePieceSize(sliceSize, workPieceSize(slots.length)), signal, function (slice, within, bytes) {
    if (check.status[slice] !== SLICE_INTACT) return;
    if (powersOf !== slice) {
      for (var p = 0; p < slots.length; p++) powers[p] = par2Coefficient(target.firstSlice + slice, slots[p].exponent);
      powersOf = slice;
    }
    for (var q = 0; q < slots.length; q++) gf16MultiplyAdd(powers[q], bytes, syndromes[q].subarray(within));
    onBytes(bytes.length);
  });
  return rows.map(function (row) {
    var out = new Uint8Array(sliceSize);
    for (var t = 0; t < slots.length; t++) gf16MultiplyAdd(row[t], syndromes[t], out);
    return out;
  });
}

/**
 * The intact slices' share of each slice to rebuild, in one pass over the backup: slice g adds
 * Σ_s rows[j][s] · c_g^e_s times its bytes to rebuilt[j] (its share taken out of each b_s). `onBytes(count)`.
 */
async function rebuildFromIntactSlices(check, slots, rows, rebuilt, pieceSize, signal, onBytes) {
  var target = check.recovery.target;
  var source = check.recovery.backupSource;
  var k = rebuilt.length;
  var logPowers = new Uint16Array(slots.length); // log c_g^e_s of the slice at hand (never 0: c_g ≠ 0)
  var coefficients = new Uint16Array(k);
  var coefficientsOf = -1;
  var end = Math.min(source.size, target.description.length);
  await forEachSlicePiece(source, target.sliceSize, end, slicePieceSize(target.sliceSize, pieceSize), signal, function (slice, within, bytes) {
    if (check.status[slice] !== SLICE_INTACT) return;
    if (coefficientsOf !== slice) {
      for (var s = 0; s < slots.length; s++) logPowers[s] = GF16_LOG[par2Coefficient(target.firstSlice + slice, slots[s].exponent)];
      for (var j = 0; j < k; j++) {
        var sum = 0;
        for (var t = 0; t < slots.length; t++) {
          var w = rows[j][t];
          if (w !== 0) sum ^= GF16_EXP[GF16_LOG[w] + logPowers[t]];
        }
        coefficients[j] = sum;
      }
      coefficientsOf = slice;
    }
    for (var r = 0; r < k; r++) gf16MultiplyAdd(coefficients[r], bytes, rebuilt[r].subarray(within));
    onBytes(bytes.length);
  });
}

/**
 * The repaired backup from a check: { outcome: "intact" | "repaired", blob, … } (see repairBackup).
 * `options.onProgress(stage, done, total)` with "recovery-slices" (the recovery slices checked as they are
 * taken), "recovery-rebuild" (bytes read), "recovery-check" (bytes of the repaired file hashed). Throws
 * recovery_insufficient (more damage than recovery data), recovery_failed (the recovery data cannot
 * rebuild the backup as it was), browser_limit (more to hold than the page allows), interrupted, io.
 */
async function rebuildWithRecovery(check, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var signal = options.signal;
  var started = now();
  var recovery = check.recovery;
  var target = recovery.target;
  var sliceSize = target.sliceSize;
  var length = target.description.length;
  var size = recovery.backupSource.size;
  var base = {
    size: length,
    originalSize: size,
    sliceSize: sliceSize,
    sliceCount: target.sliceCount,
    damagedSlices: check.damaged + check.missing,
    runs: check.runs,
    recoverySlices: check.recoverySlices,
    recoverySlicesUsed: 0,
    otherFileSlices: target.otherSlices.length,
    addedBytes: check.addedBytes,
    verifyMs: check.verifyMs,
  };
  if (check.intactFile) {
    // Intact; bytes added after its end are dropped (the whole file's MD5 held over its first `length` bytes).
    var blob = size === length ? recovery.backup : recovery.backup.slice(0, length);
    return Object.assign(base, { outcome: size === length ? "intact" : "repaired", blob: blob, rebuildMs: 0, checkMs: 0 });
  }
  if (!check.repairable) throw insufficient(check, check.usable, check.damagedRecovery);
  var ours = [];
  for (var i = 0; i < check.status.length; i++) if (check.status[i] !== SLICE_INTACT) ours.push(i);
  var unknowns = ours.map(function (slice) {
    return target.firstSlice + slice;
  }).concat(target.otherSlices);
  var k = ours.length;
  var u = unknowns.length;
  var plan = rebuildPlan(k, u, check.intact, sliceSize);
  var limit =
    u > limits.recoveryUnknowns ? "more than " + limits.recoveryUnknowns + " slices to rebuild"
    : plan.memory > limits.recoveryMemory ? formatSize(plan.memory) + " to hold (at most " + formatSize(limits.recoveryMemory) + ")"
    : plan.scalars > limits.recoveryWork ? "too many coefficients to compute (" + plan.scalars + ")"
    : null;
  if (limit)
    throw new GoshuinError(
      "browser_limit",
      "rebuilding " + u + " slices of " + formatSize(sliceSize) + " is more than this page does: " + limit + "; goshuin-tool repair or par2 repair can"
    );

  var solution = await solveUnknowns(recovery, unknowns, signal);
  if (!solution.solved) {
    var usable = target.exponents.length - solution.damagedRecovery;
    if (usable < u) throw insufficient(check, usable, solution.damagedRecovery); // a packet changed since it was checked
    throw new GoshuinError(
      "recovery_failed",
      "the " + usable + " recovery slices cannot rebuild these " + u + " slices: " + solution.passedOver +
        " of them depend on the others (PAR 2.0's matrix is not always invertible)"
    );
  }
  var slots = solution.slots;
  var rows = solution.rows.slice(0, k); // the unknowns are the backup's slices first, then other files'
  var intactBytes = 0;
  for (var t = 0; t < check.status.length; t++)
    if (check.status[t] === SLICE_INTACT) intactBytes += Math.min(sliceSize, length - t * sliceSize);
  // One slice from the recovery slice of exponent 0: the intact slices' share is the XOR the check kept.
  var fromParity = check.parity !== null && u === 1 && slots[0].exponent === 0;
  var totalRead = slots.length * sliceSize + (fromParity ? 0 : intactBytes);
  var readSoFar = 0;
  var onBytes = function (count) {
    readSoFar += count;
    progress("recovery-rebuild", readSoFar, totalRead);
  };
  progress("recovery-rebuild", 0, totalRead);
  var rebuilt;
  if (plan.bySyndromes && !fromParity) {
    rebuilt = await rebuildBySyndromes(check, slots, rows, signal, onBytes);
  } else {
    rebuilt = ours.map(function () {
      return new Uint8Array(sliceSize);
    });
    var pieceSize = workPieceSize(k);
    // The recovery slices' share: rebuilt[j] = Σ_s rows[j][s] · recovery slice s …
    for (var s = 0; s < slots.length; s++) {
      await readRecoverySlice(recovery, slots[s].copy, pieceSize, signal, function (within, bytes) {
        for (var j = 0; j < k; j++) gf16MultiplyAdd(rows[j][s], bytes, rebuilt[j].subarray(within));
        onBytes(bytes.length);
      });
    }
    // … and each intact slice g of the backup times Σ_s rows[j][s] · c_g^e_s (its share taken out of b_s).
    if (fromParity) gf16MultiplyAdd(rows[0][0], check.parity, rebuilt[0]);
    else await rebuildFromIntactSlices(check, slots, rows, rebuilt, pieceSize, signal, onBytes);
  }

  // Each rebuilt slice against its checksums (the last one's padding must come out as zeros).
  for (var r = 0; r < k; r++) {
    var bytesOf = rebuilt[r];
    if (!sliceMatches(target.checksums, ours[r], md5(bytesOf), crc32Update(0, bytesOf)))
      throw new GoshuinError("recovery_failed", "slice " + ours[r] + " was rebuilt but does not match its checksum: the recovery data does not fit this backup");
  }
  var rebuildMs = now() - started;

  // The repaired file: the original's intact runs and the rebuilt slices, as one Blob.
  var parts = [];
  var runStart = -1;
  var next = 0;
  for (var slice = 0; slice <= target.sliceCount; slice++) {
    var intact = slice < target.sliceCount && check.status[slice] === SLICE_INTACT;
    if (intact && runStart < 0) runStart = slice;
    if (!intact && runStart >= 0) {
      parts.push(recovery.backup.slice(runStart * sliceSize, Math.min(slice * sliceSize, length)));
      runStart = -1;
    }
    if (slice < target.sliceCount && !intact) {
      parts.push(rebuilt[next++].subarray(0, Math.min(sliceSize, length - slice * sliceSize)));
    }
  }
  var repaired = new Blob(parts, { type: "application/octet-stream" });
  if (repaired.size !== length) throw new GoshuinError("internal", "the repaired file has " + repaired.size + " bytes, not " + length);

  // The whole file's MD5, resumed where the check stopped, over what is handed out.
  var checkStarted = now();
  var fileDigest = check.fileDigest.clone();
  var from = check.resumeSlice * sliceSize;
  progress("recovery-check", 0, length - from);
  for await (var part of readPieces(blobSource(repaired), from, length, RECOVERY_WINDOW, signal)) {
    fileDigest.update(part.bytes);
    progress("recovery-check", part.offset + part.bytes.length - from, length - from);
  }
  if (!bytesEqual(fileDigest.digest(), target.description.md5))
    throw new GoshuinError("recovery_failed", "the repaired file's MD5 is not the one the recovery set gives: nothing was repaired");
  return Object.assign(base, {
    outcome: "repaired",
    blob: repaired,
    recoverySlicesUsed: slots.length,
    rebuildMs: rebuildMs,
    checkMs: now() - checkStarted,
  });
}

/**
 * Repairs `backup` (a Blob or File) with its PAR 2.0 recovery files `recoveryFiles` (Blobs or Files), in
 * memory, without a passphrase. Resolves to
 *   { outcome: "intact" | "repaired", blob (exactly the protected file's bytes: the original itself when
 *     intact), size, originalSize, addedBytes (bytes past the end that were dropped), sliceSize, sliceCount,
 *     damagedSlices, runs ([{ first, last, reason: "damaged" | "missing" }]), recoverySlices (present),
 *     recoverySlicesUsed, otherFileSlices, match ("exact", "start", "size", "sole"), name and creator (escaped
 *     text from the set, for messages), skipped ({ damaged, unknown, duplicates, otherSets } packets),
 *     scanMs, verifyMs, rebuildMs, checkMs }.
 * Throws GoshuinError: recovery_set_invalid, recovery_set_mismatch, recovery_insufficient (with
 * damagedSlices, recoverySlices, neededSlices), recovery_failed, browser_limit, interrupted, io.
 * `options`: { signal, onProgress(stage, done, total) } with the stages of the three steps.
 */
async function repairBackup(backup, recoveryFiles, options) {
  var recovery = await readRecoverySet(backup, recoveryFiles, options);
  var check = await verifyWithRecovery(recovery, options);
  var result = await rebuildWithRecovery(check, options);
  var set = recovery.target.set;
  var scan = recovery.scan;
  return Object.assign(result, {
    match: recovery.target.match,
    name: recovery.target.description.name,
    creator: set.creators.length ? set.creators[0] : "",
    skipped: { damaged: scan.damaged, unknown: scan.unknown, duplicates: scan.duplicates, otherSets: scan.otherSets },
    scanMs: recovery.scanMs,
  });
}
