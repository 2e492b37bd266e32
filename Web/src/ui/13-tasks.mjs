// A task (opening, salvaging, saving): one at a time, with Stop; the form and the save buttons disabled
// while it runs, and the focus given back when it ends.

import * as core from "../core/index.mjs";
import {
  app, cancelButton, fileInput, openButton, passphrase, recoveryClear, recoveryInput,
} from "./01-page-state.mjs";

var controller = null; // the AbortController of the running task

function setBusy(value) {
  app.busy = value;
  openButton.disabled = value;
  fileInput.disabled = value;
  recoveryInput.disabled = value;
  recoveryClear.disabled = value;
  passphrase.disabled = value;
  cancelButton.hidden = !value;
  document.querySelectorAll(".save-action").forEach(function (button) {
    button.disabled = value;
  });
}

var taskFocus = null; // what had the focus when a task started, to give it back
export function startTask() {
  controller = new AbortController();
  taskFocus = document.activeElement;
  setBusy(true);
  return controller.signal;
}

/**
 * The task is over: Open and the save buttons come back. With `returnFocus`, a button disabled while it
 * worked, which lost the focus to the page, gets it back; without, the caller places the focus itself.
 */
export function endTask(returnFocus) {
  controller = null;
  setBusy(false);
  var active = document.activeElement;
  if (returnFocus && (active === null || active === document.body) && taskFocus && taskFocus.isConnected && !taskFocus.disabled)
    taskFocus.focus();
  taskFocus = null;
}

cancelButton.addEventListener("click", function () {
  if (controller) controller.abort();
});

/** A promise that fails with `interrupted` when `signal` is aborted. */
export function whenAborted(signal) {
  return new Promise(function (resolve, reject) {
    var stop = function () {
      reject(new core.GoshuinError("interrupted", "stopped"));
    };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}
