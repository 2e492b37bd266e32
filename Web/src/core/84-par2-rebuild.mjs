// Rebuilding the slices of a PAR 2.0 repair from the solution (83-par2-solve.mjs): the unknowns are the
// damaged and missing slices, and the slices of any other file the set protects (the page is given the
// backup only). Each slice to rebuild is a sum over the recovery slices used and the intact slices of the
// backup (by coefficients or by syndromes, one more pass over the backup either way; none for one slice and
// the recovery slice of exponent 0, from the XOR the check kept). Each rebuilt slice must match its MD5 and
// CRC-32; the repaired backup is a Blob of the original's intact runs and the rebuilt slices (the file is not
// copied), accepted only when its whole MD5 is the file description's. Every loop yields to the browser.

import { bytesEqual, formatSize } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { crc32Update, Md5 } from "./02-kernels.mjs";
import { GF16_EXP, GF16_LOG, multiplyAddAt, par2Coefficient } from "./05-gf16.mjs";
import { now } from "./07-keys.mjs";
import { pacer } from "./08-pacing.mjs";
import { limits } from "./22-entry-data.mjs";
import { PAR2_PEEK } from "./80-par2-packets.mjs";
import { EVIDENCE_BLOCK, EVIDENCE_BYTES, otherSlicesOf } from "./81-par2-candidates.mjs";
import { firstNonZero, readPieces, RECOVERY_WINDOW, RECOVERY_WORK_PART, sliceMatches } from "./25-survey-tasks.mjs";
import { md5InWorker } from "./82-par2-survey.mjs";
import { SLICE_INTACT } from "./82-par2-verify.mjs";
import { checkMemory, solveUnknowns } from "./83-par2-solve.mjs";
import { cutShort, insufficient, partsOf, withRepairNumbers } from "./85-par2-repair.mjs";

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

/** target ^= c · source over whole slices, in parts, yielding between them. */
async function multiplyAddPaced(c, source, target, pace) {
  for (var at = 0; at < source.length; at += RECOVERY_WORK_PART) {
    await pace();
    multiplyAddAt(c, source.subarray(at, Math.min(source.length, at + RECOVERY_WORK_PART)), target, at);
  }
}

/**
 * `visit(slice, within, bytes)` for the bytes of [0, end) of `source`, split where slices of `sliceSize`
 * bytes begin and into parts of at most `partBytes` (the work of a visit is proportional to its bytes),
 * yielding between parts: `within` is the offset of `bytes` in its slice.
 */
async function forEachSlicePiece(source, sliceSize, end, partBytes, pace, visit) {
  for await (var piece of readPieces(source, 0, end, RECOVERY_WINDOW, pace.signal)) {
    var bytes = piece.bytes;
    for (var at = 0; at < bytes.length; ) {
      await pace();
      var position = piece.offset + at;
      var slice = Math.floor(position / sliceSize);
      var within = position - slice * sliceSize;
      var take = Math.min(bytes.length - at, sliceSize - within, partBytes);
      visit(slice, within, bytes.subarray(at, at + take));
      at += take;
    }
  }
}

/**
 * Bytes of a part when each byte costs `perByte` multiply-adds and each slice of `sliceSize` bytes as many
 * scalar products (its coefficients): about RECOVERY_WORK_PART of work, in whole words.
 */
function workPart(perByte, sliceSize) {
  var perPartByte = Math.max(1, perByte) * (1 + 8 / sliceSize);
  return Math.max(4, Math.floor(RECOVERY_WORK_PART / perPartByte / 4) * 4);
}

/** `visit(within, bytes)` over the data of a recovery slice packet, in pieces (each a whole window). */
async function readRecoverySlice(recovery, copy, pace, visit) {
  var start = copy.offset + PAR2_PEEK;
  for await (var piece of readPieces(recovery.sources[copy.source], start, start + recovery.target.sliceSize, RECOVERY_WINDOW, pace.signal)) {
    await pace(); // a read of bytes in memory may come back without the event loop turning
    await visit(piece.offset - start, piece.bytes);
  }
}

/** Σ_t row[t] · inputs[t] into a new slice, yielding between parts (at once for small slices). */
async function combine(row, inputs, sliceSize, pace) {
  var out = new Uint8Array(sliceSize);
  if (sliceSize * inputs.length <= RECOVERY_WORK_PART) {
    await pace();
    for (var i = 0; i < inputs.length; i++) multiplyAddAt(row[i], inputs[i], out, 0);
    return out;
  }
  for (var t = 0; t < inputs.length; t++) await multiplyAddPaced(row[t], inputs[t], out, pace);
  return out;
}

/** The rebuilt slices by syndromes (see rebuildPlan). `onBytes(count)` follows the bytes read. */
async function rebuildBySyndromes(check, slots, rows, pace, onBytes) {
  var target = check.recovery.target;
  var source = check.recovery.backupSource;
  var sliceSize = target.sliceSize;
  var syndromes = [];
  for (var s = 0; s < slots.length; s++) {
    var syndrome = new Uint8Array(sliceSize);
    await readRecoverySlice(check.recovery, slots[s].copy, pace, function (within, bytes) {
      syndrome.set(bytes, within);
      onBytes(bytes.length);
    });
    syndromes.push(syndrome);
  }
  var powers = new Uint16Array(slots.length);
  var powersOf = -1;
  var end = Math.min(source.size, target.description.length);
  await forEachSlicePiece(source, sliceSize, end, workPart(slots.length, sliceSize), pace, function (slice, within, bytes) {
    if (check.status[slice] !== SLICE_INTACT) return;
    if (powersOf !== slice) {
      for (var p = 0; p < slots.length; p++) powers[p] = par2Coefficient(target.firstSlice + slice, slots[p].exponent);
      powersOf = slice;
    }
    for (var q = 0; q < slots.length; q++) multiplyAddAt(powers[q], bytes, syndromes[q], within);
    onBytes(bytes.length);
  });
  var rebuilt = [];
  for (var r = 0; r < rows.length; r++) rebuilt.push(await combine(rows[r], syndromes, sliceSize, pace));
  return rebuilt;
}

/**
 * The rebuilt slices by coefficients (see rebuildPlan): the recovery slices' share, then, in one pass over
 * the backup (none with `parity`), each intact slice g adding Σ_s rows[j][s] · c_g^e_s times its bytes to
 * rebuilt[j] (its share taken out of each b_s). `onBytes(count)` follows the bytes read.
 */
async function rebuildByCoefficients(check, slots, rows, parity, pace, onBytes) {
  var target = check.recovery.target;
  var source = check.recovery.backupSource;
  var k = rows.length;
  var rebuilt = rows.map(function () {
    return new Uint8Array(target.sliceSize);
  });
  var part = workPart(k, target.sliceSize);
  for (var s = 0; s < slots.length; s++) {
    await readRecoverySlice(check.recovery, slots[s].copy, pace, async function (within, bytes) {
      for (var at = 0; at < bytes.length; at += part) {
        await pace();
        var piece = bytes.subarray(at, Math.min(bytes.length, at + part));
        for (var j = 0; j < k; j++) multiplyAddAt(rows[j][s], piece, rebuilt[j], within + at);
      }
      onBytes(bytes.length);
    });
  }
  if (parity) {
    await multiplyAddPaced(rows[0][0], parity, rebuilt[0], pace);
    return rebuilt;
  }
  if (check.intact === 0) return rebuilt;
  var logPowers = new Uint16Array(slots.length); // log c_g^e_s of the slice at hand (never 0: c_g ≠ 0)
  var coefficients = new Uint16Array(k);
  var coefficientsOf = -1;
  var end = Math.min(source.size, target.description.length);
  await forEachSlicePiece(source, target.sliceSize, end, part, pace, function (slice, within, bytes) {
    if (check.status[slice] !== SLICE_INTACT) return;
    if (coefficientsOf !== slice) {
      for (var t = 0; t < slots.length; t++) logPowers[t] = GF16_LOG[par2Coefficient(target.firstSlice + slice, slots[t].exponent)];
      for (var j = 0; j < k; j++) {
        var sum = 0;
        for (var u = 0; u < slots.length; u++) {
          var w = rows[j][u];
          if (w !== 0) sum ^= GF16_EXP[GF16_LOG[w] + logPowers[u]];
        }
        coefficients[j] = sum;
      }
      coefficientsOf = slice;
    }
    for (var r = 0; r < k; r++) multiplyAddAt(coefficients[r], bytes, rebuilt[r], within);
    onBytes(bytes.length);
  });
  return rebuilt;
}

/**
 * Rule 3 of Spec/decisions/0048: every slice of the backup rebuilt from the recovery slices alone (all of
 * them unknown, with the other files' slices), or null when the intact recovery slices cannot rebuild them
 * all. Within the page's memory and a bound on the work (browser_limit past them).
 */
export async function rebuildEverything(check, pace) {
  var target = check.recovery.target;
  var n = target.sliceCount;
  if (check.usable.length < n + target.otherSliceCount || n + target.otherSliceCount > limits.recoveryUnknowns) return null;
  var unknowns = [];
  for (var i = 0; i < n; i++) unknowns.push(target.firstSlice + i);
  unknowns = unknowns.concat(otherSlicesOf(target));
  checkMemory(n * target.sliceSize, "Rebuilding every part of the file, to compare it with this backup,");
  if ((n * unknowns.length * target.sliceSize) / 2 > 4 * limits.recoveryWork)
    throw new GoshuinError(
      "browser_limit",
      "whether these recovery files are this backup's can only be told by rebuilding all " + n + " parts of the file, more than this page does; goshuin-tool verify or repair can"
    );
  var solution = await solveUnknowns(unknowns, check.usable, pace);
  if (!solution.solved) return null;
  return rebuildByCoefficients(Object.assign({}, check, { intact: 0 }), solution.slots, solution.rows.slice(0, n), null, pace, function () {});
}

/**
 * Rule 3's comparison: the bytes of the backup equal to the rebuilt file in 512-byte blocks at multiples of
 * 512 that are not all zeros (the last one the file's tail, or as much of its block as a cut copy holds,
 * when that is at least EVIDENCE_BYTES).
 */
export async function equalBlockBytes(check, rebuilt, pace) {
  var target = check.recovery.target;
  var source = check.recovery.backupSource;
  var length = target.description.length;
  var end = Math.min(source.size, length);
  var equal = 0;
  for await (var piece of readPieces(source, 0, end, RECOVERY_WINDOW, pace.signal)) {
    for (var at = 0; at < piece.bytes.length; at += EVIDENCE_BLOCK) {
      await pace();
      var offset = piece.offset + at;
      // The block as far as the backup holds it: a cut copy keeps the start of the block it ends in.
      var block = piece.bytes.subarray(at, at + Math.min(offset + EVIDENCE_BLOCK, length, end) - offset);
      if (block.length < EVIDENCE_BYTES) break;
      if (firstNonZero(block) < 0) continue;
      if (rebuiltEquals(rebuilt, target.sliceSize, offset, block)) equal += block.length;
    }
  }
  return equal;
}

/** Whether the rebuilt slices (of `sliceSize` bytes each) hold `bytes` at the file's offset `offset`. */
function rebuiltEquals(rebuilt, sliceSize, offset, bytes) {
  for (var at = 0; at < bytes.length; ) {
    var slice = Math.floor((offset + at) / sliceSize);
    var within = offset + at - slice * sliceSize;
    var take = Math.min(bytes.length - at, sliceSize - within);
    if (!bytesEqual(bytes.subarray(at, at + take), rebuilt[slice].subarray(within, within + take))) return false;
    at += take;
  }
  return true;
}

/** The MD5 and CRC-32 of a rebuilt slice, in parts, yielding between them. */
async function sliceDigests(bytes, pace) {
  var digest = new Md5();
  var crc = 0;
  for (var at = 0; at < bytes.length; at += RECOVERY_WORK_PART) {
    await pace();
    var part = bytes.subarray(at, Math.min(bytes.length, at + RECOVERY_WORK_PART));
    digest.update(part);
    crc = crc32Update(crc, part);
  }
  return { digest: digest.digest(), crc: crc };
}

/**
 * The repaired backup from a check (85-par2-repair.mjs): { outcome: "intact" | "repaired", blob, … } (see
 * repairBackup). `options.onProgress(stage, done, total)` with "recovery-rebuild" (bytes read) and
 * "recovery-check" (bytes of the repaired file hashed). Throws not_repairable (more damage than independent
 * recovery slices), truncated (the same, for a file cut short, damaged elsewhere too or not), repair_check_failed
 * (what was rebuilt does not match the set's checksums: nothing is handed out), browser_limit (more to hold
 * or compute than the page allows), interrupted, io.
 * With `options.checkLater`, a repaired backup is handed out before its MD5 is checked: `checked` is the promise
 * of that check (rejected with repair_check_failed, interrupted or io), for a caller that opens it meanwhile and
 * keeps nothing of it until the check passes (Spec/decisions/0059).
 */
export async function rebuildWithRecovery(check, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var pace = pacer(options.signal);
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
    otherFileSlices: target.otherSliceCount,
    addedBytes: check.addedBytes,
    verifyMs: check.verifyMs,
  };
  if (check.intactFile) {
    // Intact; bytes added after its end are dropped (the whole file's MD5 held over its first `length` bytes).
    var blob = size === length ? recovery.backup : recovery.backup.slice(0, length);
    return Object.assign(base, { outcome: size === length ? "intact" : "repaired", blob: blob, rebuildMs: 0, checkMs: 0 });
  }
  if (!check.repairable) throw check.cut ? cutShort(check) : insufficient(check, check.usable.length, check.damagedRecovery);
  var all = check.rebuiltAll !== null; // rule 3 rebuilt every slice: the repair is that
  var rebuiltSlice = function (slice) {
    return all || check.status[slice] !== SLICE_INTACT;
  };
  var ours = [];
  for (var i = 0; i < check.status.length; i++) if (rebuiltSlice(i)) ours.push(i);
  var k = ours.length;
  var rebuilt;
  var used;
  if (all) {
    rebuilt = check.rebuiltAll;
    used = k + target.otherSliceCount;
  } else {
    var unknowns = ours.map(function (slice) {
      return target.firstSlice + slice;
    }).concat(otherSlicesOf(target));
    var u = unknowns.length;
    var plan = rebuildPlan(k, u, check.intact, sliceSize);
    checkMemory(plan.memory, "Rebuilding " + partsOf(u) + " of " + formatSize(sliceSize));
    if (plan.scalars > limits.recoveryWork)
      throw new GoshuinError("browser_limit", "rebuilding " + partsOf(u) + " of " + formatSize(sliceSize) + " needs too many coefficients (" + plan.scalars + "), more than this page does; goshuin-tool repair or par2 repair can");
    var solution = await solveUnknowns(unknowns, check.usable, pace);
    if (!solution.solved) {
      var singular = withRepairNumbers(
        new GoshuinError(
          "not_repairable",
          "the recovery files hold data for " + check.usable.length + " parts, but it cannot rebuild these " + u + ": " + solution.passedOver +
            " of its pieces depend on the others (PAR 2.0's matrix is not always invertible)"
        ),
        check,
        check.usable.length
      );
      singular.dependent = true;
      throw singular;
    }
    var slots = solution.slots;
    var rows = solution.rows.slice(0, k); // the unknowns are the backup's slices first, then other files'
    used = slots.length;
    var intactBytes = 0;
    for (var t = 0; t < check.status.length; t++) if (check.status[t] === SLICE_INTACT) intactBytes += Math.min(sliceSize, length - t * sliceSize);
    // One slice from the recovery slice of exponent 0: the intact slices' share is the XOR the check kept.
    var fromParity = check.parity !== null && u === 1 && slots[0].exponent === 0;
    var totalRead = slots.length * sliceSize + (fromParity ? 0 : intactBytes);
    var readSoFar = 0;
    var onBytes = function (count) {
      readSoFar += count;
      progress("recovery-rebuild", readSoFar, totalRead);
    };
    progress("recovery-rebuild", 0, totalRead);
    rebuilt =
      plan.bySyndromes && !fromParity
        ? await rebuildBySyndromes(check, slots, rows, pace, onBytes)
        : await rebuildByCoefficients(check, slots, rows, fromParity ? check.parity : null, pace, onBytes);
  }

  // Each rebuilt slice against its checksums (the last one's padding must come out as zeros).
  for (var r = 0; r < k; r++) {
    var digests = await sliceDigests(rebuilt[r], pace);
    if (!sliceMatches(target.checksums, ours[r], digests.digest, digests.crc))
      throw new GoshuinError("repair_check_failed", "part " + ours[r] + " of the file was rebuilt but does not match its checksum: the recovery data does not fit this backup");
  }
  var rebuildMs = now() - started;

  // The repaired file: the original's intact runs and the rebuilt slices, as one Blob.
  var parts = [];
  var runStart = -1;
  var next = 0;
  for (var slice = 0; slice <= target.sliceCount; slice++) {
    var kept = slice < target.sliceCount && !rebuiltSlice(slice);
    if (kept && runStart < 0) runStart = slice;
    if (!kept && runStart >= 0) {
      parts.push(recovery.backup.slice(runStart * sliceSize, Math.min(slice * sliceSize, length)));
      runStart = -1;
    }
    if (slice < target.sliceCount && !kept) parts.push(rebuilt[next++].subarray(0, Math.min(sliceSize, length - slice * sliceSize)));
  }
  var repaired = new Blob(parts, { type: "application/octet-stream" });
  if (repaired.size !== length) throw new GoshuinError("internal", "the repaired file has " + repaired.size + " bytes, not " + length);

  // The whole file's MD5, resumed where the check stopped, over what is handed out.
  var result = Object.assign(base, { outcome: "repaired", blob: repaired, recoverySlicesUsed: used, rebuildMs: rebuildMs, checkMs: 0 });
  var checkStarted = now();
  var fileDigest = all ? new Md5() : check.fileDigest; // only its state is sent
  var from = all ? 0 : check.resumeSlice * sliceSize;
  var hashed = 0;
  var checking = options.checkLater ? function () {} : progress; // checked later: the opening shows its own
  checking("recovery-check", 0, length - from);
  var checked = md5InWorker(repaired, from, length, fileDigest, function (count) {
    hashed += count;
    checking("recovery-check", hashed, length - from);
  }, pace).then(function (digest) {
    if (!bytesEqual(digest.digest(), target.description.md5))
      throw new GoshuinError("repair_check_failed", "the repaired file's MD5 is not the one the recovery set gives: nothing was repaired");
    result.checkMs = now() - checkStarted;
  });
  if (options.checkLater) {
    checked.catch(function () {}); // its caller awaits it
    return Object.assign(result, { checked: checked });
  }
  await checked;
  return result;
}
