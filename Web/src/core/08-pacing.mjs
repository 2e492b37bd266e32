// Pacing: long work of the core (the PAR 2.0 repair: scanning, checking, solving, rebuilding) runs on the
// page's main thread, so it gives the browser the thread back at least every PACE_MS (it paints, takes
// input, and Stop is pressed), and stops there when asked. Yields go through a MessageChannel (not throttled
// in a background tab, unlike setTimeout); under Node, setImmediate.

import { GoshuinError } from "./01-errors.mjs";
import { now } from "./07-keys.mjs";

export var PACE_MS = 20; // work between two yields; a yield costs well under a millisecond

var paceChannel = null;
var paceWaiting = []; // the resolvers of the yields not yet resumed, first come first resumed
var paceScheduled = false; // whether a turn of the event loop has been asked for them

// One waiter resumes a turn of the event loop, so that tasks sharing the thread (a pool's tasks in this thread)
// hold it PACE_MS between them, not PACE_MS each: a message is one task of the browser; of Node's
// immediates, all those queued before a turn run in it, so the next is asked for only once one has run.
function resumeOne() {
  paceScheduled = false;
  var resolve = paceWaiting.shift();
  if (paceWaiting.length > 0) scheduleTurn();
  if (resolve) resolve();
}

function scheduleTurn() {
  paceScheduled = true;
  if (typeof setImmediate === "function") setImmediate(resumeOne);
  else if (typeof MessageChannel === "function") {
    if (paceChannel === null) {
      paceChannel = new MessageChannel();
      paceChannel.port1.onmessage = resumeOne;
    }
    paceChannel.port2.postMessage(0);
  } else setTimeout(resumeOne, 0);
}

/** A promise resolved once the event loop has run other tasks. */
function yieldToEventLoop() {
  return new Promise(function (resolve) {
    paceWaiting.push(resolve);
    if (!paceScheduled) scheduleTurn();
  });
}

export function interrupted() {
  return new GoshuinError("interrupted", "stopped");
}

/**
 * A pacer for one task: `await pace()` yields when PACE_MS have passed since the last yield, and throws
 * `interrupted` when `signal` was aborted. Cheap to call often (a clock read). `pace.check()` only throws.
 */
export function pacer(signal) {
  var last = now();
  var pace = async function () {
    if (signal && signal.aborted) throw interrupted();
    if (now() - last < PACE_MS) return;
    await yieldToEventLoop();
    if (signal && signal.aborted) throw interrupted();
    last = now();
  };
  pace.check = function () {
    if (signal && signal.aborted) throw interrupted();
  };
  /** Whether `pace()` would yield or throw: for the hottest loops, which must not make a promise a turn. */
  pace.due = function () {
    return now() - last >= PACE_MS || (signal !== undefined && signal !== null && signal.aborted);
  };
  pace.signal = signal;
  return pace;
}
