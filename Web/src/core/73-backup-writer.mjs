// A new backup written from what a backup shows (issue 37, Spec/backup-v1.md §5 "Rescuing", decisions/0050):
// records.csv and every photo shown, laid out by 72-backup-layout.mjs as goshuin-tool's seal and rescue lay out
// the same entries, then sealed in container version 1 (PBKDF2-HMAC-SHA256 600,000 rounds, 4 MiB chunks,
// AES-256-GCM by WebCrypto): by the page's workers, a run of chunks each (26-sealing-task.mjs), or where they
// cannot read the backup's bytes as they are (a salvage, a deflated photo) by this thread, each chunk sealed
// as soon as it is full; either way handed on in order, so memory stays a few runs whatever the backup's
// size. Apart from the random salt and nonce base the file is the tool's.

import { utf8Bytes } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { crc32Update } from "./02-kernels.mjs";
import { RECORDS_NAME } from "./20-zip.mjs";
import { sealedRecord } from "./26-sealing-task.mjs";
import { sealsInWorkers, writeInWorkers } from "./71-sealing-runs.mjs";
import {
  backupLayout, centralDirectoryAndEnd, DEFLATE_MARGIN, localHeader, manifestBytes, recordsPlan, RECORDS_HELD, timestamp,
} from "./72-backup-layout.mjs";

export var SEAL_ITERATIONS = 600000; // container-v1.md §6, the tool's default
export var SEAL_CHUNK_SIZE = 4194304;
export var SHORT_PASSPHRASE = 10; // characters (Unicode scalars): fewer is warned about, as the tool does

/**
 * A new passphrase typed twice, by the tool's rules for sealing (PassphraseReader, NewPassphraseReader):
 * empty refused (`empty_passphrase`), the two different (`passphrase_mismatch`), a string that is not
 * Unicode refused (`invalid_argument`, container-v1.md §4), more than 4,096 UTF-8 bytes refused
 * (`passphrase_too_long` in the tool; here `invalid_argument`). Returns { bytes, characters, short }.
 */
export function checkNewPassphrase(text, again) {
  if (text === "") throw new GoshuinError("empty_passphrase", "the new passphrase is empty");
  if (text !== again) throw new GoshuinError("passphrase_mismatch", "the two new passphrases differ; nothing was written");
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text))
    throw new GoshuinError("invalid_argument", "the new passphrase holds a character that is not Unicode");
  var bytes = utf8Bytes(text);
  if (bytes.length > 4096) throw new GoshuinError("invalid_argument", "the new passphrase is longer than 4,096 bytes");
  var characters = Array.from(text).length;
  return { bytes: bytes, characters: characters, short: characters < SHORT_PASSPHRASE };
}

/** A passphrase's bytes as a WebCrypto PBKDF2 key that cannot be read back: what a new file is sealed from. */
export async function passphraseKey(bytes) {
  return crypto.subtle.importKey("raw", bytes, "PBKDF2", false, ["deriveKey", "deriveBits"]);
}

/** The 45-byte header of version 1 (container-v1.md §2). */
export function headerV1(iterations, salt, nonceBase, chunkSize, plaintextLength) {
  if (salt.length !== 16 || nonceBase.length !== 8) throw new GoshuinError("invalid_argument", "a salt of 16 bytes and a nonce base of 8");
  var header = new Uint8Array(45);
  var view = new DataView(header.buffer);
  header.set([0x47, 0x53, 0x48, 0x4e, 1]);
  view.setUint32(5, iterations);
  header.set(salt, 9);
  header.set(nonceBase, 25);
  view.setUint32(33, chunkSize);
  view.setBigUint64(37, BigInt(plaintextLength));
  return header;
}

/**
 * Container version 1 written as its payload arrives (container-v1.md §5): `write(bytes)` fills a chunk,
 * each full chunk is sealed by WebCrypto's AES-256-GCM (nonce nonceBase ‖ u32be(i), the header as AAD) and
 * handed to `output(bytes)` in order, at most `inFlight` chunks being sealed at a time; `finish()` seals the
 * last one and checks that exactly `plaintextLength` bytes came.
 */
export class SealerV1 {
  /**
   * `options`: { iterations, chunkSize, salt, nonceBase (tests only), output(bytes) → promise, signal }. The bytes
   * handed to `output` are its own: the sealer keeps no reference to them, so it may give their memory back.
   */
  static async create(baseKey, plaintextLength, options) {
    var iterations = options.iterations || SEAL_ITERATIONS;
    var chunkSize = options.chunkSize || SEAL_CHUNK_SIZE;
    if (iterations < 1000 || iterations > 2000000) throw new GoshuinError("iterations_out_of_range", "iterations " + iterations);
    if (chunkSize < 1024 || chunkSize > 67108864) throw new GoshuinError("chunk_size_out_of_range", "chunk size " + chunkSize);
    if (!(plaintextLength >= 1)) throw new GoshuinError("empty_payload", "nothing to seal");
    if (Math.ceil(plaintextLength / chunkSize) > 4294967296) throw new GoshuinError("too_many_chunks", "too many chunks");
    var salt = options.salt || crypto.getRandomValues(new Uint8Array(16));
    var nonceBase = options.nonceBase || crypto.getRandomValues(new Uint8Array(8));
    var header = headerV1(iterations, salt, nonceBase, chunkSize, plaintextLength);
    var key = await crypto.subtle.deriveKey(
      { name: "PBKDF2", hash: "SHA-256", salt: salt, iterations: iterations },
      baseKey,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt"]
    );
    return new SealerV1(key, header, nonceBase, chunkSize, plaintextLength, options);
  }

  constructor(key, header, nonceBase, chunkSize, plaintextLength, options) {
    this.key = key;
    this.header = header;
    this.nonceBase = nonceBase;
    this.chunkSize = chunkSize;
    this.plaintextLength = plaintextLength;
    this.output = options.output;
    this.signal = options.signal;
    this.inFlight = options.inFlight || 3;
    this.buffer = new Uint8Array(Math.min(chunkSize, plaintextLength));
    this.filled = 0;
    this.received = 0;
    this.index = 0;
    this.pending = [];
    this.written = Promise.resolve(this.output(header.slice())); // the header first (a copy: it stays the chunks' AAD)
    // Awaited by the next record or finish(); a save stopped before either (its file aborted) must leave no
    // unhandled rejection.
    this.written.catch(function () {});
    this.sealedBytes = 45;
  }

  async write(bytes) {
    var at = 0;
    if (this.received + bytes.length > this.plaintextLength)
      throw new GoshuinError("internal", "more bytes than the header states");
    this.received += bytes.length;
    while (at < bytes.length) {
      var take = Math.min(bytes.length - at, this.buffer.length - this.filled);
      this.buffer.set(bytes.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      if (this.filled === this.buffer.length) await this.sealChunk();
    }
  }

  async sealChunk() {
    if (this.signal && this.signal.aborted) throw new GoshuinError("interrupted", "stopped");
    var plaintext = this.buffer.subarray(0, this.filled);
    var sealing = sealedRecord(this.key, this.header, this.nonceBase, this.index++, plaintext);
    var remaining = this.plaintextLength - this.index * this.chunkSize;
    this.buffer = remaining > 0 ? new Uint8Array(Math.min(this.chunkSize, remaining)) : new Uint8Array(0);
    this.filled = 0;
    this.pending.push(this.handOn(sealing));
    if (this.pending.length >= this.inFlight) await this.pending.shift();
  }

  /** A record handed on once it is sealed and every record before it is written. */
  handOn(sealing) {
    var self = this;
    var previous = this.written;
    this.written = Promise.all([sealing, previous]).then(function (done) {
      self.sealedBytes += done[0] instanceof Uint8Array ? done[0].length : done[0].size;
      return self.output(done[0]);
    });
    this.written.catch(function () {});
    return this.written;
  }

  /**
   * Records sealed elsewhere by `sealedRecord` (a worker's run, 26-sealing-task.mjs), the next ones in order,
   * holding `plaintextBytes` bytes of the payload: handed on as the sealer's own are.
   */
  async putSealed(records, plaintextBytes) {
    if (this.signal && this.signal.aborted) throw new GoshuinError("interrupted", "stopped");
    var received = this.received + plaintextBytes;
    if (this.filled !== 0 || this.received % this.chunkSize !== 0 || received > this.plaintextLength || (received % this.chunkSize !== 0 && received !== this.plaintextLength))
      throw new GoshuinError("internal", "sealed records out of order");
    this.received = received;
    // The chunks the records hold (with `blobs`, a run's records come as one Blob): the next chunk's index,
    // never one already used (a nonce used twice under one key would break AES-GCM).
    this.index = Math.ceil(received / this.chunkSize);
    for (var i = 0; i < records.length; i++) await this.handOn(Promise.resolve(records[i]));
  }

  /** Seals what is left; returns the sealed file's size once every record is written. */
  async finish() {
    if (this.received !== this.plaintextLength)
      throw new GoshuinError("internal", "the payload came out " + this.received + " bytes, not the " + this.plaintextLength + " its header states");
    if (this.filled > 0) await this.sealChunk();
    await this.written;
    return this.sealedBytes;
  }
}

/**
 * The entries a new backup of `backup` (an opened, repaired or salvaged backup: 45-checked-entries.mjs) holds:
 * records.csv and every photo shown, each with its size, CRC-32, SHA-256 (hex) and time; `createdAt` is the
 * backup's (a strict open, a salvage in directory mode), or in walk mode the newest time of the entries (the
 * opened file's own, `fileTime`, when none has one). Throws `zip_malformed` without records.csv: no backup.
 */
export function newBackupEntries(backup, fileTime) {
  if (!backup.records) throw new GoshuinError("zip_malformed", "records.csv is lost: a backup cannot be made without it");
  function described(name) {
    var entry = backup.byName.get(name);
    return { name: name, size: Number(entry.uncompressedSize), crc32: entry.crc32, modified: entry.modified, sha256: backup.digests.get(name) };
  }
  var records = described(RECORDS_NAME);
  var photos = backup.photos.map(function (photo) {
    return described(photo.name);
  });
  var createdAt = backup.createdAt;
  if (!createdAt) {
    var newest = null;
    [records].concat(photos).forEach(function (file) {
      if (typeof file.modified === "number" && (newest === null || file.modified > newest)) newest = file.modified;
    });
    createdAt = timestamp(newest !== null ? newest : Math.floor(fileTime));
  }
  return { records: records, photos: photos, createdAt: createdAt };
}

/**
 * At most how many bytes the new backup of `backup` takes: its layout with records.csv at its most, sealed in
 * chunks of SEAL_CHUNK_SIZE after the header (container-v1.md §3: chunkOffset). The room to ask for before
 * writing. records.csv over RECORDS_HELD is stored; a smaller one may be deflated, by the backup (its own data,
 * kept: recordsKept, of any size a crafted file gives it) or by the browser's zlib (at most zlib's deflateBound).
 */
export function newBackupSizeAtMost(backup) {
  var plan = newBackupEntries(backup, 0);
  var records = plan.records;
  var size = records.size;
  var most = size > RECORDS_HELD ? size : Math.max(size + (size >> 12) + (size >> 14) + (size >> 25) + 7, Number(backup.byName.get(RECORDS_NAME).compressedSize));
  var zipSize = backupLayout({ size: size, method: 8, compressedSize: most, modified: records.modified }, plan.photos, plan.createdAt).size;
  return 45 + zipSize + Math.ceil(zipSize / SEAL_CHUNK_SIZE) * 20;
}

/**
 * Writes a new backup of `backup` into `options.output(bytes)` (the header, then the sealed chunks, in order;
 * with `blobs`, some as Blobs, each of several records), sealed from `baseKey` (passphraseKey): records.csv
 * read, checked and deflated in memory when it is at most 16 MiB (else stored and streamed), each photo read
 * from the backup by the workers (sealsInWorkers; its CRC-32 checked again) or streamed here and checked again
 * (size, CRC-32, SHA-256), the manifest last. `options`: { fileTime, signal, onKey(), onBytes(done, total),
 * blobs, iterations, chunkSize, salt, nonceBase }. Returns { createdAt, records, photos, zipSize, fileSize }.
 */
export async function writeNewBackup(backup, baseKey, options) {
  var plan = newBackupEntries(backup, options.fileTime || 0);
  var signal = options.signal;
  var held = null;
  if (plan.records.size <= RECORDS_HELD) {
    var records = await backup.read(RECORDS_NAME, signal);
    held = (await recordsKept(backup, records, signal)) || (await recordsPlan(records));
  }
  var layout = backupLayout(
    { size: plan.records.size, method: held ? held.method : 0, compressedSize: held ? held.data.length : plan.records.size, modified: plan.records.modified },
    plan.photos,
    plan.createdAt
  );
  var byName = new Map();
  plan.photos.forEach(function (photo) {
    byName.set(photo.name, photo);
  });
  var photos = layout.entries.slice(1, -1).map(function (entry) {
    return byName.get(entry.name);
  });
  var manifest = manifestBytes(plan.createdAt, plan.records, photos);
  var manifestEntry = layout.entries[layout.entries.length - 1];
  if (manifest.length !== manifestEntry.size) throw new GoshuinError("internal", "the manifest came out another size than its layout");
  if (options.onKey) options.onKey();
  var sealer = await SealerV1.create(baseKey, layout.size, {
    iterations: options.iterations, chunkSize: options.chunkSize, salt: options.salt, nonceBase: options.nonceBase,
    output: options.output, signal: signal,
  });
  var pieces = payloadPieces(backup, plan, held, layout, photos, manifest);
  var write = sealsInWorkers(backup, pieces) ? writeInWorkers : writeLaidOut;
  var fileSize = await write(backup, pieces, sealer, { signal: signal, onBytes: options.onBytes, blobs: options.blobs });
  return { createdAt: plan.createdAt, records: plan.records, photos: photos, zipSize: layout.size, fileSize: fileSize };
}

/**
 * The new payload as pieces in order, each { at (its offset), bytes } or { at, entry (the backup's entry, as a
 * worker is sent it) }: local headers, records.csv (`held`, or streamed), each photo, the manifest, the
 * central directory. Known before the first byte is written: every CRC-32 is known.
 */
function payloadPieces(backup, plan, held, layout, photos, manifest) {
  var manifestEntry = layout.entries[layout.entries.length - 1];
  var manifestCrc = crc32Update(0, manifest);
  var crcs = [plan.records.crc32];
  var pieces = [];
  var at = 0;
  function literal(bytes) {
    pieces.push({ at: at, bytes: bytes });
    at += bytes.length;
  }
  function entry(name) {
    var found = backup.byName.get(name);
    var described = {
      name: name, method: found.method, dataOffset: found.dataOffset, crc32: found.crc32,
      compressedSize: found.compressedSize, uncompressedSize: found.uncompressedSize,
    };
    pieces.push({ at: at, entry: described });
    at += Number(found.uncompressedSize);
  }
  literal(localHeader(layout.entries[0], plan.records.crc32));
  if (held) literal(held.data);
  else entry(RECORDS_NAME);
  photos.forEach(function (photo, i) {
    literal(localHeader(layout.entries[i + 1], photo.crc32));
    entry(photo.name);
    crcs.push(photo.crc32);
  });
  crcs.push(manifestCrc);
  literal(localHeader(manifestEntry, manifestCrc));
  literal(manifest);
  literal(centralDirectoryAndEnd(layout, crcs));
  if (at !== layout.size) throw new GoshuinError("internal", "the payload came out another size than its layout");
  return pieces;
}

/** The pieces written by this thread, each photo streamed from the backup and checked again as it goes. */
async function writeLaidOut(backup, pieces, sealer, options) {
  var signal = options.signal;
  var onBytes = options.onBytes;
  var total = sealer.plaintextLength;
  var done = 0;
  async function put(bytes) {
    await sealer.write(bytes);
    done += bytes.length;
    if (onBytes) onBytes(done, total);
  }
  for (var i = 0; i < pieces.length; i++) {
    if (pieces[i].bytes) await put(pieces[i].bytes);
    else await backup.stream(pieces[i].entry.name, put, signal);
  }
  return sealer.finish();
}

// (Reading ahead in this thread while writing was tried: no faster in any of the three engines under load,
// more memory and longer holds of the main thread. The workers' runs replaced it.)

/**
 * records.csv's deflate data as the backup holds it, when it was deflated within the ratio seal keeps and
 * inflates to `records` (read and checked): the zlib that sealed the backup made it, and seal, deflating the
 * same bytes with the same zlib, writes the same; a browser's own zlib may choose other (valid) bytes.
 */
async function recordsKept(backup, records, signal) {
  var entry = backup.byName.get(RECORDS_NAME);
  var compressedSize = Number(entry.compressedSize);
  if (entry.method !== 8 || entry.dataOffset === undefined || compressedSize * DEFLATE_MARGIN < records.length) return null;
  if (typeof DecompressionStream !== "function" || !backup.container.stream) return null;
  var data = new Uint8Array(compressedSize);
  var filled = 0;
  for await (var piece of backup.container.stream(entry.dataOffset, compressedSize, signal)) {
    data.set(piece, filled);
    filled += piece.length;
  }
  if (filled !== compressedSize) return null;
  var inflated = new Uint8Array(await new Response(new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"))).arrayBuffer());
  if (inflated.length !== records.length) return null;
  for (var i = 0; i < inflated.length; i++) if (inflated[i] !== records[i]) return null;
  return { method: 8, data: data };
}
