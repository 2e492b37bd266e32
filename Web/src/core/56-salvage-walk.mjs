// Salvage's walk mode (Spec/backup-v1.md §4.2), for a backup whose end records, central directory or
// manifest.json are lost or fail their checks: the local headers walked from payload offset 0 through intact
// bytes only, each entry restored when its data is all intact and passes its size and CRC-32; names are
// records.csv or a photo name, so nothing restored can name a place outside the destination.

import { concatBytes, toHex, u16le, u32le, u64le } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import {
  entryModified, extraFields, foldCase, isSafeEntryName, MAX_RATIO, RECORDS_NAME, SIG_CENTRAL, SIG_LOCAL,
  U32_MAX, ZIP_MAX_ENTRIES, zip64Fields,
} from "./20-zip.mjs";
import { readEntryData } from "./22-entry-data.mjs";
import { isValidPhotoName } from "./40-manifest.mjs";
import { MENTIONS_MAX_BYTES, photoMentions } from "./54-photo-mentions.mjs";
import { entryFaultCode, isSalvageFault, lostEntry } from "./55-salvage-backup.mjs";

/**
 * Walk mode's reading of a local header at `offset` (§4.2): the entry it describes, or null when it is not
 * one (bytes not intact, another signature, a flag, method, size or extra field breaking a rule, a name
 * that is not records.csv or a photo name).
 */
async function walkHeader(container, offset) {
  if (container.stateOf(offset, offset + 30) !== "intact") return null;
  var fixed = await container.read(offset, 30);
  if (u32le(fixed, 0) !== SIG_LOCAL) return null;
  var flags = u16le(fixed, 6);
  var method = u16le(fixed, 8);
  if ((flags & 0x0049) !== 0 || (method !== 0 && method !== 8)) return null; // encryption (bits 0, 6), data descriptor (3)
  var nameLength = u16le(fixed, 26);
  var extraLength = u16le(fixed, 28);
  var dataOffset = offset + 30 + nameLength + extraLength;
  if (container.stateOf(offset + 30, dataOffset) !== "intact") return null;
  var variable = await container.read(offset + 30, nameLength + extraLength);
  var nameBytes = variable.slice(0, nameLength);
  if (!isSafeEntryName(nameBytes)) return null;
  var name = String.fromCharCode.apply(null, nameBytes);
  if (name !== RECORDS_NAME && !isValidPhotoName(name)) return null;
  var fields;
  var zip64;
  try {
    fields = extraFields(variable.subarray(nameLength), name);
    zip64 = zip64Fields(fields, name);
  } catch (error) {
    if (error instanceof GoshuinError && error.code === "zip_malformed") return null;
    throw error;
  }
  var compressed = BigInt(u32le(fixed, 18));
  var uncompressed = BigInt(u32le(fixed, 22));
  if (compressed === BigInt(U32_MAX) || uncompressed === BigInt(U32_MAX)) {
    if (zip64 === null || zip64.length !== 16) return null;
    uncompressed = u64le(zip64, 0);
    compressed = u64le(zip64, 8);
  }
  if (method === 0 ? compressed !== uncompressed : uncompressed > compressed * MAX_RATIO) return null;
  return {
    index: -1,
    name: name,
    nameBytes: nameBytes,
    method: method,
    crc32: u32le(fixed, 14),
    compressedSize: compressed,
    uncompressedSize: uncompressed,
    localHeaderOffset: BigInt(offset),
    dataOffset: dataOffset,
    // No central record: the local header's extended timestamp or DOS date, read as §4 reads a central one.
    modified: entryModified(fields, u16le(fixed, 12), u16le(fixed, 10)),
  };
}

/**
 * Walk mode (§4.2): from payload offset 0, an entry's data read when it is all intact and checked for size
 * and CRC-32 (restored, or lost: entry_corrupt, or duplicate_entry after a restored entry of that name,
 * exactly or case-folded), else lost with its state; the walk goes on at the end of its data when that data
 * passed its checks, else after its local header (nothing confirmed the sizes it claims). Where no entry
 * is, it resumes at the next intact local-header signature; it ends where none follows, at an intact
 * central-directory signature met where an entry could start, or after 50,000 entries. manifest.json is no
 * entry here (its name is neither records.csv nor a photo's): it is neither written nor used. Once the walk
 * has resumed it may be inside a photo, whose bytes someone else chose: records.csv is then no entry either.
 * At the end, records.csv is lost (not_found) when the walk did not meet it before resuming and a chunk is
 * lost, and every photo
 * a restored records.csv mentions (photoMentions) that was neither restored nor named lost is lost too.
 */
export async function salvageByWalk(container, options) {
  var signal = options.signal;
  var end = container.size === null ? container.presentEnd : Math.min(container.size, container.presentEnd);
  var restored = [];
  var lost = [];
  var exact = new Set();
  var folded = new Set();
  var count = 0;
  var position = 0;
  var resumed = false;
  var recordsMet = false;
  var recordsBytes = null;
  // Headers nested in one another's claimed data would have the same bytes read once per header: the bytes
  // of an entry's data before the end of the furthest data read so far are charged, at most `end` of them.
  var readUpTo = 0n;
  var readAgainSpent = 0n;
  function mayRead(start, stop) {
    start = BigInt(start);
    var upTo = stop < readUpTo ? stop : readUpTo;
    var again = upTo > start ? upTo - start : 0n;
    if (readAgainSpent + again > BigInt(end)) return false;
    readAgainSpent += again;
    if (stop > readUpTo) readUpTo = stop;
    return true;
  }
  while (count < ZIP_MAX_ENTRIES) {
    if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
    if (options.onEntry) options.onEntry(position, end);
    var entry = null;
    if (position + 4 <= end && container.stateOf(position, position + 4) === "intact") {
      var signature = u32le(await container.read(position, 4), 0);
      if (signature === SIG_CENTRAL) break;
      if (signature === SIG_LOCAL) entry = await walkHeader(container, position);
      if (entry !== null && entry.name === RECORDS_NAME && resumed) entry = null;
    }
    if (entry === null) {
      resumed = true;
      var next = await container.findSignature(position + 1, SIG_LOCAL, signal);
      if (next < 0) break;
      position = next;
      continue;
    }
    count++;
    var isRecords = entry.name === RECORDS_NAME;
    if (isRecords) recordsMet = true;
    var dataEnd = BigInt(entry.dataOffset) + entry.compressedSize;
    var state = container.stateOf(entry.dataOffset, dataEnd);
    var dataChecked = false; // only data that passed its checks confirms its header's sizes
    if (state === "damaged" || state === "missing") {
      lost.push(lostEntry(container, entry.name, state, entry.dataOffset, dataEnd));
    } else if (state === "outside") {
      lost.push({ name: entry.name, reason: "zip_malformed" });
    } else if (!mayRead(entry.dataOffset, dataEnd)) {
      lost.push({ name: entry.name, reason: "zip_limit_exceeded" });
    } else {
      try {
        var captured = isRecords ? new MentionsCapture() : null;
        var digest = toHex(await readEntryData(container, entry, captured && captured.sink, { signal: signal }));
        dataChecked = true;
        if (exact.has(entry.name) || folded.has(foldCase(entry.name))) {
          lost.push({ name: entry.name, reason: "duplicate_entry" });
        } else {
          exact.add(entry.name);
          folded.add(foldCase(entry.name));
          restored.push({ name: entry.name, sha256: digest, entry: entry });
          if (isRecords) recordsBytes = captured.bytes();
        }
      } catch (error) {
        if (!isSalvageFault(error)) throw error;
        lost.push({ name: entry.name, reason: entryFaultCode(error) });
      }
    }
    if (!dataChecked) {
      // Sizes nothing confirmed (a header inside a photo's data may claim any): resume after this header.
      resumed = true;
      var after = await container.findSignature(position + 1, SIG_LOCAL, signal);
      if (after < 0) break;
      position = after;
      continue;
    }
    if (dataEnd >= BigInt(end)) break; // nothing intact lies after it
    position = Number(dataEnd);
  }
  // An intact payload without records.csv is no backup, not a damaged one: nothing of it is lost.
  if (!recordsMet && container.lostCount > 0) lost.unshift({ name: RECORDS_NAME, reason: "not_found" });
  if (recordsBytes !== null) {
    var known = new Set(folded);
    lost.forEach(function (item) {
      known.add(foldCase(item.name));
    });
    photoMentions(recordsBytes).forEach(function (name) {
      if (known.has(foldCase(name))) return;
      known.add(foldCase(name));
      lost.push({ name: name, reason: "not_found" });
    });
  }
  return { restored: restored, lost: lost };
}

/** The first MENTIONS_MAX_BYTES of an entry's data as it streams: `sink` takes them, `bytes()` gives them. */
class MentionsCapture {
  constructor() {
    var pieces = [];
    var kept = 0;
    this.sink = function (piece) {
      if (kept >= MENTIONS_MAX_BYTES) return;
      var part = piece.subarray(0, MENTIONS_MAX_BYTES - kept);
      pieces.push(part.slice());
      kept += part.length;
    };
    this.bytes = function () {
      return concatBytes(pieces);
    };
  }
}
