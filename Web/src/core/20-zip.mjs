// The strict structure scan of a backup ZIP (Spec/backup-v1.md §4) on the decrypted payload: the end
// records, the central directory record by record, each local header against its central record, and
// the order of the entries in the file. Reading an entry's data is 22-entry-data.mjs's.
//
// Sizes and offsets from the archive stay BigInt until they are known to lie inside it: ZIP64 fields are
// 64-bit and JavaScript numbers are exact only below 2^53.

import { bytesEqual, quotedName, u16le, u32le, u64le } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";

export var ZIP_MAX_ENTRIES = 50000;
export var MANIFEST_NAME = "manifest.json";
export var RECORDS_NAME = "records.csv";
export var MANIFEST_MAX_SIZE = 16777216;
export var MAX_RATIO = 200n;
export var U32_MAX = 0xffffffff;
export var SIG_END = 0x06054b50;
export var SIG_ZIP64_END = 0x06064b50;
export var SIG_ZIP64_LOCATOR = 0x07064b50;
export var SIG_CENTRAL = 0x02014b50;
export var SIG_LOCAL = 0x04034b50;

export function zipMalformed(detail) {
  return new GoshuinError("zip_malformed", detail);
}

function isAlphanumericByte(b) {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

/** §3.1: 1–255 bytes of A–Z a–z 0–9 . _ -, and not "." or "..". Judged on the raw bytes. */
export function isSafeEntryName(bytes) {
  if (bytes.length < 1 || bytes.length > 255) return false;
  for (var i = 0; i < bytes.length; i++) {
    var b = bytes[i];
    if (!(isAlphanumericByte(b) || b === 0x2e || b === 0x5f || b === 0x2d)) return false;
  }
  if (bytes.length === 1 && bytes[0] === 0x2e) return false;
  if (bytes.length === 2 && bytes[0] === 0x2e && bytes[1] === 0x2e) return false;
  return true;
}

/** ASCII letters in lower case: the full case fold for the names a backup may hold. */
export function foldCase(name) {
  return name.replace(/[A-Z]+/g, function (s) {
    return s.toLowerCase();
  });
}

/** The identifiers and data of the extra fields in `bytes`, which must tile it exactly. */
export function extraFields(bytes, name) {
  var fields = [];
  var at = 0;
  while (at < bytes.length) {
    if (at + 4 > bytes.length) throw zipMalformed(name + " has a malformed extra field");
    var id = u16le(bytes, at);
    var length = u16le(bytes, at + 2);
    if (at + 4 + length > bytes.length) throw zipMalformed(name + " has a malformed extra field");
    fields.push({ id: id, data: bytes.subarray(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  return fields;
}

export function zip64Fields(fields, name) {
  var found = null;
  for (var i = 0; i < fields.length; i++) {
    if (fields[i].id !== 0x0001) continue;
    if (found !== null) throw zipMalformed(name + " has two ZIP64 extra fields");
    found = fields[i].data;
  }
  return found;
}

/**
 * Step 1 of §4.1: the end record (the file's last 22 bytes: no comment) and, when, and only when, one of
 * its fields is at its limit (0xFFFF, 0xFFFFFFFF), the ZIP64 locator and end record right before it. A
 * field at its limit takes the ZIP64 record's value; a field not at its limit equals it. Then the values
 * are those of one disk, and the central directory they declare ends where the end records start.
 */
async function readEndRecords(payload) {
  var size = payload.size;
  if (size === 0) throw zipMalformed("the file holds an empty payload (version 2 allows one); a backup is a ZIP, never empty");
  if (size < 22) throw zipMalformed("the backup is too short to be a ZIP");
  var endOffset = size - 22;
  var tail = await payload.read(endOffset, 22);
  if (u32le(tail, 0) !== SIG_END || tail[20] !== 0 || tail[21] !== 0)
    throw zipMalformed("the backup does not end with an end-of-central-directory record without a comment (not a ZIP, a ZIP comment, or data after the ZIP)");
  var classic = {
    disk: BigInt(u16le(tail, 4)),
    directoryDisk: BigInt(u16le(tail, 6)),
    entriesOnDisk: BigInt(u16le(tail, 8)),
    entries: BigInt(u16le(tail, 10)),
    directorySize: BigInt(u32le(tail, 12)),
    directoryOffset: BigInt(u32le(tail, 16)),
  };
  var limits16 = ["disk", "directoryDisk", "entriesOnDisk", "entries"];
  var atLimit = function (field) {
    return classic[field] === (limits16.indexOf(field) >= 0 ? 0xffffn : BigInt(U32_MAX));
  };
  var fields = Object.keys(classic);
  var values = classic;
  var directoryEnd = endOffset;
  if (fields.some(atLimit)) {
    // ZIP64: the 56-byte record, the 20-byte locator, then the classic record, nothing between.
    if (endOffset < 76) throw zipMalformed("the ZIP64 end records are missing");
    var locator = await payload.read(endOffset - 20, 20);
    var recordOffset = endOffset - 76;
    if (u32le(locator, 0) !== SIG_ZIP64_LOCATOR || u32le(locator, 4) !== 0 || u64le(locator, 8) !== BigInt(recordOffset) || u32le(locator, 16) !== 1)
      throw zipMalformed("the ZIP64 locator is invalid");
    var record = await payload.read(recordOffset, 56);
    if (u32le(record, 0) !== SIG_ZIP64_END || u64le(record, 4) !== 44n)
      throw zipMalformed("the ZIP64 end record is invalid or has extensible data");
    values = {
      disk: BigInt(u32le(record, 16)),
      directoryDisk: BigInt(u32le(record, 20)),
      entriesOnDisk: u64le(record, 24),
      entries: u64le(record, 32),
      directorySize: u64le(record, 40),
      directoryOffset: u64le(record, 48),
    };
    for (var i = 0; i < fields.length; i++)
      if (!atLimit(fields[i]) && classic[fields[i]] !== values[fields[i]])
        throw zipMalformed("the end record and the ZIP64 end record disagree");
    directoryEnd = recordOffset;
  }
  if (values.disk !== 0n || values.directoryDisk !== 0n || values.entriesOnDisk !== values.entries)
    throw zipMalformed("multi-disk ZIPs are not backups");
  if (values.directoryOffset + values.directorySize !== BigInt(directoryEnd))
    throw zipMalformed("the central directory does not end where the end records start");
  return { entryCount: values.entries, directoryOffset: Number(values.directoryOffset), directoryEnd: directoryEnd };
}

/** Encryption, data descriptors, other methods, directories, links and other non-regular Unix modes. */
function checkEntryKind(name, flags, method, madeBy, attributes) {
  if (flags & 0x0041) throw new GoshuinError("unsupported_entry", name + " is encrypted; backups are encrypted as a whole, never by entry");
  if (flags & 0x0008) throw new GoshuinError("unsupported_entry", name + " uses a data descriptor, which backups do not use");
  if (method !== 0 && method !== 8)
    throw new GoshuinError("unsupported_entry", name + " uses compression method " + method + "; only stored and deflate are read");
  if (attributes & 0x10) throw new GoshuinError("unsupported_entry", name + " is a directory entry");
  if (madeBy >>> 8 === 3) {
    // A mode without file-type bits (0644 alone) is a regular file (§4).
    var type = (attributes >>> 16) & 0o170000;
    if (type !== 0 && type !== 0o100000)
      throw new GoshuinError("unsupported_entry", name + " is not a regular file (Unix type " + type.toString(8) + ")");
  }
}

/** The 64-bit values of a central record's overflowed fields: exactly those, in the order of APPNOTE 4.5.3. */
function applyCentralZip64(fields, sizes, name) {
  var wanted = [];
  if (sizes.uncompressed === BigInt(U32_MAX)) wanted.push("uncompressed");
  if (sizes.compressed === BigInt(U32_MAX)) wanted.push("compressed");
  if (sizes.offset === BigInt(U32_MAX)) wanted.push("offset");
  var data = zip64Fields(fields, name);
  if (data === null) {
    if (wanted.length > 0) throw zipMalformed(name + " has a 32-bit field set to 0xFFFFFFFF but no ZIP64 extra field");
    return;
  }
  if (data.length !== 8 * wanted.length) throw zipMalformed(name + " has a ZIP64 extra field of the wrong length");
  for (var i = 0; i < wanted.length; i++) sizes[wanted[i]] = u64le(data, 8 * i);
}

/**
 * An entry's modification time in seconds since 1970 (UTC), or null: the mtime of the central record's
 * extended-timestamp extra field (0x5455, flag bit 0, a u32le) when it has one, else its DOS date and time
 * read as UTC; null when they are not a real date (0/0) or are 1980-01-01 00:00, the first DOS date, which
 * writers use for "no date" (goshuin-tool seal dates every entry so). Never a reason to refuse an entry.
 */
export function entryModified(fields, dosDate, dosTime) {
  for (var i = 0; i < fields.length; i++) {
    var data = fields[i].data;
    if (fields[i].id === 0x5455 && data.length >= 5 && (data[0] & 1) !== 0) return u32le(data, 1);
  }
  return dosDateTimeSeconds(dosDate, dosTime);
}

function dosDateTimeSeconds(date, time) {
  var year = 1980 + (date >>> 9);
  var month = (date >>> 5) & 15;
  var day = date & 31;
  var hour = time >>> 11;
  var minute = (time >>> 5) & 63;
  var second = (time & 31) * 2;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (date === 0x21 && time === 0) return null; // 1980-01-01 00:00: no date
  var milliseconds = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(milliseconds).getUTCDate() !== day) return null; // 31 February
  return milliseconds / 1000;
}

function checkDeclaredSizes(name, method, compressed, uncompressed) {
  if (name === MANIFEST_NAME && uncompressed > BigInt(MANIFEST_MAX_SIZE))
    throw new GoshuinError("zip_limit_exceeded", "manifest.json declares " + uncompressed + " bytes; at most 16 MiB");
  if (method === 0) {
    if (compressed !== uncompressed) throw zipMalformed(name + " is stored but its two declared sizes differ");
  } else if (uncompressed > compressed * MAX_RATIO) {
    throw new GoshuinError("zip_limit_exceeded", name + " would inflate " + compressed + " bytes to " + uncompressed + ": more than 200 times (a ZIP bomb?)");
  }
}

/**
 * One central record, its checks in the order of §4.1 step 2: fixed fields and length, name, kind, ZIP64
 * values (the extra fields parsed there), disk number, declared sizes. Duplicates are the caller's.
 */
async function readCentralRecord(payload, offset, index, directoryEnd) {
  if (offset + 46 > directoryEnd) throw zipMalformed("central directory record " + index + " is cut");
  var fixed = await payload.read(offset, 46);
  if (u32le(fixed, 0) !== SIG_CENTRAL) throw zipMalformed("central directory record " + index + " is invalid");
  var madeBy = u16le(fixed, 4);
  var flags = u16le(fixed, 8);
  var method = u16le(fixed, 10);
  var dosTime = u16le(fixed, 12);
  var dosDate = u16le(fixed, 14);
  var crc = u32le(fixed, 16);
  var compressed = u32le(fixed, 20);
  var uncompressed = u32le(fixed, 24);
  var nameLength = u16le(fixed, 28);
  var extraLength = u16le(fixed, 30);
  var commentLength = u16le(fixed, 32);
  var startDisk = u16le(fixed, 34);
  var attributes = u32le(fixed, 38);
  var localOffset = u32le(fixed, 42);
  var variableLength = nameLength + extraLength + commentLength;
  if (offset + 46 + variableLength > directoryEnd) throw zipMalformed("central directory record " + index + " is cut");
  var variable = await payload.read(offset + 46, variableLength);
  var nameBytes = variable.slice(0, nameLength);
  if (!isSafeEntryName(nameBytes))
    throw new GoshuinError("unsafe_entry_name", "entry " + index + " has the name " + quotedName(nameBytes) + "; names are 1–255 of A–Z a–z 0–9 . _ - and not . or ..");
  var name = String.fromCharCode.apply(null, nameBytes);
  checkEntryKind(name, flags, method, madeBy, attributes);
  var sizes = { compressed: BigInt(compressed), uncompressed: BigInt(uncompressed), offset: BigInt(localOffset) };
  var extras = extraFields(variable.subarray(nameLength, nameLength + extraLength), name);
  applyCentralZip64(extras, sizes, name);
  if (startDisk !== 0) throw zipMalformed(name + " is on another disk");
  checkDeclaredSizes(name, method, sizes.compressed, sizes.uncompressed);
  return {
    entry: {
      index: index,
      name: name,
      nameBytes: nameBytes,
      method: method,
      crc32: crc,
      compressedSize: sizes.compressed,
      uncompressedSize: sizes.uncompressed,
      localHeaderOffset: sizes.offset,
      dataOffset: null,
      modified: entryModified(extras, dosDate, dosTime),
    },
    next: offset + 46 + variableLength,
  };
}

/**
 * Steps 1 and 2 of §4.1: the end records, the declared entry count, then the central directory record by
 * record (each one's checks, then duplicates against the records before it), then that it ends where the
 * end records start. Local headers and data are not read, so this touches only the ZIP's end.
 */
export async function scanCentralDirectory(payload) {
  var end = await readEndRecords(payload);
  if (end.entryCount > BigInt(ZIP_MAX_ENTRIES))
    throw new GoshuinError("zip_limit_exceeded", "the ZIP declares " + end.entryCount + " entries; a backup holds at most 50,000");
  var count = Number(end.entryCount);
  var entries = [];
  var exact = new Set();
  var folded = new Set();
  var position = end.directoryOffset;
  for (var index = 0; index < count; index++) {
    var read = await readCentralRecord(payload, position, index, end.directoryEnd);
    var entry = read.entry;
    if (exact.has(entry.name) || folded.has(foldCase(entry.name)))
      throw new GoshuinError("duplicate_entry", 'the name "' + entry.name + '" appears twice (names are compared case-folded)');
    exact.add(entry.name);
    folded.add(foldCase(entry.name));
    entries.push(entry);
    position = read.next;
  }
  if (position !== end.directoryEnd) throw zipMalformed("the central directory's size does not match its records");
  return { entries: entries, directoryOffset: end.directoryOffset };
}

/**
 * Checks an entry's local header against its central record (name, method, flags, CRC, sizes, the local
 * ZIP64 field) and that its data ends before the central directory; sets and returns `entry.dataOffset`.
 * Every failure here is zip_malformed.
 */
export async function checkLocalHeader(payload, entry, directoryOffset) {
  var name = entry.name;
  var outside = zipMalformed(name + "'s local header is outside the archive's entries");
  if (entry.localHeaderOffset + 30n > BigInt(directoryOffset)) throw outside;
  var offset = Number(entry.localHeaderOffset);
  var fixed = await payload.read(offset, 30);
  if (u32le(fixed, 0) !== SIG_LOCAL) throw zipMalformed(name + "'s local header is invalid");
  var flags = u16le(fixed, 6);
  var method = u16le(fixed, 8);
  var crc = u32le(fixed, 14);
  var compressed = u32le(fixed, 18);
  var uncompressed = u32le(fixed, 22);
  var nameLength = u16le(fixed, 26);
  var extraLength = u16le(fixed, 28);
  var dataOffset = offset + 30 + nameLength + extraLength;
  if (dataOffset > directoryOffset) throw outside;
  var variable = await payload.read(offset + 30, nameLength + extraLength);
  if (!bytesEqual(variable.subarray(0, nameLength), entry.nameBytes))
    throw zipMalformed(name + "'s local header names another file than the central directory");
  // The extra fields tile exactly and hold at most one ZIP64 field, whether or not it is read.
  var zip64 = zip64Fields(extraFields(variable.subarray(nameLength), name), name);
  var disagree = zipMalformed(name + "'s local header disagrees with the central directory");
  // The central record has none of the flags for encryption (bits 0, 6) and data descriptor (bit 3), so a
  // local header with one of them disagrees with it.
  if (method !== entry.method || (flags & 0x0049) !== 0 || crc !== entry.crc32) throw disagree;
  if (compressed !== U32_MAX && BigInt(compressed) !== entry.compressedSize) throw disagree;
  if (uncompressed !== U32_MAX && BigInt(uncompressed) !== entry.uncompressedSize) throw disagree;
  if (compressed === U32_MAX || uncompressed === U32_MAX) {
    // §4: exactly 16 bytes, the uncompressed then the compressed size, both equal to the central ones.
    // Where neither local size is at its limit, the field is not read.
    if (zip64 === null) throw disagree;
    if (zip64.length !== 16) throw zipMalformed(name + "'s local ZIP64 extra field is not the 16 bytes of both sizes");
    if (u64le(zip64, 0) !== entry.uncompressedSize || u64le(zip64, 8) !== entry.compressedSize) throw disagree;
  }
  if (BigInt(dataOffset) + entry.compressedSize > BigInt(directoryOffset))
    throw zipMalformed(name + "'s data runs into the central directory");
  entry.dataOffset = dataOffset;
  return dataOffset;
}

/** Entries by local-header offset; records that claim the same offset in central-directory order (§4.1 step 5). */
export function inFileOrder(entries) {
  return entries.slice().sort(function (a, b) {
    return a.localHeaderOffset < b.localHeaderOffset ? -1 : a.localHeaderOffset > b.localHeaderOffset ? 1 : a.index - b.index;
  });
}
