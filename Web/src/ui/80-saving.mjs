// Saving: one file as a download; everything into a new folder of the one picked, into a ZIP file as it is
// written, or as ZIP downloads of at most limits.zipPart bytes of data each. Every file is checked again
// as it streams; the file being written when a check fails, or Stop is pressed, is discarded.

import * as core from "../core/index.mjs";
import { element } from "./00-basics.mjs";
import { app, viewer } from "./01-page-state.mjs";
import { clearStatus, setStatus } from "./10-status.mjs";
import { clearError, fail, showError } from "./11-errors.mjs";
import { endTask, startTask } from "./13-tasks.mjs";

/** How long a download's URL is kept, and its data counted as held by the browser (keptWhole). */
var DOWNLOAD_KEPT_MS = 60000;

/** The downloads of the last DOWNLOAD_KEPT_MS whose data the browser holds, { at, size }. */
var heldDownloads = [];

function heldSince(now) {
  heldDownloads = heldDownloads.filter(function (made) {
    return now - made.at < DOWNLOAD_KEPT_MS;
  });
  return heldDownloads;
}

/** Downloads `blob` as `name`. `onDisk`: a file the browser reads from disk (a private file), which it does not hold. */
export function download(blob, name, onDisk) {
  var now = Date.now();
  if (!onDisk) heldSince(now).push({ at: now, size: blob.size });
  var url = URL.createObjectURL(blob);
  var link = element("a", { href: url, download: name });
  link.hidden = true;
  (viewer.open ? viewer : document.body).append(link);
  link.click();
  link.remove();
  // The download holds the data once it started; the URL goes after a minute, or when the page is reset.
  if (app.session) app.session.downloads.push(url);
  setTimeout(function () {
    URL.revokeObjectURL(url);
  }, DOWNLOAD_KEPT_MS);
}

/**
 * Reads the last byte of `blob`, made for a download by a save that began at `began` (Date.now()): a browser that
 * could not keep its data says so only when it is read (`browser_limit`, `what` named). The browser holds each
 * download's data at least as long as its URL is kept: when the downloads this page made in that time, before
 * this save, are at least half the size of `blob`, the error says so, and that the same save may work a minute
 * later (in Chromium without the Save picker, a second 1 GiB backup failed right after a first, and was saved a
 * minute later). A save's own earlier parts are not counted: trying it again would make them again.
 */
export async function keptWhole(blob, what, began) {
  try {
    await blob.slice(Math.max(0, blob.size - 1)).arrayBuffer();
  } catch (error) {
    var held = heldSince(Date.now()).reduce(function (sum, made) {
      return made.at < began ? sum + made.size : sum;
    }, 0);
    var hint = held > 0 && held * 2 >= blob.size ? "; the browser may still hold the " + core.formatSize(held) + " this page saved in the last minute: try again in a minute" : "";
    throw new core.GoshuinError("browser_limit", what + " could not be kept in memory (" + (error && error.name) + ")" + hint);
  }
}

/** The saved folder's and ZIP's date (the backup's createdAt); "-salvaged" after what salvage restored. */
function stamp() {
  var created = app.session.backup.createdAt;
  var date = created ? created.replace(/[-:]/g, "").replace("T", "-").replace("Z", "") : "";
  if (!app.session.salvaged) return date;
  return date ? date + "-salvaged" : "salvaged";
}

export async function saveOne(name) {
  if (app.busy || !app.session) return;
  var current = app.session;
  clearError();
  var signal = startTask();
  setStatus("Preparing " + name + "…", undefined, true);
  try {
    // In pieces, so a large file is never one buffer; the download starts only after the last check.
    var parts = [];
    await current.backup.stream(
      name,
      function (piece) {
        parts.push(new Blob([piece]));
      },
      signal
    );
    if (current.closed) return;
    download(new Blob(parts, { type: name === core.RECORDS_NAME ? "text/csv" : "application/octet-stream" }), name);
    setStatus("Saved " + name + " (your browser's downloads).", null, true);
  } catch (error) {
    clearStatus();
    fail(error, "Could not save");
  } finally {
    endTask(true);
  }
}

function saveProgress(current) {
  var files = current.backup.files;
  var total = files.reduce(function (sum, file) { return sum + file.size; }, 0);
  var done = 0;
  function show(index, force) {
    setStatus(
      "Saving file " + (index + 1) + " of " + files.length + "… " + core.formatSize(done) + " of " + core.formatSize(total),
      total ? done / total : 1,
      force
    );
  }
  return {
    file: function (index) {
      show(index, true);
    },
    counter: function (index) {
      return function (byteCount) {
        done += byteCount;
        show(index, false);
      };
    },
  };
}

async function exists(folder, name) {
  try {
    await folder.getDirectoryHandle(name);
    return true;
  } catch (error) {
    if (error && error.name === "NotFoundError") return false;
    if (error && error.name === "TypeMismatchError") return true; // a file of that name
    throw error;
  }
}

export async function saveToFolder() {
  if (app.busy || !app.session) return;
  var current = app.session;
  clearError();
  var parent;
  try {
    parent = await window.showDirectoryPicker({ mode: "readwrite", id: "goshuin-backup" });
  } catch (error) {
    if (error && error.name === "AbortError") return; // the person closed the picker
    showError(error, null, "Could not save");
    return;
  }
  await runSave(current, async function (signal, progress) {
    // A new folder inside the one picked, so nothing there is replaced: goshuin-backup-20261129-120000,
    // or -2, -3 … when that name is taken.
    var base = "goshuin-backup-" + stamp();
    var name = base;
    for (var n = 2; await exists(parent, name); n++) name = base + "-" + n;
    var folder = await parent.getDirectoryHandle(name, { create: true });
    var files = current.backup.files;
    for (var i = 0; i < files.length; i++) {
      progress.file(i);
      var handle = await folder.getFileHandle(files[i].name, { create: true });
      var writable = await handle.createWritable();
      try {
        await current.backup.stream(files[i].name, function (piece) {
          return writable.write(piece);
        }, signal, progress.counter(i));
        await writable.close();
      } catch (error) {
        await writable.abort().catch(function () {});
        throw error;
      }
    }
    return "Saved " + files.length + " files into the folder " + name + ".";
  });
}

export async function saveAsZip() {
  if (app.busy || !app.session) return;
  var current = app.session;
  clearError();
  var name = "goshuin-backup-" + stamp() + ".zip";
  if (typeof window.showSaveFilePicker === "function") {
    // Where the browser can write a file as it goes, the ZIP streams into it: memory stays flat.
    var handle;
    try {
      handle = await window.showSaveFilePicker({
        suggestedName: name,
        id: "goshuin-backup",
        types: [{ description: "ZIP archive", accept: { "application/zip": [".zip"] } }],
      });
    } catch (error) {
      if (error && error.name === "AbortError") return; // the person closed the picker
      showError(error, null, "Could not save");
      return;
    }
    await runSave(current, async function (signal, progress) {
      var files = current.backup.files;
      var plan = core.zipPlan(files);
      var writable = await handle.createWritable();
      try {
        for (var i = 0; i < files.length; i++) {
          progress.file(i);
          await writable.write(plan.locals[i]);
          await current.backup.stream(files[i].name, function (piece) {
            return writable.write(piece);
          }, signal, progress.counter(i));
        }
        await writable.write(plan.tail);
        await writable.close();
      } catch (error) {
        await writable.abort().catch(function () {});
        throw error;
      }
      return "Saved " + files.length + " files as " + (handle.name || name) + ".";
    });
    return;
  }
  // Elsewhere the ZIP is a download built in memory, in parts of at most limits.zipPart bytes of data.
  await runSave(current, async function (signal, progress) {
    var began = Date.now();
    var files = current.backup.files.map(function (file, index) {
      return { name: file.name, size: file.size, crc32: file.crc32, modified: file.modified, index: index };
    });
    var groups = core.splitForZips(files, core.limits.zipPart);
    for (var g = 0; g < groups.length; g++) {
      var entries = [];
      for (var k = 0; k < groups[g].length; k++) {
        var file = groups[g][k];
        progress.file(file.index);
        var parts = [];
        await current.backup.stream(file.name, function (piece) {
          parts.push(new Blob([piece]));
        }, signal, progress.counter(file.index));
        entries.push({ name: file.name, data: new Blob(parts), crc32: file.crc32, modified: file.modified });
      }
      var zip = core.buildZip(entries);
      entries = null;
      await keptWhole(zip, "a ZIP of " + core.formatSize(zip.size), began);
      if (current.closed) return "";
      var partName = groups.length === 1 ? name : name.replace(/\.zip$/, "-part" + (g + 1) + "-of-" + groups.length + ".zip");
      download(zip, partName);
    }
    return groups.length === 1
      ? "Saved " + files.length + " files as a ZIP (your browser's downloads)."
      : "Saved " + files.length + " files as " + groups.length + " ZIPs (your browser's downloads): unpack them all into one folder.";
  });
}

/** Runs a save of everything with progress; `body(signal, progress)` returns the closing status. */
async function runSave(current, body) {
  var signal = startTask();
  var progress = saveProgress(current);
  try {
    var done = await body(signal, progress);
    setStatus(done, null, true);
  } catch (error) {
    clearStatus();
    fail(error, "Could not save");
  } finally {
    endTask(true);
  }
}
