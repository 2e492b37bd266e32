// The page's interface, in the files of src/ui/: the form and the drop zone, the recovery files and the
// repair, progress, errors, the records table, the photo grid, the photo viewer, saving. Text from the backup reaches the DOM only through
// textContent and attributes, never as HTML. Photos are decrypted when they come near the screen and their
// blob URLs are revoked when far away, so memory stays flat; none is decoded before its header said what it
// is and how many pixels it has. The table is built a page of bounded size at a time, in slices between
// which the browser stays responsive, whatever records.csv holds.
//
// The build (build.mjs) puts these files in name order into one function scope, after GoshuinCore. What
// they share is said, not assumed: each file says at its top what it uses of the others and of GoshuinCore;
// the state more than one file changes is `app` in 01-page-state.js, and a file's own state stays in it;
// what runs as the script loads (statements outside any function) uses only what its own file and the
// files before it declare, so the numeric prefixes are the order of loading; functions call one another
// across files freely, since they run once the whole script has loaded. Web/test/source-layout.mjs holds
// every file to this.
//
// This file: GoshuinCore as `core`, and the small helpers every other file uses.
//
// Uses: nothing of the other files.

var core = GoshuinCore;

function byId(id) {
  return document.getElementById(id);
}

function element(tag, attributes, text) {
  var node = document.createElement(tag);
  if (attributes) for (var key in attributes) node.setAttribute(key, attributes[key]);
  if (text !== undefined) node.textContent = text;
  return node;
}

function count(n, one, many) {
  return n.toLocaleString("en-US") + " " + (n === 1 ? one : many);
}

function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function now() {
  return performance.now();
}
