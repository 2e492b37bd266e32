// What the page's workers do (27-worker-pool.mjs), by task kind; each handler also runs in the page's thread
// where no worker can, so both ways run this code. A task is a plain message (what a worker is sent: the
// file, a key, numbers; never the page's objects), and a handler returns { result, transfer }. New kinds
// of work that must not hold the page's thread are added here.

import { toHex } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { kernels, useKernels } from "./02-kernels.mjs";
import { blobSource } from "./05-sources.mjs";
import { ContainerReader } from "./10-container.mjs";
import { authenticateChunksTask } from "./13-chunk-runs.mjs";
import { checkLocalHeader } from "./20-zip.mjs";
import { limits, readEntryData } from "./22-entry-data.mjs";
import { surveyFileTask, surveySlicesTask } from "./25-survey-tasks.mjs";
import { sealChunksTask } from "./26-sealing-task.mjs";
import { errorFromRecord, errorRecord } from "./27-worker-pool.mjs";

/**
 * "verify-entries": step 5 of Spec/backup-v1.md §4.1 for a run of entries in file order (51-verify-entries.mjs
 * puts the runs together): each one's local header, its data against its declared size and CRC-32, and its
 * SHA-256, read from the file through a reader of its own that authenticates every chunk it reads and
 * judges nothing (a chunk that fails is said, `unjudged`, for the page to judge with all it knows). Stops
 * at the first entry that fails. Result: { entries: [{ dataOffset, digest }], error, authenticated }.
 */
async function verifyEntriesTask(task, local, onProgress) {
  Object.assign(limits, task.limits);
  var payload = local.payload || runReader(local.source || taskFile(task, local), task);
  var entries = [];
  var error = null;
  for (var i = 0; i < task.entries.length && error === null; i++) {
    var entry = task.entries[i];
    try {
      var dataOffset = await checkLocalHeader(payload, entry, task.directoryOffset);
      var digest = await readEntryData(payload, entry, null, { signal: local.signal, onBytes: onProgress });
      entries.push({ dataOffset: dataOffset, digest: toHex(digest) });
    } catch (failure) {
      error = errorRecord(failure);
    }
  }
  var authenticated = payload instanceof ContainerReader ? payload.authenticated : null;
  return {
    result: { entries: entries, error: error, authenticated: authenticated },
    transfer: authenticated && !local.payload ? [authenticated.buffer] : [],
  };
}

/**
 * In a worker, the file it was sent: read directly, or, in an engine whose workers cannot read a File that
 * a page opened from file:// sent them (WebKitGTK: NotReadableError), through the page, which reads it and
 * hands the bytes over (`readThroughPage`). Once a direct read fails, the rest go through the page: a file
 * that really cannot be read fails there too, with the page's error.
 */
var workerReadsThroughPage = false;

function workerFileSource(file, readThroughPage) {
  var direct = blobSource(file, { streamed: true }); // closed when the task ends (runWorkerTask)
  return {
    blob: file,
    size: file.size,
    close: direct.close,
    keep: direct.keep,
    read: async function (offset, length) {
      if (!workerReadsThroughPage || !readThroughPage) {
        try {
          return await direct.read(offset, length);
        } catch (error) {
          if (!readThroughPage) throw error;
          workerReadsThroughPage = true;
        }
      }
      return readThroughPage(offset, length);
    },
  };
}

/** The file of `task` as this worker reads it (workerFileSource), closed when the task ends (runWorkerTask). */
function taskFile(task, local) {
  var source = workerFileSource(task.file, local.readThroughPage);
  local.opened.push(source);
  return source;
}

/**
 * A reader of the file for one run of entries: it judges nothing, and reads ahead up to the chunk where the
 * run's last entry ends at the latest (its local header's name and extra field at their longest).
 */
function runReader(source, task) {
  var reader = new ContainerReader(source, task.header, task.key, { deferVerdict: true, readAhead: true, readAheadBytes: task.readAheadBytes });
  var last = task.entries[task.entries.length - 1];
  var end = Math.min(task.directoryOffset, Number(last.localHeaderOffset) + 30 + 2 * 65535 + Number(last.compressedSize));
  reader.readLimit = Math.min(reader.readLimit, Math.floor(Math.max(0, end - 1) / task.header.chunkSize));
  return reader;
}

var PROGRESS_MS = 50;

/** "seal-chunks" (26-sealing-task.mjs): the opened backup read as "verify-entries" reads it. */
function sealChunks(task, local) {
  return sealChunksTask(task, local, function () {
    return local.source || taskFile(task, local);
  });
}

/**
 * The survey's tasks (25-survey-tasks.mjs) read the file as the others do, or only through the page when the
 * page shares its reads among them (`task.readsThroughPage`: 29-shared-reads.mjs), or the source given in this
 * thread.
 */
function surveyTask(handler) {
  return function (task, local, onProgress) {
    var source = local.source;
    if (!source && task.readsThroughPage) source = { blob: task.file, size: task.file.size, read: local.readThroughPage };
    return handler(task, local, source || taskFile(task, local), onProgress);
  };
}

/** "authenticate-chunks" (13-chunk-runs.mjs): a salvage's run of chunks, read as the others read. */
function authenticateChunks(task, local) {
  return authenticateChunksTask(task, local, local.source || taskFile(task, local));
}

var WORKER_TASKS = {
  "verify-entries": verifyEntriesTask,
  "authenticate-chunks": authenticateChunks,
  "seal-chunks": sealChunks,
  "survey-file": surveyTask(surveyFileTask),
  "survey-slices": surveyTask(surveySlicesTask),
};

/**
 * Runs `task` by its kind; `local` is what only a task run in the page's thread is given. The file sources it
 * opened are closed when it ends: a stream of the file left open would hold the browser's reader until a
 * collection.
 */
export async function runWorkerTask(task, local, onProgress) {
  var handler = WORKER_TASKS[task.kind];
  if (handler === undefined) throw new GoshuinError("internal", "no worker task " + task.kind);
  var own = Object.assign({}, local, { opened: [] });
  try {
    return await handler(task, own, onProgress);
  } finally {
    own.opened.forEach(function (source) {
      source.close();
    });
  }
}

/**
 * In a worker: takes the kernels the page chose (its first message) and says it is ready, with them; then
 * runs each task it is sent, one at a time (the pool sends the next only after an answer), posting its
 * progress and then its result or error.
 */
export function serveWorker(scope) {
  var reads = new Map(); // the reads asked of the page, by id: { resolve, reject }
  var nextRead = 0;
  var readThroughPage = function (offset, length) {
    return new Promise(function (resolve, reject) {
      var id = nextRead++;
      reads.set(id, { resolve: resolve, reject: reject });
      scope.postMessage({ read: { id: id, offset: offset, length: length } });
    });
  };
  scope.onmessage = function (event) {
    var task = event.data;
    if (task.readReply) {
      var read = reads.get(task.readReply.id);
      reads.delete(task.readReply.id);
      if (task.readReply.error) read.reject(errorFromRecord(task.readReply.error));
      else read.resolve(new Uint8Array(task.readReply.buffer));
      return;
    }
    if (task.configure) {
      useKernels(task.configure);
      scope.postMessage({ ready: true, kernels: kernels().implementation });
      return;
    }
    // Progress in one message every PROGRESS_MS at most (a message a piece cost a worker a tenth of a
    // second per GiB, and the page as much to take them), the rest before the task's answer.
    var unsent = 0;
    var sentAt = 0;
    var flush = function () {
      if (unsent > 0) scope.postMessage({ progress: unsent });
      unsent = 0;
      sentAt = Date.now();
    };
    var onProgress = function (count) {
      unsent += count;
      if (Date.now() - sentAt >= PROGRESS_MS) flush();
    };
    runWorkerTask(task, { readThroughPage: readThroughPage }, onProgress)
      .then(function (answer) {
        flush();
        scope.postMessage({ result: answer.result }, answer.transfer);
      })
      .catch(function (error) {
        flush();
        scope.postMessage({ error: errorRecord(error) });
      });
  };
}
