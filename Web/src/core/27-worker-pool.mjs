// The page's workers: Web Workers, as many as the machine has cores (navigator.hardwareConcurrency, at most
// 8), that run the page's own script (its text, from a Blob URL: a page opened from file:// can start no
// worker from a file, and the policy allows `worker-src blob:` only) and serve the core's tasks
// (28-worker-tasks.mjs), while the page's main thread only draws. Where workers cannot start (no Worker, the
// script's text unknown, as under Node, or an engine that refuses), the same tasks run in this thread, as
// many at a time, through the same code: only the messages are not sent.
//
// A pool belongs to one piece of work (opening a backup) and is closed after it: closing ends its workers at
// once (Stop) and frees all their memory.

import { asGoshuinError, GoshuinError } from "./01-errors.mjs";
import { kernels } from "./02-kernels.mjs";
import { blobSource } from "./05-sources.mjs";
import { interrupted } from "./08-pacing.mjs";
import { runWorkerTask } from "./28-worker-tasks.mjs";

/** The text of the page's script, read as it loads (null where it is not a page's script). */
var pageScriptText =
  typeof document !== "undefined" && document.currentScript && document.currentScript.textContent
    ? document.currentScript.textContent
    : null;

var MAX_WORKERS = 8;

/** How many tasks run at once: one a core (the main thread mostly waits). */
function workerCount() {
  var cores = typeof navigator !== "undefined" && navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : 2;
  return Math.max(1, Math.min(MAX_WORKERS, cores));
}

/** The fields of an error that cross from a worker to the page: a GoshuinError's, or `internal`. */
export function errorRecord(error) {
  var failure = asGoshuinError(error);
  var record = { code: failure.code, detail: failure.detail };
  ["chunkIndex", "atEnd", "unjudged"].forEach(function (field) {
    if (failure[field] !== undefined) record[field] = failure[field];
  });
  return record;
}

export function errorFromRecord(record) {
  var error = new GoshuinError(record.code, record.detail, record.chunkIndex);
  if (record.atEnd !== undefined) error.atEnd = record.atEnd;
  if (record.unjudged !== undefined) error.unjudged = record.unjudged;
  return error;
}

/**
 * A pool of `size` workers, or of `size` places in this thread where workers cannot run. `run(task,
 * onProgress, read)` runs one task (an object whose `kind` names its handler in WORKER_TASKS; `local` holds what
 * is used only in this thread and never sent; `read(offset, length)`, when given, serves the reads of the file
 * the worker asks of the page) and resolves with its result, or rejects with its error;
 * tasks wait for a free place in the order given. `close()` ends everything: the tasks not finished
 * reject with `interrupted`.
 */
class WorkerPool {
  constructor(size, options) {
    this.size = size;
    this.waiting = [];
    this.closed = false;
    this.workers = [];
    this.idle = [];
    this.url = null;
    this.inThread = (options && options.inThread) === true || !canStartWorkers();
    if (!this.inThread) this.start();
    else for (var i = 0; i < size; i++) this.idle.push(null);
    this.signal = (options && options.signal) || null;
    if (this.signal) {
      var pool = this;
      this.onAbort = function () {
        pool.close();
      };
      this.signal.addEventListener("abort", this.onAbort);
    }
  }

  /** Starts the workers; each says it is ready, or fails (then the pool runs its tasks in this thread). */
  start() {
    try {
      this.url = URL.createObjectURL(new Blob([pageScriptText], { type: "text/javascript" }));
      for (var i = 0; i < this.size; i++) this.workers.push(this.startWorker(i));
      this.idle = this.workers.slice();
    } catch (error) {
      this.stopWorkers();
      this.inThread = true;
      this.idle = [];
      for (var j = 0; j < this.size; j++) this.idle.push(null);
    }
  }

  /**
   * One worker, in its slot: { worker, task (the job it runs, or null), ready (a promise of its kernels),
   * started (whether it said it is ready) }.
   */
  startWorker(index) {
    var pool = this;
    var slot = { worker: new Worker(this.url, { name: "goshuin-" + index }), task: null, ready: null, started: false };
    // The workers run the kernels this thread runs: where the page could not use WebAssembly, neither do they.
    slot.worker.postMessage({ configure: { javascript: kernels().implementation === "javascript" } });
    slot.ready = new Promise(function (resolve, reject) {
      slot.worker.onmessage = function (event) {
        if (event.data && event.data.ready) {
          slot.started = true;
          resolve(event.data.kernels);
        } else pool.answer(slot, event.data);
      };
      slot.worker.onerror = function (event) {
        event.preventDefault();
        var failure = new GoshuinError("browser_limit", "a worker of the page stopped (" + (event.message || "no message") + ")");
        reject(failure);
        // One that never started leaves its task to `send`, which runs it in this thread; one that stopped fails it.
        if (slot.started) pool.fail(slot, failure);
      };
    });
    slot.ready.catch(function () {});
    return slot;
  }

  /** Where the tasks ran, for the page to show the tests: "2 workers, wasm-simd128", "this thread, javascript". */
  async describe() {
    if (this.inThread) return "this thread, " + kernels().implementation;
    var ready = await Promise.all(this.workers.map(function (slot) {
      return slot.ready.catch(function () {
        return "failed";
      });
    }));
    return this.workers.length + " workers, " + ready.join(" ");
  }

  run(task, onProgress, read) {
    var pool = this;
    if (this.closed) return Promise.reject(interrupted());
    return new Promise(function (resolve, reject) {
      pool.waiting.push({ task: task, onProgress: onProgress || null, read: read || null, resolve: resolve, reject: reject });
      pool.dispatch();
    });
  }

  dispatch() {
    while (!this.closed && this.waiting.length > 0 && this.idle.length > 0) {
      var job = this.waiting.shift();
      var slot = this.idle.shift();
      if (slot === null) this.runHere(job);
      else this.send(slot, job);
    }
  }

  /** A task in this thread (no worker): its handler called as a worker calls it. */
  runHere(job) {
    var pool = this;
    runWorkerTask(job.task, job.task.local || (job.read ? { readThroughPage: job.read } : {}), job.onProgress || function () {}).then(
      function (answer) {
        pool.idle.push(null);
        if (pool.closed) job.reject(interrupted());
        else job.resolve(answer.result);
        pool.dispatch();
      },
      function (error) {
        pool.idle.push(null);
        job.reject(pool.closed ? interrupted() : asGoshuinError(error));
        pool.dispatch();
      }
    );
  }

  send(slot, job) {
    var pool = this;
    slot.task = job;
    slot.ready.then(
      function () {
        if (pool.closed || slot.task !== job) return;
        var message = Object.assign({}, job.task);
        delete message.local;
        slot.worker.postMessage(message);
      },
      function () {
        // A worker that could not start (an engine or a policy that refuses it): the task runs here.
        if (pool.closed || slot.task !== job) return;
        slot.task = null;
        pool.runHere(job);
      }
    );
  }

  /** A message of the worker in `slot`: progress, or the end of its task. */
  answer(slot, message) {
    var job = slot.task;
    if (job === null || this.closed) return;
    if (message.progress !== undefined) {
      if (job.onProgress) job.onProgress(message.progress);
      return;
    }
    if (message.read !== undefined) {
      this.readFor(slot, job, message.read);
      return;
    }
    slot.task = null;
    this.idle.push(slot);
    if (message.error) job.reject(errorFromRecord(message.error));
    else job.resolve(message.result);
    this.dispatch();
  }

  /**
   * Bytes of the file a worker asked for (it cannot read the file itself, or its task reads through the page:
   * `job.read`), handed over without a copy.
   */
  readFor(slot, job, request) {
    (job.read || blobSource(job.task.file).read)(request.offset, request.length)
      .then(
        function (bytes) {
          slot.worker.postMessage({ readReply: { id: request.id, buffer: bytes.buffer } }, [bytes.buffer]);
        },
        function (error) {
          slot.worker.postMessage({ readReply: { id: request.id, error: errorRecord(error) } });
        }
      );
  }

  /** A worker that stopped (an error it did not catch, or out of memory): its task fails with it. */
  fail(slot, failure) {
    var job = slot.task;
    slot.task = null;
    if (job !== null) job.reject(failure);
  }

  stopWorkers() {
    this.workers.forEach(function (slot) {
      slot.worker.terminate();
    });
    this.workers = [];
    if (this.url !== null) URL.revokeObjectURL(this.url);
    this.url = null;
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.signal) this.signal.removeEventListener("abort", this.onAbort);
    var stopped = this.waiting.splice(0);
    this.workers.forEach(function (slot) {
      if (slot.task !== null) stopped.push(slot.task);
      slot.task = null;
    });
    this.stopWorkers();
    stopped.forEach(function (job) {
      job.reject(interrupted());
    });
  }
}

function canStartWorkers() {
  return pageScriptText !== null && typeof Worker === "function" && typeof Blob === "function" && typeof URL === "function";
}

/**
 * A pool for one piece of work: workers where they run, else places in this thread. `options`: { size,
 * inThread, signal (Stop: the pool closes when it is aborted) }.
 */
export function createWorkerPool(options) {
  return new WorkerPool((options && options.size) || workerCount(), options);
}
