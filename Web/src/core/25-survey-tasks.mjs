// The survey of a backup against PAR 2.0 recovery sets (82-par2-survey.mjs puts it together) as two kinds of
// task for the page's workers (28-worker-tasks.mjs), so that both cores hash at once (issue 36):
//
// - "survey-file": the whole file's MD5, one stream that cannot be cut, its state saved at the offsets the
//   page asks for (the start of every slice: a repair goes on from the first slice that fails; each
//   candidate's length: its whole file's MD5), handed back as bytes (Md5.saveState);
// - "survey-slices": a run of slices of one size, each slice's MD5 and CRC-32 at every end a candidate gives
//   it (its full size, or a file's length inside it, padded with zeros as PAR 2.0 pads a file's last slice);
//   with one candidate, also the XOR of the slices that match their checksums (a repair of one slice needs
//   nothing more).
//
// What both read, in pieces, the next one read while the last is hashed, and the helpers the rebuild uses.

import { bytesEqual, giveBack, u32le } from "./00-bytes.mjs";
import { crc32Update, crc32Zeros, Md5, MD5_LANES, Md5Lanes, md5FromState } from "./02-kernels.mjs";
import { gf16MultiplyAdd } from "./05-gf16.mjs";
import { interrupted, pacer } from "./08-pacing.mjs";

export var RECOVERY_WINDOW = 4194304; // bytes read at a time from the backup and the recovery files
export var RECOVERY_WORK_PART = 1048576; // multiply-add bytes, or bytes hashed, between two looks at the clock
var SURVEY_PART = 65536; // a slice's CRC-32, MD5 and XOR take each piece in parts of this size, which stay in cache
var LANES_SLICE_MOST = 8388608; // whole slices up to this size are hashed MD5_LANES at a time, held meanwhile

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

/** Each of `slices` ({ parts }: sliceSize bytes each, in parts) hashed together, one a lane: their MD5s. */
async function digestsInLanes(slices, sliceSize, pace) {
  var lanes = Md5Lanes(slices.length);
  var cursors = slices.map(function (slice) {
    return { parts: slice.parts, index: 0, at: 0 };
  });
  for (var done = 0; done < sliceSize; ) {
    if (pace.due()) await pace();
    var step = Math.min(SURVEY_PART, sliceSize - done);
    cursors.forEach(function (cursor) {
      step = Math.min(step, cursor.parts[cursor.index].length - cursor.at);
    });
    lanes.update(
      cursors.map(function (cursor) {
        return cursor.parts[cursor.index].subarray(cursor.at, cursor.at + step);
      })
    );
    cursors.forEach(function (cursor) {
      cursor.at += step;
      if (cursor.at === cursor.parts[cursor.index].length) {
        cursor.index++;
        cursor.at = 0;
      }
    });
    done += step;
  }
  return lanes.digest();
}

/** parity ^= a slice's first bytes, given in parts from its start: adds them, or takes them out again. */
function xorParts(parts, parity) {
  for (var p = 0, within = 0; p < parts.length; within += parts[p].length, p++) gf16MultiplyAdd(1, parts[p], parity.subarray(within));
}

/** Whether `md5` and `crc` are slice `index`'s in the checksums packet (MD5 16 bytes, CRC-32 u32le, per slice). */
export function sliceMatches(checksums, index, digest, crc) {
  var at = 20 * index;
  return u32le(checksums, at + 16) === crc && bytesEqual(digest, checksums.subarray(at, at + 16));
}

/**
 * "survey-file": `task` = { start, state (an Md5's saveState() at `start`, or null at 0), end, marks (offsets in
 * [start, end], increasing), window (bytes a read), giveBack (each read's memory given back once hashed: the
 * source's reads must be the task's own) }. The MD5 of the file's bytes [start, end), its state saved
 * at each mark. Result: { states (one Md5.saveState() after another, `stateBytes` each, in the order of the
 * marks), stateBytes, firstNonZero (the offset of the first byte read that is not zero, or -1) }.
 */
export async function surveyFileTask(task, local, source, onProgress) {
  var pace = pacer(local.signal);
  var marks = task.marks;
  var digest = task.state ? md5FromState(task.state) : new Md5();
  var stateBytes = digest.saveState().length;
  var states = new Uint8Array(marks.length * stateBytes);
  var m = 0;
  var saveUpTo = function (offset) {
    for (; m < marks.length && marks[m] <= offset; m++) states.set(digest.saveState(), m * stateBytes);
  };
  var nonZero = -1;
  saveUpTo(task.start);
  for await (var piece of readPieces(source, task.start, task.end, task.window, local.signal)) {
    var bytes = piece.bytes;
    for (var at = 0; at < bytes.length; ) {
      if (pace.due()) await pace();
      var p = piece.offset + at;
      var q = Math.min(piece.offset + bytes.length, p + RECOVERY_WORK_PART, m < marks.length ? marks[m] : Infinity);
      var part = bytes.subarray(at, at + (q - p));
      if (nonZero < 0) {
        var z = firstNonZero(part);
        if (z >= 0) nonZero = p + z;
      }
      digest.update(part);
      at += part.length;
      saveUpTo(q);
      onProgress(part.length);
    }
    if (task.giveBack) giveBack(bytes);
  }
  if (m !== marks.length) throw new Error("a mark past the end of the survey");
  return { result: { states: states, stateBytes: stateBytes, firstNonZero: nonZero }, transfer: [states.buffer] };
}

/**
 * "survey-slices": `task` = { sliceSize, first, last (slice indices), end (bytes past it are not read), lengths
 * (the candidates' lengths, increasing), parity (null, or the checksums of slices first … last of the one
 * candidate, whose length is lengths[0]) }. Each slice i of [first, last] ends at min((i + 1) · sliceSize, L)
 * for each length L past its start; at each such end not past `end` its MD5 and CRC-32, padded with zeros to
 * the slice size. Whole slices of at most LANES_SLICE_MOST bytes (all of them but a file's last, when one
 * candidate is surveyed) are hashed MD5_LANES at a time (Md5Lanes, 3-4 times one stream's speed), held
 * meanwhile. Result: { ends (Float64Array), crcs (Uint32Array), digests (16 bytes each), one entry an end;
 * nonZero (Float64Array: each slice's first byte that is not zero, from the slice's start, or -1);
 * parity (the XOR of the slices that match their checksums, or null) }.
 */
export async function surveySlicesTask(task, local, source, onProgress) {
  var pace = pacer(local.signal);
  var sliceSize = task.sliceSize;
  var out = { ends: [], crcs: [], digests: [] };
  var nonZero = new Float64Array(task.last - task.first + 1).fill(-1);
  var parity = task.parity ? new Uint8Array(sliceSize) : null;
  /** Slice `index` ends at `end` with `sum` and `crc`: said, and whether it is intact (with `parity` only). */
  var record = function (index, end, crc, sum) {
    out.ends.push(end);
    out.crcs.push(crc);
    out.digests.push(sum);
    return parity !== null && sliceMatches(task.parity, index - task.first, sum, crc);
  };
  var batch = []; // whole slices waiting to be hashed together
  var flush = async function () {
    if (batch.length === 0) return;
    var sums = await digestsInLanes(batch, sliceSize, pace);
    for (var b = 0; b < batch.length; b++) {
      if (pace.due()) await pace();
      if (record(batch[b].index, batch[b].start + sliceSize, batch[b].crc, sums[b])) xorParts(batch[b].parts, parity);
    }
    batch = [];
  };
  var slice = null;
  var open = function (index) {
    var start = index * sliceSize;
    var stops = task.lengths
      .filter(function (length) {
        return length > start;
      })
      .map(function (length) {
        return Math.min(start + sliceSize, length);
      })
      .filter(function (stop, i, all) {
        return stop <= task.end && (i === 0 || stop !== all[i - 1]);
      });
    var whole = stops.length === 1 && stops[0] === start + sliceSize && sliceSize <= LANES_SLICE_MOST;
    // `parts`: a whole slice's, held for the lanes; or, with the parity, those of a slice hashed alone, which go
    // into the parity as they are read and out again if it fails.
    slice = { index: index, start: start, stops: stops, whole: whole, parts: [], crc: 0, digest: whole ? null : new Md5() };
  };
  var from = task.first * sliceSize;
  var end = Math.min((task.last + 1) * sliceSize, task.end);
  open(task.first);
  for await (var piece of readPieces(source, from, end, RECOVERY_WINDOW, local.signal)) {
    var bytes = piece.bytes;
    for (var at = 0; at < bytes.length; ) {
      if (pace.due()) await pace();
      var p = piece.offset + at;
      if (p === slice.start + sliceSize) {
        if (parity && !slice.whole) xorParts(slice.parts, parity); // a slice not judged (cut short by the file's end)
        open(slice.index + 1);
      }
      var q = Math.min(piece.offset + bytes.length, p + SURVEY_PART, slice.start + sliceSize, slice.stops.length ? slice.stops[0] : Infinity);
      var part = bytes.subarray(at, at + (q - p));
      var k = slice.index - task.first;
      if (nonZero[k] < 0) {
        var z = firstNonZero(part);
        if (z >= 0) nonZero[k] = p + z - slice.start;
      }
      slice.crc = crc32Update(slice.crc, part);
      if (!slice.whole) slice.digest.update(part);
      if (parity && !slice.whole) gf16MultiplyAdd(1, part, parity.subarray(p - slice.start));
      if (slice.whole || parity) slice.parts.push(part);
      at += part.length;
      onProgress(part.length);
      if (slice.stops.length && q === slice.stops[0]) {
        slice.stops.shift();
        if (slice.whole) {
          batch.push(slice);
          if (batch.length === MD5_LANES) await flush();
          continue;
        }
        var padded = slice.digest.clone();
        var paddedCrc = await zerosPaced(padded, slice.crc, slice.start + sliceSize - q, pace);
        if (!record(slice.index, q, paddedCrc, padded.digest()) && parity) xorParts(slice.parts, parity);
        slice.parts = [];
      }
    }
  }
  if (parity && !slice.whole) xorParts(slice.parts, parity);
  await flush();
  var digests = new Uint8Array(16 * out.digests.length);
  out.digests.forEach(function (sum, i) {
    digests.set(sum, 16 * i);
  });
  var result = {
    ends: Float64Array.from(out.ends),
    crcs: Uint32Array.from(out.crcs),
    digests: digests,
    nonZero: nonZero,
    parity: parity,
  };
  var transfer = [result.ends.buffer, result.crcs.buffer, digests.buffer, nonZero.buffer];
  if (parity) transfer.push(parity.buffer);
  return { result: result, transfer: transfer };
}
