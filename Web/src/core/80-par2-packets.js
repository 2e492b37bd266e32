// PAR 2.0 recovery files (the Parity Volume Set Specification 2.0) beside a backup: their packets, found by
// scanning every byte of the files picked, and the recovery set they describe for that backup.
//
// A packet is magic "PAR2\0PKT", its length (u64le, the whole packet, a multiple of 4), the MD5 of what
// follows the MD5 field, the recovery set ID, its type (16 bytes) and its body. Read here: main (slice size,
// the files of the set), file description (a file's ID, MD5, MD5 of its first 16 KiB, length, name),
// input file slice checksums (an MD5 and a CRC-32 per slice) and creator; recovery slices (an exponent
// and a slice of recovery data) are noted where they lie and checked only when a repair needs them. A
// packet whose MD5 fails, of an unknown type, or longer than its type allows is skipped, and the scan goes
// on 8 bytes later (a length is trusted only once its packet's MD5 held). Every bound is checked before
// anything is allocated or hashed, and the bytes hashed for packets that fail are charged to a budget, so
// no file can make the scan allocate without bound, hash without bound or loop.
//
// The set is matched to the backup by the file description's length and MD5 of the first 16 KiB, never by
// its name: names are only ever shown, escaped.

var PAR2_HEADER_SIZE = 64;
var PAR2_PEEK = 68; // a header and the first word of its body (a recovery slice's exponent)
var PAR2_MAGIC = [0x50, 0x41, 0x52, 0x32, 0x00, 0x50, 0x4b, 0x54]; // "PAR2\0PKT"
var PAR2_SCAN_WINDOW = 8388608; // bytes read at a time; more than the longest packet read whole (main)
var PAR2_MAX_FILES = 32768; // files in a recovery set (each file of a recovery set has at least one slice)
var PAR2_MAX_SLICE_SIZE = 2147483648; // parsed; what a repair can hold is limits.recoveryMemory
var PAR2_MAX_NAME = 65536;
var PAR2_MAX_SETS = 64; // sets among the files picked (several backups' files picked at once)
var PAR2_MAX_CANDIDATES = 131072; // recovery slice packets noted (65,536 exponents, most twice)
var PAR2_CANDIDATES_PER_EXPONENT = 4; // copies of one recovery slice kept, should some be damaged
var PAR2_EXPONENT_LIMIT = 65536; // exponents are 16-bit (PAR 2.0 "Recovery Slice packet")

/** The packet types read, by their 16 bytes (latin1), with the longest packet each may be. */
var PAR2_TYPES = {
  "PAR 2.0\0Main\0\0\0\0": { kind: "main", maxLength: PAR2_HEADER_SIZE + 12 + 16 * 2 * PAR2_MAX_FILES },
  "PAR 2.0\0FileDesc": { kind: "description", maxLength: PAR2_HEADER_SIZE + 56 + PAR2_MAX_NAME },
  "PAR 2.0\0IFSC\0\0\0\0": { kind: "checksums", maxLength: PAR2_HEADER_SIZE + 16 + 20 * PAR2_MAX_INPUT_SLICES },
  "PAR 2.0\0Creator\0": { kind: "creator", maxLength: PAR2_HEADER_SIZE + PAR2_MAX_NAME },
  "PAR 2.0\0RecvSlic": { kind: "recovery", maxLength: PAR2_PEEK + PAR2_MAX_SLICE_SIZE },
};

// The page's limits for a repair (tests lower them): the slices rebuilt are held in memory, and the
// matrix has one row and one column per slice to rebuild.
limits.recoveryMemory = 536870912;
limits.recoveryUnknowns = 512;
limits.recoveryWork = 268435456; // scalar products for the coefficients of a rebuild (see rebuildPlan)

function recoveryInvalid(detail) {
  return new GoshuinError("recovery_set_invalid", detail);
}

/** A u64le below 2^53 as a Number, or -1 when it is not (no PAR 2.0 length this page reads is that large). */
function u64leNumber(bytes, at) {
  var high = u32le(bytes, at + 4);
  if (high >= 0x200000) return -1;
  return high * 4294967296 + u32le(bytes, at);
}

function latin1(bytes) {
  return String.fromCharCode.apply(null, bytes);
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
 * A name or a creator's text for a message: UTF-8 (bytes that are not, as U+FFFD), control characters as \xHH,
 * at most `limit` characters. It only ever reaches the page as text.
 */
function printable(bytes, limit) {
  var text = new TextDecoder("utf-8").decode(bytes);
  var shown = Array.from(text);
  var out = shown
    .slice(0, limit)
    .map(function (ch) {
      var code = ch.codePointAt(0);
      if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return "\\x" + (code < 16 ? "0" : "") + code.toString(16);
      // Marks that reorder or hide the text around them (bidirectional controls, line and paragraph separators).
      if (code === 0x200e || code === 0x200f || (code >= 0x2028 && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069))
        return "\\u" + code.toString(16);
      return ch;
    })
    .join("");
  return shown.length > limit ? out + "…" : out;
}

function trailingZerosTrimmed(bytes) {
  var end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.slice(0, end);
}

/** What a scan of the picked files found: packets by recovery set, and what it skipped. */
class RecoveryScan {
  constructor(totalSize) {
    this.sets = new Map();
    this.seen = new Set(); // the MD5s of packets read: a copy is skipped
    this.candidates = 0;
    this.hashed = 0;
    this.budget = 2 * totalSize + 67108864; // bytes hashed for small packets, the ones that fail included
    this.packets = 0;
    this.damaged = 0; // MD5 failed, or a length or field out of bounds
    this.unknown = 0;
    this.duplicates = 0;
    this.otherSets = 0; // packets of sets past PAR2_MAX_SETS
    this.malformed = []; // why packets whose MD5 held were not used (a few)
  }

  set(id) {
    var key = toHex(id);
    var set = this.sets.get(key);
    if (set) return set;
    if (this.sets.size >= PAR2_MAX_SETS) return null;
    set = {
      id: id.slice(),
      key: key,
      main: null,
      descriptions: new Map(),
      checksums: new Map(),
      creators: [],
      recovery: new Map(), // exponent → [{ source, offset, length, hash }]
    };
    this.sets.set(key, set);
    return set;
  }

  malformedPacket(kind, why) {
    this.damaged++;
    if (this.malformed.length < 8) this.malformed.push("a " + kind + " packet " + why);
  }

  /** A packet whose MD5 held: its body read into its set. */
  record(kind, set, packet, length) {
    var body = packet.subarray(PAR2_HEADER_SIZE, length);
    if (kind === "main") {
      if (!bytesEqual(md5(body), set.id)) return this.malformedPacket(kind, "whose recovery set ID is not its MD5");
      if (set.main) return;
      var sliceSize = body.length >= 12 ? u64leNumber(body, 0) : -1;
      if (sliceSize <= 0 || sliceSize % 4 !== 0 || sliceSize > PAR2_MAX_SLICE_SIZE)
        return this.malformedPacket(kind, "with a slice size of " + (body.length >= 12 ? u64le(body, 0) : "?") + " bytes (a multiple of 4, at most " + PAR2_MAX_SLICE_SIZE + ")");
      var count = u32le(body, 8);
      var listed = (body.length - 12) / 16;
      if (!Number.isInteger(listed) || count > listed || count > PAR2_MAX_FILES)
        return this.malformedPacket(kind, "claiming " + count + " files in " + body.length + " bytes");
      var fileIds = [];
      for (var i = 0; i < count; i++) fileIds.push(toHex(body.subarray(12 + 16 * i, 28 + 16 * i)));
      set.main = { sliceSize: sliceSize, fileIds: fileIds };
    } else if (kind === "description") {
      if (body.length < 56) return this.malformedPacket(kind, "shorter than its fields");
      var fileLength = u64leNumber(body, 48);
      if (fileLength < 0) return this.malformedPacket(kind, "claiming a file of " + u64le(body, 48) + " bytes");
      var id = toHex(body.subarray(0, 16));
      if (set.descriptions.has(id)) return;
      set.descriptions.set(id, {
        fileId: id,
        md5: body.slice(16, 32),
        md5First16k: body.slice(32, 48),
        length: fileLength,
        name: printable(trailingZerosTrimmed(body.subarray(56)), 200),
      });
    } else if (kind === "checksums") {
      if (body.length < 16 || (body.length - 16) % 20 !== 0) return this.malformedPacket(kind, "whose length is not 16 + 20 per slice");
      var file = toHex(body.subarray(0, 16));
      if (!set.checksums.has(file)) set.checksums.set(file, body.slice(16));
    } else if (kind === "creator") {
      var creator = printable(trailingZerosTrimmed(body), 200);
      if (set.creators.length < 4 && set.creators.indexOf(creator) < 0) set.creators.push(creator);
    }
  }

  /** A recovery slice packet, noted where it lies; its MD5 is checked when a repair uses it. */
  note(set, source, offset, length, header, exponent) {
    var copies = set.recovery.get(exponent);
    if (!copies) {
      copies = [];
      set.recovery.set(exponent, copies);
    }
    if (copies.length >= PAR2_CANDIDATES_PER_EXPONENT) {
      this.duplicates++;
      return;
    }
    if (++this.candidates > PAR2_MAX_CANDIDATES)
      throw recoveryInvalid("the recovery files hold more than " + PAR2_MAX_CANDIDATES + " recovery slice packets; PAR 2.0 has at most 65,536 recovery slices");
    copies.push({ source: source, offset: offset, length: length, hash: header.slice(16, 32), verified: null });
  }
}

/**
 * Every packet of one picked file (`source`: { size, read }), in one pass of PAR2_SCAN_WINDOW reads.
 * `onBytes(count)` follows the bytes read.
 */
async function scanRecoveryFile(scan, source, sourceIndex, signal, onBytes) {
  var size = source.size;
  var window = new Uint8Array(0);
  var windowStart = 0;
  var scanned = 0;
  async function load(at) {
    if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
    window = await source.read(at, Math.min(PAR2_SCAN_WINDOW, size - at));
    windowStart = at;
    if (at + window.length > scanned) {
      onBytes(at + window.length - scanned);
      scanned = at + window.length;
    }
  }
  var pos = 0;
  while (pos + PAR2_PEEK <= size) {
    if (pos < windowStart || pos + PAR2_PEEK > windowStart + window.length) await load(pos);
    var found = findMagic(window, pos - windowStart, window.length - PAR2_PEEK);
    if (found < 0) {
      if (windowStart + window.length >= size) break;
      pos = windowStart + window.length - PAR2_PEEK + 1;
      continue;
    }
    var at = windowStart + found;
    pos = at + 8; // unless the packet holds: a length is trusted only then
    var length = u64leNumber(window, found + 8);
    var type = PAR2_TYPES[latin1(window.subarray(found + 48, found + 64))];
    if (!type) {
      scan.unknown++;
      continue;
    }
    if (length < PAR2_PEEK || length % 4 !== 0 || length > size - at || length > type.maxLength) {
      scan.damaged++;
      continue;
    }
    var set = scan.set(window.subarray(found + 32, found + 48));
    if (set === null) {
      scan.otherSets++;
      continue;
    }
    if (type.kind === "recovery") {
      if (length - PAR2_PEEK < 4) {
        scan.damaged++;
        continue;
      }
      var exponent = u32le(window, found + 64);
      if (exponent >= PAR2_EXPONENT_LIMIT) {
        scan.malformedPacket("recovery slice", "with the exponent " + exponent + " (at most 65,535)");
        continue;
      }
      scan.note(set, sourceIndex, at, length, window.subarray(found, found + PAR2_HEADER_SIZE), exponent);
      continue; // its data is scanned too: a slice is checked only when used
    }
    var hashKey = toHex(window.subarray(found + 16, found + 48)); // its MD5 and its set
    if (scan.seen.has(hashKey)) {
      scan.duplicates++;
      continue;
    }
    if (at + length > windowStart + window.length) {
      await load(at);
      found = 0;
    }
    scan.hashed += length;
    if (scan.hashed > scan.budget)
      throw recoveryInvalid("the recovery files hold too many damaged packets to check (more than " + scan.budget + " bytes hashed)");
    var packet = window.subarray(found, found + length);
    if (!bytesEqual(md5(packet.subarray(32)), packet.subarray(16, 32))) {
      scan.damaged++;
      continue;
    }
    scan.packets++;
    scan.seen.add(hashKey);
    scan.record(type.kind, set, packet, length);
    pos = at + length;
  }
  if (size > scanned) onBytes(size - scanned);
}

/**
 * The file of a recovery set that is the backup `target` ({ size, md5First16k }), and all a repair needs
 * of the set. Chosen by the file description's length and MD5 of the first 16 KiB: both equal first; then
 * the MD5 of the first 16 KiB alone (a file cut or added to); then the length alone (damage in the first
 * 16 KiB) or the only file of the only set, which a repair accepts only if one of its slices proves it.
 */
function recoveryTarget(scan, target) {
  var best = null;
  var reasons = [];
  scan.sets.forEach(function (set) {
    if (!set.main) {
      reasons.push("a set without its main packet");
      return;
    }
    set.main.fileIds.forEach(function (fileId, position) {
      var description = set.descriptions.get(fileId);
      if (!description) return;
      var sameStart = bytesEqual(description.md5First16k, target.md5First16k);
      var sameLength = description.length === target.size;
      var rank = sameStart && sameLength ? 3 : sameStart ? 2 : sameLength ? 1 : 0;
      var slices = 0;
      set.recovery.forEach(function (copies) {
        slices += copies.length > 0 ? 1 : 0;
      });
      if (best === null || rank > best.rank || (rank === best.rank && slices > best.slices))
        best = { set: set, position: position, description: description, rank: rank, slices: slices };
    });
  });
  if (scan.sets.size === 0 && scan.damaged === 0 && scan.unknown === 0 && scan.otherSets === 0)
    throw new GoshuinError("recovery_set_not_found", "the files picked hold no PAR 2.0 packet: none of them is a recovery file");
  if (scan.sets.size === 0)
    throw recoveryInvalid("the files picked hold no PAR 2.0 packet that is intact (" + (scan.damaged + scan.unknown) + " damaged or of unknown types)");
  if (best === null) {
    var mains = 0;
    scan.sets.forEach(function (set) {
      mains += set.main ? 1 : 0;
    });
    throw recoveryInvalid(
      mains === 0
        ? "the main packet of the recovery set is missing or damaged in every copy" + (scan.malformed.length ? " (" + scan.malformed.join("; ") + ")" : "")
        : "the recovery set's file descriptions are missing or damaged in every copy"
    );
  }
  var soleFile = scan.sets.size === 1 && best.set.main.fileIds.length === 1;
  if (best.rank === 0 && !soleFile)
    throw new GoshuinError(
      "recovery_set_mismatch",
      "no file of the recovery set has this backup's length (" + target.size + " bytes) or its first 16 KiB; the set protects " + describeFiles(scan)
    );
  return layoutOfTarget(best, target);
}

function describeFiles(scan) {
  var names = [];
  scan.sets.forEach(function (set) {
    set.descriptions.forEach(function (description) {
      if (names.length < 4) names.push('"' + description.name + '" (' + description.length + " bytes)");
    });
  });
  return names.length ? names.join(", ") : "no file described intact";
}

/** The slices of the set, where the backup's lie among them, and the checksums of the backup's. */
function layoutOfTarget(best, target) {
  var set = best.set;
  var sliceSize = set.main.sliceSize;
  var firstSlice = 0;
  var totalSlices = 0;
  var otherSlices = [];
  for (var i = 0; i < set.main.fileIds.length; i++) {
    var description = set.descriptions.get(set.main.fileIds[i]);
    if (!description)
      throw recoveryInvalid("the recovery set protects " + set.main.fileIds.length + " files and the description of one of them is missing or damaged in every copy");
    var count = Math.ceil(description.length / sliceSize);
    if (totalSlices + count > PAR2_MAX_INPUT_SLICES)
      throw recoveryInvalid("the recovery set claims more than " + PAR2_MAX_INPUT_SLICES + " slices (PAR 2.0 allows at most that)");
    if (i === best.position) firstSlice = totalSlices;
    else for (var s = 0; s < count; s++) otherSlices.push(totalSlices + s);
    totalSlices += count;
  }
  var description = best.description;
  var sliceCount = Math.ceil(description.length / sliceSize);
  var checksums = set.checksums.get(description.fileId);
  if (!checksums) throw recoveryInvalid("the checksums of the backup's slices (its IFSC packet) are missing or damaged in every copy");
  if (checksums.length !== 20 * sliceCount)
    throw recoveryInvalid("the checksums packet lists " + checksums.length / 20 + " slices; the file description implies " + sliceCount);
  var exponents = [];
  set.recovery.forEach(function (copies, exponent) {
    var usable = copies.filter(function (copy) {
      return copy.length === PAR2_PEEK + sliceSize;
    });
    if (usable.length) exponents.push({ exponent: exponent, copies: usable });
  });
  exponents.sort(function (a, b) {
    return a.exponent - b.exponent;
  });
  return {
    set: set,
    description: description,
    match: ["sole", "size", "start", "exact"][best.rank],
    sliceSize: sliceSize,
    sliceCount: sliceCount,
    firstSlice: firstSlice,
    totalSlices: totalSlices,
    otherSlices: otherSlices,
    checksums: checksums,
    exponents: exponents,
  };
}
