// "Save as a new backup the app can import" (#save-new-backup, issue 37): under every backup shown (opened,
// repaired, or what is intact after a salvage), records.csv and every photo shown sealed into a new .goshuin
// file, container version 1, laid out as goshuin-tool's seal and rescue lay out the same entries
// (core/72-backup-layout.mjs, core/73-backup-writer.mjs). Sealed with the passphrase typed to open the backup,
// or a new one typed twice (#new-passphrase, #new-passphrase-again; the tool's rules: empty refused, the two
// different refused, short warned about). Written chunk by chunk: into the file the Save picker gives where the
// browser has the File System Access API, else into a private file that becomes a download where the browser
// has one (Firefox: 82-private-file.mjs), else into a Blob of sealed chunks that becomes one; with progress and
// Stop. Named NAME.rescued.goshuin after a salvage, NAME.goshuin otherwise.

import * as core from "../core/index.mjs";
import { count, element } from "./00-basics.mjs";
import { app } from "./01-page-state.mjs";
import { clearStatus, setStatus } from "./10-status.mjs";
import { clearError, fail, showError } from "./11-errors.mjs";
import { endTask, startTask, whenAborted } from "./13-tasks.mjs";
import { download, keptWhole } from "./80-saving.mjs";
import { privateFileDestination } from "./82-private-file.mjs";

/** The sentence every banner over a damaged backup ends with. */
export var NEW_BACKUP_STEP =
  "To bring what is intact into the app, save it as a new backup: Save as a new backup the app can import, at the end of this page, under the photos.";

/**
 * The download's name: NAME.rescued.goshuin after a salvage (never the damaged file's own name), NAME.goshuin
 * otherwise, NAME being the opened file's name without .goshuin (the whole name when it does not end so).
 */
export function newBackupName(fileName, salvaged) {
  var name = fileName || "backup.goshuin";
  var stem = /\.goshuin$/i.test(name) && name.length > 8 ? name.slice(0, -8) : name;
  return stem + (salvaged ? ".rescued.goshuin" : ".goshuin");
}

/** The photos a salvage lost (records.csv and manifest.json aside). */
function lostPhotoCount(backup) {
  if (!backup.salvage) return 0;
  return backup.salvage.lost.filter(function (entry) {
    return entry.name !== core.RECORDS_NAME && entry.name !== core.MANIFEST_NAME;
  }).length;
}

/** "records.csv and 37 photos; the 3 photos that were lost are not in it" */
export function holdsText(backup) {
  var text = "records.csv and " + count(backup.photos.length, "photo", "photos");
  var lost = lostPhotoCount(backup);
  if (lost > 0) text += "; " + (lost === 1 ? "the photo that was lost is" : "the " + lost.toLocaleString("en-US") + " photos that were lost are") + " not in it";
  return text;
}

function shortWarning(characters) {
  return (
    "This passphrase has only " + count(characters, "character", "characters") +
    ": a short one is easy to guess, and a forgotten one cannot be recovered: nobody, not even the app, can open the backup without it."
  );
}

/** The part of the result that saves a new backup (#new-backup), or why none can be made (#new-backup-none). */
export function newBackupSection(backup) {
  if (!backup.records)
    return element(
      "p",
      { id: "new-backup-none", class: "empty" },
      "A backup the app can import cannot be made from what is intact: it needs records.csv, which is lost. Save the photos instead."
    );
  var section = element("div", { id: "new-backup", class: "new-backup", role: "region", "aria-labelledby": "new-backup-title" });
  section.append(element("h3", { id: "new-backup-title" }, "A new backup the app can import"));
  var holds = "The new backup holds " + holdsText(backup) + ".";
  if (backup.salvage) holds += " records.csv is as it was: its rows for the lost photos are kept.";
  section.append(element("p", { id: "new-backup-holds" }, holds));
  section.append(
    element(
      "p",
      { class: "hint", id: "new-passphrase-hint" },
      "It is sealed with the passphrase you typed to open this backup. To give it another one (to hand it to family, say), type the new passphrase twice."
    )
  );
  var fields = element("div", { class: "new-passphrase-fields" });
  [["new-passphrase", "New passphrase (optional)"], ["new-passphrase-again", "New passphrase again"]].forEach(function (pair) {
    var field = element("div", { class: "field" });
    field.append(
      element("label", { for: pair[0] }, pair[1]),
      element("input", {
        type: "password", id: pair[0], class: "save-action", autocomplete: "new-password", spellcheck: "false", autocapitalize: "off",
        "aria-describedby": "new-passphrase-hint new-passphrase-note",
      })
    );
    fields.append(field);
  });
  section.append(fields);
  var note = element("p", { id: "new-passphrase-note", class: "hint", "aria-live": "polite" });
  section.append(note);
  var buttons = element("div", { class: "buttons" });
  var button = element("button", { type: "button", id: "save-new-backup", class: "save-action", "aria-describedby": "new-backup-holds" }, "Save as a new backup the app can import");
  button.addEventListener("click", saveNewBackup);
  buttons.append(button);
  section.append(buttons);
  fields.addEventListener("input", function () {
    var text = fields.querySelector("#new-passphrase").value;
    var characters = Array.from(text).length;
    note.textContent = text !== "" && characters < core.newBackup.SHORT_PASSPHRASE ? shortWarning(characters) : "";
  });
  return section;
}

/** The passphrase to seal with: { key, isNew, warning }; throws the tool's refusals. */
async function sealingPassphrase() {
  var first = document.getElementById("new-passphrase");
  var again = document.getElementById("new-passphrase-again");
  if (first.value === "" && again.value === "") return { key: app.session.openingKey, isNew: false, warning: "" };
  var checked;
  try {
    checked = core.newBackup.checkPassphrase(first.value, again.value);
  } catch (error) {
    error.field = error.code === "passphrase_mismatch" ? again : first;
    throw error;
  }
  var key = await core.newBackup.passphraseKey(checked.bytes);
  checked.bytes.fill(0);
  return { key: key, isNew: true, warning: checked.short ? shortWarning(checked.characters) : "" };
}

/**
 * Where the sealed chunks go: a file from the Save picker (null when the person closed it), else a private file
 * that becomes a download (82-private-file.mjs), else a Blob that becomes one. `sizeAtMost`: the new backup's most.
 */
async function destination(name, sizeAtMost) {
  if (typeof window.showSaveFilePicker === "function") {
    var handle;
    try {
      handle = await window.showSaveFilePicker({
        suggestedName: name,
        id: "goshuin-new-backup",
        types: [{ description: "goshuin backup", accept: { "application/octet-stream": [".goshuin"] } }],
      });
    } catch (error) {
      if (error && error.name === "AbortError") return null; // the person closed the picker
      handle = undefined; // no picker here after all (a policy, no user activation): a download
    }
    if (handle) {
      var writable = await handle.createWritable();
      return {
        name: handle.name || name,
        write: function (bytes) {
          return writable.write(bytes);
        },
        finish: function () {
          return writable.close();
        },
        abort: function () {
          return writable.abort().catch(function () {});
        },
        where: "",
        via: "picker",
        blobs: true,
      };
    }
  }
  return (await privateFileDestination(name, sizeAtMost)) || blobDestination(name);
}

/**
 * A download built from the sealed chunks: Blobs made as they are sealed (by the workers), so the page holds none of
 * them (Chromium keeps Blobs in its blob store, which goes to disk when large; Firefox keeps them in the
 * content process's memory, and so writes a private file instead where it can: 82-private-file.mjs).
 * (A stream read by Response.blob() kept Firefox's renderer lower, 655 MiB for 1 GiB, but took twice as long,
 * and Chromium's download 2.5 times as long: Benchmarks/run-page --figures save, issue 37's closing note.)
 */
function blobDestination(name) {
  var parts = [];
  var began = Date.now();
  return {
    name: name,
    write: function (bytes) {
      parts.push(bytes instanceof Blob ? bytes : new Blob([bytes]));
    },
    finish: async function (current) {
      var blob = new Blob(parts, { type: "application/octet-stream" });
      parts = [];
      await keptWhole(blob, "a file of " + core.formatSize(blob.size), began);
      if (!current.closed) download(blob, name);
    },
    abort: function () {
      parts = [];
    },
    where: " (your browser's downloads)",
    via: "blob",
    blobs: true,
  };
}

/** #save-new-backup. */
export async function saveNewBackup() {
  if (app.busy || !app.session) return;
  var current = app.session;
  var backup = current.backup;
  clearError();
  var note = document.getElementById("new-passphrase-note");
  var sealing;
  try {
    sealing = await sealingPassphrase();
  } catch (error) {
    showError(error, error.field || null, "Could not save a new backup");
    if (error.field) error.field.focus();
    return;
  }
  if (note) note.textContent = sealing.warning;
  // The task starts before the destination is found: finding a private file takes a while (82-private-file.mjs),
  // and a second click meanwhile (a double click) must not start a second save.
  var signal = startTask();
  var output = null;
  try {
    output = await destination(newBackupName(current.fileName, current.salvaged), core.newBackup.sizeAtMost(backup));
    if (output === null) return;
    var began = Date.now();
    setStatus("Preparing the new backup…", undefined, true);
    var writing = core.newBackup.write(backup, sealing.key, {
      fileTime: current.fileTime,
      signal: signal,
      output: output.write,
      blobs: output.blobs, // Blobs where a destination keeps them: the workers make them, not this thread
      onKey: function () {
        if (!signal.aborted) setStatus("Sealing with the passphrase (600,000 rounds of PBKDF2)…", undefined, true);
      },
      onBytes: function (done, total) {
        if (!signal.aborted) setStatus("Saving the new backup… " + core.formatSize(done) + " of " + core.formatSize(total), total ? done / total : 1, done === total);
      },
    });
    writing.catch(function () {});
    // Stop answers at once, even while the key is derived (which WebCrypto cannot interrupt): the write that
    // goes on stops at its next check of the signal, and what it wrote is dropped.
    var written = await Promise.race([writing, whenAborted(signal)]);
    await output.finish(current);
    if (current.closed) return;
    document.getElementById("new-passphrase").value = "";
    document.getElementById("new-passphrase-again").value = "";
    var message =
      "Saved " + output.name + output.where + ": a new backup the app can import, with " + holdsText(backup) + ". " +
      (sealing.isNew ? "It opens with the new passphrase only." : "It opens with the passphrase you typed to open this backup.") +
      " (" + core.formatSize(written.fileSize) + ", in " + ((Date.now() - began) / 1000).toFixed(1) + " s.)";
    setStatus(message, null, true);
    document.body.dataset.newBackup = output.name; // for the tests: the name of the last new backup saved
    document.body.dataset.newBackupVia = output.via; // and where it was written: picker, private-file or blob
  } catch (error) {
    if (output) await output.abort();
    clearStatus();
    fail(error, "Could not save a new backup");
  } finally {
    endTask(true);
  }
}
