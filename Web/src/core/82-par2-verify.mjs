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

import { bytesEqual } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { md5, Md5, md5FromState } from "./02-kernels.mjs";
import { gf16MultiplyAdd } from "./05-gf16.mjs";
import { blobSource } from "./05-sources.mjs";
import { now } from "./07-keys.mjs";
import { pacer } from "./08-pacing.mjs";
import { limits } from "./22-entry-data.mjs";
import { firstNonZero, hashPaced, readPieces, RECOVERY_WINDOW, RECOVERY_WORK_PART, sliceMatches } from "./25-survey-tasks.mjs";
import { createWorkerPool } from "./27-worker-pool.mjs";
import { SharedReads } from "./29-shared-reads.mjs";
import { SALVAGE_RUNS_KEPT } from "./55-salvage-backup.mjs";
import { recoveryInvalid, scanRecoveryFiles } from "./80-par2-packets.mjs";
import { recoveryCandidates } from "./81-par2-candidates.mjs";

export var SLICE_INTACT = 0;
var SLICE_DAMAGED = 1;
export var SLICE_MISSING = 2;
var WORKER_WINDOW = 16777216; // a worker reads a file 16 MiB at a time (faster than 4 in Chromium)
var SURVEY_RUN = 33554432; // bytes of slices a "survey-slices" task takes at most (one slice at least)
var SHARED_BLOCK = WORKER_WINDOW; // the survey's tasks read the file once between them, in blocks of this size,
var SHARED_AHEAD = 67108864; // none more than this ahead of the slowest,
var SHARED_READ_AHEAD = 33554432; // and this much read before they ask for it

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
 * Every slice of every candidate of `candidates` checked in one pass over the backup for each slice size,
 * in the page's workers (25-survey-tasks.mjs; in this thread where there are none): one worker computes the
 * whole file's MD5, keeping its state at each slice's start, while the others check runs of slices. For each
 * candidate: { candidate, status (Uint8Array per slice: 0 intact, 1 damaged, 2 missing), intactBytes,
 * nonZeroIntactBytes (of intact slices not all zeros), fileDigest (the whole file's MD5 up to its first slice
 * that is not intact), resumeSlice, digestAtEnd (at its length, when every slice was intact) }; with one
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
  var groups = surveyGroups(states, end);
  var single = states.length === 1 ? states[0] : null;
  if (single) {
    var target = single.candidate;
    if (target.otherSliceCount === 0 && target.exponents.length > 0 && target.exponents[0].exponent === 0 && target.sliceSize <= limits.recoveryMemory)
      single.parity = new Uint8Array(target.sliceSize);
  }
  progress("recovery-verify", 0, end);
  var file = await runSurvey(source, groups, single, end, progress, pace);
  var stateAt = function (offset) {
    var i = file.marks.get(offset);
    return md5FromState(file.states.subarray(i * file.stateBytes, (i + 1) * file.stateBytes));
  };
  var failed = function (state, index) {
    state.status[index] = SLICE_DAMAGED;
    if (state.fileDigest === null) {
      state.fileDigest = stateAt(index * state.candidate.sliceSize);
      state.resumeSlice = index;
    }
  };
  for (var g = 0; g < groups.length; g++) {
    var group = groups[g];
    var sliceSize = group.sliceSize;
    for (var s = 0; s < group.states.length; s++) {
      var state = group.states[s];
      for (var index = 0; index < state.candidate.sliceCount; index++) {
        var start = index * sliceSize;
        var sliceEnd = Math.min(start + sliceSize, state.length);
        if (sliceEnd > end) break; // the slice the file ends inside, and those past its end: below
        if (pace.due()) await pace();
        var found = group.found.get(sliceEnd);
        var real = sliceEnd - start;
        if (found && sliceMatches(state.candidate.checksums, index, found.digest, found.crc)) {
          state.status[index] = SLICE_INTACT;
          state.intactBytes += real;
          var nonZero = group.nonZero[index];
          if (nonZero >= 0 && nonZero < real) state.nonZeroIntactBytes += real;
        } else {
          failed(state, index);
        }
      }
      if (state.length <= end && state.length > 0 && state.fileDigest === null) state.digestAtEnd = stateAt(state.length);
      // The slice the file ends inside (damaged: cut there) and the slices past its end (missing).
      if (size >= state.length) continue;
      var open = Math.floor(size / sliceSize);
      if (size % sliceSize !== 0) failed(state, open);
      else if (state.fileDigest === null) {
        state.fileDigest = stateAt(size);
        state.resumeSlice = open;
      }
    }
  }
  recovery.file.firstNonZero = file.firstNonZero >= 0 ? file.firstNonZero : await firstNonZeroAfter(source, end, pace);
  progress("recovery-verify", end, end);
  return states;
}

/**
 * The candidates' states grouped by slice size: [{ sliceSize, states, lengths (theirs, increasing, each
 * once), count (the slices surveyed: those that start before `end` and before the last candidate's end) }].
 */
function surveyGroups(states, end) {
  var groups = [];
  states.forEach(function (state) {
    var sliceSize = state.candidate.sliceSize;
    var group = groups.find(function (g) {
      return g.sliceSize === sliceSize;
    });
    if (!group) groups.push((group = { sliceSize: sliceSize, states: [], lengths: [], count: 0 }));
    group.states.push(state);
    if (group.lengths.indexOf(state.length) < 0) group.lengths.push(state.length);
    group.count = Math.max(group.count, Math.min(state.candidate.sliceCount, Math.ceil(end / sliceSize)));
  });
  groups.forEach(function (group) {
    group.lengths.sort(function (a, b) {
      return a - b;
    });
  });
  return groups;
}

/**
 * The survey's tasks through a pool of workers made for it: the file's MD5 in one, runs of slices in the
 * others, all closed when it ends or is stopped. Sets each group's `found` (Map: a slice's end → { digest,
 * crc }) and `nonZero`, and, with `single.parity`, the group's parity; resolves with the file's MD5 states:
 * { marks (Map: offset → index), states, stateBytes, firstNonZero }.
 */
async function runSurvey(source, groups, single, end, progress, pace) {
  var marks = [0];
  groups.forEach(function (group) {
    for (var k = 0; k <= group.count && k * group.sliceSize <= end; k++) marks.push(k * group.sliceSize);
    group.lengths.forEach(function (length) {
      if (length <= end) marks.push(length);
    });
  });
  marks.sort(function (a, b) {
    return a - b;
  });
  marks = marks.filter(function (mark, i) {
    return i === 0 || mark !== marks[i - 1];
  });
  var runs = [];
  var total = end;
  groups.forEach(function (group) {
    group.found = new Map();
    group.nonZero = new Float64Array(group.count).fill(-1);
    group.parity = single && single.parity ? single.parity : null;
    total += Math.min(end, group.count * group.sliceSize);
    var perRun = Math.max(1, Math.floor(SURVEY_RUN / group.sliceSize));
    for (var first = 0; first < group.count; first += perRun) runs.push({ group: group, first: first, last: Math.min(group.count, first + perRun) - 1 });
  });
  runs.sort(function (a, b) {
    return a.first * a.group.sliceSize - b.first * b.group.sliceSize;
  });
  var pool = createWorkerPool({ inThread: source.blob === undefined });
  // With two places or more, the file's MD5 and the slices run at once and read the file once between them.
  var shared = pool.size > 1 ? new SharedReads(source, { blockSize: SHARED_BLOCK, ahead: SHARED_AHEAD, readAhead: SHARED_READ_AHEAD }) : null;
  var done = 0;
  var onBytes = function (count) {
    done += count;
    progress("recovery-verify", Math.min(end, Math.floor((end * done) / total)), end);
  };
  /** `fields` as a task that reads through `reader` (of `shared`), or the file itself. */
  var task = function (fields, reader) {
    fields.file = pool.inThread ? undefined : source.blob;
    fields.readsThroughPage = reader !== null;
    fields.local = pool.inThread ? { signal: pace.signal, source: reader ? { size: source.size, read: reader.read } : source } : undefined;
    return pool.run(fields, onBytes, reader ? reader.read : null);
  };
  var next = 0;
  var lane = async function () {
    var reader = null;
    while (next < runs.length) {
      var run = runs[next++];
      var group = run.group;
      var checksums = group.parity ? single.candidate.checksums.slice(20 * run.first, 20 * (run.last + 1)) : null;
      var previous = reader;
      reader = shared ? shared.reader(run.first * group.sliceSize) : null;
      if (previous) previous.close(); // after the next run's reader holds its blocks
      var result = await task(
        { kind: "survey-slices", sliceSize: group.sliceSize, first: run.first, last: run.last, end: end, lengths: group.lengths, parity: checksums },
        reader
      );
      for (var j = 0; j < result.ends.length; j++)
        group.found.set(result.ends[j], { digest: result.digests.subarray(16 * j, 16 * j + 16), crc: result.crcs[j] });
      group.nonZero.set(result.nonZero, run.first);
      if (result.parity) await xorPaced(result.parity, group.parity, pace);
    }
    if (reader) reader.close();
  };
  // A slice of the parity is in flight twice in a worker (the XOR, and the slice's bytes while it is open):
  // large ones one at a time.
  var lanes = single && single.parity && single.candidate.sliceSize > SURVEY_RUN / 2 ? 1 : Math.max(1, pool.size - 1);
  var close = function () {
    pool.close();
    if (shared) shared.close();
  };
  if (pace.signal) pace.signal.addEventListener("abort", close);
  try {
    var fileReader = shared ? shared.reader(0) : null;
    var work = [
      task({ kind: "survey-file", start: 0, state: null, end: end, marks: marks, window: RECOVERY_WINDOW }, fileReader).then(function (result) {
        if (fileReader) fileReader.close();
        return result;
      }),
    ];
    for (var l = 0; l < lanes; l++) work.push(lane());
    var file = (await Promise.all(work))[0];
  } finally {
    if (pace.signal) pace.signal.removeEventListener("abort", close);
    close();
  }
  pace.check();
  file.marks = new Map(
    marks.map(function (mark, i) {
      return [mark, i];
    })
  );
  return file;
}

/**
 * `digest` (an Md5 over a Blob's bytes before `from`) over `blob`'s bytes [from, end), in one of the page's
 * workers (in this thread where there is none), whose reads run ahead of its hashing. Resolves with the Md5 at
 * `end`. `onBytes(count)` as they are hashed.
 */
export async function md5InWorker(blob, from, end, digest, onBytes, pace) {
  var pool = createWorkerPool({ size: 1 });
  var onAbort = function () {
    pool.close();
  };
  if (pace.signal) pace.signal.addEventListener("abort", onAbort);
  try {
    var task = { kind: "survey-file", start: from, state: digest.saveState(), end: end, marks: [end], window: WORKER_WINDOW };
    if (pool.inThread) task.local = { signal: pace.signal, source: blobSource(blob) };
    else task.file = blob;
    var result = await pool.run(task, onBytes);
  } finally {
    if (pace.signal) pace.signal.removeEventListener("abort", onAbort);
    pool.close();
  }
  pace.check();
  return md5FromState(result.states);
}

/** target ^= source, in parts, yielding between them. */
async function xorPaced(source, target, pace) {
  for (var at = 0; at < source.length; at += RECOVERY_WORK_PART) {
    await pace();
    gf16MultiplyAdd(1, source.subarray(at, Math.min(source.length, at + RECOVERY_WORK_PART)), target.subarray(at));
  }
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
