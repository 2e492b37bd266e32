// A file dropped anywhere on the page is taken as the backup (and the browser does not navigate to it);
// while one is dragged over the page, the page shows that it can be dropped anywhere.
//
// Uses:
//   01-page-state.js       app, dropZone, fileInput, passphrase, viewer

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
  fileInput.files = event.dataTransfer.files;
  passphrase.focus();
});
