// The photo viewer (#viewer): one photo at the window's size, decoded one at a time; Previous, Next (and
// the arrow keys), Save, and Esc or Close, with the focus back on the photo shown last.

import * as core from "../core/index.mjs";
import { byId } from "./00-basics.mjs";
import { app, PREVIEW_LIMIT, viewer } from "./01-page-state.mjs";
import { fail } from "./11-errors.mjs";
import { decodePhoto, judgePhoto, photoBlob } from "./60-photo-decoding.mjs";
import { saveOne } from "./80-saving.mjs";

var viewerState = { index: -1, token: 0, loading: Promise.resolve() };
var viewerTitle = byId("viewer-title");
var viewerDate = byId("viewer-date");
var viewerRecord = byId("viewer-record");
var viewerPosition = byId("viewer-position");
var viewerStage = byId("viewer-stage");
var viewerCanvas = byId("viewer-image");
var viewerMessage = byId("viewer-message");

export function openViewer(index) {
  if (!app.session || app.session.photos.length === 0) return;
  // Not while the backup is still being shown (its last tiles come a frame at a time): its opening still runs.
  if (document.body.dataset.state === "opening") return;
  if (!viewer.open) {
    if (typeof viewer.showModal === "function") viewer.showModal();
    else viewer.setAttribute("open", "");
    byId("viewer-close").focus();
  }
  showInViewer(index);
}

function clearViewerImage() {
  viewerCanvas.hidden = true;
  viewerCanvas.width = 1;
  viewerCanvas.height = 1; // the decoded pixels go
}

/** Closes the viewer: its decoded photo goes; the focus goes back to the photo it showed last. */
export function closeViewer(returnFocus) {
  viewerState.token++;
  var index = viewerState.index;
  viewerState.index = -1;
  clearViewerImage();
  viewerStage.dataset.state = "empty";
  if (viewer.open) {
    if (typeof viewer.close === "function") viewer.close();
    else viewer.removeAttribute("open");
  }
  if (returnFocus && index >= 0 && app.session && app.session.photos[index]) {
    var frame = app.session.photos[index].frame;
    frame.focus();
    if (typeof frame.scrollIntoView === "function") frame.scrollIntoView({ block: "nearest" });
  }
}

async function showInViewer(index) {
  var current = app.session;
  var total = current.photos.length;
  index = ((index % total) + total) % total; // previous from the first is the last, and back
  var photo = current.photos[index];
  var token = ++viewerState.token;
  viewerState.index = index;
  viewerTitle.textContent = photo.name;
  viewerDate.textContent = photo.date ? "Record of " + photo.date : "";
  viewerRecord.textContent = photo.details || "";
  viewerPosition.textContent = (index + 1).toLocaleString("en-US") + " of " + total.toLocaleString("en-US");
  viewerCanvas.setAttribute("aria-label", photo.name);
  clearViewerImage();
  viewerStage.dataset.state = "loading";
  viewerMessage.textContent = "Loading " + photo.name + "…";
  var stillCurrent = function () {
    return token === viewerState.token && app.session === current && !current.closed;
  };
  // One photo at a time: this one is read only once the one before it is done, and not at all when
  // another was asked for meanwhile (arrows held down read one photo, the last).
  var before = viewerState.loading;
  var finished;
  viewerState.loading = new Promise(function (resolve) {
    finished = resolve;
  });
  try {
    await before;
    if (!stillCurrent()) return;
    await loadIntoViewer(current, photo, stillCurrent);
  } finally {
    finished();
  }
}

async function loadIntoViewer(current, photo, stillCurrent) {
  try {
    if (photo.size > PREVIEW_LIMIT) {
      viewerStage.dataset.state = "large";
      viewerMessage.textContent = core.photoTypeFromName(photo.name) + ", " + core.formatSize(photo.size) + ": too large to preview here. Save keeps the original photo.";
      return;
    }
    var bytes = await current.backup.read(photo.name);
    if (!stillCurrent()) return;
    var verdict = judgePhoto(photo.name, bytes);
    if (verdict.state !== "decodable") {
      viewerStage.dataset.state = verdict.state;
      viewerMessage.textContent = verdict.text;
      return;
    }
    var blob = photoBlob(photo.name, bytes, verdict.info);
    bytes = null;
    var ratio = window.devicePixelRatio || 1;
    var side = Math.ceil(Math.max(viewerStage.clientWidth, viewerStage.clientHeight, 320) * ratio);
    var bitmap = await decodePhoto(blob, verdict.info, side);
    if (!stillCurrent()) {
      if (bitmap) bitmap.close();
      return;
    }
    if (bitmap === null) {
      viewerStage.dataset.state = "unsupported";
      viewerMessage.textContent = verdict.info.type + ": this browser can't show a preview. Save keeps the original photo.";
      return;
    }
    viewerCanvas.width = bitmap.width;
    viewerCanvas.height = bitmap.height;
    viewerCanvas.getContext("2d").drawImage(bitmap, 0, 0);
    bitmap.close();
    viewerCanvas.hidden = false;
    viewerMessage.textContent = "";
    viewerStage.dataset.state = "shown";
  } catch (error) {
    if (!stillCurrent()) return;
    viewerStage.dataset.state = "error";
    viewerMessage.textContent = "This photo could not be shown. Save keeps the original photo.";
    var failure = core.asGoshuinError(error);
    if (failure.code !== "interrupted") {
      closeViewer(false);
      fail(failure, "Could not show " + photo.name);
    }
  }
}

byId("viewer-prev").addEventListener("click", function () {
  if (viewerState.index >= 0) showInViewer(viewerState.index - 1);
});
byId("viewer-next").addEventListener("click", function () {
  if (viewerState.index >= 0) showInViewer(viewerState.index + 1);
});
byId("viewer-save").addEventListener("click", function () {
  if (app.session && viewerState.index >= 0) saveOne(app.session.photos[viewerState.index].name);
});
byId("viewer-close").addEventListener("click", function () {
  closeViewer(true);
});
// Esc asks the dialog to cancel: the page closes it itself, at once, so that the focus it gives back is
// not then taken by the browser's own return of the focus to where the dialog was opened from.
viewer.addEventListener("cancel", function (event) {
  event.preventDefault();
  closeViewer(true);
});
// Any other close (the browser's own): the page tidies up and gives the focus back. The event comes as a
// task of its own: by then the viewer may be open again, on another photo, and stays so.
viewer.addEventListener("close", function () {
  if (!viewer.open && viewerState.index >= 0) closeViewer(true);
});
viewer.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey || viewerState.index < 0) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    event.preventDefault();
    showInViewer(viewerState.index + (event.key === "ArrowLeft" ? -1 : 1));
  } else if (event.key === "Escape" && !(typeof viewer.showModal === "function")) {
    closeViewer(true);
  }
});
