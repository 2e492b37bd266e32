// Verifying a backup against its PAR 2.0 recovery set. No passphrase: the slices' MD5s and CRC-32s locate the
// damage, the Reed-Solomon code of PAR 2.0 rebuilds it (84-par2-rebuild.mjs).
//
// 1. `readRecoverySet`: the picked files scanned (80-par2-packets.mjs), and the candidates: the files of the
//    sets read that could be this backup (81-par2-candidates.mjs).
// 2. `verifyWithRecovery`: the set chosen by what it protects, in one pass over the backup (`surveyBackup`:
//    each slice at its offset, i · sliceSize, checked by its CRC-32 and MD5, the last one padded with zeros,
//    for every candidate at once, one digest per slice size; the whole file's MD5 up to the first slice that
//    fails; a slice past the end of a cut file missing, bytes past the length the set gives not the backup's);
//    the evidence that the backup is a copy of the set's file (Spec/decisions/0048); then recovery slices by
//    increasing exponent, their packets' MD5s checked, until k consecutive ones are intact (k the unknown
//    slices: then the matrix is invertible) or there are no more.
//
// Everything reports progress, yields to the browser at least every PACE_MS (08-pacing.mjs) and stops when
// asked (options.signal).

import { bytesEqual, u32le } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { crc32Update, crc32Zeros, md5, Md5 } from "./02-kernels.mjs";
import { gf16MultiplyAdd } from "./05-gf16.mjs";
import { blobSource } from "./05-sources.mjs";
import { now } from "./07-keys.mjs";
import { interrupted, PACE_MS, pacer } from "./08-pacing.mjs";
import { limits } from "./22-entry-data.mjs";
import { SALVAGE_RUNS_KEPT } from "./55-salvage-backup.mjs";
import { recoveryInvalid, scanRecoveryFiles } from "./80-par2-packets.mjs";
import { recoveryCandidates } from "./81-par2-candidates.mjs";

export var RECOVERY_WINDOW = 4194304; // bytes read at a time from the backup and the recovery files
export var RECOVERY_WORK_PART = 1048576; // multiply-add bytes, or bytes hashed, between two looks at the clock
var VERIFY_PART = 65536; // the survey's digests read each piece in parts of at most this size, which stay in cache
var VERIFY_PART_LEAST = 4096; // … and at least this: smaller while a part takes long (an engine's code not yet compiled)
export var SLICE_INTACT = 0;
var SLICE_DAMAGED = 1;
export var SLICE_MISSING = 2;

/** Pieces of `source` in [offset, end), each at most `pieceSize` bytes, the next one read while the caller works. */
export async function* readPieces(source, offset, end, pieceSize, signal) {
  var read = function (at) {
    var promise = source.read(at, Math.min(pieceSize, end - at));
    promise.catch(function () {}); // a read the caller no longer waits for must not be an unhandled rejection
    return promise;
  };
  var next = offset < end ? read(offset) : null;
  while (next !== null) {
    var bytes = await next;
    if (signal && signal.aborted) throw interrupted();
    var at = offset;
    offset += bytes.length;
    next = offset < end ? read(offset) : null;
    yield { offset: at, bytes: bytes };
  }
}

/** `digest.update(bytes)` (an Md5) in parts, yielding between them. */
export async function hashPaced(digest, bytes, pace) {
  for (var at = 0; at < bytes.length; at += RECOVERY_WORK_PART) {
    await pace();
    digest.update(bytes.subarray(at, Math.min(bytes.length, at + RECOVERY_WORK_PART)));
  }
  return digest;
}

/** `count` zero bytes into an Md5 and a CRC-32 (returned), in parts, yielding between them. */
async function zerosPaced(digest, crc, count, pace) {
  while (count > 0) {
    await pace();
    var take = Math.min(count, RECOVERY_WORK_PART);
    digest.updateZeros(take);
    crc = crc32Zeros(crc, take);
    count -= take;
  }
  return crc;
}

/** The index of the first byte of `bytes` that is not zero, or -1. */
export function firstNonZero(bytes) {
  var at = 0;
  var aligned = (bytes.byteOffset & 3) === 0 ? bytes.length >> 2 : 0;
  if (aligned > 0) {
    var words = new Int32Array(bytes.buffer, bytes.byteOffset, aligned);
    var w = 0;
    while (w < aligned && words[w] === 0) w++;
    at = w * 4;
  }
  while (at < bytes.length && bytes[at] === 0) at++;
  return at < bytes.length ? at : -1;
}

/** Whether `md5` and `crc` are slice `index`'s in the checksums packet (MD5 16 bytes, CRC-32 u32le, per slice). */
export function sliceMatches(checksums, index, digest, crc) {
  var at = 20 * index;
  return u32le(checksums, at + 16) === crc && bytesEqual(digest, checksums.subarray(at, at + 16));
}

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
  var found = recoveryCandidates(scan);
  if (found.candidates.length === 0) throw recoveryInvalid(found.problems[0] + notRead);
  var first = await backupSource.read(0, Math.min(16384, backupSource.size));
  var file = { size: backupSource.size, md5First16k: md5(first), name: options.backupName, firstNonZero: -1 };
  return { backup: backup, backupSource: backupSource, sources: sources, scan: scan, candidates: found.candidates, file: file, scanMs: now() - started };
}

/**
 * One pass over the backup checking every slice of every candidate of `candidates` (one digest per slice
 * size): for each, { candidate, status (Uint8Array per slice: 0 intact, 1 damaged, 2 missing), intactBytes,
 * nonZeroIntactBytes (of intact slices not all zeros), fileDigest (the whole file's MD5 up to its first
 * slice that is not intact), resumeSlice, digestAtEnd (at its length, when every slice was intact) }; with one
 * candidate also `parity`, the XOR of the intact slices (the known share of the recovery slice of exponent 0:
 * with one slice to rebuild it is rebuilt from that alone, without a second pass). Sets recovery.file's
 * firstNonZero. `progress("recovery-verify", done, total)`.
 */
export async function surveyBackup(recovery, candidates, progress, pace) {
  var source = recovery.backupSource;
  var size = source.size;
  var end = 0;
  var states = candidates.map(function (candidate) {
    end = Math.max(end, Math.min(size, candidate.description.length));
    return {
      candidate: candidate,
      length: candidate.description.length,
      status: new Uint8Array(candidate.sliceCount).fill(SLICE_MISSING),
      intactBytes: 0,
      nonZeroIntactBytes: 0,
      fileDigest: null, // set where its first slice fails
      resumeSlice: candidate.sliceCount,
      digestAtEnd: candidate.description.length === 0 ? new Md5() : null,
      parity: null,
    };
  });
  var groups = [];
  states.forEach(function (state) {
    var size = state.candidate.sliceSize;
    var group = groups.find(function (g) {
      return g.sliceSize === size;
    });
    if (!group) groups.push((group = { sliceSize: size, states: [], start: -1, crc: 0, digest: null, atStart: null, nonZero: -1 }));
    group.states.push(state);
  });
  var single = states.length === 1 ? states[0] : null;
  if (single) {
    var target = single.candidate;
    if (target.otherSliceCount === 0 && target.exponents.length > 0 && target.exponents[0].exponent === 0 && target.sliceSize <= limits.recoveryMemory)
      single.parity = new Uint8Array(target.sliceSize);
  }
  var openParts = []; // the parts of the open slice added to the parity, to take out again if it fails
  var takeOut = function () {
    for (var p = 0; p < openParts.length; p++) gf16MultiplyAdd(1, openParts[p].bytes, single.parity.subarray(openParts[p].within));
    openParts = [];
  };
  var fileDigest = new Md5();
  var fileNonZero = -1;
  var failed = function (state, group, index) {
    state.status[index] = SLICE_DAMAGED;
    if (state.fileDigest === null) {
      state.fileDigest = group.atStart;
      state.resumeSlice = index;
    }
  };
  /** Slice `index` of `state` ends at `at` (its real end): compared with the set, padded with zeros. */
  var finish = async function (state, group, index, at) {
    var pad = group.start + group.sliceSize - at;
    var crc = group.crc;
    var digest;
    if (pad === 0) {
      if (group.finished === undefined) group.finished = group.digest.clone().digest();
      digest = group.finished;
    } else {
      var padded = group.digest.clone();
      crc = await zerosPaced(padded, crc, pad, pace);
      digest = padded.digest();
    }
    var real = at - group.start;
    if (sliceMatches(state.candidate.checksums, index, digest, crc)) {
      state.status[index] = SLICE_INTACT;
      state.intactBytes += real;
      if (group.nonZero >= 0 && group.nonZero < real) state.nonZeroIntactBytes += real;
    } else {
      failed(state, group, index);
      if (state === single && single.parity) takeOut();
    }
    if (state === single) openParts = [];
    if (at === state.length && state.fileDigest === null) state.digestAtEnd = fileDigest.clone();
  };
  progress("recovery-verify", 0, end);
  var partSize = VERIFY_PART_LEAST; // grows to VERIFY_PART while parts take little time, shrinks when one takes long
  for await (var piece of readPieces(source, 0, end, RECOVERY_WINDOW, pace.signal)) {
    var bytes = piece.bytes;
    for (var at = 0; at < bytes.length; ) {
      await pace();
      var partStarted = now();
      var p = piece.offset + at;
      var q = Math.min(piece.offset + bytes.length, p + partSize);
      groups.forEach(function (group) {
        if (p % group.sliceSize === 0) {
          group.start = p;
          group.crc = 0;
          group.digest = new Md5();
          group.finished = undefined;
          group.atStart = fileDigest.clone();
          group.nonZero = -1;
        }
        q = Math.min(q, group.start + group.sliceSize);
      });
      states.forEach(function (state) {
        if (state.length > p) q = Math.min(q, state.length);
      });
      var part = bytes.subarray(at, at + (q - p));
      var nonZero = firstNonZero(part);
      if (nonZero >= 0 && fileNonZero < 0) fileNonZero = p + nonZero;
      fileDigest.update(part);
      for (var g = 0; g < groups.length; g++) {
        var group = groups[g];
        group.crc = crc32Update(group.crc, part);
        group.digest.update(part);
        if (nonZero >= 0 && group.nonZero < 0) group.nonZero = p + nonZero - group.start;
      }
      if (single && single.parity) {
        var within = p - groups[0].start;
        gf16MultiplyAdd(1, part, single.parity.subarray(within));
        openParts.push({ within: within, bytes: part });
      }
      at += part.length;
      for (var h = 0; h < groups.length; h++) {
        var ending = groups[h];
        var index = ending.start / ending.sliceSize;
        for (var s = 0; s < ending.states.length; s++) {
          var state = ending.states[s];
          if (index < state.candidate.sliceCount && q === Math.min(ending.start + ending.sliceSize, state.length))
            await finish(state, ending, index, q);
        }
      }
      progress("recovery-verify", q, end);
      var took = now() - partStarted;
      if (took > PACE_MS / 4) partSize = Math.max(VERIFY_PART_LEAST, partSize >> 1);
      else if (took < PACE_MS / 16) partSize = Math.min(VERIFY_PART, partSize << 1);
    }
  }
  // The slice the file ends inside (damaged: cut there) and the slices past its end (missing).
  states.forEach(function (state) {
    if (size >= state.length) return;
    var sliceSize = state.candidate.sliceSize;
    var open = Math.floor(size / sliceSize);
    var group = groups.find(function (g) {
      return g.sliceSize === sliceSize;
    });
    if (size % sliceSize !== 0) {
      failed(state, group, open);
      if (state === single && single.parity) takeOut();
    } else if (state.fileDigest === null) {
      state.fileDigest = fileDigest.clone();
      state.resumeSlice = open;
    }
  });
  recovery.file.firstNonZero = fileNonZero >= 0 ? fileNonZero : await firstNonZeroAfter(source, end, pace);
  return states;
}

/** The offset of the first byte of `source` at or after `from` that is not zero, or -1. */
async function firstNonZeroAfter(source, from, pace) {
  for await (var piece of readPieces(source, from, source.size, RECOVERY_WINDOW, pace.signal)) {
    await pace();
    var at = firstNonZero(piece.bytes);
    if (at >= 0) return piece.offset + at;
  }
  return -1;
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
