// Yielding to the browser between slices of work (not throttled in a background tab, unlike setTimeout),
// so that reading records.csv and building the table leave it painting and taking input.

import * as core from "../core/index.mjs";
import { now } from "./00-basics.mjs";

var SLICE_MS = 12; // work between two yields to the browser

var yieldChannel = new MessageChannel();
var yieldWaiting = [];
yieldChannel.port1.onmessage = function () {
  var resolve = yieldWaiting.shift();
  if (resolve) resolve();
};
function yieldToBrowser() {
  if (typeof scheduler !== "undefined" && scheduler && typeof scheduler.yield === "function") return scheduler.yield();
  return new Promise(function (resolve) {
    yieldWaiting.push(resolve);
    yieldChannel.port2.postMessage(0);
  });
}

/** A slicer: `await slicer.pause(signal)` yields when the current slice has run SLICE_MS. */
export function slicer() {
  var started = now();
  return {
    pause: async function (signal) {
      if (now() - started < SLICE_MS) return;
      await yieldToBrowser();
      if (signal && signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
      started = now();
    },
  };
}

/**
 * Resolves once the browser has had a chance to draw a frame (an animation frame, then a task after it), or at
 * once where the page is hidden: no frame comes there, and nothing is drawn either. Stop ends the wait at once.
 */
export async function afterNextFrame(signal) {
  if (signal && signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
  if (document.visibilityState !== "hidden" && typeof requestAnimationFrame === "function") {
    await new Promise(function (resolve) {
      function drawn() {
        document.removeEventListener("visibilitychange", drawn);
        if (signal) signal.removeEventListener("abort", drawn);
        resolve();
      }
      document.addEventListener("visibilitychange", drawn);
      if (signal) signal.addEventListener("abort", drawn);
      requestAnimationFrame(function () {
        yieldToBrowser().then(drawn);
      });
    });
  }
  if (signal && signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
}
