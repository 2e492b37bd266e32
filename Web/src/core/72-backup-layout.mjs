// The ZIP of a new backup (issue 37, Spec/backup-v1.md §5 "Packing a folder" and "Rescuing"), laid out as
// goshuin-tool's BackupZipLayout.backup lays out the same entries: records.csv first (deflated by zlib's raw
// deflate when it is at most 16 MiB and deflates within 190 times, else stored), the photos stored in byte
// order of their names, manifest.json last (stored, compact, dated createdAt); "version made by" Unix 6.3,
// Unix mode 0644, each entry's DOS date and time in UTC and its extended timestamp (0x5455) when from 1970 to
// 2038, ZIP64 fields only where a value does not fit 32 bits, no data descriptor, no comment. Every offset and
// size follows from the names, sizes, methods and times, so the ZIP's length is known before its first byte.

import { utf8Bytes } from "./00-bytes.mjs";
import { MANIFEST_NAME, RECORDS_NAME, U32_MAX } from "./20-zip.mjs";

export var RECORDS_HELD = 16 << 20; // records.csv up to this size is deflated in memory (RecordsPlan.inMemoryLimit)
export var DEFLATE_MARGIN = 190; // deflated only when deflated · 190 ≥ size: a reader refuses past 200

var VERSION_MADE_BY = 0x033f; // Unix, 6.3
var U16_MAX = 0xffff;
var INT32_MAX = 0x7fffffff;

function leBytes(size, value) {
  var out = new Uint8Array(size);
  var v = BigInt(value);
  for (var i = 0; i < size; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function joinPieces(pieces) {
  var length = 0;
  pieces.forEach(function (piece) {
    length += piece.length;
  });
  var out = new Uint8Array(length);
  var at = 0;
  pieces.forEach(function (piece) {
    out.set(piece, at);
    at += piece.length;
  });
  return out;
}

/** The DOS date and time of `seconds` (UTC), the odd second dropped, clamped to 1980 … 2107 (DOSTime.encode). */
export function dosFields(seconds) {
  if (seconds === null || seconds === undefined) return { time: 0, date: 0x21 };
  var d = new Date(seconds * 1000);
  var year = d.getUTCFullYear();
  if (!(year >= 1980)) return { time: 0, date: 0x21 };
  if (year > 2107) return { time: (23 << 11) | (59 << 5) | 29, date: (127 << 9) | (12 << 5) | 31 };
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** `YYYY-MM-DDTHH:MM:SSZ` of `seconds` since 1970 (UTC). */
export function timestamp(seconds) {
  return new Date(seconds * 1000).toISOString().slice(0, 19) + "Z";
}

/** The seconds since 1970 of a `createdAt` timestamp. */
export function timestampSeconds(text) {
  var ms = Date.parse(text);
  return isNaN(ms) ? null : ms / 1000;
}

/** manifest.json as the tool encodes it: the spec's keys in order, compact, a final newline. */
export function manifestBytes(createdAt, records, photos) {
  function entry(file) {
    return '{"name":' + JSON.stringify(file.name) + ',"size":' + String(file.size) + ',"sha256":"' + file.sha256 + '"}';
  }
  return utf8Bytes(
    '{"format":"goshuin-backup","version":1,"createdAt":' + JSON.stringify(createdAt) + ',"records":' + entry(records) +
      ',"photos":[' + photos.map(entry).join(",") + "]}\n"
  );
}

/** ZipEntryLayout: what an entry's headers hold follows from these fields and the CRC-32. */
function entryLayout(entry, offset) {
  var name = utf8Bytes(entry.name);
  var big = entry.compressedSize >= U32_MAX || entry.size >= U32_MAX;
  var centralValues = [entry.size, entry.compressedSize, offset].filter(function (value) {
    return value >= U32_MAX;
  });
  var time = typeof entry.modified === "number" && entry.modified >= 0 && entry.modified <= INT32_MAX ? entry.modified : null;
  var timeLength = time === null ? 0 : 9;
  var localLength = 30 + name.length + (big ? 20 : 0) + timeLength;
  return {
    name: entry.name, nameBytes: name, method: entry.method, compressedSize: entry.compressedSize, size: entry.size,
    modified: entry.modified, time: time, offset: offset, big: big, centralValues: centralValues,
    versionNeeded: big || centralValues.length ? 45 : 20, localLength: localLength,
    centralLength: 46 + name.length + (centralValues.length ? 4 + 8 * centralValues.length : 0) + timeLength,
    dataOffset: offset + localLength, end: offset + localLength + entry.compressedSize,
  };
}

function timeField(time) {
  return time === null ? new Uint8Array(0) : joinPieces([leBytes(2, 0x5455), leBytes(2, 5), leBytes(1, 1), leBytes(4, time)]);
}

/** The local header of a laid-out entry whose data has the CRC-32 `crc`. */
export function localHeader(entry, crc) {
  var dos = dosFields(entry.modified);
  return joinPieces([
    leBytes(4, 0x04034b50), leBytes(2, entry.versionNeeded), leBytes(2, 0), leBytes(2, entry.method), leBytes(2, dos.time), leBytes(2, dos.date), leBytes(4, crc),
    leBytes(4, entry.big ? U32_MAX : entry.compressedSize), leBytes(4, entry.big ? U32_MAX : entry.size),
    leBytes(2, entry.nameBytes.length), leBytes(2, entry.localLength - 30 - entry.nameBytes.length), entry.nameBytes,
    entry.big ? joinPieces([leBytes(2, 1), leBytes(2, 16), leBytes(8, entry.size), leBytes(8, entry.compressedSize)]) : new Uint8Array(0),
    timeField(entry.time),
  ]);
}

function centralRecord(entry, crc) {
  var dos = dosFields(entry.modified);
  function field(value) {
    return value >= U32_MAX ? U32_MAX : value;
  }
  return joinPieces([
    leBytes(4, 0x02014b50), leBytes(2, VERSION_MADE_BY), leBytes(2, entry.versionNeeded), leBytes(2, 0), leBytes(2, entry.method),
    leBytes(2, dos.time), leBytes(2, dos.date), leBytes(4, crc), leBytes(4, field(entry.compressedSize)), leBytes(4, field(entry.size)),
    leBytes(2, entry.nameBytes.length), leBytes(2, entry.centralLength - 46 - entry.nameBytes.length), leBytes(2, 0), leBytes(2, 0), leBytes(2, 0),
    leBytes(4, 0o100644 * 65536), leBytes(4, field(entry.offset)), entry.nameBytes,
    entry.centralValues.length
      ? joinPieces([leBytes(2, 1), leBytes(2, 8 * entry.centralValues.length)].concat(entry.centralValues.map(function (v) { return leBytes(8, v); })))
      : new Uint8Array(0),
    timeField(entry.time),
  ]);
}

/**
 * BackupZipLayout.backup: `records` ({ size, method, compressedSize, modified }), then `photos` ({ name,
 * size, modified }) in byte order of their names, then manifest.json (its length known before any digest:
 * every digest has its width), dated `createdAt`. Returns { entries, directoryOffset, directorySize, size }.
 */
export function backupLayout(records, photos, createdAt) {
  var sorted = photos.slice().sort(function (a, b) {
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; // photo names are ASCII: code units are bytes
  });
  var zeros = "0".repeat(64);
  var manifestLength = manifestBytes(
    createdAt,
    { name: RECORDS_NAME, size: records.size, sha256: zeros },
    sorted.map(function (photo) {
      return { name: photo.name, size: photo.size, sha256: zeros };
    })
  ).length;
  var planned = [{ name: RECORDS_NAME, method: records.method, compressedSize: records.compressedSize, size: records.size, modified: records.modified }]
    .concat(sorted.map(function (photo) {
      return { name: photo.name, method: 0, compressedSize: photo.size, size: photo.size, modified: photo.modified };
    }))
    .concat([{ name: MANIFEST_NAME, method: 0, compressedSize: manifestLength, size: manifestLength, modified: timestampSeconds(createdAt) }]);
  var offset = 0;
  var entries = planned.map(function (entry) {
    var laid = entryLayout(entry, offset);
    offset = laid.end;
    return laid;
  });
  var directorySize = entries.reduce(function (sum, entry) {
    return sum + entry.centralLength;
  }, 0);
  var zip64 = offset >= U32_MAX || directorySize >= U32_MAX || entries.length >= U16_MAX;
  return {
    entries: entries, directoryOffset: offset, directorySize: directorySize, zip64: zip64,
    size: offset + directorySize + (zip64 ? 56 + 20 : 0) + 22,
  };
}

/** The central directory and the end records of `layout`, its entries' data having the CRC-32s `crcs`. */
export function centralDirectoryAndEnd(layout, crcs) {
  var parts = layout.entries.map(function (entry, i) {
    return centralRecord(entry, crcs[i]);
  });
  var count = layout.entries.length;
  if (layout.zip64) {
    parts.push(joinPieces([
      leBytes(4, 0x06064b50), leBytes(8, 44), leBytes(2, VERSION_MADE_BY), leBytes(2, 45), leBytes(4, 0), leBytes(4, 0), leBytes(8, count), leBytes(8, count),
      leBytes(8, layout.directorySize), leBytes(8, layout.directoryOffset),
      leBytes(4, 0x07064b50), leBytes(4, 0), leBytes(8, layout.directoryOffset + layout.directorySize), leBytes(4, 1),
    ]));
  }
  var entryField = count >= U16_MAX ? U16_MAX : count;
  parts.push(joinPieces([
    leBytes(4, 0x06054b50), leBytes(2, 0), leBytes(2, 0), leBytes(2, entryField), leBytes(2, entryField),
    leBytes(4, layout.directorySize >= U32_MAX ? U32_MAX : layout.directorySize),
    leBytes(4, layout.directoryOffset >= U32_MAX ? U32_MAX : layout.directoryOffset), leBytes(2, 0),
  ]));
  return joinPieces(parts);
}

/** zlib's raw deflate (the browser's CompressionStream, zlib's default level), or null where it is missing. */
export async function rawDeflate(bytes) {
  if (typeof CompressionStream !== "function") return null;
  var stream;
  try {
    stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  } catch (error) {
    return null; // no "deflate-raw" here: records.csv is stored
  }
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** records.csv as it is written: { method, data } (RecordsPlan.init(holding:)). */
export async function recordsPlan(bytes) {
  var deflated = await rawDeflate(bytes);
  if (deflated !== null && deflated.length * DEFLATE_MARGIN >= bytes.length) return { method: 8, data: deflated };
  return { method: 0, data: bytes };
}

