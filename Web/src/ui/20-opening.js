// Opening a backup, or salvaging one that failed: the form, the task with its progress and Stop, then the
// backup shown, or the error with the focus where the next step is.
//
// Uses:
//   00-basics.js           byId
//   01-page-state.js       app, cancelButton, fileInput, form, openButton, passphrase, PREVIEW_LIMIT, result
//   10-status.js           clearStatus, setStatus
//   11-errors.js           clearError, showError, showStopped
//   12-progress.js         onProgress
//   13-tasks.js            endTask, startTask, whenAborted
//   30-records.js          readRecords
//   41-backup-view.js      showBackup
//   50-table.js            showRecordsPage
//   61-photo-grid.js       observePhotos
//   70-viewer.js           closeViewer
//   GoshuinCore            asGoshuinError, blobSource, GoshuinError, openBackup, RECORDS_NAME, salvageBackup, utf8Bytes

/** The page without a backup: the viewer closed, the session's photos and downloads released. */
function resetResult() {
  closeViewer(false);
  if (app.session) {
    app.session.closed = true;
    if (app.session.observer) app.session.observer.disconnect();
    app.session.photos.forEach(function (photo) {
      if (photo.url) URL.revokeObjectURL(photo.url);
    });
    app.session.downloads.forEach(function (url) {
      URL.revokeObjectURL(url);
    });
  }
  app.session = null;
  result.replaceChildren();
  result.hidden = true;
}

/** The strict verdicts of a damaged or cut backup, for which the page offers salvage (never auth_failed). */
var SALVAGEABLE = ["chunk_damaged", "truncated", "chunk_length_invalid", "trailing_data"];

/** Shows an opened or salvaged backup: its records read in slices, the table's first page, the photos. */
async function present(backup, signal) {
  setStatus("Reading the records…", undefined, true);
  var records = null;
  if (backup.records && backup.records.size <= PREVIEW_LIMIT) {
    var recordsBytes = await backup.read(core.RECORDS_NAME, signal);
    var text = new TextDecoder("utf-8").decode(recordsBytes);
    recordsBytes = null;
    records = await readRecords(text, backup.photos, signal);
  }
  if (signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
  showBackup(backup, records);
  await showRecordsPage(0, signal);
  if (signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
}

/**
 * Runs `task(secret, signal)` (opening or salvaging the chosen file) with Stop, progress and the
 * passphrase's bytes wiped afterwards; shows what it returns, or its error. `shownState` is the page's
 * state then ("opened", "salvaged").
 */
async function runOpening(file, task, shownState) {
  if (app.busy) return;
  resetResult();
  clearError();
  clearStatus();
  document.body.dataset.state = "opening";
  if (!file) {
    document.body.dataset.state = "failed";
    showError(new core.GoshuinError("invalid_argument", "no backup file is chosen"), fileInput);
    return;
  }
  if (passphrase.value === "") {
    document.body.dataset.state = "failed";
    showError(new core.GoshuinError("invalid_argument", "the passphrase is empty"), passphrase);
    return;
  }
  var signal = startTask();
  cancelButton.focus(); // Open is disabled now; the one thing to do is Stop
  var secret = core.utf8Bytes(passphrase.value);
  var failedCode = null;
  setStatus("Checking the file's structure…", undefined, true);
  try {
    // Stop answers at once, even during the key derivation (which WebCrypto cannot interrupt): the
    // task that goes on in the background ends at its next check of the signal, and is dropped.
    var opening = task(secret, {
      signal: signal,
      onProgress: function (stage, done, total, header) {
        if (!signal.aborted) onProgress(stage, done, total, header); // a dropped task says nothing
      },
    });
    opening.catch(function () {});
    var backup = await Promise.race([opening, whenAborted(signal)]);
    secret.fill(0);
    await present(backup, signal);
    passphrase.value = "";
    clearStatus();
    document.body.dataset.state = shownState;
    observePhotos(app.session);
  } catch (error) {
    secret.fill(0);
    resetResult();
    clearStatus();
    failedCode = core.asGoshuinError(error).code;
    if (failedCode === "interrupted") {
      document.body.dataset.state = "stopped";
      showStopped("Stopped. Nothing was kept. Open the backup again when you like.");
    } else {
      document.body.dataset.state = "failed";
      // A damaged or cut backup (never a wrong passphrase): the offer to show what is still intact.
      var offer = SALVAGEABLE.indexOf(failedCode) >= 0 && shownState === "opened" ? function () { salvage(file); } : null;
      showError(error, null, null, offer);
    }
  } finally {
    endTask(false); // the focus goes where the outcome needs it, below
  }
  if (failedCode === null) {
    byId("result-heading").focus();
  } else if (failedCode === "auth_failed") {
    passphrase.focus(); // to type it again at once
    passphrase.select();
  } else if (failedCode === "interrupted") {
    openButton.focus();
  } else {
    fileInput.focus(); // most likely, another file is needed
  }
}

function open() {
  var file = fileInput.files && fileInput.files[0];
  return runOpening(file, function (secret, options) {
    options.describeDamage = true; // a damaged backup's error names the files the damage touches
    return core.openBackup(core.blobSource(file), secret, options);
  }, "opened");
}

/** Salvage (Spec/backup-v1.md §4.2) of the file that failed, with the passphrase typed for it. */
function salvage(file) {
  return runOpening(file, function (secret, options) {
    return core.salvageBackup(core.blobSource(file), secret, options);
  }, "salvaged");
}

form.addEventListener("submit", function (event) {
  event.preventDefault();
  open();
});
