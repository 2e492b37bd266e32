// Rebuilding the slices of a PAR 2.0 repair from the solution (83-par2-solve.js), checking each, and the
// repaired backup as a Blob of the original's intact runs and the rebuilt slices (82-par2-verify.js says the
// steps).

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
 * not_repairable (more damage than independent recovery slices), repair_check_failed (what was rebuilt
 * does not match the set's checksums: nothing is handed out), browser_limit (more to hold than the page allows), interrupted, io.
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
      "not_repairable",
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
      throw new GoshuinError("repair_check_failed", "slice " + ours[r] + " was rebuilt but does not match its checksum: the recovery data does not fit this backup");
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
    throw new GoshuinError("repair_check_failed", "the repaired file's MD5 is not the one the recovery set gives: nothing was repaired");
  return Object.assign(base, {
    outcome: "repaired",
    blob: repaired,
    recoverySlicesUsed: slots.length,
    rebuildMs: rebuildMs,
    checkMs: now() - checkStarted,
  });
}

/**
 * What a repair found in the picked files, for the page to say before the result: { name and creator
 * (escaped text from the set), size (of the file the set protects), sliceSize, sliceCount, recoverySlices
 * (present, not yet checked), otherFiles (the set's other files), match, files (picked), skipped }.
 */
function recoverySetSummary(recovery) {
  var target = recovery.target;
  var set = target.set;
  var scan = recovery.scan;
  return {
    name: target.description.name,
    creator: set.creators.length ? set.creators[0] : "",
    size: target.description.length,
    sliceSize: target.sliceSize,
    sliceCount: target.sliceCount,
    recoverySlices: target.exponents.length,
    otherFiles: set.main.fileIds.length - 1,
    match: target.match,
    files: recovery.sources.length,
    skipped: { damaged: scan.damaged, unknown: scan.unknown, duplicates: scan.duplicates, otherSets: scan.otherSets },
  };
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
 * Throws GoshuinError: recovery_set_not_found, recovery_set_invalid, recovery_set_mismatch, not_repairable
 * (with damagedSlices, recoverySlices, neededSlices when the recovery slices are too few),
 * repair_check_failed, browser_limit, interrupted, io.
 * `options`: { signal, onProgress(stage, done, total), onRecoverySet(summary) } with the stages of the three
 * steps; onRecoverySet gets recoverySetSummary's once the set is read, before the backup is checked.
 */
async function repairBackup(backup, recoveryFiles, options) {
  options = options || {};
  var recovery = await readRecoverySet(backup, recoveryFiles, options);
  var summary = recoverySetSummary(recovery);
  if (options.onRecoverySet) options.onRecoverySet(summary);
  var check = await verifyWithRecovery(recovery, options);
  var result = await rebuildWithRecovery(check, options);
  return Object.assign(result, {
    match: summary.match,
    name: summary.name,
    creator: summary.creator,
    skipped: summary.skipped,
    scanMs: recovery.scanMs,
  });
}
