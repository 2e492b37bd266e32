// The status line and its progress bar: what the page is doing, at most ten times a second unless forced.

import { progressBar, statusText } from "./01-page-state.mjs";

var lastPaint = 0;
export function setStatus(text, fraction, force) {
  var time = Date.now();
  if (!force && time - lastPaint < 100) return;
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

export function clearStatus() {
  setStatus("", null, true);
}
