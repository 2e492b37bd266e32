// A new backup's payload sealed by the page's workers (issue 37): 73-backup-writer.mjs lays the payload out as
// pieces; here they are cut into runs of chunks, each run sealed by a worker (26-sealing-task.mjs) and the
// records written in order as they come, so the page's thread only hands out runs and writes.

import { GoshuinError } from "./01-errors.mjs";
import { crc32Combine } from "./02-kernels.mjs";
import { ContainerReader, readAheadBytes } from "./10-container.mjs";
import { SalvageContainer } from "./12-salvage-container.mjs";
import { createWorkerPool } from "./27-worker-pool.mjs";

/** Where a piece of the payload ({ at, bytes } or { at, entry }) ends. */
function pieceEnd(piece) {
  return piece.at + (piece.bytes ? piece.bytes.length : Number(piece.entry.uncompressedSize));
}

/**
 * Whether the new backup can be sealed by the workers (writeInWorkers): the backup is read through a
 * ContainerReader (a strict open, or a repair's) or is a salvage that a worker's ContainerReader reads as the
 * salvage does, and every entry streamed from it is stored, so that its bytes in the new backup are its bytes in
 * the old. Otherwise this thread writes it: a deflated photo; a salvage of version 2 (the salvage fixes its
 * chunks' final flags by their lengths); a salvage of a cut file (its header may claim up to 2^32 chunks, which a
 * ContainerReader would keep a bit for each).
 */
export function sealsInWorkers(backup, pieces) {
  var container = backup.container;
  var whole = container instanceof SalvageContainer && container.header.version === 1 && container.presentCount === container.header.chunkCount;
  if (!(container instanceof ContainerReader) && !whole) return false;
  return pieces.every(function (piece) {
    var entry = piece.entry;
    return !entry || (entry.method === 0 && entry.dataOffset != null && Number(entry.compressedSize) === Number(entry.uncompressedSize));
  });
}

/**
 * The bytes of runs the workers seal at once, together: 16 MiB a run with two workers, 8 MiB with four, a
 * chunk with more (each worker holds its run two or three times over, with what it reads ahead). Longer runs
 * read less twice (the opened backup's chunk at a run's border is read by both runs): with two workers, runs
 * of 8 MiB took 8 % longer in Chromium; with four (WebKitGTK says four on two cores), runs of 16 MiB took
 * 400 MiB more memory.
 */
var RUNS_BYTES = 33554432;
var RUN_BYTES_MOST = 16777216;

/**
 * The pieces sealed by the page's workers (26-sealing-task.mjs), a run of chunks a task, at most two runs a
 * worker under way, their records written in order as they come: this thread only hands out the runs and
 * writes. Stop closes the workers at once.
 */
export async function writeInWorkers(backup, pieces, sealer, options) {
  var signal = options.signal;
  // Stop pressed while the key was derived: no worker started, no run sealed (the "abort" event has passed).
  if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
  var onBytes = options.onBytes;
  var container = backup.container;
  var size = sealer.plaintextLength;
  var chunkSize = sealer.chunkSize;
  var chunkCount = Math.ceil(size / chunkSize);
  var inWorkers = container.source.blob !== undefined;
  var pool = createWorkerPool({ inThread: !inWorkers });
  // A small payload still in several runs a worker: both cores busy, and progress to show.
  var runBytes = Math.min(RUN_BYTES_MOST, RUNS_BYTES / pool.size);
  var perRun = Math.max(1, Math.min(Math.floor(runBytes / chunkSize), Math.ceil(chunkCount / (4 * pool.size))));
  var runCount = Math.ceil(chunkCount / perRun);
  var aheadBytes = readAheadBytes(pool.size);
  var sealing = {
    key: sealer.key, header: sealer.header, nonceBase: sealer.nonceBase, chunkSize: chunkSize, plaintextLength: size,
    blobs: options.blobs === true && typeof Blob === "function",
  };
  // Ends the runs that go on in this thread (where workers could not start) when the save ends early.
  var ending = new AbortController();
  var next = 0; // the first piece that may overlap the next run
  var checks = new PhotoChecks(pieces);
  function runTask(run) {
    var first = run * perRun;
    var last = Math.min(chunkCount, first + perRun) - 1;
    var start = first * chunkSize;
    var end = Math.min(size, (last + 1) * chunkSize);
    while (next < pieces.length && pieceEnd(pieces[next]) <= start) next++;
    var overlapping = [];
    for (var i = next; i < pieces.length && pieces[i].at < end; i++) {
      var piece = pieces[i];
      if (!piece.bytes) overlapping.push(piece);
      else {
        // Only the bytes in the run, copied: a view would send its whole buffer.
        var from = Math.max(start, piece.at);
        overlapping.push({ at: from, bytes: piece.bytes.slice(from - piece.at, Math.min(end, pieceEnd(piece)) - piece.at) });
      }
    }
    var task = {
      kind: "seal-chunks", first: first, last: last, sealing: sealing, pieces: overlapping, readAheadBytes: aheadBytes,
      header: container.header, key: container.key, file: inWorkers ? container.source.blob : undefined,
      local: { signal: ending.signal, source: inWorkers ? undefined : container.source }, // never sent to a worker
    };
    var done = pool.run(task).then(function (result) {
      var records = result.records.map(function (record) {
        return record instanceof ArrayBuffer ? new Uint8Array(record) : record;
      });
      return { records: records, parts: result.parts, bytes: end - start };
    });
    done.catch(function () {});
    return done;
  }
  var onAbort = function () {
    ending.abort();
    pool.close();
  };
  if (signal) signal.addEventListener("abort", onAbort);
  try {
    var underWay = [];
    var handedOut = 0;
    var written = 0;
    for (var run = 0; run < runCount; run++) {
      while (handedOut < runCount && handedOut - run < 2 * pool.size) underWay.push(runTask(handedOut++));
      var sealed = await underWay.shift();
      sealed.parts.forEach(checks.add, checks);
      await sealer.putSealed(sealed.records, sealed.bytes);
      written += sealed.bytes;
      if (onBytes) onBytes(written, size);
    }
  } catch (error) {
    if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
    // A chunk a worker could not authenticate: the verdict the backup's own reader gives (the file's, as
    // opening gives it; a salvage's, whose chunks read here were all intact: io).
    if (error && error.unjudged) throw await container.verdict(error.chunkIndex);
    throw error;
  } finally {
    if (signal) signal.removeEventListener("abort", onAbort);
    ending.abort();
    pool.close();
  }
  checks.finish();
  return sealer.finish();
}

/**
 * Each photo's CRC-32 put together from its parts, run by run in order, and checked when its last part comes
 * (Spec/decisions/0056: the bytes are authenticated chunk by chunk as they are read; this checks that they
 * are the photo's and all of it).
 */
class PhotoChecks {
  constructor(pieces) {
    this.entries = new Map();
    var entries = this.entries;
    pieces.forEach(function (piece) {
      if (piece.entry) entries.set(piece.entry.name, { entry: piece.entry, size: Number(piece.entry.uncompressedSize), done: 0, crc32: 0 });
    });
  }

  add(part) {
    var state = this.entries.get(part.name);
    if (!state || part.from !== state.done) throw new GoshuinError("internal", "a part of " + part.name + " out of order");
    state.crc32 = crc32Combine(state.crc32, part.crc32, part.length); // from 0, the CRC-32 of nothing
    state.done += part.length;
    if (state.done === state.size && state.crc32 !== state.entry.crc32)
      throw new GoshuinError("entry_corrupt", part.name + " fails its CRC-32");
  }

  finish() {
    this.entries.forEach(function (state, name) {
      if (state.done !== state.size) throw new GoshuinError("internal", name + " was not all written");
    });
  }
}
