// The .goshuin header, versions 1 (Spec/container-v1.md) and 2 (Spec/container-v2.md), chosen by the
// version byte alone and never the one after the other failed (decisions/0030): the header and its bounds,
// the file size and, in version 1, every length prefix (checks 1–9 of version 1, 1–8 of version 2), all
// before any key is derived (07-keys.mjs); and the layout they imply, where each chunk lies and its length.

import { u32be, u64be } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";

export var HEADER_SIZE = 45; // version 1's header; also the first bytes every version shares
export var HEADER_SIZE_V2 = 77;
var MIN_ITERATIONS = 1000;
var MAX_ITERATIONS = 2000000;
var MIN_CHUNK_SIZE = 1024;
var MAX_CHUNK_SIZE = 67108864;
var MAX_CHUNK_COUNT = 4294967296n;
export var TAG_SIZE = 16;

export function tooShort(fileSize, needed) {
  return new GoshuinError("short_header", "the file has " + fileSize + " bytes; a .goshuin file " + (needed === HEADER_SIZE ? "has at least 45" : "of version 2 has at least 77"));
}

/**
 * Checks 1–3, common to both versions (v2 §7: the first five bytes are version 1's): the size for the
 * shared 45 bytes, the magic, and the version byte, which alone chooses the rules. Returns 1 or 2.
 */
export function containerVersion(bytes, fileSize) {
  if (fileSize < HEADER_SIZE || bytes.length < HEADER_SIZE) throw tooShort(fileSize, HEADER_SIZE);
  if (bytes[0] !== 0x47 || bytes[1] !== 0x53 || bytes[2] !== 0x48 || bytes[3] !== 0x4e)
    throw new GoshuinError("bad_magic", "the file does not start with GSHN");
  if (bytes[4] !== 1 && bytes[4] !== 2)
    throw new GoshuinError("unsupported_version", "the file has format version " + bytes[4] + "; this page reads versions 1 and 2");
  return bytes[4];
}

function checkIterations(iterations) {
  if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS)
    throw new GoshuinError("iterations_out_of_range", "the header asks for " + iterations + " PBKDF2 iterations (1,000 to 2,000,000 are allowed)");
}

function checkChunkSize(chunkSize) {
  if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE)
    throw new GoshuinError("chunk_size_out_of_range", "the header gives a chunk size of " + chunkSize + " bytes (1 KiB to 64 MiB are allowed)");
}

/**
 * Version 1, checks 4–7 on its 45-byte header: the fields and the layout they imply (container-v1.md §3).
 * Check 8 (the exact file size) is the caller's: a salvaging reader does not apply it (§7.4).
 */
export function parseHeaderV1(bytes) {
  var iterations = u32be(bytes, 5);
  checkIterations(iterations);
  var chunkSize = u32be(bytes, 33);
  checkChunkSize(chunkSize);
  var plaintextLength = u64be(bytes, 37);
  if (plaintextLength === 0n) throw new GoshuinError("empty_payload", "the header says the backup is empty");
  var chunkCount = (plaintextLength - 1n) / BigInt(chunkSize) + 1n;
  if (chunkCount > MAX_CHUNK_COUNT)
    throw new GoshuinError("too_many_chunks", "the header implies " + chunkCount + " chunks; at most 2^32 are possible");
  return {
    version: 1,
    bytes: bytes.slice(0, HEADER_SIZE), // the AAD of every chunk
    headerSize: HEADER_SIZE,
    prefixSize: 4,
    iterations: iterations,
    salt: bytes.slice(9, 25),
    nonceBase: bytes.slice(25, 33),
    chunkSize: chunkSize,
    plaintextLengthBig: plaintextLength,
    chunkCountBig: chunkCount,
    expectedFileSize: 45n + 20n * chunkCount + plaintextLength, // below 2^59 after check 7
  };
}

/** Version 1's check 8 passed: every value is below the file size, itself below 2^53. */
function withNumbers(header, fileSize) {
  header.plaintextLength = Number(header.plaintextLengthBig);
  header.chunkCount = Number(header.chunkCountBig);
  header.fileSize = fileSize;
  return header;
}

/**
 * Version 2, checks 4–6 on its 77-byte header (container-v2.md §2, §7). The layout (checks 7, 8) comes
 * from the file size: `layoutV2`.
 */
export function parseHeaderV2(bytes, fileSize) {
  if (fileSize < HEADER_SIZE_V2 || bytes.length < HEADER_SIZE_V2) throw tooShort(fileSize, HEADER_SIZE_V2);
  var iterations = u32be(bytes, 5);
  checkIterations(iterations);
  var chunkSize = u32be(bytes, 41);
  checkChunkSize(chunkSize);
  return {
    version: 2,
    bytes: bytes.slice(0, HEADER_SIZE_V2), // the AAD of every record, headerMac included
    headerSize: HEADER_SIZE_V2,
    prefixSize: 0,
    iterations: iterations,
    salt: bytes.slice(9, 25), // kdfSalt
    payloadSalt: bytes.slice(25, 41),
    chunkSize: chunkSize,
    mac: bytes.slice(45, 77),
  };
}

/**
 * Version 2, §3 and checks 7–8, in integers (BigInt: a file size past 2^53 stays exact): S = chunkSize + 16,
 * B = fileSize − 77, n = ⌊B / S⌋ + 1 records, the last of r = B − (n − 1)·S bytes. Returns { n, r }.
 */
export function layoutV2(chunkSize, fileSize) {
  var stride = BigInt(chunkSize) + 16n;
  var body = BigInt(fileSize) - BigInt(HEADER_SIZE_V2);
  var count = body / stride + 1n;
  if (count > MAX_CHUNK_COUNT)
    throw new GoshuinError("too_many_chunks", "the file's size implies " + count + " records; at most 2^32 are possible");
  var last = body - (count - 1n) * stride;
  return { count: count, last: last };
}

/**
 * Checks 1–8 of the file's version on its first bytes (77, or fewer when the file is shorter) and its
 * size; returns the header's fields and layout. Version 1: checks 1–8 (the length prefixes, check 9, are
 * read by `checkLengthPrefixes`). Version 2: checks 1–8 (the MAC, check 9, needs the key).
 */
export function parseHeader(bytes, fileSize) {
  var version = containerVersion(bytes, fileSize);
  if (version === 1) {
    var header = parseHeaderV1(bytes);
    var actual = BigInt(fileSize);
    if (actual < header.expectedFileSize) throw new GoshuinError("truncated", "the file has " + fileSize + " bytes; its header says " + header.expectedFileSize);
    if (actual > header.expectedFileSize) throw new GoshuinError("trailing_data", "the file has " + fileSize + " bytes; its header says " + header.expectedFileSize);
    return withNumbers(header, fileSize);
  }
  var v2 = parseHeaderV2(bytes, fileSize);
  var layout = layoutV2(v2.chunkSize, fileSize);
  if (layout.last < BigInt(TAG_SIZE))
    throw new GoshuinError(
      "truncated",
      layout.last === 0n
        ? "the file ends at a record boundary, without its final record: it was cut"
        : "the file's last record has " + layout.last + " bytes, fewer than a tag: it was cut"
    );
  // From here n ≤ 2^32 and every offset is below the file size, itself below 2^53.
  v2.chunkCount = Number(layout.count);
  v2.lastRecordLength = Number(layout.last);
  v2.plaintextLength = (v2.chunkCount - 1) * v2.chunkSize + v2.lastRecordLength - TAG_SIZE;
  v2.fileSize = fileSize;
  return v2;
}

/** The offset of chunk `index`'s record (in version 1, of its length prefix). */
export function chunkOffset(header, index) {
  return header.headerSize + index * (header.chunkSize + header.prefixSize + TAG_SIZE);
}

export function chunkPlaintextLength(header, index) {
  return index < header.chunkCount - 1
    ? header.chunkSize
    : header.plaintextLength - header.chunkSize * (header.chunkCount - 1);
}

/** Version 1's check 9: every length prefix at its computed offset, in order, before any tag is verified. */
export async function checkLengthPrefixes(source, header) {
  var stride = header.chunkSize + 20;
  var count = header.chunkCount;
  // Chunks of 256 KiB or more: read each 4-byte prefix. Smaller ones: read windows of about 8 MiB, so a
  // file of many small chunks does not cost one read call per chunk.
  var perWindow = stride >= 262144 ? 1 : Math.max(1, Math.floor(8388608 / stride));
  // Up to PREFIX_READS_IN_FLIGHT reads at once (one at a time, a read's round trip to the browser's file
  // reading, about 1.5 ms, made a 1 GiB backup's 257 prefixes take 0.4 s), judged in file order: the
  // first prefix that is wrong, or the first read that fails, in that order, is the one said.
  var reads = [];
  var read = function (first) {
    var last = Math.min(count, first + perWindow);
    var start = chunkOffset(header, first);
    var reading = source.read(start, chunkOffset(header, last - 1) + 4 - start);
    reading.catch(function () {}); // judged in its turn, or never (an earlier prefix failed)
    reads.push({ first: first, last: last, start: start, bytes: reading });
  };
  var next = 0;
  var inFlight = perWindow === 1 ? PREFIX_READS_IN_FLIGHT : 2; // windows of 8 MiB: two at most
  for (; next < count && reads.length < inFlight; next += perWindow) read(next);
  while (reads.length > 0) {
    var taken = reads.shift();
    var bytes = await taken.bytes;
    if (next < count) {
      read(next);
      next += perWindow;
    }
    for (var i = taken.first; i < taken.last; i++) {
      var expected = chunkPlaintextLength(header, i) + TAG_SIZE;
      var found = u32be(bytes, chunkOffset(header, i) - taken.start);
      if (found !== expected)
        throw new GoshuinError("chunk_length_invalid", "chunk " + i + " has the length prefix " + found + "; the header implies " + expected, i);
    }
  }
}

var PREFIX_READS_IN_FLIGHT = 16; // reads of 4 bytes
