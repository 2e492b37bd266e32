// What the page's workers do (27-worker-pool.js), by task kind; each handler also runs in the page's thread
// where no worker can, so both ways run this code. A task is a plain message (what a worker is sent: the
// file, a key, numbers; never the page's objects), and a handler returns { result, transfer }. New kinds
// of work that must not hold the page's thread (sealing a new backup, issue 37) are added here.

/**
 * "verify-entries": step 5 of Spec/backup-v1.md §4.1 for a run of entries in file order (51-verify-entries.js
 * puts the runs together): each one's local header, its data against its declared size and CRC-32, and its
 * SHA-256, read from the file through a reader of its own that authenticates every chunk it reads and
 * judges nothing (a chunk that fails is said, `unjudged`, for the page to judge with all it knows). Stops
 * at the first entry that fails. Result: { entries: [{ dataOffset, digest }], error, authenticated }.
 */
async function verifyEntriesTask(task, local, onProgress) {
  Object.assign(limits, task.limits);
  var payload = local.payload || runReader(local.source || blobSource(task.file), task);
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
 * A reader of the file for one run of entries: it judges nothing, and reads ahead up to the chunk where the
 * run's last entry ends at the latest (its local header's name and extra field at their longest).
 */
function runReader(source, task) {
  var reader = new ContainerReader(source, task.header, task.key, { deferVerdict: true, readAhead: true });
  var last = task.entries[task.entries.length - 1];
  var end = Math.min(task.directoryOffset, Number(last.localHeaderOffset) + 30 + 2 * 65535 + Number(last.compressedSize));
  reader.readLimit = Math.min(reader.readLimit, Math.floor(Math.max(0, end - 1) / task.header.chunkSize));
  return reader;
}

var WORKER_TASKS = {
  "verify-entries": verifyEntriesTask,
};

/** Runs `task` by its kind; `local` is what only a task run in the page's thread is given. */
async function runWorkerTask(task, local, onProgress) {
  var handler = WORKER_TASKS[task.kind];
  if (handler === undefined) throw new GoshuinError("internal", "no worker task " + task.kind);
  return handler(task, local, onProgress);
}

/**
 * In a worker: says it is ready (with the kernels it runs), then runs each task it is sent, one at a time
 * (the pool sends the next only after an answer), posting its progress and then its result or error.
 */
function serveWorker(scope) {
  scope.onmessage = function (event) {
    var task = event.data;
    var onProgress = function (count) {
      scope.postMessage({ progress: count });
    };
    runWorkerTask(task, {}, onProgress)
      .then(function (answer) {
        scope.postMessage({ result: answer.result }, answer.transfer);
      })
      .catch(function (error) {
        scope.postMessage({ error: errorRecord(error) });
      });
  };
  scope.postMessage({ ready: true, kernels: kernels().implementation });
}
