// PAR 2.0 recovery files (the Parity Volume Set Specification 2.0) beside a backup: their packets, found by
// scanning the files picked (Spec/recovery-par2.md §3, §6; Spec/decisions/0049).
//
// A packet is magic "PAR2\0PKT", its length (u64le, the whole packet, a multiple of 4), the MD5 of what
// follows the MD5 field, the recovery set ID, its type (16 bytes) and its body. Read here: main (slice size,
// the files of the set), file description (a file's ID, MD5, MD5 of its first 16 KiB, length, name),
// input file slice checksums (an MD5 and a CRC-32 per slice) and creator; recovery slices (an exponent
// and a slice of recovery data) are noted where they lie and checked only when a repair needs them.
//
// The scan is linear and bounded by the backup: each file is read in a window that slides forward, the
// next window starting where the search stands (at most the longest packet hashed whole is read twice, once
// per window); the magic is found by indexOf. Every byte searched and every byte hashed is charged to one budget per reading, 64 MiB + 4 ×
// the backup's length (the scan may spend all but 2 × that length, kept for checking the recovery slices a
// repair uses), and the bytes hashed in one file to 2 × its size + 64 MiB: past either, the file (and, past
// the first, every file after it) is reported as not read to its end. A packet whose MD5 fails, of an
// unknown type, or longer than its type allows is skipped, and the search goes on 8 bytes later (a length is
// trusted only once its packet's MD5 held). One entry per packet kept, never per packet seen: a copy of a
// packet kept (or of a kind already kept) is recognised from what is kept, before it is hashed, and costs
// nothing but the search through it. Names are only ever shown, escaped.

import { bytesEqual, concatBytes, toHex, u32le, u64le, utf8Bytes } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { md5 } from "./02-kernels.mjs";
import { PAR2_MAX_INPUT_SLICES } from "./05-gf16.mjs";
import { limits } from "./22-entry-data.mjs";
import { printable, trailingZerosTrimmed } from "./80-par2-text.mjs";

var PAR2_HEADER_SIZE = 64;
export var PAR2_PEEK = 68; // a header and the first word of its body (a recovery slice's exponent; a file ID's first)
var PAR2_MAGIC = [0x50, 0x41, 0x52, 0x32, 0x00, 0x50, 0x4b, 0x54]; // "PAR2\0PKT"
var PAR2_SCAN_WINDOW = 4194304; // bytes held at a time; more than three times the longest packet hashed whole (main)
var PAR2_SEARCH_STEP = 1048576; // bytes searched between two looks at the clock
var PAR2_MAX_FILES = 32768; // files in a recovery set (each file of a recovery set has at least one slice)
var PAR2_MAX_SLICE_SIZE = 2147483648; // parsed; ADR 0049 bounds it by the set's files, the repair by memory
export var PAR2_SLICE_OVER_FILE = 67108864; // a slice may exceed its set's longest file (rounded up to 4) up to this
var PAR2_MAX_NAME = 65536;
var PAR2_MAX_SETS = 64; // sets among the files picked (several backups' files picked at once)
var PAR2_MAX_NOTES = 131072; // recovery slice packets noted in all (65,536 exponents, most twice)
var PAR2_CANDIDATES_PER_EXPONENT = 4; // copies of one recovery slice kept, should some be damaged
var PAR2_EXPONENT_LIMIT = 65536; // exponents are 16-bit (PAR 2.0 "Recovery Slice packet")
var PAR2_KEPT_LIMIT = 33554432; // bytes of packet bodies kept in all (Spec/recovery-par2.md §6.2)
export var PAR2_BUDGET_BASE = 67108864; // the reading's budget: this and 4 × the backup's length (ADR 0049)

/** The packet types read, by their 16 bytes ("PAR 2.0\0" and 8 more), with the shortest and longest packet each may be. */
var PAR2_TYPE_PREFIX = utf8Bytes("PAR 2.0\0");
var PAR2_TYPES = [
  { name: "Main\0\0\0\0", kind: "main", minLength: PAR2_HEADER_SIZE + 12, maxLength: PAR2_HEADER_SIZE + 12 + 16 * 2 * PAR2_MAX_FILES },
  { name: "FileDesc", kind: "description", minLength: PAR2_HEADER_SIZE + 56, maxLength: PAR2_HEADER_SIZE + 56 + PAR2_MAX_NAME },
  { name: "IFSC\0\0\0\0", kind: "checksums", minLength: PAR2_HEADER_SIZE + 16, maxLength: PAR2_HEADER_SIZE + 16 + 20 * PAR2_MAX_INPUT_SLICES },
  { name: "Creator\0", kind: "creator", minLength: PAR2_HEADER_SIZE, maxLength: PAR2_HEADER_SIZE + PAR2_MAX_NAME },
  { name: "RecvSlic", kind: "recovery", minLength: PAR2_PEEK, maxLength: PAR2_PEEK + PAR2_MAX_SLICE_SIZE },
].map(function (type) {
  type.suffix = utf8Bytes(type.name);
  return type;
});

/** Whether bytes[at …] holds `other` (no view made: the scan compares millions of headers). */
function equalAt(bytes, at, other) {
  for (var i = 0; i < other.length; i++) if (bytes[at + i] !== other[i]) return false;
  return true;
}

/** The type of the packet whose type field is at bytes[at …], or null. */
function packetType(bytes, at) {
  if (!equalAt(bytes, at, PAR2_TYPE_PREFIX)) return null;
  for (var t = 0; t < PAR2_TYPES.length; t++) if (equalAt(bytes, at + 8, PAR2_TYPES[t].suffix)) return PAR2_TYPES[t];
  return null;
}

// The page's limits for a repair (tests lower them): the slices rebuilt are held in memory, and the
// matrix has one row and one column per slice to rebuild.
limits.recoveryMemory = 536870912;
limits.recoveryUnknowns = 4096; // Spec/recovery-par2.md §6.2: unknown slices solved at once
limits.recoveryWork = 268435456; // scalar products: a rebuild's coefficients, an elimination's row operations

export function recoveryInvalid(detail) {
  return new GoshuinError("recovery_set_invalid", detail);
}

/** A u64le below 2^53 as a Number, or -1 when it is not (no PAR 2.0 length this page reads is that large). */
function u64leNumber(bytes, at) {
  var high = u32le(bytes, at + 4);
  if (high >= 0x200000) return -1;
  return high * 4294967296 + u32le(bytes, at);
}

/** The index in `bytes` of the first magic at `from` … `last`, or -1. */
function findMagic(bytes, from, last) {
  for (var i = bytes.indexOf(0x50, from); i >= 0 && i <= last; i = bytes.indexOf(0x50, i + 1)) {
    var k = 1;
    while (k < 8 && bytes[i + k] === PAR2_MAGIC[k]) k++;
    if (k === 8) return i;
  }
  return -1;
}

/**
 * What a scan of the picked files found: the packets kept, by recovery set, what it skipped, and the files
 * it did not read to their end. `budget`: the reading's, in bytes searched and hashed.
 */
class RecoveryScan {
  constructor(backupSize) {
    this.sets = new Map();
    // The reading's budget (ADR 0049); the scan may spend all of it but 2 × the backup's length, which stays
    // for checking the recovery slices a repair uses, so that a file that exhausts the scan cannot starve them.
    this.budget = PAR2_BUDGET_BASE + 4 * backupSize;
    this.scanLimit = PAR2_BUDGET_BASE + 2 * backupSize;
    this.spent = 0; // bytes searched and hashed, over every file
    this.kept = 0; // bytes of packet bodies kept
    this.notes = 0;
    this.packets = 0; // packets kept
    this.damaged = 0; // MD5 failed, or a length or field out of bounds
    this.unknown = 0;
    this.duplicates = 0; // copies of packets kept, and packets of a kind already kept
    this.otherSets = 0; // packets of sets past PAR2_MAX_SETS
    this.dropped = 0; // packets past the bounds on what is kept
    this.malformed = []; // why packets whose MD5 held were not used (a few)
    this.notReadToEnd = []; // indices of the files whose scan stopped before their end
  }

  /** The set whose ID is at bytes[at …] (the last one asked for is known without a view or a key). */
  set(bytes, at) {
    if (this.last && equalAt(bytes, at, this.last.id)) return this.last;
    var id = bytes.subarray(at, at + 16);
    var key = toHex(id);
    var set = this.sets.get(key);
    if (set) return (this.last = set);
    if (this.sets.size >= PAR2_MAX_SETS) return null;
    set = {
      id: id.slice(),
      key: key,
      order: this.sets.size,
      main: null,
      descriptions: new Map(), // file ID (hex) → description
      checksums: new Map(), // file ID (hex) → { bytes, hash }
      creators: [], // [{ text, hash }], at most 4
      recovery: new Map(), // exponent → [{ source, offset, length, hash, verified }]
    };
    this.sets.set(key, set);
    return (this.last = set);
  }

  malformedPacket(kind, why) {
    this.damaged++;
    if (this.malformed.length < 8) this.malformed.push("a " + kind + " packet " + why);
  }

  /**
   * Whether the packet at `at` of `window` need not be hashed: one of its kind is kept already for its set
   * (its copy, or another packet in a place that holds one), or keeping it would pass the bounds.
   */
  passedOver(kind, set, window, at, length) {
    var known = false;
    if (kind === "main") known = set.main !== null;
    else if (kind === "description" || kind === "checksums") {
      var place = kind === "description" ? set.descriptions : set.checksums;
      var kept = place.lastKept;
      if (kept && equalAt(window, at + 16, kept.hash)) known = true; // a copy of the last one kept
      else {
        var fileId = toHex(window.subarray(at + 64, at + 80));
        known = place.has(fileId) || (set.main !== null && !set.main.recoverable.has(fileId));
        if (place.has(fileId)) place.lastKept = place.get(fileId);
      }
    } else if (kind === "creator") {
      known = set.creators.length >= 4;
      for (var c = 0; c < set.creators.length && !known; c++) known = equalAt(window, at + 16, set.creators[c].hash);
    }
    if (known) {
      this.duplicates++;
      return true;
    }
    if (this.kept + length > PAR2_KEPT_LIMIT) {
      this.dropped++;
      return true;
    }
    return false;
  }

  /**
   * A main packet whose MD5 held, read into its set. Its up to PAR2_MAX_FILES file IDs take tens of
   * milliseconds to read: it yields between them.
   */
  async recordMain(set, packet, length, pace) {
    var body = packet.subarray(PAR2_HEADER_SIZE, length);
    var hash = packet.slice(16, 32);
    if (!bytesEqual(md5(body), set.id)) return this.malformedPacket("main", "whose recovery set ID is not its MD5");
    var sliceSize = body.length >= 12 ? u64leNumber(body, 0) : -1;
    if (sliceSize <= 0 || sliceSize % 4 !== 0 || sliceSize > PAR2_MAX_SLICE_SIZE)
      return this.malformedPacket("main", "with a slice size of " + (body.length >= 12 ? u64le(body, 0) : "?") + " bytes (a multiple of 4, at most " + PAR2_MAX_SLICE_SIZE + ")");
    var count = u32le(body, 8);
    var listed = (body.length - 12) / 16;
    if (!Number.isInteger(listed) || count > listed || count > PAR2_MAX_FILES || count === 0)
      return this.malformedPacket("main", "claiming " + count + " files in " + body.length + " bytes");
    var fileIds = [];
    var recoverable = new Set();
    for (var i = 0; i < count; i++) {
      if (pace.due()) await pace();
      fileIds.push(toHex(body.subarray(12 + 16 * i, 28 + 16 * i)));
      recoverable.add(fileIds[i]);
    }
    set.main = { sliceSize: sliceSize, fileIds: fileIds, recoverable: recoverable, hash: hash };
    this.counted(body);
  }

  /** A packet other than a main packet whose MD5 held: its body read into its set (one entry, its hash kept to know its copies). */
  record(kind, set, packet, length) {
    var body = packet.subarray(PAR2_HEADER_SIZE, length);
    var hash = packet.slice(16, 32);
    if (kind === "description") {
      if (body.length < 56) return this.malformedPacket(kind, "shorter than its fields");
      var fileLength = u64leNumber(body, 48);
      if (fileLength < 0) return this.malformedPacket(kind, "claiming a file of " + u64le(body, 48) + " bytes");
      var nameBytes = trailingZerosTrimmed(body.subarray(56));
      // Spec/recovery-par2.md §3.3: the file ID is MD5(hash16k ‖ u64le(length) ‖ name).
      if (!bytesEqual(md5(concatBytes([body.subarray(32, 56), nameBytes])), body.subarray(0, 16)))
        return this.malformedPacket(kind, "whose file ID is not the MD5 of its fields");
      set.descriptions.set(toHex(body.subarray(0, 16)), (set.descriptions.lastKept = {
        fileId: toHex(body.subarray(0, 16)),
        md5: body.slice(16, 32),
        md5First16k: body.slice(32, 48),
        length: fileLength,
        name: printable(nameBytes, 200),
        hash: hash,
      }));
    } else if (kind === "checksums") {
      if (body.length < 16 || (body.length - 16) % 20 !== 0) return this.malformedPacket(kind, "whose length is not 16 + 20 per slice");
      set.checksums.set(toHex(body.subarray(0, 16)), (set.checksums.lastKept = { bytes: body.slice(16), hash: hash }));
    } else if (kind === "creator") {
      set.creators.push({ text: printable(trailingZerosTrimmed(body), 200), hash: hash });
    }
    this.counted(body);
  }

  /** A packet's body kept: counted, and charged to PAR2_KEPT_LIMIT. */
  counted(body) {
    this.packets++;
    this.kept += body.length;
  }

  /** A recovery slice packet, noted where it lies (once per packet: a copy is known by its MD5). */
  note(set, source, offset, length, window, at, exponent) {
    var copies = set.recovery.get(exponent);
    if (copies) {
      for (var i = 0; i < copies.length; i++) {
        if (copies[i].length === length && equalAt(window, at + 16, copies[i].hash)) {
          this.duplicates++;
          return;
        }
      }
    }
    if ((copies && copies.length >= PAR2_CANDIDATES_PER_EXPONENT) || this.notes >= PAR2_MAX_NOTES) {
      this.dropped++;
      return;
    }
    if (!copies) {
      copies = [];
      set.recovery.set(exponent, copies);
    }
    this.notes++;
    copies.push({ source: source, offset: offset, length: length, hash: window.slice(at + 16, at + 32), verified: null });
  }

  /**
   * Charges `count` bytes to the reading's budget, or returns false (charging nothing) when they would pass it
   * (the scan's share of it, while scanning).
   */
  charge(count, scanning) {
    if (this.spent + count > (scanning ? this.scanLimit : this.budget)) return false;
    this.spent += count;
    return true;
  }

  /** What is left of the scan's share of the budget. */
  left() {
    return this.scanLimit - this.spent;
  }
}

/**
 * Every packet of one picked file (`source`: { size, read }) that the budgets let the scan reach, reading
 * each byte once. `onBytes(count)` follows the bytes read. Returns false when the file was not read to its end.
 */
async function scanRecoveryFile(scan, source, sourceIndex, pace, onBytes) {
  var size = source.size;
  var fileBudget = 2 * size + PAR2_BUDGET_BASE; // bytes hashed in this file (Spec/recovery-par2.md §6.1)
  var fileHashed = 0;
  var window = new Uint8Array(0);
  var windowStart = 0;
  var readTo = 0; // bytes of the file read so far
  var stop = function () {
    onBytes(size - readTo); // the rest is not read: the progress still ends
    return false;
  };
  /**
   * The window moved forward to start at `at` (at ≥ windowStart): read anew, the few bytes it held past `at`
   * with it (copying them would make every window twice: garbage the browser is slow to take back).
   */
  async function slide(at) {
    await pace();
    var end = Math.min(size, at + PAR2_SCAN_WINDOW);
    window = null;
    window = await source.read(at, end - at);
    windowStart = at;
    if (end > readTo) {
      onBytes(end - readTo);
      readTo = end;
    }
  }
  var pos = 0;
  while (pos + PAR2_PEEK <= size) {
    if (pace.due()) await pace(); // a turn of a promise per packet seen would be garbage too
    if (pos + PAR2_PEEK > windowStart + window.length) await slide(pos);
    if (scan.left() <= 0) return stop();
    var last = Math.min(window.length - PAR2_PEEK, pos - windowStart + Math.min(PAR2_SEARCH_STEP, scan.left() - 1));
    var found = findMagic(window, pos - windowStart, last);
    var searchedTo = found < 0 ? windowStart + last + 1 : windowStart + found + 8;
    if (!scan.charge(searchedTo - pos, true)) return stop();
    if (found < 0) {
      pos = searchedTo;
      continue;
    }
    var at = windowStart + found;
    pos = at + 8; // unless the packet holds: a length is trusted only then
    var length = u64leNumber(window, found + 8);
    var type = packetType(window, found + 48);
    if (!type) {
      scan.unknown++;
      continue;
    }
    if (length < type.minLength || length % 4 !== 0 || length > size - at || length > type.maxLength) {
      scan.damaged++;
      continue;
    }
    var set = scan.set(window, found + 32);
    if (set === null) {
      scan.otherSets++;
      continue;
    }
    if (type.kind === "recovery") {
      var exponent = u32le(window, found + 64);
      if (exponent >= PAR2_EXPONENT_LIMIT) {
        scan.malformedPacket("recovery slice", "with the exponent " + exponent + " (at most 65,535)");
        continue;
      }
      scan.note(set, sourceIndex, at, length, window, found, exponent);
      continue; // its data is searched too: a slice is checked only when used
    }
    if (scan.passedOver(type.kind, set, window, found, length)) continue;
    if (at + length > windowStart + window.length) {
      await slide(at);
      found = 0;
    }
    fileHashed += length;
    if (fileHashed > fileBudget || !scan.charge(length, true)) return stop();
    var packet = window.subarray(found, found + length);
    if (!bytesEqual(md5(packet.subarray(32)), packet.subarray(16, 32))) {
      scan.damaged++;
      continue;
    }
    if (type.kind === "main") await scan.recordMain(set, packet, length, pace);
    else scan.record(type.kind, set, packet, length);
    pos = at + length;
  }
  if (size > readTo) onBytes(size - readTo);
  return true;
}

/**
 * Every picked file scanned (`sources`), the smallest first (the index before the volumes, a huge file picked
 * by mistake last), within the reading's budget for a backup of `backupSize` bytes: the RecoveryScan.
 * `onBytes(count)` follows the bytes read.
 */
export async function scanRecoveryFiles(sources, backupSize, pace, onBytes) {
  var scan = new RecoveryScan(backupSize);
  var order = sources.map(function (source, index) {
    return index;
  });
  order.sort(function (a, b) {
    return sources[a].size - sources[b].size || a - b;
  });
  for (var n = 0; n < order.length; n++) {
    var i = order[n];
    if (scan.left() <= 0) {
      onBytes(sources[i].size);
      scan.notReadToEnd.push(i);
    } else if (!(await scanRecoveryFile(scan, sources[i], i, pace, onBytes))) scan.notReadToEnd.push(i);
  }
  return scan;
}
