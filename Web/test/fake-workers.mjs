// Web Workers imitated under Node for the tests (Web/test/survey.mjs --workers): the same thread, every message
// structured-cloned with its transfers and delivered later, as a browser does, so that the pool's worker mode
// runs (its messages, reads through the page, workers that cannot start) and not its in-thread mode. Imported
// before the page's core: the pool takes its script from `document.currentScript` when it loads.
globalThis.document = { currentScript: { textContent: "// the page's script" } };

/**
 * Which workers (by index) fail to start, how many were started, how many run (started, not terminated), and
 * the most that ran at once since `mostRunning` was last set.
 */
export const workerControl = { failing: new Set(), started: 0, running: 0, mostRunning: 0 };

let serveWorker = null;

/** The core's serveWorker (28-worker-tasks.mjs), which each imitated worker runs. */
export function setServe(serve) {
  serveWorker = serve;
}

globalThis.Worker = class ImitatedWorker {
  constructor(url, options) {
    const index = Number(String(options && options.name).split("-")[1]);
    workerControl.started++;
    workerControl.running++;
    workerControl.mostRunning = Math.max(workerControl.mostRunning, workerControl.running);
    this.onmessage = null;
    this.onerror = null;
    this.terminated = false;
    const worker = this;
    this.scope = {
      onmessage: null,
      postMessage(message, transfer) {
        const copy = structuredClone(message, { transfer: transfer || [] });
        setImmediate(() => {
          if (!worker.terminated && worker.onmessage) worker.onmessage({ data: copy });
        });
      },
    };
    if (workerControl.failing.has(index)) {
      this.dead = true;
      setImmediate(() => {
        if (worker.onerror) worker.onerror({ preventDefault() {}, message: "could not start" });
      });
      return;
    }
    serveWorker(this.scope);
  }

  postMessage(message, transfer) {
    if (this.dead || this.terminated) return;
    const copy = structuredClone(message, { transfer: transfer || [] });
    setImmediate(() => {
      if (!this.terminated) this.scope.onmessage({ data: copy });
    });
  }

  terminate() {
    if (!this.terminated) workerControl.running--;
    this.terminated = true;
  }
};
