// Verifying a backup against its PAR 2.0 recovery set. No passphrase: the slices' MD5s and CRC-32s locate the
// damage, the Reed-Solomon code of PAR 2.0 rebuilds it (84-par2-rebuild.mjs).
//
// 1. `readRecoverySet`: the picked files scanned (80-par2-packets.mjs), and the candidates: the files of the
//    sets read that could be this backup (81-par2-candidates.mjs).
// 2. `verifyWithRecovery` (85-par2-repair.mjs): the set chosen by what it protects, in one pass over the
//    backup (82-par2-survey.mjs: each slice at its offset, i · sliceSize, checked by its CRC-32 and MD5, the
//    last one padded with zeros, for every candidate at once, one digest per slice size; the whole file's MD5
//    up to the first slice that fails; a slice past the end of a cut file missing, bytes past the length the
//    set gives not the backup's);
//    the evidence that the backup is a copy of the set's file (Spec/decisions/0048); then recovery slices by
//    increasing exponent, their packets' MD5s checked, until k consecutive ones are intact (k the unknown
//    slices: then the matrix is invertible) or there are no more.
//
// Everything reports progress, yields to the browser at least every PACE_MS (08-pacing.mjs) and stops when
// asked (options.signal).

import { bytesEqual } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { md5, Md5 } from "./02-kernels.mjs";
import { blobSource } from "./05-sources.mjs";
import { now } from "./07-keys.mjs";
import { pacer } from "./08-pacing.mjs";
import { hashPaced, readPieces, RECOVERY_WINDOW } from "./25-survey-tasks.mjs";
import { SALVAGE_RUNS_KEPT } from "./55-salvage-backup.mjs";
import { recoveryInvalid, scanRecoveryFiles } from "./80-par2-packets.mjs";
import { recoveryCandidates } from "./81-par2-candidates.mjs";

export var SLICE_INTACT = 0;
export var SLICE_DAMAGED = 1;
export var SLICE_MISSING = 2;

/** Runs of slices that are not intact: [{ first, last, reason }], at most SALVAGE_RUNS_KEPT of them. */
export function damagedRuns(status) {
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
 * The recovery files `recoveryFiles` (Blobs or Files: the .par2 files picked; any others are scanned and hold
 * no packet) read for `backup` (a Blob or File): { backup, backupSource, sources, scan, candidates, file,
 * scanMs }. `options.onProgress("recovery-scan", done, total)`; `options.backupName`, the backup's own name,
 * ranks candidates (never decides). Throws recovery_set_not_found (no file picked holds a PAR 2.0 packet,
 * intact or not) or recovery_set_invalid (no usable set: the message says why).
 */
export async function readRecoverySet(backup, recoveryFiles, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var pace = pacer(options.signal);
  var started = now();
  var backupSource = blobSource(backup);
  var sources = recoveryFiles.map(blobSource);
  var total = sources.reduce(function (sum, source) {
    return sum + source.size;
  }, 0);
  var done = 0;
  progress("recovery-scan", 0, total);
  var scan = await scanRecoveryFiles(sources, backupSource.size, pace, function (bytes) {
    done += bytes;
    progress("recovery-scan", done, total);
  });
  var notRead = scan.notReadToEnd.length
    ? " (" + scan.notReadToEnd.length + " of the files were not read to their end: more than the page reads for a backup of this size)"
    : "";
  if (scan.sets.size === 0 && scan.damaged === 0 && scan.unknown === 0 && scan.otherSets === 0)
    throw new GoshuinError("recovery_set_not_found", "the files picked hold no PAR 2.0 packet: none of them is a recovery file" + notRead);
  if (scan.sets.size === 0)
    throw recoveryInvalid("the files picked hold no PAR 2.0 packet that is intact (" + (scan.damaged + scan.unknown) + " damaged or of unknown types)" + notRead);
  var found = await recoveryCandidates(scan, pace);
  if (found.candidates.length === 0) throw recoveryInvalid(found.problems[0] + notRead);
  var first = await backupSource.read(0, Math.min(16384, backupSource.size));
  var file = { size: backupSource.size, md5First16k: md5(first), name: options.backupName, firstNonZero: -1 };
  return { backup: backup, backupSource: backupSource, sources: sources, scan: scan, candidates: found.candidates, file: file, scanMs: now() - started };
}

/** The MD5 of a recovery slice packet, checked once; false when it fails. Charged to the scan's budget. */
export async function recoveryCopyIntact(recovery, copy, pace) {
  if (copy.verified !== null) return copy.verified;
  var scan = recovery.scan;
  if (!scan.charge(copy.length)) {
    scan.unchecked = (scan.unchecked || 0) + 1;
    return false; // past the reading's budget: not checked, not used (and checked again should it be asked)
  }
  var digest = new Md5();
  for await (var piece of readPieces(recovery.sources[copy.source], copy.offset + 32, copy.offset + copy.length, RECOVERY_WINDOW, pace.signal))
    await hashPaced(digest, piece.bytes, pace);
  copy.verified = bytesEqual(digest.digest(), copy.hash);
  return copy.verified;
}
