// A new backup's download built in the browser's origin private file system, where the page has one and no
// Save picker: Firefox (Chromium refuses it to a file:// page and has the picker; WebKitGTK has neither).
// There a download built as one Blob is kept whole in the page's process (1.3 GiB for a 1 GiB backup); a
// private file is on disk, and the sealed chunks go into it as they come. ADR 0058 says why, and what is kept.
//
// A private file is removed once its download has read it: a minute after the download starts (Firefox opens
// the file within a fraction of a second of the click; removed before that, the download fails), when the page
// is left, or, after a page that was killed, by the next page that finds it unclaimed. A page holds a Web Lock
// on each of its files while they live, so that another page of the same origin never removes one in use.

import * as core from "../core/index.mjs";
import { download } from "./80-saving.mjs";

var PREFIX = "goshuin-new-backup-";
var KEPT_MS = 60000; // from the download's start: as long as the download's URL lives (80-saving.mjs)
var MARGIN = 64 * 1024 * 1024; // room left to the browser's storage beyond the new backup's most
var owned = new Map(); // this page's private files: name → { directory, release }

/** Whether this browser gives the page a private file system it can write files into. */
function available() {
  return (
    window.isSecureContext && !!navigator.storage && typeof navigator.storage.getDirectory === "function" &&
    typeof navigator.storage.estimate === "function" && !!navigator.locks && typeof FileSystemFileHandle === "function" &&
    typeof FileSystemFileHandle.prototype.createWritable === "function"
  );
}

function lockName(entryName) {
  return "goshuin-private-file:" + entryName;
}

/** Holds the Web Lock of `entryName` until the function returned is called. */
function hold(entryName) {
  return new Promise(function (resolve, reject) {
    navigator.locks
      .request(lockName(entryName), function () {
        return new Promise(function (release) {
          resolve(release);
        });
      })
      .catch(reject);
  });
}

/** Removes one of this page's private files and lets go of its lock; a failure leaves it to the next sweep. */
function remove(entryName) {
  var file = owned.get(entryName);
  if (!file) return Promise.resolve();
  owned.delete(entryName);
  return file.directory
    .removeEntry(entryName)
    .catch(function () {})
    .then(function () {
      file.release();
    });
}

/** Removes the private files no page holds: those of pages that were killed before they could. */
async function sweep(directory) {
  var names = [];
  for await (var entryName of directory.keys()) if (entryName.startsWith(PREFIX) && !owned.has(entryName)) names.push(entryName);
  for (var i = 0; i < names.length; i++) {
    await navigator.locks.request(lockName(names[i]), { ifAvailable: true }, function (lock) {
      return lock ? directory.removeEntry(names[i]).catch(function () {}) : null;
    });
  }
}

window.addEventListener("pagehide", function () {
  Array.from(owned.keys()).forEach(remove);
});

function randomName() {
  return PREFIX + core.toHex(crypto.getRandomValues(new Uint8Array(12))) + ".goshuin";
}

/**
 * A destination (as 81-save-new-backup.mjs's: name, write, finish, abort, where) that writes into a new private
 * file and downloads it as `name` when finished; null where there is no private file system, or less room in it
 * than `sizeAtMost` and a margin.
 */
export async function privateFileDestination(name, sizeAtMost) {
  if (!available()) return null;
  var directory, estimate;
  try {
    directory = await navigator.storage.getDirectory();
    await sweep(directory);
    estimate = await navigator.storage.estimate();
  } catch (error) {
    return null; // refused to this page (a policy, private browsing): the Blob download
  }
  if (!(estimate.quota - estimate.usage >= sizeAtMost + MARGIN)) return null;
  var entryName = randomName();
  var handle, writable;
  try {
    owned.set(entryName, { directory: directory, release: await hold(entryName) });
    handle = await directory.getFileHandle(entryName, { create: true });
    writable = await handle.createWritable();
  } catch (error) {
    await remove(entryName);
    return null;
  }
  return {
    name: name,
    where: " (your browser's downloads)",
    // Sealed records come as bytes, not Blobs: Firefox lets go of a Blob's memory only when its garbage is
    // collected (the renderer held about 1 GiB saving a 1 GiB backup), of bytes at once, given back once written.
    blobs: false,
    // (No room after all: a QuotaExceededError, which the page reports as no_space.)
    write: function (bytes) {
      return writable.write(bytes).then(function () {
        core.giveBack(bytes); // the sealer hands each record on and forgets it
      });
    },
    finish: async function (current) {
      await writable.close();
      if (current.closed) return remove(entryName);
      download(await handle.getFile(), name, true); // read from disk: the browser does not hold it
      setTimeout(function () {
        remove(entryName);
      }, KEPT_MS);
    },
    abort: function () {
      return writable
        .abort()
        .catch(function () {})
        .then(function () {
          return remove(entryName);
        });
    },
    via: "private-file",
  };
}
