// The page's interface, in the files of src/ui/: the form and the drop zone, the recovery files and the
// repair, progress, errors, the records table, the photo grid, the photo viewer, saving. Text from the backup reaches the DOM only through
// textContent and attributes, never as HTML. Photos are decrypted when they come near the screen and their
// blob URLs are revoked when far away, so memory stays flat; none is decoded before its header said what it
// is and how many pixels it has. The table is built a page of bounded size at a time, in slices between
// which the browser stays responsive, whatever records.csv holds.
//
// Each file is an ES module that imports what it uses of the others and of the core (`import * as core
// from "../core/index.mjs"`); the state more than one file changes is `app` in 01-page-state.mjs, whose
// members they change, and a file's own state stays in it. build.mjs bundles them after the core (a
// module's statements run after those of the modules it imports), into a scope that runs only where there
// is a document.
//
// This file: the small helpers every other file uses.

export function byId(id) {
  return document.getElementById(id);
}

export function element(tag, attributes, text) {
  var node = document.createElement(tag);
  if (attributes) for (var key in attributes) node.setAttribute(key, attributes[key]);
  if (text !== undefined) node.textContent = text;
  return node;
}

export function count(n, one, many) {
  return n.toLocaleString("en-US") + " " + (n === 1 ? one : many);
}

export function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function now() {
  return performance.now();
}
