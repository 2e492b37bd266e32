// Opening a backup, repaired first with its recovery files when they are picked, or salvaging one that
// failed: the form, the task with its progress and Stop, then the backup shown, or the error with the focus
// where the next step is. With the passphrase, a backup that authenticates whole is intact whatever its
// recovery files say (Spec/decisions/0048): recovery files that cannot be used, or cannot repair it, do not
// keep it from opening, and a line says so.

import * as core from "../core/index.mjs";
import { byId, element } from "./00-basics.mjs";
import {
  app, cancelButton, fileInput, form, openButton, passphrase, PREVIEW_LIMIT, recoveryInput, result,
} from "./01-page-state.mjs";
import { clearStatus, setStatus } from "./10-status.mjs";
import { clearError, showError, showStopped } from "./11-errors.mjs";
import { onProgress } from "./12-progress.mjs";
import { endTask, startTask, whenAborted } from "./13-tasks.mjs";
import { pickedRecoveryFiles, repairWithRecoveryFiles } from "./22-recovery-files.mjs";
import { readRecords } from "./30-records.mjs";
import { showBackup } from "./41-backup-view.mjs";
import { notRepairableNumbers } from "./42-repair-banner.mjs";
import { showRecordsPage } from "./50-table.mjs";
import { observePhotos } from "./61-photo-grid.mjs";
import { closeViewer } from "./70-viewer.mjs";

/** The page without a backup: the viewer closed, the session's photos and downloads released. */
export function resetResult() {
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

/** The codes of a repair that could not be made, for which the page offers salvage of the damaged file. */
var REPAIR_SALVAGEABLE = ["not_repairable", "repair_check_failed", "browser_limit", "truncated"];

/**
 * Shows an opened, repaired or salvaged backup: its records read in slices, the table's first page, the
 * photos' tiles a frame at a time; `repair` ({ result, name }) when it was opened with its recovery files, else
 * null.
 */
async function present(backup, repair, signal) {
  setStatus("Reading the records…", undefined, true);
  var records = null;
  if (backup.records && backup.records.size <= PREVIEW_LIMIT) {
    var recordsBytes = await backup.read(core.RECORDS_NAME, signal);
    var text = new TextDecoder("utf-8").decode(recordsBytes);
    recordsBytes = null;
    records = await readRecords(text, backup.photos, signal);
  }
  if (signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
  var addTiles = showBackup(backup, records, repair);
  document.body.dataset.checkedBy = backup.checkedBy || ""; // where its entries were checked, for the tests
  await showRecordsPage(0, signal);
  await addTiles(signal);
  if (signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
}

/**
 * Runs `task(secret, options)` (opening, repairing and opening, or salvaging the chosen file) with Stop,
 * progress and the passphrase's bytes wiped afterwards; shows what it returns ({ backup, repair }), or its
 * error. `shownState` is the page's state then ("opened", "salvaged"). A task that repaired the file sets
 * `options.salvageSource` to the repaired copy: if that still fails, salvage is offered on it, not on the
 * file as picked, which has more damage.
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
  var repairing = false; // the error is the repair's, before the backup was opened
  var taskOptions = null;
  setStatus("Checking the file's structure…", undefined, true);
  try {
    // Stop answers at once, even during the key derivation (which WebCrypto cannot interrupt): the
    // task that goes on in the background ends at its next check of the signal, and is dropped.
    taskOptions = {
      signal: signal,
      onProgress: function (stage, done, total, header) {
        if (!signal.aborted) onProgress(stage, done, total, header); // a dropped task says nothing
      },
    };
    var opening = task(secret, taskOptions);
    opening.catch(function () {});
    var opened = await Promise.race([opening, whenAborted(signal)]);
    // The passphrase typed, kept only as a key WebCrypto will not give back: what a new backup is sealed with.
    var openingKey = await core.newBackup.passphraseKey(secret);
    secret.fill(0);
    await present(opened.backup, opened.repair, signal);
    keepForNewBackup(openingKey, file);
    passphrase.value = "";
    clearStatus();
    document.body.dataset.state = shownState;
    observePhotos(app.session);
  } catch (error) {
    secret.fill(0);
    resetResult();
    clearStatus();
    var failure = core.asGoshuinError(error);
    failedCode = failure.code;
    repairing = failure.duringRepair === true;
    if (failedCode === "interrupted") {
      document.body.dataset.state = "stopped";
      showStopped("Stopped. Nothing was kept. Open the backup again when you like.");
    } else {
      document.body.dataset.state = "failed";
      // A damaged or cut backup (never a wrong passphrase), or one its recovery files cannot repair: the
      // offer to show what is still intact.
      var damaged = repairing
        ? REPAIR_SALVAGEABLE.indexOf(failedCode) >= 0 || (failure.ownFailure !== undefined && SALVAGEABLE.indexOf(failure.ownFailure.code) >= 0)
        : SALVAGEABLE.indexOf(failedCode) >= 0;
      var salvageSource = (taskOptions && taskOptions.salvageSource) || file;
      var checked = checkedForSalvage(failure, salvageSource);
      var offer = damaged && shownState === "opened" ? function () { salvage(salvageSource, checked); } : null;
      showError(failure, null, repairing ? "Could not repair the backup" : null, offer, failureNotes(failure, repairing, damaged));
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
  } else if (repairing && failedCode.indexOf("recovery_set_") === 0) {
    recoveryInput.focus(); // other recovery files are needed
  } else {
    fileInput.focus(); // most likely, another file is needed
  }
}

/** What saving a new backup (81-save-new-backup.mjs) needs of the opening: the key, the file's name and time. */
function keepForNewBackup(openingKey, file) {
  var picked = (file && file.name !== undefined ? file : null) || (fileInput.files && fileInput.files[0]) || null;
  app.session.openingKey = openingKey;
  app.session.fileName = picked ? picked.name : "backup.goshuin";
  app.session.fileTime = picked && picked.lastModified ? Math.floor(picked.lastModified / 1000) : Math.floor(Date.now() / 1000);
}

/**
 * Below the alert's lead: the numbers of a repair that was not possible, what the backup said when it was
 * opened without its recovery files, or, for a damaged backup opened without recovery files, that they would
 * repair it.
 */
function failureNotes(failure, repairing, damaged) {
  var notes = [];
  var numbers = repairing ? notRepairableNumbers(failure) : "";
  if (numbers) notes.push(element("p", { id: "repair-numbers" }, numbers));
  if (repairing && failure.ownFailure)
    notes.push(
      element(
        "p",
        { id: "backup-failure" },
        "Opened without them, the backup does not open either: " + core.errorAdvice(failure.ownFailure) + " (code " + failure.ownFailure.code + ")"
      )
    );
  if (!repairing && damaged && pickedRecoveryFiles().length === 0)
    notes.push(element("p", { id: "recovery-offer" }, "If you have its recovery files (.par2), pick them under Recovery files and press Open again: the page repairs the backup."));
  else if (!repairing && HEADER_DAMAGE.indexOf(failure.code) >= 0 && pickedRecoveryFiles().length === 0)
    notes.push(
      element("p", { id: "recovery-offer" }, "If this is your backup and you have its recovery files (.par2), pick them under Recovery files and press Open again: they repair a damaged start of the file.")
    );
  return notes.length ? notes : null;
}

/** The codes of a file whose header does not pass the checks before any key: also a backup whose start is damaged. */
var HEADER_DAMAGE = ["bad_magic", "short_header", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range", "too_many_chunks"];

/** Codes of a repair that say nothing of the backup's own bytes, and end the task as they are. */
var REPAIR_FINAL = ["interrupted", "io", "truncated"];

/**
 * The backup `file` opened as it is, after its recovery files could not be used or could not repair it
 * (`failure`): shown with the line that says so when it authenticates whole; otherwise `failure` stands,
 * with what the backup said (`ownFailure`).
 */
async function openDespite(file, secret, options, failure) {
  try {
    var backup = await core.openBackup(core.blobSource(file), secret, options);
    return { backup: backup, repair: { result: { outcome: "unused", reason: failure }, name: file.name } };
  } catch (error) {
    var own = core.asGoshuinError(error);
    if (own.code === "interrupted") throw own;
    failure.duringRepair = true;
    failure.ownFailure = own;
    throw failure;
  }
}

function open() {
  var file = fileInput.files && fileInput.files[0];
  var recoveryFiles = pickedRecoveryFiles();
  return runOpening(file, async function (secret, options) {
    options.describeDamage = true; // a damaged backup's error names the files the damage touches
    if (recoveryFiles.length === 0) return { backup: await core.openBackup(core.blobSource(file), secret, options), repair: null };
    var repair;
    var repairFailed = function (error) {
      var failure = core.asGoshuinError(error);
      failure.duringRepair = true;
      if (REPAIR_FINAL.indexOf(failure.code) >= 0) throw failure; // stopped, unreadable, or cut short (said by the set)
      return openDespite(file, secret, options, failure);
    };
    try {
      repair = await repairWithRecoveryFiles(file, recoveryFiles, options);
    } catch (error) {
      return repairFailed(error);
    }
    if (repair.result.outcome === "intact") return { backup: await core.openBackup(core.blobSource(file), secret, options), repair: repair };
    // The repaired copy is opened while its MD5 is checked (Spec/decisions/0059); nothing of it is shown until
    // the check passes, and a copy that fails it is dropped: the opening stops, the file is opened as it is,
    // and Show what is intact salvages the file as picked (salvageSource is set only once the check passed).
    var ending = new AbortController();
    var opening = core.openBackup(
      core.blobSource(repair.result.blob),
      secret,
      Object.assign({}, options, { signal: AbortSignal.any ? AbortSignal.any([options.signal, ending.signal]) : options.signal })
    );
    opening.catch(function () {});
    try {
      await repair.result.checked;
    } catch (error) {
      ending.abort();
      return repairFailed(error);
    }
    options.salvageSource = repair.result.blob;
    try {
      return { backup: await opening, repair: repair };
    } catch (error) {
      var repairedFailure = core.asGoshuinError(error);
      if (repairedFailure.code === "interrupted") throw repairedFailure;
      // The set may describe another copy of the backup (made of a damaged one): the file as picked may be whole.
      try {
        var backup = await core.openBackup(core.blobSource(file), secret, Object.assign({}, options, { describeDamage: false }));
        var reason = new core.GoshuinError(repairedFailure.code, "the copy rebuilt from the recovery files does not open (" + repairedFailure.detail + ")");
        return { backup: backup, repair: { result: { outcome: "unused", reason: reason, damagedSlices: repair.result.damagedSlices }, name: file.name } };
      } catch (ownError) {
        if (core.asGoshuinError(ownError).code === "interrupted") throw ownError;
        throw repairedFailure;
      }
    }
  }, "opened");
}

/** Edits of the passphrase field: a salvage goes on from an opening's checks only under the same passphrase. */
var passphraseEdits = 0;
passphrase.addEventListener("input", function () {
  passphraseEdits++;
});

/**
 * The container the failed opening's damage check authenticated (every present chunk, under the key of the
 * passphrase typed: core describeDamage), when it is of `source`: { container, edits }, else null.
 */
function checkedForSalvage(failure, source) {
  var damage = failure.damage || (failure.ownFailure && failure.ownFailure.damage); // the file's own, after a repair failed
  var container = damage && damage.container;
  if (!container || container.source.blob !== source) return null;
  return { container: container, edits: passphraseEdits };
}

/**
 * Salvage (Spec/backup-v1.md §4.2) of the file that failed (the repaired copy, when a repair was made), with
 * the passphrase typed for it. Right after the opening failed, with the passphrase not touched since, it goes
 * on from the chunks the opening's damage check authenticated (`checked`) instead of deriving the key and
 * authenticating every chunk again; each chunk it reads is authenticated again as it is read.
 */
function salvage(file, checked) {
  return runOpening(file, async function (secret, options) {
    var reused = checked && checked.edits === passphraseEdits;
    document.body.dataset.salvageReused = reused ? "yes" : "no"; // for the tests
    if (reused) return { backup: await core.salvageEntries(checked.container, options), repair: null };
    return { backup: await core.salvageBackup(core.blobSource(file), secret, options), repair: null };
  }, "salvaged");
}

form.addEventListener("submit", function (event) {
  event.preventDefault();
  open();
});
