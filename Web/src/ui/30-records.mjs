// records.csv, read in slices for the table: its rows (within bounds), and for each photo a record names,
// that record's date and fields, for the grid and the viewer; and which records name a photo that salvage
// lost.

import * as core from "../core/index.mjs";
import { TABLE_COLUMNS } from "./01-page-state.mjs";
import { slicer } from "./02-slices.mjs";
import { setStatus } from "./10-status.mjs";

var KEPT_FIELDS = 1000000; // fields of records.csv kept for the table's pages

export function photoKey(name) {
  return name.toLowerCase();
}

/**
 * The table's rows from records.csv: at most TABLE_COLUMNS fields of each row and KEPT_FIELDS fields in
 * all are kept, every row is counted; and for each photo that a record names, that record's date.
 */
export async function readRecords(text, photos, signal) {
  var reader = new core.CsvReader(text);
  var slice = slicer();
  var photoNames = new Set(
    photos.map(function (photo) {
      return photoKey(photo.name);
    })
  );
  var header = reader.row(TABLE_COLUMNS);
  var records = {
    header: header ? header.fields : [], totalColumns: header ? header.count : 0, rows: [], count: 0, photoDates: new Map(), photoDetails: new Map(),
  };
  if (!header) return records;
  var dateColumn = -1;
  header.fields.forEach(function (name, index) {
    if (dateColumn < 0 && /date|day|日付/i.test(name.trim())) dateColumn = index;
  });
  var kept = 0;
  var widest = header.count;
  for (;;) {
    var row = reader.row(TABLE_COLUMNS);
    if (row === null) break;
    records.count++;
    if ((records.count & 1023) === 0) setStatus("Reading the records… " + Math.floor((reader.at / text.length) * 100) + "%", reader.at / text.length);
    if (row.count > widest) widest = row.count;
    if (kept < KEPT_FIELDS) {
      records.rows.push(row.fields);
      kept += Math.max(1, row.fields.length);
      if (photoNames.size > 0) namePhotos(row.fields, dateColumn, photoNames, records);
    }
    if ((records.count & 63) === 0) await slice.pause(signal);
  }
  records.totalColumns = widest;
  return records;
}

/**
 * The photos a record names (a field that is, or lists, photo names), each with the record's date
 * (`records.photoDates`) and its other fields, the shrine and the note among them (`records.photoDetails`,
 * for the viewer): the first record that names a photo is its record.
 */
function namePhotos(fields, dateColumn, photoNames, records) {
  var dateAt = dateColumn >= 0 && fields[dateColumn] ? dateColumn : -1;
  if (dateAt < 0) {
    for (var i = 0; i < fields.length; i++) {
      if (/^\d{4}-\d{2}-\d{2}/.test(fields[i])) {
        dateAt = i;
        break;
      }
    }
  }
  var date = dateAt >= 0 ? fields[dateAt].trim().slice(0, 64) : "";
  var named = [];
  var nameFields = new Set();
  for (var f = 0; f < fields.length; f++) {
    var field = fields[f];
    if (field.length > 2000 || field.indexOf(".") < 0) continue;
    var words = field.split(/[\s,;|]+/);
    for (var w = 0; w < words.length; w++) {
      var key = photoKey(words[w]);
      if (!photoNames.has(key)) continue;
      nameFields.add(f);
      if (!records.photoDetails.has(key)) named.push(key);
    }
  }
  if (named.length === 0) return;
  var details = [];
  for (var d = 0; d < fields.length && details.length < 8; d++) {
    var value = fields[d].trim().replace(/\s+/g, " ");
    if (d !== dateAt && !nameFields.has(d) && value) details.push(value.length > 200 ? value.slice(0, 199) + "…" : value);
  }
  named.forEach(function (key) {
    if (date) records.photoDates.set(key, date);
    records.photoDetails.set(key, details.join(" · "));
  });
}

/** The case-folded names of the photos a salvage lost (records.csv aside), for the table's marks. */
export function lostPhotoKeys(lost) {
  var keys = new Set();
  lost.forEach(function (entry) {
    if (entry.name !== core.RECORDS_NAME) keys.add(photoKey(entry.name));
  });
  return keys.size ? keys : null;
}

/** Whether a cell's text mentions one of `keys`, words split as photo mentions are (54-photo-mentions.mjs). */
export function mentionsLostPhoto(text, keys) {
  if (text.length > 2000 || text.indexOf(".") < 0) return false;
  return text.split(/[ \t\r\n",;|]+/).some(function (word) {
    return keys.has(photoKey(word));
  });
}
