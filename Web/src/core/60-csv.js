// records.csv for the table: RFC 4180 fields (quotes, doubled quotes, commas and line breaks inside
// quotes), CRLF, LF or CR line ends; empty lines skipped; a leading byte-order mark dropped. Its content
// is the app's business, so anything is shown as best it can be, never refused.

function parseCsv(text) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  var rows = [];
  var row = [];
  var field = "";
  var quoted = false;
  var fieldStarted = false;
  var i = 0;
  var n = text.length;
  function endRow() {
    row.push(field);
    if (!(row.length === 1 && row[0] === "" && !fieldStarted)) rows.push(row);
    row = [];
    field = "";
    fieldStarted = false;
  }
  while (i < n) {
    var c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "") {
      quoted = true;
      fieldStarted = true;
      i++;
    } else if (c === ",") {
      row.push(field);
      field = "";
      fieldStarted = true;
      i++;
    } else if (c === "\r" || c === "\n") {
      endRow();
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== "" || row.length > 0 || fieldStarted) endRow();
  return rows;
}
