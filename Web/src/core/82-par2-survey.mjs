// The backup checked against the candidates of its recovery sets (Spec/recovery-par2.md §7.1), in the page's
// workers (25-survey-tasks.mjs, ADR 0057): runs of slices in some, the whole file's MD5 in another, in
// segments, its state kept at every slice's start. The verdicts are put together in slice order as the runs
// come back; the file's MD5 stops once every candidate has a slice known to fail behind it (a repair goes on
// from there with the rebuilt bytes: `md5InWorker`), and goes to the end only for a file that may be intact.
// The file is read once for all of them (29-shared-reads.mjs).

import { giveBack } from "./00-bytes.mjs";
import { Md5, md5FromState } from "./02-kernels.mjs";
import { gf16MultiplyAdd } from "./05-gf16.mjs";
import { blobSource } from "./05-sources.mjs";
import { limits } from "./22-entry-data.mjs";
import { firstNonZero, readPieces, RECOVERY_WINDOW, RECOVERY_WORK_PART, sliceMatches } from "./25-survey-tasks.mjs";
import { createWorkerPool } from "./27-worker-pool.mjs";
import { SharedReads } from "./29-shared-reads.mjs";
import { SLICE_DAMAGED, SLICE_INTACT, SLICE_MISSING } from "./82-par2-verify.mjs";

var WORKER_WINDOW = 16777216; // a worker reads a file 16 MiB at a time (faster than 4 in Chromium)
var SURVEY_RUN = 33554432; // bytes of slices a "survey-slices" task takes at most (one slice at least)
var FILE_SEGMENT = 33554432; // bytes of the whole file's MD5 a "survey-file" task takes: where it may stop
var SHARED_AHEAD = 67108864; // the tasks read the file once between them, in blocks of WORKER_WINDOW, none
var SHARED_READ_AHEAD = 33554432; // more than SHARED_AHEAD ahead of the slowest, this much read before asked

/**
 * Every slice of every candidate of `candidates` checked, each slice size in one pass over the backup, in the
 * page's workers (in this thread where there are none). For each candidate: { candidate, status (Uint8Array
 * per slice: 0 intact, 1 damaged, 2 missing), intactBytes, nonZeroIntactBytes (of intact slices not all
 * zeros), fileDigest (the whole file's MD5 up to its first slice that is not intact), resumeSlice, digestAtEnd
 * (at its length, when every slice was intact) }; with one candidate also `parity`, the XOR of the intact
 * slices (the known share of the recovery slice of exponent 0: with one slice to rebuild it is rebuilt from
 * that alone, without a second pass). Sets recovery.file's firstNonZero, and `hashedTo` (how far the whole
 * file's MD5 went). `progress("recovery-verify", done, total)`.
 */
export async function surveyBackup(recovery, candidates, progress, pace) {
  var source = recovery.backupSource;
  var size = source.size;
  var end = 0;
  var states = candidates.map(function (candidate) {
    end = Math.max(end, Math.min(size, candidate.description.length));
    var length = candidate.description.length;
    return {
      candidate: candidate,
      length: length,
      status: new Uint8Array(candidate.sliceCount).fill(SLICE_MISSING),
      intactBytes: 0,
      nonZeroIntactBytes: 0,
      fileDigest: null, // set where its first slice fails
      resumeSlice: candidate.sliceCount,
      digestAtEnd: length === 0 ? new Md5() : null,
      parity: null,
      // Where the whole file's MD5 must reach for it: its length, or, cut short, the slice the file ends in.
      needs: size < length ? Math.floor(size / candidate.sliceSize) * candidate.sliceSize : length,
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
    return md5FromState(stateOf(file, offset));
  };
  states.forEach(function (state) {
    var sliceSize = state.candidate.sliceSize;
    var failed = state.status.indexOf(SLICE_DAMAGED);
    if (size < state.length && size % sliceSize !== 0) {
      var open = Math.floor(size / sliceSize); // the slice the file ends inside: damaged (cut there)
      state.status[open] = SLICE_DAMAGED;
      if (failed < 0) failed = open;
    }
    if (failed >= 0) {
      state.fileDigest = stateAt(failed * sliceSize);
      state.resumeSlice = failed;
    } else if (size < state.length) {
      state.fileDigest = stateAt(size); // cut at a slice's border: the slices after it missing
      state.resumeSlice = size / sliceSize;
    } else if (state.length > 0) {
      state.digestAtEnd = stateAt(state.length);
    }
  });
  recovery.file.hashedTo = file.reached;
  // Before `end`, the slices saw every byte (the first one not zero is the least they found); after it, read.
  if (file.firstNonZero < 0) file.firstNonZero = file.sliceNonZero < Infinity ? file.sliceNonZero : await firstNonZeroAfter(source, end, pace);
  recovery.file.firstNonZero = file.firstNonZero;
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
    if (!group) groups.push((group = { sliceSize: sliceSize, states: [], lengths: [], count: 0, runs: [], judged: 0 }));
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
 * The verdicts of `group`'s runs that came back, in slice order, as far as every run before them is back:
 * each slice judged for each of its candidates, and a candidate's `needs` brought down to its first slice
 * that fails (the whole file's MD5 need not go further for it).
 */
async function judgeRuns(group, end, pace) {
  if (group.judging) return; // the lane judging them goes on to the runs that came back meanwhile
  group.judging = true;
  var sliceSize = group.sliceSize;
  // No await between the loop's last test and `judging` set back: a run back in between is judged.
  try {
    for (; group.judged < group.runs.length && group.runs[group.judged].result; group.judged++) {
      var run = group.runs[group.judged];
      var result = run.result;
      var found = new Map();
      for (var j = 0; j < result.ends.length; j++) found.set(result.ends[j], j);
      for (var s = 0; s < group.states.length; s++) {
        var state = group.states[s];
        for (var index = run.first; index <= Math.min(run.last, state.candidate.sliceCount - 1); index++) {
          var start = index * sliceSize;
          var sliceEnd = Math.min(start + sliceSize, state.length);
          if (sliceEnd > end) break; // the slice the file ends inside, and those past its end: surveyBackup
          if (pace.due()) await pace();
          var at = found.get(sliceEnd);
          var real = sliceEnd - start;
          if (at !== undefined && sliceMatches(state.candidate.checksums, index, result.digests.subarray(16 * at, 16 * at + 16), result.crcs[at])) {
            state.status[index] = SLICE_INTACT;
            state.intactBytes += real;
            var nonZero = result.nonZero[index - run.first];
            if (nonZero >= 0 && nonZero < real) state.nonZeroIntactBytes += real;
          } else {
            state.status[index] = SLICE_DAMAGED;
            state.needs = Math.min(state.needs, start);
          }
        }
      }
      run.result = true; // judged: its arrays are no longer needed
    }
  } finally {
    group.judging = false;
  }
}

/**
 * The survey's tasks through a pool of workers made for it: runs of slices (`lanes` at a time) and the whole
 * file's MD5 in segments, one after another, until no candidate needs it further; all closed when it ends or
 * is stopped. With `single.parity`, the XOR of its intact slices is added to it. Resolves with the file's MD5
 * states: { segments ([{ marks, states, stateBytes }]: `stateOf`), reached, firstNonZero, sliceNonZero }.
 */
async function runSurvey(source, groups, single, end, progress, pace) {
  pace.check(); // Stop pressed already: no worker started
  var marks = [];
  var total = end;
  var runs = [];
  groups.forEach(function (group) {
    for (var k = 0; k <= group.count && k * group.sliceSize <= end; k++) marks.push(k * group.sliceSize);
    group.lengths.forEach(function (length) {
      if (length <= end) marks.push(length);
    });
    total += Math.min(end, group.count * group.sliceSize);
    var perRun = Math.max(1, Math.floor(SURVEY_RUN / group.sliceSize));
    for (var first = 0; first < group.count; first += perRun) {
      var run = { group: group, first: first, last: Math.min(group.count, first + perRun) - 1, result: null };
      group.runs.push(run);
      runs.push(run);
    }
  });
  marks.sort(function (a, b) {
    return a - b;
  });
  marks = marks.filter(function (mark, i) {
    return i === 0 || mark !== marks[i - 1];
  });
  runs.sort(function (a, b) {
    return a.first * a.group.sliceSize - b.first * b.group.sliceSize;
  });
  var pool = createWorkerPool({ inThread: source.blob === undefined, signal: pace.signal });
  // With two places or more, the file's MD5 and the slices run at once and read the file once between them.
  var shared = pool.size > 1 ? new SharedReads(source, { blockSize: WORKER_WINDOW, ahead: SHARED_AHEAD, readAhead: SHARED_READ_AHEAD }) : null;
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
  var fileDone = false;
  var sliceLane = async function () {
    var reader = null;
    while (next < runs.length) {
      var run = runs[next++];
      var group = run.group;
      var checksums = single && single.parity ? single.candidate.checksums.slice(20 * run.first, 20 * (run.last + 1)) : null;
      var previous = reader;
      reader = shared && !fileDone ? shared.reader(run.first * group.sliceSize) : null; // alone, it reads for itself
      if (previous) previous.close(); // after the next run's reader holds its blocks
      var result = await task(
        { kind: "survey-slices", sliceSize: group.sliceSize, first: run.first, last: run.last, end: end, lengths: group.lengths, parity: checksums },
        reader
      );
      if (result.parity) {
        await xorPaced(result.parity, single.parity, pace);
        giveBack(result.parity); // a slice's size a run: large slices would wait for a collection (29-shared-reads.mjs)
      }
      run.result = result;
      for (var k = 0; k < result.nonZero.length; k++)
        if (result.nonZero[k] >= 0) file.sliceNonZero = Math.min(file.sliceNonZero, (run.first + k) * group.sliceSize + result.nonZero[k]);
      await judgeRuns(group, end, pace);
    }
    if (reader) reader.close();
  };
  var file = { segments: [], reached: 0, firstNonZero: -1, sliceNonZero: Infinity };
  var needed = function () {
    var most = 0;
    groups.forEach(function (group) {
      group.states.forEach(function (state) {
        most = Math.max(most, Math.min(end, state.needs));
      });
    });
    return most;
  };
  var fileLane = async function () {
    var reader = shared ? shared.reader(0) : null;
    var state = null;
    var m = 0;
    for (var at = 0; at === 0 || at < needed(); at = file.reached) {
      var to = Math.min(end, at + FILE_SEGMENT);
      var from = m;
      while (m < marks.length && marks[m] <= to) m++;
      var segmentMarks = marks.slice(from, m).concat([to]);
      var result = await task({ kind: "survey-file", start: at, state: state, end: to, marks: segmentMarks, window: RECOVERY_WINDOW }, reader);
      file.segments.push({ marks: segmentMarks, states: result.states, stateBytes: result.stateBytes });
      state = result.states.slice((segmentMarks.length - 1) * result.stateBytes); // its own buffer: the next task is sent this alone
      file.reached = to;
      if (file.firstNonZero < 0 && result.firstNonZero >= 0) file.firstNonZero = result.firstNonZero;
      if (to === end) break;
    }
    if (reader) reader.close(); // the slices go on without waiting for it
    fileDone = true;
    total -= end - file.reached; // the bytes it will not hash are not waited for (the progress only jumps ahead)
  };
  // A slice of the parity is in flight twice in a worker (the XOR, and the slice's bytes while it is open):
  // large ones one at a time.
  var lanes = single && single.parity && single.candidate.sliceSize > SURVEY_RUN / 2 ? 1 : Math.max(1, pool.size - 1);
  try {
    var work = [fileLane().then(sliceLane)]; // its worker checks slices once the file's MD5 stops
    for (var l = 0; l < lanes; l++) work.push(sliceLane());
    await Promise.all(work);
    for (var g = 0; g < groups.length; g++) {
      await judgeRuns(groups[g], end, pace);
      if (groups[g].judged !== groups[g].runs.length) throw new Error("a run of slices was not judged");
    }
  } finally {
    pool.close();
    if (shared) shared.close();
  }
  pace.check();
  return file;
}

/**
 * `digest` (an Md5 over a Blob's bytes before `from`) over `blob`'s bytes [from, end), in one of the page's
 * workers (in this thread where there is none), whose reads run ahead of its hashing. Resolves with the Md5 at
 * `end`. `onBytes(count)` as they are hashed.
 */
export async function md5InWorker(blob, from, end, digest, onBytes, pace) {
  pace.check();
  var pool = createWorkerPool({ size: 1, signal: pace.signal });
  try {
    // giveBack: each read is the task's own (a Blob's): given back once hashed, not left to a collection, while
    // the opening of the repaired copy reads the same file (Spec/decisions/0059).
    var task = { kind: "survey-file", start: from, state: digest.saveState(), end: end, marks: [end], window: WORKER_WINDOW, giveBack: true };
    if (pool.inThread) task.local = { signal: pace.signal, source: blobSource(blob) };
    else task.file = blob;
    var result = await pool.run(task, onBytes);
  } finally {
    pool.close();
  }
  pace.check();
  return md5FromState(result.states);
}

/** The file's MD5 state saved at `offset` (a mark of a segment hashed), found by bisection. */
function stateOf(file, offset) {
  var segments = file.segments;
  var low = 0;
  var high = segments.length - 1;
  while (low < high) {
    var middle = (low + high) >> 1;
    var marks = segments[middle].marks;
    if (marks[marks.length - 1] < offset) low = middle + 1;
    else high = middle;
  }
  var segment = segments[low];
  var at = segment.marks.indexOf(offset);
  if (at < 0) throw new Error("no state saved at " + offset);
  return segment.states.subarray(at * segment.stateBytes, (at + 1) * segment.stateBytes);
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
