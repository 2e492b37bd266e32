// The records table: pages of at most PAGE_CELLS cells, built off the document in slices and put in place
// at once; short cells on one line, a long note clamped with "Show all"; the rows of photos salvage lost
// marked.

import * as core from "../core/index.mjs";
import { count, element } from "./00-basics.mjs";
import { app, TABLE_COLUMNS } from "./01-page-state.mjs";
import { slicer } from "./02-slices.mjs";
import { mentionsLostPhoto } from "./30-records.mjs";

var PAGE_CELLS = 6000; // cells in one page of the table (columns × rows)
var PAGE_ROWS = 500; // records in one page of the table, at most

var SHORT_CELL = 32; // characters: a cell up to this long stays on one line
var NOTE_CELL = 160; // characters (or more than 3 line breaks): a note, shown clamped with "Show all"
var NOTE_PREVIEW = 600; // characters of a clamped note in the page
var NOTE_LIMIT = 100000; // characters of a note shown in full

export function recordsTable(records) {
  var columns = Math.min(TABLE_COLUMNS, Math.max(records.header.length, records.totalColumns));
  var perPage = Math.max(1, Math.min(PAGE_ROWS, Math.floor(PAGE_CELLS / Math.max(1, columns))));
  var table = {
    records: records,
    columns: columns,
    perPage: perPage,
    pages: Math.max(1, Math.ceil(records.rows.length / perPage)),
    page: 0,
    token: 0,
  };
  app.session.table = table;
  var parts = [];
  var notes = [];
  if (records.totalColumns > columns)
    notes.push("The first " + columns + " of " + records.totalColumns.toLocaleString("en-US") + " columns are shown.");
  if (records.rows.length < records.count)
    notes.push("The first " + records.rows.length.toLocaleString("en-US") + " of " + count(records.count, "record", "records") + " can be shown here.");
  if (notes.length) parts.push(element("p", { class: "empty", id: "records-note" }, notes.join(" ") + " Save records.csv for all of it."));

  var nav = element("div", { class: "table-nav" });
  table.range = element("p", { id: "records-range", "aria-live": "polite" });
  nav.append(table.range);
  if (table.pages > 1) {
    table.previous = element("button", { type: "button", id: "records-previous" }, "Previous " + perPage.toLocaleString("en-US"));
    table.next = element("button", { type: "button", id: "records-next" }, "Next " + perPage.toLocaleString("en-US"));
    table.previous.addEventListener("click", function () {
      turnPage(-1);
    });
    table.next.addEventListener("click", function () {
      turnPage(1);
    });
    nav.append(table.previous, table.next);
  }
  if (table.pages > 1) parts.push(nav);

  var scroll = element("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "records-heading" });
  var tableElement = element("table", { id: "records" });
  var thead = element("thead");
  table.body = element("tbody");
  tableElement.append(thead, table.body);
  if (records.header.length > 0 || records.totalColumns > 0) {
    var headerRow = element("tr");
    for (var c = 0; c < columns; c++) headerRow.append(element("th", { scope: "col" }, records.header[c] === undefined ? "" : records.header[c]));
    thead.append(headerRow);
  }
  scroll.append(tableElement);
  parts.push(scroll);
  return parts;
}

async function turnPage(step) {
  var table = app.session && app.session.table;
  if (!table) return;
  var page = Math.max(0, Math.min(table.pages - 1, table.page + step));
  if (page === table.page) return;
  var focused = document.activeElement;
  try {
    await showRecordsPage(page, null);
  } catch (error) {
    if (core.asGoshuinError(error).code !== "interrupted") throw error;
  }
  if (focused && focused.disabled) (step < 0 ? table.next : table.previous).focus();
}

/** Page `page` of the table, its rows built off the document in slices, then put in place at once. */
export async function showRecordsPage(page, signal) {
  var table = app.session && app.session.table;
  if (!table) return;
  var token = ++table.token;
  var rows = table.records.rows;
  var first = page * table.perPage;
  var last = Math.min(rows.length, first + table.perPage);
  var body = element("tbody");
  var slice = slicer();
  var lost = app.session.lostPhotos;
  for (var r = first; r < last; r++) {
    var fields = rows[r];
    var tr = element("tr");
    for (var c = 0; c < table.columns; c++) {
      var text = fields[c] === undefined ? "" : fields[c];
      var td = cell(text);
      if (lost && mentionsLostPhoto(text, lost)) {
        // A record whose photo the salvage lost: the row says so, beside the photo's name.
        td.append(element("span", { class: "lost-mark" }, "lost"));
        tr.className = "photo-lost";
      }
      tr.append(td);
    }
    body.append(tr);
    await slice.pause(signal);
    if (token !== table.token || app.session === null || app.session.table !== table) return;
  }
  table.body.replaceWith(body);
  table.body = body;
  table.page = page;
  table.range.textContent =
    rows.length === 0
      ? "No records."
      : table.pages === 1
        ? count(rows.length, "record", "records") + "."
        : "Records " + (first + 1).toLocaleString("en-US") + "–" + last.toLocaleString("en-US") + " of " + rows.length.toLocaleString("en-US") + ".";
  if (table.previous) {
    table.previous.disabled = page === 0;
    table.next.disabled = page === table.pages - 1;
  }
}

function lineBreaks(text) {
  var n = 0;
  for (var at = text.indexOf("\n"); at >= 0 && n < 4; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/**
 * One cell. Short text stays on one line; longer text with spaces wraps at spaces only; a long note is
 * clamped to four lines with a button that shows all of it. A word is never broken inside (only a
 * "word" wider than a note's column, such as a long link, breaks where it overflows).
 */
function cell(text) {
  var td = element("td");
  if (text.length <= SHORT_CELL && text.indexOf("\n") < 0 && text.indexOf("\r") < 0) {
    td.textContent = text;
    return td;
  }
  if (text.length <= NOTE_CELL && lineBreaks(text) <= 3) {
    td.className = "wrap";
    td.textContent = text;
    return td;
  }
  td.className = "note";
  td.dataset.expanded = "false";
  var clamp = element("div", { class: "clamp" }, text.length > NOTE_PREVIEW ? text.slice(0, NOTE_PREVIEW) + "…" : text);
  var more = element("button", { type: "button", class: "more", "aria-expanded": "false" }, "Show all");
  more.addEventListener("click", function () {
    var expand = td.dataset.expanded === "false";
    td.dataset.expanded = expand ? "true" : "false";
    more.setAttribute("aria-expanded", expand ? "true" : "false");
    more.textContent = expand ? "Show less" : "Show all";
    if (!expand) clamp.textContent = text.length > NOTE_PREVIEW ? text.slice(0, NOTE_PREVIEW) + "…" : text;
    else if (text.length > NOTE_LIMIT)
      clamp.textContent = text.slice(0, NOTE_LIMIT) + "… (" + (text.length - NOTE_LIMIT).toLocaleString("en-US") + " more characters: save records.csv to read them)";
    else clamp.textContent = text;
  });
  td.append(clamp, more);
  return td;
}
