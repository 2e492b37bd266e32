// The status line and its progress bar: what the page is doing, at most four times a second unless forced.

import { progressBar, statusText } from "./01-page-state.mjs";

// Each change is a paint, and a browser that draws without a GPU pays for every one: WebKitGTK under Mesa's
// software renderer spends about 17 ms of CPU on each, which at ten a second took 9 % off a 1 GiB backup's
// opening on two cores (Spec/decisions/0065).
var PAINT_MS = 250;
var lastPaint = 0;
export function setStatus(text, fraction, force) {
  var time = Date.now();
  if (!force && time - lastPaint < PAINT_MS) return;
  lastPaint = time;
  statusText.textContent = text;
  if (fraction === null) {
    progressBar.hidden = true;
  } else {
    progressBar.hidden = false;
    if (fraction === undefined) progressBar.removeAttribute("value");
    else progressBar.value = Math.max(0, Math.min(1, fraction));
  }
}

/** The next status is shown whenever it comes (a new stage's first words are never held back). */
export function showNextStatus() {
  lastPaint = 0;
}

export function clearStatus() {
  setStatus("", null, true);
}
