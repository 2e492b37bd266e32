// records.csv for the table: RFC 4180 fields (quotes, doubled quotes, commas and line breaks inside
// quotes), CRLF, LF or CR line ends; empty lines skipped; a leading byte-order mark dropped. Its content
// is the app's business, so anything is shown as best it can be, never refused.
//
// CsvReader reads one row at a time and keeps at most `maxFields` fields of it (the others are counted),
// so that a records.csv of a million commas costs a counter, not a million strings; the page reads it in
// slices between which the browser stays responsive. parseCsv is the whole file at once.

var CSV_FIELD_END = /[,\r\n"]/g;

export class CsvReader {
  constructor(text) {
    this.text = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    this.at = 0;
  }

  /** Whether every row was read. */
  get done() {
    return this.at >= this.text.length;
  }

  /**
   * The next row that is not empty, as { fields, count }: `fields` its first `maxFields` fields (all when
   * omitted), `count` how many it has; null at the end.
   */
  row(maxFields) {
    var limit = maxFields === undefined ? Infinity : maxFields;
    var text = this.text;
    var n = text.length;
    while (this.at < n) {
      var fields = [];
      var count = 0;
      var field = "";
      var quoted = false;
      var fieldStarted = false;
      var i = this.at;
      var ended = false;
      while (i < n) {
        if (quoted) {
          var close = text.indexOf('"', i);
          if (close < 0) {
            field += text.slice(i);
            i = n;
            break;
          }
          field += text.slice(i, close);
          if (text.charCodeAt(close + 1) === 0x22) {
            field += '"';
            i = close + 2;
          } else {
            quoted = false;
            i = close + 1;
          }
          continue;
        }
        CSV_FIELD_END.lastIndex = i;
        var found = CSV_FIELD_END.exec(text);
        var stop = found ? found.index : n;
        if (stop > i) field += text.slice(i, stop);
        i = stop;
        if (i >= n) break;
        var c = text.charCodeAt(i);
        if (c === 0x22) {
          if (field === "") {
            quoted = true;
            fieldStarted = true;
          } else {
            field += '"';
          }
          i++;
        } else if (c === 0x2c) {
          if (count < limit) fields.push(field);
          count++;
          field = "";
          fieldStarted = true;
          i++;
        } else {
          i += c === 0x0d && text.charCodeAt(i + 1) === 0x0a ? 2 : 1;
          ended = true;
          break;
        }
      }
      this.at = i;
      if (!ended && field === "" && count === 0 && !fieldStarted) return null; // nothing after the last line end
      if (count < limit) fields.push(field);
      count++;
      if (count === 1 && field === "" && !fieldStarted) continue; // an empty line
      return { fields: fields, count: count };
    }
    return null;
  }
}

export function parseCsv(text) {
  var reader = new CsvReader(text);
  var rows = [];
  for (var row = reader.row(); row !== null; row = reader.row()) rows.push(row.fields);
  return rows;
}
