// Files dropped anywhere on the page are taken as the backup and its recovery files (the browser does not
// navigate to them): those whose names end in .par2, or all of them when dropped on the recovery files'
// field, go to #recovery-files, the first other one to #backup-file. While files are dragged over the page,
// the page shows that they can be dropped anywhere.

import { app, dropZone, fileInput, passphrase, recoveryInput, viewer } from "./01-page-state.mjs";
import { isRecoveryFileName, notePickedFiles } from "./22-recovery-files.mjs";

var dragDepth = 0;
function carriesFiles(event) {
  var types = event.dataTransfer && event.dataTransfer.types;
  return !!types && Array.prototype.indexOf.call(types, "Files") >= 0;
}
function showDropZone(shown) {
  dropZone.hidden = !shown;
  document.body.classList.toggle("dragging", shown);
}
document.addEventListener("dragenter", function (event) {
  if (!carriesFiles(event) || app.busy || viewer.open) return;
  dragDepth++;
  showDropZone(true);
});
document.addEventListener("dragleave", function (event) {
  if (!carriesFiles(event)) return;
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) showDropZone(false);
});
document.addEventListener("dragover", function (event) {
  event.preventDefault();
  if (event.dataTransfer) event.dataTransfer.dropEffect = app.busy ? "none" : "copy";
});
document.addEventListener("drop", function (event) {
  event.preventDefault();
  dragDepth = 0;
  showDropZone(false);
  if (app.busy || viewer.open || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
  var dropped = Array.prototype.slice.call(event.dataTransfer.files);
  var onRecoveryField = event.target instanceof Node && recoveryInput.parentNode.contains(event.target);
  var recovery = dropped.filter(function (file) {
    return onRecoveryField || isRecoveryFileName(file.name);
  });
  if (recovery.length === 0) {
    fileInput.files = event.dataTransfer.files;
    fileInput.dispatchEvent(new Event("change"));
  } else {
    var backups = dropped.filter(function (file) {
      return recovery.indexOf(file) < 0;
    });
    if (backups.length > 0) {
      fileInput.files = fileListOf(backups.slice(0, 1));
      fileInput.dispatchEvent(new Event("change"));
    }
    recoveryInput.files = fileListOf(recovery);
    notePickedFiles();
  }
  passphrase.focus();
});

/** A FileList of `files`, as a file input takes it. */
function fileListOf(files) {
  var transfer = new DataTransfer();
  files.forEach(function (file) {
    transfer.items.add(file);
  });
  return transfer.files;
}
