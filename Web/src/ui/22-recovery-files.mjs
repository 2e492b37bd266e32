// The recovery files (#recovery-files): the PAR 2.0 files (FILE.par2, FILE.vol…par2) picked or dropped
// beside the backup; what the page says of them (#recovery-note): the files picked, then what the recovery
// set they hold protects; and the repair that runs before a backup opens when they are there, its result
// kept for the same files, so that a passphrase typed again does not repair again; #recovery-clear forgets
// the files picked (a file input cannot be emptied otherwise), so that the backup opens without them.

import * as core from "../core/index.mjs";
import { count } from "./00-basics.mjs";
import { fileInput, recoveryClear, recoveryInput, recoveryNote } from "./01-page-state.mjs";

var lastRepair = null; // { backup, files, repair } of the last repair that succeeded, for the same files

/** The files picked under Recovery files, as an array. */
export function pickedRecoveryFiles() {
  return recoveryInput.files ? Array.prototype.slice.call(recoveryInput.files) : [];
}

/** Whether a dropped file goes with the recovery files: its name ends in .par2. */
export function isRecoveryFileName(name) {
  return /\.par2$/i.test(name);
}

/** #recovery-note when files are picked: how many, by name and size (names from the person's own disk). */
export function notePickedFiles() {
  lastRepair = null;
  var files = pickedRecoveryFiles();
  recoveryClear.hidden = files.length === 0;
  if (files.length === 0) {
    recoveryNote.textContent = "";
    return;
  }
  var shown = files.slice(0, 6).map(function (file) {
    return file.name + " (" + core.formatSize(file.size) + ")";
  });
  recoveryNote.textContent =
    count(files.length, "recovery file", "recovery files") + " picked: " + shown.join(", ") + (files.length > shown.length ? ", …" : "") +
    ". They are read when you press Open.";
}

recoveryInput.addEventListener("change", notePickedFiles);
recoveryClear.addEventListener("click", function () {
  recoveryInput.value = "";
  notePickedFiles();
  recoveryInput.focus();
});
fileInput.addEventListener("change", function () {
  lastRepair = null;
});

/**
 * #recovery-note once the set is chosen: what it protects, in how many parts, how many of them it can rebuild,
 * and who made it (the name and the creator are the set's text, escaped by the core). In the words of
 * Spec/glossary.md: a slice is a part of the file; recovery slices are counted as the parts they rebuild.
 */
function noteRecoverySet(summary) {
  var text =
    "The recovery files hold a recovery set for \u201c" + summary.name + "\u201d (" + core.formatSize(summary.size) + "): " +
    count(summary.sliceCount, "part", "parts") + " of " + core.formatSize(summary.sliceSize) + "; " +
    (summary.recoverySlices > 0
      ? "they can rebuild up to " + count(summary.recoverySlices, "damaged part", "damaged parts")
      : "they hold nothing to rebuild a damaged part with (that is in the .vol…par2 files)");
  if (summary.otherFiles > 0) text += "; the set protects " + count(summary.otherFiles, "other file", "other files") + " too";
  if (summary.creator) text += "; made with " + creatorName(summary.creator);
  if (summary.notReadToEnd > 0)
    text += ". " + count(summary.notReadToEnd, "file was", "files were") + " not read to the end: more than the page reads for a backup of this size";
  recoveryNote.textContent = text + ".";
}

/** The program a set's creator packet names: "par2cmdline version 0.8.1" of "Created by par2cmdline version 0.8.1." */
export function creatorName(text) {
  return text.replace(/^created by\s+/i, "").replace(/[.\s]+$/, "");
}

/**
 * The backup `file` checked and, if need be, repaired with the recovery files `files`, in memory
 * (core.repairBackup): { result, name } with the file's name; or the last one for the same files.
 */
export async function repairWithRecoveryFiles(file, files, options) {
  if (lastRepair && lastRepair.backup === file && lastRepair.files.length === files.length) {
    var same = lastRepair.files.every(function (picked, index) {
      return picked === files[index];
    });
    if (same) return lastRepair.repair;
  }
  lastRepair = null;
  var report = await core.repairBackup(file, files, {
    signal: options.signal,
    onProgress: options.onProgress,
    backupName: file.name,
    checkLater: true, // the repaired copy's MD5 is checked while it is opened (20-opening.mjs)
    onRecoverySet: function (summary) {
      if (!options.signal.aborted) noteRecoverySet(summary);
    },
  });
  var repair = { result: report, name: file.name };
  lastRepair = { backup: file, files: files, repair: repair };
  if (report.checked)
    report.checked.catch(function () {
      if (lastRepair && lastRepair.repair === repair) lastRepair = null; // stopped or failed: not kept for next time
    });
  return repair;
}
