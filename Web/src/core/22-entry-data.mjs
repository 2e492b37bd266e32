// The reading of one entry's data (its local header checked by 20-zip.mjs): inflated through
// DecompressionStream when it is deflated, checked as it streams against its declared size and CRC-32 and
// that deflate data ends exactly at its compressed size, and its SHA-256.

import { SpareBuffers } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { crc32Update, Sha256 } from "./02-kernels.mjs";

/** Whether this DecompressionStream refuses bytes after the end of the deflate data (the Compression
 * Streams standard says it must; Node 20's does not). Where it does not, the reader checks it itself. */
var deflateRefusesTrailingBytes = null;

export async function inflateRefusesTrailingBytes() {
  if (deflateRefusesTrailingBytes === null) {
    try {
      // "hi" as fixed-Huffman deflate, then one extra byte.
      await inflateAll([new Uint8Array([0xcb, 0xc8, 0x04, 0x00, 0x00])], 16, function () {});
      deflateRefusesTrailingBytes = false;
    } catch (error) {
      deflateRefusesTrailingBytes = true;
    }
  }
  return deflateRefusesTrailingBytes;
}

var INFLATE_PIECE = 65536;

/**
 * Sizes that bound memory, and the most bytes of entries one task of the workers checks (51-verify-entries.mjs);
 * the tests lower them to reach every path with small files.
 */
export var limits = { bufferedDigest: 64 * 1048576, zipPart: 1073741824, verifyRun: 64 * 1048576 };

/**
 * Inflates the deflate-raw data of `pieces` (an async or sync iterable of Uint8Array) through
 * DecompressionStream, calling `sink(bytes)` for each output piece; stops with entry_corrupt as soon as
 * more than `limit` bytes come out. Input is fed in pieces of at most 64 KiB, so one write cannot
 * produce more than about 64 MiB. Errors of the input (a damaged chunk) are thrown as they are.
 */
async function inflateAll(pieces, limit, sink) {
  var stream = new DecompressionStream("deflate-raw");
  var writer = stream.writable.getWriter();
  var reader = stream.readable.getReader();
  var inputError = null;
  var stopped = false;
  var feeding = (async function () {
    try {
      for await (var piece of pieces) {
        for (var at = 0; at < piece.length; at += INFLATE_PIECE) {
          if (stopped) return;
          await writer.write(piece.slice(at, at + INFLATE_PIECE));
        }
      }
      if (!stopped) await writer.close();
    } catch (error) {
      if (error instanceof GoshuinError) {
        inputError = error;
        writer.abort(error).catch(function () {});
        reader.cancel().catch(function () {});
      }
      throw error;
    }
  })();
  feeding.catch(function () {});
  var total = 0;
  try {
    while (true) {
      var result = await reader.read();
      if (result.done) break;
      total += result.value.length;
      if (total > limit) throw new GoshuinError("entry_corrupt", "inflates to more than its declared " + limit + " bytes");
      await sink(result.value);
    }
    await feeding;
  } catch (error) {
    stopped = true;
    reader.cancel().catch(function () {});
    writer.abort().catch(function () {});
    if (inputError) throw inputError;
    if (error instanceof GoshuinError) throw error;
    throw new GoshuinError("entry_corrupt", "its deflate data is broken (" + ((error && error.message) || error) + ")");
  }
  return total;
}

/**
 * Streams `entry`'s data (its local header checked, so `dataOffset` is set) to `sink`, checking that
 * it inflates exactly to the declared size with the declared CRC-32 and that the deflate data ends
 * exactly at the declared compressed size. Returns its SHA-256.
 */
export async function readEntryData(payload, entry, sink, options) {
  var signal = options && options.signal;
  var onBytes = options && options.onBytes;
  var name = entry.name;
  var expected = Number(entry.uncompressedSize);
  var compressedSize = Number(entry.compressedSize);
  // SHA-256: WebCrypto's (fast, but whole input at once) for entries up to limits.bufferedDigest bytes,
  // held while they stream; this page's incremental one beyond, so no entry is ever held whole.
  var buffer = expected <= limits.bufferedDigest ? spareDigestBuffers.take(expected) : null;
  var hash = buffer ? null : new Sha256();
  var crc = 0;
  var count = 0;
  async function take(bytes) {
    if (count + bytes.length > expected) throw new GoshuinError("entry_corrupt", name + " holds more than its declared " + expected + " bytes");
    if (buffer) buffer.set(bytes, count);
    else hash.update(bytes);
    count += bytes.length;
    crc = crc32Update(crc, bytes);
    if (sink) await sink(bytes);
  }
  async function* compressedPieces() {
    for await (var piece of payload.stream(entry.dataOffset, compressedSize, signal)) {
      yield piece;
      if (onBytes) onBytes(piece.length);
    }
  }
  try {
    if (entry.method === 0) {
      for await (var piece of compressedPieces()) await take(piece);
    } else {
      await inflateAll(compressedPieces(), expected, take);
      if (!(await inflateRefusesTrailingBytes()) && compressedSize > 0) {
        // Without the last compressed byte the deflate data must be incomplete; if it is complete, the
        // bytes after its end are not part of it.
        var complete = true;
        try {
          await inflateAll(payload.stream(entry.dataOffset, compressedSize - 1, signal), expected, function () {});
        } catch (error) {
          if (!(error instanceof GoshuinError) || error.code !== "entry_corrupt") throw error;
          complete = false;
        }
        if (complete) throw new GoshuinError("entry_corrupt", "its deflate data ends before its declared compressed size");
      }
    }
  } catch (error) {
    if (error instanceof GoshuinError && error.code === "entry_corrupt") throw new GoshuinError("entry_corrupt", name + " " + error.detail);
    throw error;
  }
  if (count !== expected)
    throw new GoshuinError("entry_corrupt", name + " holds " + count + " bytes, not the " + expected + " it declares");
  if (crc !== entry.crc32) throw new GoshuinError("entry_corrupt", name + " fails its CRC-32");
  if (hash) return hash.digest();
  var digesting = crypto.subtle.digest("SHA-256", buffer); // WebCrypto copies the bytes as it is called
  spareDigestBuffers.keep(buffer);
  return new Uint8Array(await digesting);
}

/**
 * Buffers that entries are held in for WebCrypto's digest, used again: a new buffer of megabytes costs the
 * faults of its pages, for each of the thousands of photos opened. Any kept buffer serves a photo it can
 * hold, as photos of a library differ in size by megabytes; new ones are rounded up to a MiB.
 */
var spareDigestBuffers = new SpareBuffers(2, 1048576, Infinity);
