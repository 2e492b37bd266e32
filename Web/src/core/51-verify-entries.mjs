// Steps 5 and 6 of Spec/backup-v1.md §4.1, the streaming pass over every entry, shared among the page's
// workers (27-worker-pool.mjs): the entries in the order of their local headers are cut into runs
// (`entryRuns`), which the workers check at once (28-worker-tasks.mjs: local header, size, CRC-32, SHA-256,
// every chunk they read authenticated); then their results are taken in file order, with the checks
// between entries (each starts where the one before it ends, the last ends at the central directory) and
// the manifest's SHA-256s, so that the first failure in that order is the one thrown, as in one pass. A
// chunk that fails anywhere ends the pass at once: the file's verdict, given by the page's reader with
// every chunk the workers authenticated (whatever order they read them in, the lowest that fails). A chunk
// at the border of two runs is read by both (a sixteenth more for runs of 64 MiB).

import { interrupted } from "./08-pacing.mjs";
import { ContainerReader, readAheadBytes } from "./10-container.mjs";
import { inFileOrder, zipMalformed } from "./20-zip.mjs";
import { limits } from "./22-entry-data.mjs";
import { createWorkerPool, errorFromRecord } from "./27-worker-pool.mjs";
import { checkListedDigest, listedFiles } from "./40-manifest.mjs";

/**
 * The entries (in file order) as runs of consecutive entries, each at least one: a run is about the bytes
 * left over twice the workers (guided self-scheduling), at most limits.verifyRun and at least a sixteenth of
 * it, so that the runs taken last are short and no worker waits long for another at the end.
 */
export function entryRuns(ordered, workers) {
  var left = 0;
  ordered.forEach(function (entry) {
    left += entryBytes(entry);
  });
  var runs = [];
  var run = [];
  var bytes = 0;
  var target = runTarget(left, workers);
  ordered.forEach(function (entry) {
    run.push(entry);
    bytes += entryBytes(entry);
    if (bytes >= target) {
      runs.push(run);
      left -= bytes;
      run = [];
      bytes = 0;
      target = runTarget(left, workers);
    }
  });
  if (run.length > 0) runs.push(run);
  return runs;
}

function entryBytes(entry) {
  return 30 + entry.nameBytes.length + Number(entry.compressedSize);
}

function runTarget(left, workers) {
  return Math.max(1, Math.min(limits.verifyRun, Math.max(limits.verifyRun / 16, Math.ceil(left / (2 * workers)))));
}

/**
 * Returns every entry's SHA-256 (hex) by name, each entry's `dataOffset` set; `options.pool` a pool already
 * started (else one is made and closed here), `options.signal`, `options.onProgress`.
 */
export async function verifyEntries(container, directory, manifest, options) {
  var listed = listedFiles(manifest);
  var ordered = inFileOrder(directory.entries);
  var total = directory.directoryOffset;
  var progress = options.onProgress || function () {};
  var signal = options.signal;
  // A worker reads the file itself; a payload without one (a ZIP in memory, in the tests) is read here.
  var inWorkers = container instanceof ContainerReader && container.source.blob !== undefined;
  var pool = inWorkers && options.pool ? options.pool : createWorkerPool({ inThread: !inWorkers });
  var done = 0;
  progress("verify", 0, total);
  try {
    var outcomes = await runEntryRuns(container, pool, entryRuns(ordered, pool.size), directory.directoryOffset, signal, function (count) {
      done += count;
      progress("verify", Math.min(done, total), total);
    });
  } finally {
    if (pool !== options.pool) pool.close();
  }
  var digests = new Map();
  var expected = 0;
  outcomes.forEach(function (outcome) {
    outcome.run.forEach(function (entry, i) {
      var start = entry.localHeaderOffset;
      if (start !== BigInt(expected)) {
        if (expected === 0) throw zipMalformed(start + " bytes come before the first entry");
        if (start < BigInt(expected)) throw zipMalformed(entry.name + " overlaps the entry before it");
        throw zipMalformed("unaccounted bytes before " + entry.name);
      }
      if (i === outcome.entries.length) throw errorFromRecord(outcome.error);
      entry.dataOffset = outcome.entries[i].dataOffset;
      checkListedDigest(listed, entry.name, outcome.entries[i].digest);
      digests.set(entry.name, outcome.entries[i].digest);
      expected = entry.dataOffset + Number(entry.compressedSize);
    });
  });
  if (expected !== directory.directoryOffset) throw zipMalformed("unaccounted bytes before the central directory");
  progress("verify", total, total);
  return digests;
}

/**
 * The "verify-entries" task of `run` (28-worker-tasks.mjs), in `pool`: the worker reads the file of
 * `container` (a ContainerReader, or a salvage's whole version 1 file: 55-salvage-backup.mjs) through a reader
 * of its own; a payload in memory (the tests) is read as it is, in this thread.
 */
export function entryRunTask(container, pool, run, directoryOffset, signal) {
  var ofFile = container.key !== undefined;
  var inWorkers = !pool.inThread;
  return {
    kind: "verify-entries", entries: run, directoryOffset: directoryOffset,
    limits: { bufferedDigest: limits.bufferedDigest }, readAheadBytes: readAheadBytes(pool.size),
    header: ofFile ? container.header : undefined, key: ofFile ? container.key : undefined,
    file: ofFile && inWorkers ? container.source.blob : undefined,
    local: inWorkers ? undefined : { signal: signal, payload: ofFile ? null : container, source: container.source }, // never sent to a worker
  };
}

/**
 * Every run through the pool, all at once (the pool keeps each worker busy with one); resolves with their
 * outcomes in file order. Stop ends it; so does a chunk that fails, with the file's verdict.
 */
async function runEntryRuns(container, pool, runs, directoryOffset, signal, onBytes) {
  var failedChunk = -1;
  var stopEarly;
  var stoppedEarly = new Promise(function (resolve) {
    stopEarly = resolve;
  });
  var onAbort = function () {
    stopEarly();
  };
  if (signal) signal.addEventListener("abort", onAbort);
  var runsDone = Promise.all(
    runs.map(function (run) {
      return pool.run(entryRunTask(container, pool, run, directoryOffset, signal), onBytes).then(function (outcome) {
        if (outcome.authenticated) container.addAuthenticated(outcome.authenticated);
        if (outcome.error && outcome.error.unjudged) {
          if (failedChunk < 0 || outcome.error.chunkIndex < failedChunk) failedChunk = outcome.error.chunkIndex;
          stopEarly();
        }
        outcome.run = run;
        return outcome;
      });
    })
  );
  runsDone.catch(function () {});
  try {
    var outcomes = await Promise.race([runsDone, stoppedEarly]);
  } finally {
    if (signal) signal.removeEventListener("abort", onAbort);
  }
  if (signal && signal.aborted) {
    pool.close();
    throw interrupted();
  }
  if (failedChunk >= 0) {
    pool.close();
    throw await container.verdict(failedChunk);
  }
  return outcomes;
}
