// A plain ZIP of verified files, for saving everything as one download: stored entries, Unix mode 0644,
// each entry's date from the backup (its DOS date and time in UTC and the same time in an extended-timestamp
// field 0x5455, local and central; 1980-01-01 00:00 and no such field for an entry without a date), ZIP64
// where a value does not fit 32 bits, no comment. Sizes and CRC-32s are known before any data is written
// (the entries were verified), so the ZIP can be written front to back as its data streams.

import { concatBytes, utf8Bytes } from "./00-bytes.mjs";
import { SIG_CENTRAL, SIG_END, SIG_LOCAL, SIG_ZIP64_END, SIG_ZIP64_LOCATOR, U32_MAX } from "./20-zip.mjs";

var DOS_EPOCH = { date: 0x21, time: 0 }; // 1980-01-01 00:00

/** The DOS date and time (UTC) of `seconds` since 1970, within what DOS dates hold (1980 … 2107). */
export function dosDateTime(seconds) {
  if (seconds === null || seconds === undefined || !(seconds >= 315532800)) return DOS_EPOCH;
  var d = new Date(seconds * 1000);
  var year = d.getUTCFullYear();
  if (year > 2107) return { date: (127 << 9) | (12 << 5) | 31, time: (23 << 11) | (59 << 5) | 29 };
  return {
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

/**
 * The headers of a ZIP of `files` ([{ name (ASCII), size, crc32, modified }], in order; `modified` in
 * seconds since 1970, UTC, or null): `locals[i]` goes before
 * file i's data, `tail` (central directory and end records) after the last file. `limit` (tests only)
 * lowers the value from which ZIP64 fields are used.
 */
export function zipPlan(files, limit) {
  limit = limit === undefined ? U32_MAX : limit;
  var locals = [];
  var central = [];
  var offset = 0;
  function le(size, value) {
    var out = new Uint8Array(size);
    var v = BigInt(value);
    for (var i = 0; i < size; i++) {
      out[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return out;
  }
  files.forEach(function (file) {
    var name = utf8Bytes(file.name);
    var size = file.size;
    var big = size >= limit;
    var modified = file.modified;
    var dos = dosDateTime(modified);
    var hasTime = typeof modified === "number" && modified >= 0 && modified <= U32_MAX;
    // The extended timestamp: flags 1 (the modification time only), then the time; the same both places.
    var timeField = hasTime ? concatBytes([le(2, 0x5455), le(2, 5), le(1, 1), le(4, modified)]) : new Uint8Array(0);
    var localExtra = concatBytes([big ? concatBytes([le(2, 1), le(2, 16), le(8, size), le(8, size)]) : new Uint8Array(0), timeField]);
    var local = concatBytes([
      le(4, SIG_LOCAL), le(2, big ? 45 : 20), le(2, 0), le(2, 0), le(2, dos.time), le(2, dos.date), le(4, file.crc32),
      le(4, big ? U32_MAX : size), le(4, big ? U32_MAX : size), le(2, name.length), le(2, localExtra.length), name, localExtra,
    ]);
    var farOffset = offset >= limit;
    var extraValues = [];
    if (big) extraValues.push(le(8, size), le(8, size));
    if (farOffset) extraValues.push(le(8, offset));
    var centralExtra = concatBytes([
      extraValues.length ? concatBytes([le(2, 1), le(2, 8 * extraValues.length)].concat(extraValues)) : new Uint8Array(0),
      timeField,
    ]);
    var version = big || farOffset ? 45 : 20;
    central.push(concatBytes([
      le(4, SIG_CENTRAL), le(2, 0x0300 | version), le(2, version), le(2, 0), le(2, 0),
      le(2, dos.time), le(2, dos.date), le(4, file.crc32), le(4, big ? U32_MAX : size), le(4, big ? U32_MAX : size),
      le(2, name.length), le(2, centralExtra.length), le(2, 0), le(2, 0), le(2, 0), le(4, 0o100644 * 65536),
      le(4, farOffset ? U32_MAX : offset), name, centralExtra,
    ]));
    locals.push(local);
    offset += local.length + size;
  });
  var directory = concatBytes(central);
  var directoryOffset = offset;
  var count = files.length;
  var zip64 = count >= Math.min(0xffff, limit) || directory.length >= limit || directoryOffset >= limit;
  var tail = [directory];
  if (zip64) {
    var recordOffset = directoryOffset + directory.length;
    tail.push(concatBytes([
      le(4, SIG_ZIP64_END), le(8, 44), le(2, 0x032d), le(2, 45), le(4, 0), le(4, 0), le(8, count), le(8, count),
      le(8, directory.length), le(8, directoryOffset),
      le(4, SIG_ZIP64_LOCATOR), le(4, 0), le(8, recordOffset), le(4, 1),
    ]));
  }
  tail.push(concatBytes([
    le(4, SIG_END), le(2, 0), le(2, 0), le(2, zip64 ? 0xffff : count), le(2, zip64 ? 0xffff : count),
    le(4, zip64 ? U32_MAX : directory.length), le(4, zip64 ? U32_MAX : directoryOffset), le(2, 0),
  ]));
  var tailBytes = concatBytes(tail);
  return { locals: locals, tail: tailBytes, size: offset + tailBytes.length };
}

/** A ZIP of `files` ([{ name, data (Blob), crc32, modified }]) as one Blob. */
export function buildZip(files, limit) {
  var plan = zipPlan(
    files.map(function (file) {
      return { name: file.name, size: file.data.size, crc32: file.crc32, modified: file.modified };
    }),
    limit
  );
  var parts = [];
  files.forEach(function (file, i) {
    parts.push(plan.locals[i], file.data);
  });
  parts.push(plan.tail);
  return new Blob(parts, { type: "application/zip" });
}

/** `files` in groups of at most `limit` bytes of data each (a larger file is a group of its own). */
export function splitForZips(files, limit) {
  var groups = [];
  var current = [];
  var size = 0;
  files.forEach(function (file) {
    if (current.length > 0 && size + file.size > limit) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(file);
    size += file.size;
  });
  if (current.length > 0) groups.push(current);
  return groups;
}
