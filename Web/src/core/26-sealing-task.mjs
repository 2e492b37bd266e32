// A run of a new backup's chunks sealed by one of the page's workers (issue 37; 71-sealing-runs.mjs hands out
// the runs and writes them in order). The worker puts together the plaintext of chunks first … last of the
// new payload from its pieces: bytes the page sends (local headers, records.csv as it is written, the
// manifest, the central directory) and photos' bytes read from the opened backup through a reader of its own
// that authenticates every chunk it reads, as the opening's workers do. Each part of a photo in the run goes
// back with its CRC-32, for the page to check the whole photo's (Spec/decisions/0056). Each chunk is then
// sealed as container-v1.md §5 says, and the records go back moved, not copied (or as a Blob made here).

import { SpareBuffers } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { crc32Update } from "./02-kernels.mjs";
import { chunkNonce, ContainerReader } from "./10-container.mjs";

/**
 * Chunk `index`'s record (container-v1.md §5): its length prefix, then `plaintext` sealed by AES-256-GCM under
 * `key` with the nonce nonceBase ‖ u32be(index) and the 45-byte header as additional data.
 */
export async function sealedRecord(key, header, nonceBase, index, plaintext) {
  var parts = await sealedParts(key, header, nonceBase, index, plaintext);
  var record = new Uint8Array(4 + parts.sealed.byteLength);
  record.set(parts.prefix, 0);
  record.set(new Uint8Array(parts.sealed), 4);
  return record;
}

/** sealedRecord's two parts, not put together: { prefix (its 4 bytes), sealed (an ArrayBuffer) }. */
async function sealedParts(key, header, nonceBase, index, plaintext) {
  var nonce = chunkNonce({ version: 1, nonceBase: nonceBase }, index, false);
  var sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: header, tagLength: 128 }, key, plaintext);
  var prefix = new Uint8Array(4);
  new DataView(prefix.buffer).setUint32(0, sealed.byteLength);
  return { prefix: prefix, sealed: sealed };
}

/**
 * "seal-chunks": `task` = { first, last (chunk indices), sealing: { key, header, nonceBase, chunkSize,
 * plaintextLength, blobs }, pieces (those that overlap the run, in payload order: { at, bytes } cut to the run, or
 * { at, entry }, `at` a payload offset), file, header, key (the opened backup's) }. Result: { records (the
 * run's records, in order, as ArrayBuffers, or as one Blob when `blobs`), parts ([{ name, from, length, crc32 }]: each photo's bytes in
 * the run) }.
 */
export async function sealChunksTask(task, local, readSource) {
  var sealing = task.sealing;
  var start = task.first * sealing.chunkSize;
  var end = Math.min(sealing.plaintextLength, (task.last + 1) * sealing.chunkSize);
  var plaintext = spareRuns.take(end - start);
  var filled = 0; // the run's bytes written: its pieces follow each other, so all of them once it is the run's length
  var payload = null;
  var parts = [];
  for (var i = 0; i < task.pieces.length; i++) {
    var piece = task.pieces[i];
    if (piece.bytes) {
      plaintext.set(piece.bytes, piece.at - start);
      filled += piece.bytes.length;
      continue;
    }
    if (payload === null) payload = sourceReader(readSource(), task, end);
    var from = Math.max(0, start - piece.at);
    var length = Math.min(Number(piece.entry.uncompressedSize) - from, end - (piece.at + from));
    var at = piece.at + from - start;
    var crc = 0;
    for await (var bytes of payload.stream(piece.entry.dataOffset + from, length, local.signal)) {
      plaintext.set(bytes, at);
      at += bytes.length;
      crc = crc32Update(crc, bytes);
    }
    if (at !== piece.at + from - start + length) throw new GoshuinError("internal", piece.entry.name + " came out short");
    filled += length;
    parts.push({ name: piece.entry.name, from: from, length: length, crc32: crc });
  }
  if (payload !== null) payload.release();
  // A buffer used again holds an earlier run's bytes wherever this one wrote none.
  if (filled !== end - start) throw new GoshuinError("internal", "a run's pieces came out " + filled + " bytes, not " + (end - start));
  if (local.signal && local.signal.aborted) throw new GoshuinError("interrupted", "stopped");
  var sealingAll = [];
  var seal = sealing.blobs ? sealedParts : sealedRecord; // a Blob takes the parts as they are
  for (var index = task.first; index <= task.last; index++) {
    var offset = (index - task.first) * sealing.chunkSize;
    var chunk = plaintext.subarray(offset, Math.min(plaintext.length, offset + sealing.chunkSize));
    sealingAll.push(seal(sealing.key, sealing.header, sealing.nonceBase, index, chunk));
  }
  // WebCrypto copied each chunk's bytes as it was called: the run's buffer serves the next run.
  spareRuns.keep(plaintext);
  var records = await Promise.all(sealingAll);
  if (sealing.blobs) {
    // One Blob of the run, made here: the copy into the browser's blob store costs this thread, not the page's.
    // Each record's prefix and sealed bytes go in as they are, not first copied into one buffer.
    var pieces = [];
    records.forEach(function (record) {
      pieces.push(record.prefix, record.sealed);
    });
    return { result: { records: [new Blob(pieces)], parts: parts }, transfer: [] };
  }
  var buffers = records.map(function (record) {
    return record.buffer;
  });
  return { result: { records: buffers, parts: parts }, transfer: buffers };
}

/** The buffers of this thread's runs, used again (Spec/decisions/0068): two runs of each worker are under way. */
var spareRuns = new SpareBuffers(2, 1048576);

/**
 * The opened backup read by this run alone (it ends at payload offset `end`): it judges nothing (a chunk that
 * fails is said, `unjudged`), and reads ahead no further than the last byte the run needs.
 */
function sourceReader(source, task, end) {
  var reader = new ContainerReader(source, task.header, task.key, { deferVerdict: true, readAhead: true, readAheadBytes: task.readAheadBytes });
  var last = 0;
  task.pieces.forEach(function (piece) {
    if (piece.entry) last = Math.max(last, piece.entry.dataOffset + Math.min(Number(piece.entry.uncompressedSize), end - piece.at));
  });
  reader.readLimit = Math.min(reader.readLimit, Math.floor(Math.max(0, last - 1) / task.header.chunkSize));
  reader.giveBackDropped(); // the run copies each piece as it comes
  return reader;
}
