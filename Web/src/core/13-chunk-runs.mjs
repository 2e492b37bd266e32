// A salvage's chunks authenticated by the page's workers (§7.4 step 4, Spec/decisions/0061): the chunks after
// the first four (which decide the passphrase, in the page's thread) cut into runs of consecutive chunks, a
// run a task ("authenticate-chunks", 28-worker-tasks.mjs), every run handed out at once; each worker reads its
// run's records, authenticates each as the page's thread would and answers with a bit a chunk, and the page
// marks the damaged ones. What a chunk's verdict is stays in SalvageContainer (12-salvage-container.mjs).

import { GoshuinError } from "./01-errors.mjs";
import { TAG_SIZE } from "./06-header.mjs";
import { interrupted } from "./08-pacing.mjs";
import { SalvageContainer } from "./12-salvage-container.mjs";
import { readPieces } from "./25-survey-tasks.mjs";

/** The bytes of records a worker authenticates in one task, and in one read. */
var RUN_BYTES = 16777216;
var READ_BYTES = 4194304;

/**
 * The `rest` of SalvageContainer.authenticateAll done by the workers of `pool` (27-worker-pool.mjs; where
 * it runs in the page's thread, its tasks read the container's own source).
 */
export function chunkRunsIn(pool) {
  return function (container, from, known, signal, onChunk) {
    return authenticateRuns(pool, container, from, known, signal, onChunk);
  };
}

/**
 * Chunks `from` … presentCount − 1 that are not `known`, in runs of consecutive chunks of RUN_BYTES at most
 * (and at least four runs a worker, so that none waits long for another at the end).
 */
async function authenticateRuns(pool, container, from, known, signal, onChunk) {
  var count = container.presentCount;
  var perRun = Math.max(1, Math.min(Math.floor(RUN_BYTES / container.header.chunkSize), Math.ceil((count - from) / (4 * pool.size))));
  var inWorkers = !pool.inThread;
  var done = from;
  var runs = [];
  for (var first = from; first < count; ) {
    if (known(first)) {
      first++;
      done++;
      continue;
    }
    var last = first;
    while (last + 1 < count && last + 1 - first < perRun && !known(last + 1)) last++;
    runs.push({ first: first, last: last });
    first = last + 1;
  }
  if (onChunk) onChunk(done, count);
  await Promise.all(
    runs.map(function (run) {
      var task = {
        kind: "authenticate-chunks", first: run.first, last: run.last, header: container.header, key: container.key,
        file: inWorkers ? container.source.blob : undefined,
        local: { signal: signal, source: inWorkers ? undefined : container.source }, // never sent to a worker
      };
      return pool.run(task).then(function (result) {
        for (var i = run.first; i <= run.last; i++) {
          var bit = i - run.first;
          if ((result.damaged[bit >> 3] & (1 << (bit & 7))) !== 0) container.markDamaged(i);
        }
        done += run.last - run.first + 1;
        if (onChunk) onChunk(done, count);
      });
    })
  );
  if (signal && signal.aborted) throw interrupted();
}

/**
 * "authenticate-chunks": `task` = { first, last (present chunks), header, key } of a SalvageContainer of
 * `source` (the same file); the run's records read a few at a time (readPieces: the next read under way while
 * these are authenticated), each authenticated as §7.4 steps 3 and 4 say and dropped. Result: { damaged: a bit
 * a chunk from `first` on, set when it does not authenticate }.
 */
export async function authenticateChunksTask(task, local, source) {
  var container = new SalvageContainer(source, task.header, task.key);
  if (!(task.first >= 0 && task.first <= task.last && task.last < container.presentCount))
    throw new GoshuinError("internal", "chunks " + task.first + "–" + task.last + " are not all present in this file");
  var damaged = new Uint8Array(Math.ceil((task.last - task.first + 1) / 8));
  // Records follow each other, all of one length but the file's last: reads of whole records.
  var stride = task.header.prefixSize + task.header.chunkSize + TAG_SIZE;
  var last = container.recordSpan(task.last);
  var index = task.first;
  var pieces = readPieces(source, container.recordSpan(task.first).offset, last.offset + last.length, stride * Math.max(1, Math.floor(READ_BYTES / stride)), local.signal);
  for await (var piece of pieces) {
    for (var at = 0; at < piece.bytes.length; index++) {
      var length = container.recordSpan(index).length;
      if ((await container.openRead(index, piece.bytes.subarray(at, at + length))) === null) {
        var bit = index - task.first;
        damaged[bit >> 3] |= 1 << (bit & 7);
      }
      at += length;
    }
  }
  return { result: { damaged: damaged }, transfer: [damaged.buffer] };
}
