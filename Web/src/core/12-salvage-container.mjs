// Salvage of a damaged or cut container (Spec/container-v1.md §7.4): what a person asks for when the only
// copy of a backup fails the strict checks. Every chunk that authenticates is released at its payload offset
// and every other is named, damaged or missing; nothing of a chunk that does not authenticate is ever used.
//
// Version 1, §7.4: checks 1–7 as always; no check 8 (a chunk the file ends inside is missing, bytes after
// the expected size are ignored and said); no check 9 as a verdict (a wrong length prefix makes its chunk
// damaged); every present chunk authenticated; the passphrase decided as §7.1 with missing chunks failing.
//
// Version 2 (container-v2.md has no salvage section; this is §7.4 read for its layout, the most careful
// way): checks 1–7 (check 7 on the size the file has); no check 8; the header MAC before anything
// (auth_failed: a wrong passphrase or header, nothing released); then every record at its place, its flag
// fixed by its length alone, never tried both ways (v2 §10.4): a record of chunkSize + 16 bytes is never the
// final one (f = 00), a shorter one at the end of the file is the final one (f = 01). When that final record
// authenticates, the payload's length is confirmed; otherwise the end of the payload is lost and its length
// unknown (the file was cut, or its end damaged: they cannot be told apart).

import { u32be, u32le } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import {
  chunkOffset, containerVersion, HEADER_SIZE, HEADER_SIZE_V2, layoutV2, parseHeaderV1, parseHeaderV2, TAG_SIZE,
  tooShort,
} from "./06-header.mjs";
import { deriveKey } from "./07-keys.mjs";
import { openRecord, readFromChunks } from "./10-container.mjs";
import { damagedRuns } from "./82-par2-verify.mjs";

/** Thrown by a salvaged payload's read of bytes that are not intact; never shown to a person. */
function notIntact(offset, end, state) {
  var error = new GoshuinError("not_intact", "bytes " + offset + "–" + end + " are " + state);
  error.state = state;
  return error;
}

export class SalvageContainer {
  /**
   * `header` has passed checks 1–7 of its version (and, in version 2, its MAC verified under `key`).
   * Call `authenticateAll` before anything else.
   */
  constructor(source, header, key) {
    this.source = source;
    this.header = header;
    this.key = key;
    var chunkSize = header.chunkSize;
    var fileSize = source.size;
    this.trailingBytes = 0;
    if (header.version === 1) {
      // Chunk i is present when the file holds all of its record: 4 + chunkPlaintext(i) + 16 bytes.
      var stride = chunkSize + 20;
      var full = fileSize >= HEADER_SIZE ? Math.floor((fileSize - HEADER_SIZE) / stride) : 0;
      var count = header.chunkCountBig;
      var present = BigInt(full) < count ? full : Number(count);
      if (BigInt(present) < count && BigInt(present) === count - 1n) {
        // The last chunk is shorter than a full one: present when its record is all there.
        var lastRecord = Number(header.plaintextLengthBig - BigInt(chunkSize) * (count - 1n)) + 20;
        if (HEADER_SIZE + present * stride + lastRecord <= fileSize) present++;
      }
      this.presentCount = present;
      this.chunkCountKnown = count; // BigInt: a cut file's header may claim up to 2^32 chunks
      this.lengthKnown = header.plaintextLengthBig; // BigInt, from the header
      if (BigInt(present) === count) this.trailingBytes = Number(BigInt(fileSize) - header.expectedFileSize);
      this.lastLength = BigInt(present) === count ? Number(header.plaintextLengthBig - BigInt(chunkSize) * (count - 1n)) : chunkSize;
    } else {
      var layout = layoutV2(chunkSize, fileSize); // check 7
      var fullRecords = Number(layout.count) - 1;
      var last = Number(layout.last);
      // Records 0 … fullRecords − 1 are full (f = 00); a last one of 16 … S − 1 bytes is the final one.
      this.presentCount = fullRecords + (last >= TAG_SIZE ? 1 : 0);
      this.finalCandidate = last >= TAG_SIZE ? fullRecords : -1;
      this.fragment = last > 0 && last < TAG_SIZE ? last : 0; // bytes of a record cut before its tag
      this.lastLength = last >= TAG_SIZE ? last - TAG_SIZE : chunkSize;
      this.chunkCountKnown = null; // known once the final record authenticates
      this.lengthKnown = null;
    }
    // One bit a present chunk (set: damaged), as the strict reader keeps; the chunks from presentCount on
    // are missing. No list of indices: a file of a hundred million damaged chunks stays small.
    this.damagedBits = new Uint8Array(Math.ceil(this.presentCount / 8));
    this.damagedCount = 0;
  }

  isDamaged(index) {
    return (this.damagedBits[index >> 3] & (1 << (index & 7))) !== 0;
  }

  /** Whether chunk `index` is present and authenticated. */
  isIntactChunk(index) {
    return index >= 0 && index < this.presentCount && !this.isDamaged(index);
  }

  /** The damaged chunks among [first, last], as runs [{ first, last }] ascending; at most `limit` runs. */
  damagedRuns(first, last, limit) {
    var runs = [];
    if (this.damagedCount === 0) return runs;
    var end = Math.min(last, this.presentCount - 1);
    for (var index = Math.max(0, first); index <= end; index++) {
      if ((index & 7) === 0 && this.damagedBits[index >> 3] === 0) {
        index += 7; // a byte of intact chunks
        continue;
      }
      if (!this.isDamaged(index)) continue;
      var run = runs[runs.length - 1];
      if (run && run.last === index - 1) run.last = index;
      else {
        if (limit !== undefined && runs.length >= limit) break;
        runs.push({ first: index, last: index });
      }
    }
    return runs;
  }

  /** The plaintext bytes chunk `index` carries (it is present). */
  chunkLength(index) {
    return index === this.presentCount - 1 ? this.lastLength : this.header.chunkSize;
  }

  /** Whether chunk `index` (present) is sealed as the final one: version 1 by the header, version 2 by its length. */
  isFinal(index) {
    if (this.header.version === 2) return index === this.finalCandidate;
    return BigInt(index) === this.chunkCountKnown - 1n;
  }

  /** Where chunk `index`'s record lies in the file (it is present): { offset, length }, its length prefix included. */
  recordSpan(index) {
    var header = this.header;
    return { offset: chunkOffset(header, index), length: header.prefixSize + this.chunkLength(index) + TAG_SIZE };
  }

  /** The plaintext of chunk `index` from its record as read, or null when it does not authenticate (a wrong length prefix included). */
  openRead(index, record) {
    var header = this.header;
    if (header.prefixSize && u32be(record, 0) !== this.chunkLength(index) + TAG_SIZE) return Promise.resolve(null); // §7.4 step 3
    return openRecord(this.key, header, index, this.isFinal(index), record.subarray(header.prefixSize));
  }

  /** The chunk's plaintext, or null when it does not authenticate. */
  async tryDecrypt(index) {
    var span = this.recordSpan(index);
    return this.openRead(index, await this.source.read(span.offset, span.length));
  }

  /** Chunk `index` (present) does not authenticate. */
  markDamaged(index) {
    this.damagedBits[index >> 3] |= 1 << (index & 7);
    this.damagedCount++;
  }

  /**
   * Step 4: every present chunk authenticated once, each dropped at once. Version 1, step 5: when the lowest
   * lost chunk is 0 and none of chunks 1–3 authenticates, `auth_failed` (found first, before the rest is
   * read). `onChunk(done, count)` follows it; `signal` stops between chunks. `options`: `rest(container,
   * from, known, signal, onChunk)`, which authenticates the chunks after the first four elsewhere and marks
   * the damaged ones (13-chunk-runs.mjs: by the page's workers); `known(index)`, chunk `index` authenticated
   * under the same key by a reader of this file already (a strict reader's, whose verdict this salvage
   * follows): not read again.
   */
  async authenticateAll(signal, onChunk, options) {
    var count = this.presentCount;
    var rest = (options && options.rest) || null;
    var known = (options && options.known) || function () {
      return false;
    };
    var here = rest ? Math.min(count, 4) : count;
    for (var index = 0; index < here; index++) {
      if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
      if (onChunk) onChunk(index, count);
      if (!known(index) && (await this.tryDecrypt(index)) === null) this.markDamaged(index);
      if (this.header.version === 1 && index === Math.min(3, count - 1)) this.decidePassphrase();
    }
    if (here < count) await rest(this, here, known, signal, onChunk);
    if (this.header.version === 1) this.decidePassphrase();
    if (this.header.version === 2 && this.finalCandidate >= 0 && this.isIntactChunk(this.finalCandidate)) {
      this.chunkCountKnown = BigInt(this.presentCount);
      this.lengthKnown = BigInt((this.presentCount - 1) * this.header.chunkSize + this.lastLength);
    }
    if (onChunk) onChunk(count, count);
  }

  /** Version 1, §7.4 step 5 (and §7.1): chunk 0 lost and none of chunks 1, 2, 3 intact is auth_failed. */
  decidePassphrase() {
    var lost = function (index, self) {
      return !self.isIntactChunk(index);
    };
    if (this.presentCount > 0 && !lost(0, this)) return;
    for (var j = 1; j <= 3; j++) if (BigInt(j) < this.chunkCountKnown && !lost(j, this)) return;
    throw new GoshuinError("auth_failed", "no chunk at the start of the file authenticates: wrong passphrase, or the header was altered (or the start of the file is damaged: they cannot be told apart)");
  }

  /** Payload bytes the present chunks cover: [0, presentEnd). */
  get presentEnd() {
    return this.presentCount === 0 ? 0 : (this.presentCount - 1) * this.header.chunkSize + this.chunkLength(this.presentCount - 1);
  }

  /**
   * The payload's length when it is known (version 1: its header; version 2: its final record), else null.
   * Past 2^53 (a cut file's header may claim that much) it is 2^53 − 1: those bytes are missing anyway.
   */
  get size() {
    if (this.lengthKnown === null) return null;
    return Number(this.lengthKnown > 9007199254740991n ? 9007199254740991n : this.lengthKnown);
  }

  /** Nothing is lost: every chunk is present and authenticates, and the payload's end is known. */
  get complete() {
    return this.damagedCount === 0 && this.lengthKnown !== null && this.chunkCountKnown === BigInt(this.presentCount);
  }

  /**
   * The state of the payload bytes [start, end) (numbers or BigInts): "damaged" when one lies in a damaged
   * chunk, else "missing" when one lies in a missing chunk (or past the end of a cut file whose length is
   * unknown), else "outside" when one lies past the payload's known end, else "intact".
   */
  stateOf(start, end) {
    start = BigInt(start);
    end = BigInt(end);
    if (end <= start) return "intact";
    var chunkSize = BigInt(this.header.chunkSize);
    var presentEnd = BigInt(this.presentEnd);
    if (start < presentEnd && this.damagedCount > 0) {
      var first = Number(start / chunkSize);
      var last = Number(((end < presentEnd ? end : presentEnd) - 1n) / chunkSize);
      if (this.damagedRuns(first, last, 1).length > 0) return "damaged";
    }
    // Missing: a byte in a missing chunk before a known end, or past what the file holds once it is unknown.
    var known = this.lengthKnown;
    if (end > presentEnd && (known === null || (start < known && presentEnd < known))) return "missing";
    if (this.lengthKnown !== null && end > this.lengthKnown) return "outside";
    return "intact";
  }

  /**
   * The lost chunks of the payload bytes [start, end) in the `state` given ("damaged" or "missing"), as runs
   * [{ first, last }] ascending (a missing run reaching past what a cut version 2 file holds ends at the
   * chunk of its last byte, whose index the offsets give).
   */
  lostChunksOf(start, end, state) {
    var chunkSize = BigInt(this.header.chunkSize);
    start = BigInt(start);
    end = BigInt(end);
    if (end <= start) return [];
    var firstBig = start / chunkSize;
    var lastBig = (end - 1n) / chunkSize;
    if (this.chunkCountKnown !== null && lastBig >= this.chunkCountKnown) lastBig = this.chunkCountKnown - 1n;
    var runs = [];
    if (state === "missing") {
      var from = firstBig > BigInt(this.presentCount) ? firstBig : BigInt(this.presentCount);
      if (from <= lastBig) runs.push({ first: Number(from), last: Number(lastBig) });
      return runs;
    }
    return this.damagedRuns(Number(firstBig), Number(lastBig));
  }

  /**
   * The verdict on intact chunk `index` failing when read again (here, or by a worker's reader of the same
   * chunks: 71-sealing-runs.mjs): it authenticated before, so the file changed while it was open (`io`).
   */
  verdict(index) {
    return new GoshuinError("io", "chunk " + index + " authenticated before and no longer does: the file changed while it was open");
  }

  /** Chunk `index`'s plaintext (it is intact), authenticated again; the file changing since is `io`. */
  async chunk(index) {
    if (this.cached && this.cached.index === index) return this.cached.bytes;
    if (!this.isIntactChunk(index)) throw notIntact(index * this.header.chunkSize, (index + 1) * this.header.chunkSize, "not intact");
    var bytes = await this.tryDecrypt(index);
    if (bytes === null) throw this.verdict(index);
    this.cached = { index: index, bytes: bytes };
    return bytes;
  }

  /** `length` payload bytes at `offset`, all intact (else a not_intact error, before any is read). */
  async read(offset, length) {
    var state = this.stateOf(offset, offset + length);
    if (state !== "intact") throw notIntact(offset, offset + length, state);
    return readFromChunks(this, offset, length);
  }

  /** The payload bytes [offset, offset + length) as pieces of one chunk each, all intact. */
  async *stream(offset, length, signal) {
    if (length === 0) return;
    var state = this.stateOf(offset, offset + length);
    if (state !== "intact") throw notIntact(offset, offset + length, state);
    var size = this.header.chunkSize;
    var end = offset + length;
    for (var index = Math.floor(offset / size); index * size < end; index++) {
      if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
      var bytes = await this.chunk(index);
      var base = index * size;
      yield bytes.subarray(Math.max(offset, base) - base, Math.min(end, base + bytes.length) - base);
    }
  }

  /**
   * The next payload offset ≥ `from` whose four bytes are intact and equal `signature` (a u32le), or -1. Only
   * intact chunks are read; a damaged one is skipped whole.
   */
  async findSignature(from, signature, signal) {
    var size = this.header.chunkSize;
    var end = this.size === null ? this.presentEnd : Math.min(this.size, this.presentEnd);
    var b0 = signature & 0xff;
    var carry = null; // the last 3 bytes of the chunk before, when it was intact
    var carryBase = 0;
    for (var index = Math.floor(from / size); index * size < end; index++) {
      if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
      if (!this.isIntactChunk(index)) {
        carry = null;
        continue;
      }
      var bytes = await this.chunk(index);
      var base = index * size;
      var window = bytes;
      var windowBase = base;
      if (carry) {
        window = new Uint8Array(carry.length + bytes.length);
        window.set(carry, 0);
        window.set(bytes, carry.length);
        windowBase = carryBase;
      }
      var start = Math.max(0, from - windowBase);
      for (var at = window.indexOf(b0, start); at >= 0 && at + 4 <= window.length; at = window.indexOf(b0, at + 1)) {
        if (u32le(window, at) === signature >>> 0 && windowBase + at + 4 <= end) return windowBase + at;
      }
      var keep = Math.min(3, window.length);
      carry = window.slice(window.length - keep);
      carryBase = windowBase + window.length - keep;
    }
    return -1;
  }

  /**
   * The lost chunks, ascending, as runs of one state: [{ first, last, state }] ("damaged" or "missing";
   * `last` null when the missing run reaches an end that is not known, in version 2). With `limit`, at most
   * that many runs of damaged chunks (the missing run is always the last).
   */
  lostRuns(limit) {
    var runs = this.damagedRuns(0, this.presentCount - 1, limit).map(function (run) {
      return { first: run.first, last: run.last, state: "damaged" };
    });
    if (this.chunkCountKnown === null) runs.push({ first: this.presentCount, last: null, state: "missing" });
    else if (BigInt(this.presentCount) < this.chunkCountKnown)
      runs.push({ first: this.presentCount, last: Number(this.chunkCountKnown - 1n), state: "missing" });
    return runs;
  }

  /** How many chunks are lost (the chunks of a version 2 file's unknown end count as one). */
  get lostCount() {
    var missing = this.chunkCountKnown === null ? 1 : Number(this.chunkCountKnown - BigInt(this.presentCount));
    return this.damagedCount + missing;
  }

  /** Each lost chunk, ascending: [{ index, state }]; a missing run of unknown end gives its first index. */
  lostChunks() {
    var out = [];
    this.lostRuns().forEach(function (run) {
      var last = run.last === null ? run.first : run.last;
      for (var i = run.first; i <= last; i++) out.push({ index: i, state: run.state });
    });
    return out;
  }
}

/**
 * §7.4 on `source` with the passphrase: checks 1–7 of the file's version, the key (version 2: and its header
 * MAC), every present chunk authenticated (`options.rest` as authenticateAll's), the passphrase decided.
 * Returns the SalvageContainer.
 * `options.onProgress(stage, done, total, header)` as openBackup's ("key", then "salvage").
 */
export async function salvageContainer(source, passphraseBytes, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  if (source.size < HEADER_SIZE) throw tooShort(source.size, HEADER_SIZE);
  var bytes = await source.read(0, Math.min(source.size, HEADER_SIZE_V2));
  var version = containerVersion(bytes, source.size);
  var header;
  if (version === 1) {
    header = parseHeaderV1(bytes);
    header.fileSize = source.size;
    // The values chunkOffset and the reads use: below the file size while chunks are present.
    header.chunkCount = header.chunkCountBig > 4294967296n ? 4294967296 : Number(header.chunkCountBig);
    header.plaintextLength = Number(header.plaintextLengthBig > 9007199254740991n ? 9007199254740991n : header.plaintextLengthBig);
  } else {
    header = parseHeaderV2(bytes, source.size);
    layoutV2(header.chunkSize, source.size); // check 7, before the key
  }
  progress("key", 0, 1, header);
  var key = await deriveKey(passphraseBytes, header, function (fraction) {
    progress("key", fraction, 1);
  });
  if (options.signal && options.signal.aborted) throw new GoshuinError("interrupted", "stopped");
  var salvage = new SalvageContainer(source, header, key);
  await salvage.authenticateAll(options.signal, function (done, total) {
    progress("salvage", done, total);
  }, { rest: options.rest });
  return salvage;
}
