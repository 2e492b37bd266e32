// The container's reader, versions 1 (Spec/container-v1.md) and 2 (Spec/container-v2.md): after the checks
// up to the key (06-header.mjs, 07-keys.mjs), a random-access reader that authenticates each chunk before any
// byte of it is used and gives one verdict per file for damage or a wrong passphrase (v1 §7.1, v2 §7.1:
// "one verdict per file").

import { giveBack, u32be } from "./00-bytes.mjs";
import { asGoshuinError, GoshuinError } from "./01-errors.mjs";
import {
  checkLengthPrefixes, chunkOffset, chunkPlaintextLength, HEADER_SIZE, HEADER_SIZE_V2, parseHeader, TAG_SIZE,
  tooShort,
} from "./06-header.mjs";
import { deriveKey } from "./07-keys.mjs";

/**
 * The nonce of chunk `index`: version 1, nonceBase ‖ u32be(i); version 2, 00×7 ‖ u32be(i) ‖ f, f = 01 for
 * the final record (its position, `final`, decides: never both flags on one record, v2 §10.4).
 */
export function chunkNonce(header, index, final) {
  var iv = new Uint8Array(12);
  var at = 8;
  if (header.version === 1) iv.set(header.nonceBase, 0);
  else {
    at = 7;
    iv[11] = final ? 1 : 0;
  }
  iv[at] = index >>> 24;
  iv[at + 1] = (index >>> 16) & 0xff;
  iv[at + 2] = (index >>> 8) & 0xff;
  iv[at + 3] = index & 0xff;
  return iv;
}

/**
 * AES-256-GCM decryption of one record (ciphertext ‖ 16-byte tag) with the whole header as AAD: the
 * plaintext, or null when it does not authenticate. A tag is always 16 bytes (tagLength 128, v2 §10.5).
 */
export async function openRecord(key, header, index, final, sealed) {
  try {
    var plaintext = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: chunkNonce(header, index, final), additionalData: header.bytes, tagLength: 128 },
      key,
      sealed
    );
    return new Uint8Array(plaintext);
  } catch (error) {
    if (error && error.name === "OperationError") return null;
    throw asGoshuinError(error);
  }
}

/**
 * `length` payload bytes at `offset`, copied out of the chunks `reader.chunk(index)` gives (each
 * `reader.header.chunkSize` bytes but the last): the one read loop of the strict and the salvaging reader.
 */
export async function readFromChunks(reader, offset, length) {
  var out = new Uint8Array(length);
  var done = 0;
  var size = reader.header.chunkSize;
  while (done < length) {
    var position = offset + done;
    var index = Math.floor(position / size);
    var bytes = await reader.chunk(index);
    var from = position - index * size;
    var take = Math.min(bytes.length - from, length - done);
    out.set(bytes.subarray(from, from + take), done);
    done += take;
  }
  return out;
}

var READ_AHEAD_BYTES = 16 * 1048576; // a read of the file, at most, when reading ahead (larger reads are faster)
var READ_AHEAD_CHUNKS = 32;
var READ_AHEAD_ALL_WORKERS = 32 * 1048576;

/**
 * The bytes a reader of each of `workers` workers reads ahead: 32 MiB across them, 16 MiB each at most (each
 * also holds them decrypted). WebKitGTK says four cores on two: with four workers reading 16 MiB ahead each,
 * its renderer reached 936–1,013 MiB opening a 1 GiB backup and 1,141 MiB repairing it; 8 MiB each, 818 and
 * 915 MiB.
 */
export function readAheadBytes(workers) {
  return Math.min(READ_AHEAD_BYTES, Math.floor(READ_AHEAD_ALL_WORKERS / Math.max(1, workers)));
}

/** The bytes of chunk `index` in the file: its length prefix (version 1), ciphertext and tag. */
function recordLength(header, index) {
  return header.prefixSize + chunkPlaintextLength(header, index) + TAG_SIZE;
}

/** A chunk read ahead: its record at `at` in the bytes of a group read, opened once they are in. */
function openAt(reader, index, records, at, length) {
  return records.then(function (bytes) {
    return reader.openChunk(index, bytes.subarray(at, at + length));
  });
}

/** A chunk that fails in a reader that judges no file: the page's reader gives the verdict. */
function unjudgedChunk(index) {
  var error = new GoshuinError("chunk_damaged", "chunk " + index + " fails authentication (not yet judged)", index);
  error.unjudged = true;
  return error;
}

/**
 * Reads chunks by index, each authenticated before use; a few recent ones are kept. A chunk that fails
 * gives the verdict of the whole file (`verdict`), whatever order the chunks were asked for in.
 */
export class ContainerReader {
  constructor(source, header, key, options) {
    this.source = source;
    this.header = header;
    this.key = key;
    this.authenticated = new Uint8Array(Math.ceil(header.chunkCount / 8));
    this.cache = [];
    this.cacheLimit = 3 * 4194304;
    this.onProbe = (options && options.onProbe) || null;
    // A worker's reader (28-worker-tasks.mjs) judges no file: a chunk that fails is said to the page,
    // whose reader gives the verdict with every chunk the workers authenticated (`addAuthenticated`).
    this.deferVerdict = (options && options.deferVerdict) === true;
    // Reading ahead, for a reader that streams a long run (a worker's): chunks are read a group at a time
    // (one File.slice for up to `readAheadBytes`) and decrypted while the ones before are used, up to
    // `readLimit` (the last chunk the run needs). `pending` holds them, by index, until asked for.
    var aheadBytes = (options && options.readAheadBytes) || READ_AHEAD_BYTES;
    this.readAhead = (options && options.readAhead) === true ? Math.max(2, Math.min(READ_AHEAD_CHUNKS, Math.floor(aheadBytes / header.chunkSize))) : 0;
    this.readLimit = header.chunkCount - 1;
    this.requestedUpTo = -1;
    this.pending = new Map();
    this.size = header.plaintextLength;
  }

  isAuthenticated(index) {
    return (this.authenticated[index >> 3] & (1 << (index & 7))) !== 0;
  }

  /** Counts as authenticated the chunks another reader of the same file and key authenticated (its bitmap). */
  addAuthenticated(bitmap) {
    for (var i = 0; i < bitmap.length; i++) this.authenticated[i] |= bitmap[i];
  }

  /** The chunk's plaintext, or null when it does not authenticate; read errors are thrown. */
  async tryDecrypt(index) {
    var header = this.header;
    var record = await this.source.read(chunkOffset(header, index), recordLength(header, index));
    return this.openChunk(index, record);
  }

  /** Chunk `index` from its record as read (its length prefix, then ciphertext and tag): as tryDecrypt. */
  async openChunk(index, record) {
    var header = this.header;
    if (header.prefixSize && u32be(record, 0) !== record.length - header.prefixSize)
      throw new GoshuinError("io", "the file changed while it was open");
    var plaintext = await openRecord(this.key, header, index, index === header.chunkCount - 1, record.subarray(header.prefixSize));
    if (plaintext === null) return null;
    this.authenticated[index >> 3] |= 1 << (index & 7);
    return plaintext;
  }

  /**
   * Reading ahead of chunk `index` (a stream is at it): when fewer than half of `readAhead` chunks after it
   * are requested, the next ones up to `readAhead` after it (and `readLimit`) are read at once and each
   * decrypted as soon as they are in.
   */
  readAheadOf(index) {
    if (this.readAhead === 0 || this.requestedUpTo - index >= this.readAhead / 2) return;
    var first = Math.max(index + 1, this.requestedUpTo + 1);
    var last = Math.min(this.readLimit, index + this.readAhead);
    if (first > last) return;
    this.requestedUpTo = last;
    var header = this.header;
    var start = chunkOffset(header, first);
    var records = this.source.read(start, chunkOffset(header, last) + recordLength(header, last) - start);
    for (var i = first; i <= last; i++) {
      var at = chunkOffset(header, i) - start;
      var length = recordLength(header, i);
      var opened = openAt(this, i, records, at, length);
      opened.catch(function () {}); // asked for later, or never (its error then belongs to no one)
      this.pending.set(i, opened);
    }
    // Run after every chunk's opening above has called WebCrypto, which copied its record: the bytes read can
    // be filled again (a source that reads into buffers of its own takes them back).
    var source = this.source;
    if (typeof source.keep === "function") records.then(function (bytes) {
      source.keep(bytes);
    }, function () {});
  }

  /** Chunk `index`'s plaintext, authenticated; throws the file's verdict when it does not authenticate. */
  async chunk(index) {
    for (var i = 0; i < this.cache.length; i++) if (this.cache[i].index === index) return this.cache[i].bytes;
    var ahead = this.pending.get(index);
    this.pending.delete(index);
    var bytes = await (ahead || this.tryDecrypt(index));
    if (bytes === null) throw this.deferVerdict ? unjudgedChunk(index) : await this.verdict(index);
    this.remember(index, bytes);
    return bytes;
  }

  remember(index, bytes) {
    this.cache.push({ index: index, bytes: bytes });
    var total = 0;
    for (var i = 0; i < this.cache.length; i++) total += this.cache[i].bytes.length;
    while (this.cache.length > 1 && total > this.cacheLimit) {
      var dropped = this.cache.shift();
      total -= dropped.bytes.length;
      // Not the chunk just before this one: `stream` yields a chunk while it reads the next, so its user may
      // still be copying it (chunks over a third of the cache leave room for only two).
      if (this.givesBack && dropped.index < index - 1) giveBack(dropped.bytes);
    }
  }

  /**
   * From now on, a chunk dropped from the cache is given back at once (00-bytes.mjs `giveBack`), not left to a
   * collection, unless it is the chunk just before the newest: for a reader whose user copies what it streams
   * and never goes back further than the chunk before (a run of a new backup, 26-sealing-task.mjs).
   * `release()` gives back the ones still cached.
   */
  giveBackDropped() {
    this.givesBack = true;
  }

  release() {
    this.cache.splice(0).forEach(function (cached) {
      giveBack(cached.bytes);
    });
  }

  /**
   * One verdict per file: L is the lowest chunk that fails authentication. Version 1: L > 0 is
   * chunk_damaged at L; L = 0 is chunk_damaged at 0 when one of chunks 1–3 authenticates, and auth_failed
   * otherwise. Version 2 (the header MAC verified): chunk_damaged at L, no probe window. Called with a
   * chunk `failed` known to fail: chunks 0 … failed−1 are authenticated in order.
   */
  async verdict(failed) {
    var lowest = failed;
    for (var i = 0; i < failed; i++) {
      if (this.isAuthenticated(i)) continue;
      if (this.onProbe) this.onProbe(i, failed);
      if ((await this.tryDecrypt(i)) === null) {
        lowest = i;
        break;
      }
    }
    var count = this.header.chunkCount;
    if (this.header.version === 2) {
      var damaged = new GoshuinError(
        "chunk_damaged",
        "record " + lowest + " of " + count + " fails authentication; the header MAC verified, so the passphrase is right" +
          (lowest === count - 1 ? " (it is the last record: the file may also have been cut, or added to)" : ""),
        lowest
      );
      // A version 2 file's size is its layout: a cut leaves a last record that fails, as damage to it does.
      if (lowest === count - 1) damaged.atEnd = true;
      return damaged;
    }
    if (lowest > 0)
      return new GoshuinError("chunk_damaged", "chunk " + lowest + " of " + count + " fails authentication while chunk 0 authenticates", lowest);
    for (var j = 1; j <= 3 && j < count; j++) {
      if (this.isAuthenticated(j) || (await this.tryDecrypt(j)) !== null)
        return new GoshuinError("chunk_damaged", "chunk 0 fails authentication while chunk " + j + " authenticates", 0);
    }
    return new GoshuinError("auth_failed", "no chunk authenticates: wrong passphrase, or the header was altered");
  }

  /**
   * The final chunk, authenticated first by a reader whose use of the payload depends on its length (a ZIP
   * read from its end): in version 2 only the record sealed as the last authenticates with the final flag,
   * which confirms the length the file size implies (v2 §9.1); in version 1 it confirms plaintextLength.
   */
  async authenticateFinal() {
    await this.chunk(this.header.chunkCount - 1);
  }

  /**
   * Spec/backup-v1.md §4.1 step 0, for a fault of the payload found before every chunk was read: every
   * chunk not yet authenticated, in index order, each dropped at once; the first that fails throws the
   * file's verdict. `onChunk(index, count)` follows it; `signal` stops between chunks.
   */
  async authenticateRest(signal, onChunk) {
    var count = this.header.chunkCount;
    for (var i = 0; i < count; i++) {
      if (this.isAuthenticated(i)) continue;
      if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
      if (onChunk) onChunk(i, count);
      if ((await this.tryDecrypt(i)) === null) throw await this.verdict(i);
    }
  }

  /** `length` plaintext bytes at `offset`, copied. */
  async read(offset, length) {
    if (!(offset >= 0 && length >= 0 && offset + length <= this.size))
      throw new GoshuinError("zip_malformed", "a read past the end of the archive");
    return readFromChunks(this, offset, length);
  }

  /**
   * The plaintext bytes [offset, offset + length) as pieces, each a view of one chunk, in order; the next
   * chunk is decrypted while the current piece is used. `signal` (an AbortSignal) stops between chunks.
   */
  async *stream(offset, length, signal) {
    if (length === 0) return;
    if (!(offset >= 0 && length > 0 && offset + length <= this.size))
      throw new GoshuinError("zip_malformed", "a read past the end of the archive");
    var size = this.header.chunkSize;
    var end = offset + length;
    var index = Math.floor(offset / size);
    var lastIndex = Math.floor((end - 1) / size);
    this.readAheadOf(index - 1);
    var pending = this.chunk(index);
    while (true) {
      var bytes = await pending;
      if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
      this.readAheadOf(index);
      var next = index < lastIndex ? this.chunk(index + 1) : null;
      if (next) next.catch(function () {});
      var base = index * size;
      var from = Math.max(offset, base) - base;
      var to = Math.min(end, base + bytes.length) - base;
      yield bytes.subarray(from, to);
      if (next === null) return;
      pending = next;
      index++;
    }
  }
}

/**
 * The checks of the file's version up to the key: version 1, checks 1–10; version 2, checks 1–9 (the header
 * MAC). Returns the reader of its payload. `options.onKeyProgress(fraction)` follows the key derivation;
 * `options.onKeyDerivation(header)` is called when it starts.
 */
export async function openContainer(source, passphraseBytes, options) {
  options = options || {};
  if (source.size < HEADER_SIZE) throw tooShort(source.size, HEADER_SIZE);
  var header = parseHeader(await source.read(0, Math.min(source.size, HEADER_SIZE_V2)), source.size);
  if (header.version === 1) await checkLengthPrefixes(source, header);
  if (options.onKeyDerivation) options.onKeyDerivation(header);
  var key = await deriveKey(passphraseBytes, header, options.onKeyProgress);
  return new ContainerReader(source, header, key, options);
}
