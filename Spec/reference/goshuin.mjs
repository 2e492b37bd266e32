// Reference implementation of the `.goshuin` container, versions 1 (Spec/container-v1.md) and 2
// (Spec/container-v2.md), and its command line. Node 20, node: modules only. Section numbers (§) refer to
// container-v1.md in the v1 part and to container-v2.md (written "v2 §") in the v2 part.
//
// Opening dispatches on the version byte (v2 §7 check 3) and never falls back from one layout to the other.
//
// The container code works on a *source* ({ size: bigint, read(position: bigint, length) → Buffer })
// and a *sink* ({ write(buffer) }), so the same code seals and opens files (chunk by chunk, never the
// whole file in memory) and in-memory buffers (the vector generator).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// ---------------------------------------------------------------------------------------------
// Constants (§2, §2.1, §3)

export const MAGIC = Buffer.from('GSHN', 'ascii');
export const VERSION = 1;
export const HEADER_SIZE = 45;
export const PREFIX_SIZE = 4;
export const TAG_SIZE = 16;
export const SALT_SIZE = 16;
export const NONCE_BASE_SIZE = 8;
export const KEY_SIZE = 32;
export const MIN_ITERATIONS = 1_000;
export const MAX_ITERATIONS = 2_000_000;
export const MIN_CHUNK_SIZE = 1_024;
export const MAX_CHUNK_SIZE = 67_108_864;
export const MAX_CHUNK_COUNT = 2n ** 32n;
export const DEFAULT_ITERATIONS = 600_000;
export const DEFAULT_CHUNK_SIZE = 4_194_304;
// How many chunks, starting with chunk 0, are tried before concluding auth_failed (§7.1).
export const PROBE_CHUNKS = 4;

// Field offsets inside the header (§2).
export const FIELD = {
  magic: { offset: 0, size: 4 },
  version: { offset: 4, size: 1 },
  kdfIterations: { offset: 5, size: 4 },
  salt: { offset: 9, size: 16 },
  nonceBase: { offset: 25, size: 8 },
  chunkSize: { offset: 33, size: 4 },
  plaintextLength: { offset: 37, size: 8 },
};

// ---------------------------------------------------------------------------------------------
// Errors: a stable `.code` (§8) and, for chunk errors, `.chunkIndex`.

export class GoshuinError extends Error {
  constructor(code, message, chunkIndex) {
    super(chunkIndex === undefined ? `${code}: ${message}` : `${code} (chunk ${chunkIndex}): ${message}`);
    this.code = code;
    if (chunkIndex !== undefined) this.chunkIndex = chunkIndex;
  }
}

function fail(code, message, chunkIndex) {
  throw new GoshuinError(code, message, chunkIndex);
}

// ---------------------------------------------------------------------------------------------
// Header (§2)

// Decodes the 45 header bytes without judging them; `checkHeader` applies §7 checks 2–7.
export function decodeHeader(bytes) {
  return {
    magic: Buffer.from(bytes.subarray(0, 4)),
    version: bytes.readUInt8(4),
    kdfIterations: bytes.readUInt32BE(5),
    salt: Buffer.from(bytes.subarray(9, 25)),
    nonceBase: Buffer.from(bytes.subarray(25, 33)),
    chunkSize: bytes.readUInt32BE(33),
    plaintextLength: bytes.readBigUInt64BE(37), // u64: a BigInt
  };
}

export function encodeHeader({ kdfIterations, salt, nonceBase, chunkSize, plaintextLength }) {
  const bytes = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(bytes, 0);
  bytes.writeUInt8(VERSION, 4);
  bytes.writeUInt32BE(kdfIterations, 5);
  salt.copy(bytes, 9);
  nonceBase.copy(bytes, 25);
  bytes.writeUInt32BE(chunkSize, 33);
  bytes.writeBigUInt64BE(BigInt(plaintextLength), 37);
  return bytes;
}

const inRange = (value, min, max) => value >= min && value <= max;

// §7 checks 2–7, in order. Uses only header fields.
export function checkHeader(header) {
  if (!header.magic.equals(MAGIC)) fail('bad_magic', 'the first 4 bytes are not GSHN');
  if (header.version !== VERSION) fail('unsupported_version', `version ${header.version} is not 1`);
  if (!inRange(header.kdfIterations, MIN_ITERATIONS, MAX_ITERATIONS)) {
    fail('iterations_out_of_range', `kdfIterations ${header.kdfIterations} outside ${MIN_ITERATIONS}…${MAX_ITERATIONS}`);
  }
  if (!inRange(header.chunkSize, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE)) {
    fail('chunk_size_out_of_range', `chunkSize ${header.chunkSize} outside ${MIN_CHUNK_SIZE}…${MAX_CHUNK_SIZE}`);
  }
  if (header.plaintextLength === 0n) fail('empty_payload', 'plaintextLength is 0');
  const { chunkCount } = layoutOf(header);
  if (chunkCount > MAX_CHUNK_COUNT) fail('too_many_chunks', `the header implies ${chunkCount} chunks, more than 2^32`);
}

// ---------------------------------------------------------------------------------------------
// Layout (§3). BigInt throughout: plaintextLength is a u64 and offsets may exceed 2^53.
// Valid only for plaintextLength ≥ 1 (checked before).

export function layoutOf({ chunkSize, plaintextLength }) {
  const size = BigInt(chunkSize);
  const length = BigInt(plaintextLength);
  const chunkCount = (length - 1n) / size + 1n; // ceil without overflow, as §3 suggests
  const lastChunkPlaintext = length - size * (chunkCount - 1n);
  return {
    chunkCount,
    expectedFileSize: BigInt(HEADER_SIZE) + 20n * chunkCount + length,
    chunkPlaintext: (i) => (BigInt(i) < chunkCount - 1n ? size : lastChunkPlaintext),
    chunkOffset: (i) => BigInt(HEADER_SIZE) + BigInt(i) * (size + 20n),
  };
}

// ---------------------------------------------------------------------------------------------
// Key (§4) and one chunk's AES-256-GCM (§5)

// `passphrase` is a Buffer of the exact bytes (a string is taken as its UTF-8, unnormalized; one that is not
// Unicode, with an unpaired surrogate, has no UTF-8 and is refused rather than substituted: §4).
// `length` is 32 for the container; other lengths only serve the Wycheproof run.
export function deriveKey(passphrase, salt, iterations, length = KEY_SIZE) {
  return crypto.pbkdf2Sync(passphraseBytes(passphrase), salt, iterations, length, 'sha256');
}

export function passphraseBytes(passphrase) {
  if (typeof passphrase === 'string' && !passphrase.isWellFormed()) {
    fail('invalid_argument', 'the passphrase holds an unpaired surrogate: it is not Unicode text and has no UTF-8 bytes');
  }
  return Buffer.from(passphrase);
}

export function chunkNonce(nonceBase, index) {
  const nonce = Buffer.alloc(12);
  nonceBase.copy(nonce, 0);
  nonce.writeUInt32BE(Number(index), 8);
  return nonce;
}

// Returns the whole chunk record: u32be(len) ‖ ciphertext ‖ tag.
export function sealChunk(key, headerBytes, nonceBase, index, plaintext) {
  const cipher = crypto.createCipheriv('aes-256-gcm', key, chunkNonce(nonceBase, index), { authTagLength: TAG_SIZE });
  cipher.setAAD(headerBytes);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const prefix = Buffer.alloc(PREFIX_SIZE);
  prefix.writeUInt32BE(ciphertext.length + TAG_SIZE);
  return Buffer.concat([prefix, ciphertext, cipher.getAuthTag()]);
}

// `sealed` is ciphertext ‖ tag. Returns the plaintext, or null if the chunk does not authenticate.
export function openChunk(key, headerBytes, nonceBase, index, sealed) {
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, chunkNonce(nonceBase, index), { authTagLength: TAG_SIZE });
  decipher.setAAD(headerBytes);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_SIZE));
  // update() hands out plaintext before the tag is verified: keep it here until final() succeeds (§7.3).
  const plaintext = decipher.update(sealed.subarray(0, sealed.length - TAG_SIZE));
  try {
    decipher.final();
  } catch {
    plaintext.fill(0);
    return null;
  }
  return plaintext;
}

// ---------------------------------------------------------------------------------------------
// Seal (§6). A writer's refusals come in §6's order: the parameters, the salt and nonce base, the payload
// (when its length is known first), the passphrase.

export function seal(source, sink, { passphrase, iterations = DEFAULT_ITERATIONS, chunkSize = DEFAULT_CHUNK_SIZE, salt, nonceBase }) {
  checkSealParameters({ iterations, chunkSize, salt, nonceBase });
  if (source.size === 0n) fail('empty_payload', 'the payload to seal is empty');
  const layout = layoutOf({ chunkSize, plaintextLength: source.size });
  if (layout.chunkCount > MAX_CHUNK_COUNT) fail('too_many_chunks', 'the payload needs more than 2^32 chunks');
  checkPassphraseForSealing(passphrase);

  const headerBytes = encodeHeader({ kdfIterations: iterations, salt, nonceBase, chunkSize, plaintextLength: source.size });
  const key = deriveKey(passphrase, salt, iterations);
  try {
    sink.write(headerBytes);
    for (let i = 0n; i < layout.chunkCount; i++) {
      const plaintext = source.read(i * BigInt(chunkSize), Number(layout.chunkPlaintext(i)));
      sink.write(sealChunk(key, headerBytes, nonceBase, i, plaintext));
    }
  } finally {
    key.fill(0);
  }
}

function checkSealParameters({ iterations, chunkSize, salt, nonceBase }) {
  if (!Number.isInteger(iterations) || !inRange(iterations, MIN_ITERATIONS, MAX_ITERATIONS)) {
    fail('iterations_out_of_range', `iterations ${iterations} outside ${MIN_ITERATIONS}…${MAX_ITERATIONS}`);
  }
  if (!Number.isInteger(chunkSize) || !inRange(chunkSize, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE)) {
    fail('chunk_size_out_of_range', `chunkSize ${chunkSize} outside ${MIN_CHUNK_SIZE}…${MAX_CHUNK_SIZE}`);
  }
  if (salt?.length !== SALT_SIZE) fail('invalid_argument', 'salt must be 16 bytes');
  if (nonceBase?.length !== NONCE_BASE_SIZE) fail('invalid_argument', 'nonceBase must be 8 bytes');
}

// §4: a writer refuses an empty passphrase (a reader opens a file sealed with one). No upper bound: that is
// goshuin-tool's (§4.1), not the format's.
export function checkPassphraseForSealing(passphrase) {
  if (passphrase.length === 0) fail('empty_passphrase', 'an empty passphrase protects nothing');
  passphraseBytes(passphrase);
}

// ---------------------------------------------------------------------------------------------
// Open (§7)

// §7 check 1; returns the header's fields, not yet judged.
export function readHeader(source) {
  if (source.size < BigInt(HEADER_SIZE)) fail('short_header', `the file has ${source.size} bytes, fewer than 45`);
  const headerBytes = source.read(0n, HEADER_SIZE);
  return { headerBytes, header: decodeHeader(headerBytes) };
}

// §7 checks 1–8: reads the header and compares the file size. Returns { headerBytes, header, layout }.
export function checkStructure(source) {
  const { headerBytes, header } = readHeader(source);
  checkHeader(header);
  const layout = layoutOf(header);
  if (source.size < layout.expectedFileSize) fail('truncated', `the file has ${source.size} bytes, the header says ${layout.expectedFileSize}`);
  if (source.size > layout.expectedFileSize) fail('trailing_data', `the file has ${source.size} bytes, the header says ${layout.expectedFileSize}`);
  return { headerBytes, header, layout };
}

// §7 check 9: every prefix is read at its computed offset, before any key or chunk buffer exists.
export function checkLengthPrefixes(source, layout) {
  for (let i = 0n; i < layout.chunkCount; i++) {
    const actual = source.read(layout.chunkOffset(i), PREFIX_SIZE).readUInt32BE(0);
    const expected = layout.chunkPlaintext(i) + BigInt(TAG_SIZE);
    if (BigInt(actual) !== expected) fail('chunk_length_invalid', `length prefix ${actual}, expected ${expected}`, Number(i));
  }
}

// Opens a version 1 `source`, handing each authenticated chunk's plaintext to `onPlaintext(buffer, index)`
// as soon as it authenticates (§7.3). Returns the decoded header; throws a GoshuinError on the first failed
// check. `open` (below) is the reader of both versions; this one is called for version byte 1 only.
export function openV1(source, passphrase, onPlaintext = () => {}) {
  const { headerBytes, header, layout } = checkStructure(source); // checks 1–8
  checkLengthPrefixes(source, layout); // check 9
  const key = deriveKey(passphrase, header.salt, header.kdfIterations); // check 10
  try {
    const readChunk = (i) => openChunk(key, headerBytes, header.nonceBase, i,
      source.read(layout.chunkOffset(i) + BigInt(PREFIX_SIZE), Number(layout.chunkPlaintext(i)) + TAG_SIZE));
    for (let i = 0n; i < layout.chunkCount; i++) { // check 11
      const plaintext = readChunk(i);
      if (plaintext === null) failChunk(i, layout.chunkCount, readChunk);
      onPlaintext(plaintext, Number(i));
    }
  } finally {
    key.fill(0);
  }
  return header;
}

// §7.1: tell a wrong passphrase or altered header (every chunk fails) from damage (one chunk fails).
function failChunk(index, chunkCount, readChunk) {
  if (index > 0n) fail('chunk_damaged', 'the chunk does not authenticate', Number(index));
  const probeEnd = chunkCount < BigInt(PROBE_CHUNKS) ? chunkCount : BigInt(PROBE_CHUNKS);
  for (let j = 1n; j < probeEnd; j++) {
    if (readChunk(j) !== null) fail('chunk_damaged', `the chunk does not authenticate but chunk ${j} does`, 0);
  }
  fail('auth_failed', 'no chunk authenticates: wrong passphrase, or the header was altered');
}

// =============================================================================================
// Version 2 (container-v2.md): a 77-byte header with a MAC that commits to the key, records without
// length prefixes, the last record flagged in its nonce, the record count implied by the file size.

export const VERSION_2 = 2;
export const HEADER_SIZE_V2 = 77;
export const MAC_INPUT_SIZE = 45; // the MAC covers header bytes 0 … 44 (v2 §2)
export const MAC_SIZE = 32;
export const PAYLOAD_SALT_SIZE = 16;
export const MAX_RECORD_COUNT = 2n ** 32n; // v2 §3: the record index is a u32 in the nonce
export const INFO_HEADER_MAC = Buffer.from('goshuin/v2/header-mac', 'ascii'); // v2 §4, no terminator
export const INFO_PAYLOAD = Buffer.from('goshuin/v2/payload', 'ascii');

export const FIELD_V2 = {
  magic: { offset: 0, size: 4 },
  version: { offset: 4, size: 1 },
  kdfIterations: { offset: 5, size: 4 },
  kdfSalt: { offset: 9, size: 16 },
  payloadSalt: { offset: 25, size: 16 },
  chunkSize: { offset: 41, size: 4 },
  headerMac: { offset: 45, size: 32 },
};

// --- HKDF-SHA256 (RFC 5869), written out as extract-then-expand over HMAC-SHA256. The RFC's test
// cases 1–3 (KnownAnswer/rfc5869/hkdf-sha256.json) are checked against these and node's hkdfSync.

export function hkdfExtract(salt, ikm) {
  return crypto.createHmac('sha256', salt).update(ikm).digest(); // an empty salt is HashLen zeros (RFC 5869 §2.2), which HMAC's zero padding gives
}

export function hkdfExpand(prk, info, length) {
  if (!Number.isInteger(length) || length < 0 || length > 255 * 32) throw new RangeError('HKDF-SHA256 length outside 0 … 8160');
  const blocks = [];
  let previous = Buffer.alloc(0);
  for (let i = 1; 32 * (i - 1) < length; i++) {
    previous = crypto.createHmac('sha256', prk).update(previous).update(info).update(Buffer.of(i)).digest();
    blocks.push(previous);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

export function hkdfSha256(ikm, salt, info, length) {
  const prk = hkdfExtract(salt, ikm);
  try {
    return hkdfExpand(prk, info, length);
  } finally {
    prk.fill(0);
  }
}

// v2 §4: K_pw, then K_header and K_payload from it. The caller wipes all three.
export function deriveKeysV2(passphrase, kdfSalt, iterations, payloadSalt) {
  const passwordKey = deriveKey(passphrase, kdfSalt, iterations);
  return {
    passwordKey,
    headerKey: hkdfSha256(passwordKey, payloadSalt, INFO_HEADER_MAC, KEY_SIZE),
    payloadKey: hkdfSha256(passwordKey, payloadSalt, INFO_PAYLOAD, KEY_SIZE),
  };
}

const wipeKeys = (keys) => { for (const key of Object.values(keys)) key.fill(0); };

// --- Header (v2 §2)

// Decodes the fields of a v2 header without judging them. From the first 45 bytes only the MAC is
// missing (`headerMac` is then undefined): `inspect` shows the rest of a file shorter than 77 bytes.
export function decodeHeaderV2(bytes) {
  return {
    magic: Buffer.from(bytes.subarray(0, 4)),
    version: bytes.readUInt8(4),
    kdfIterations: bytes.readUInt32BE(5),
    kdfSalt: Buffer.from(bytes.subarray(9, 25)),
    payloadSalt: Buffer.from(bytes.subarray(25, 41)),
    chunkSize: bytes.readUInt32BE(41),
    headerMac: bytes.length >= HEADER_SIZE_V2 ? Buffer.from(bytes.subarray(45, 77)) : undefined,
  };
}

export const headerMacOf = (headerKey, headerBytes) => crypto.createHmac('sha256', headerKey).update(headerBytes.subarray(0, MAC_INPUT_SIZE)).digest();

// The 77 header bytes: the 45 described bytes and their MAC under `headerKey`.
export function encodeHeaderV2({ kdfIterations, kdfSalt, payloadSalt, chunkSize }, headerKey) {
  const bytes = Buffer.alloc(HEADER_SIZE_V2);
  MAGIC.copy(bytes, 0);
  bytes.writeUInt8(VERSION_2, 4);
  bytes.writeUInt32BE(kdfIterations, 5);
  kdfSalt.copy(bytes, 9);
  payloadSalt.copy(bytes, 25);
  bytes.writeUInt32BE(chunkSize, 41);
  headerMacOf(headerKey, bytes).copy(bytes, MAC_INPUT_SIZE);
  return bytes;
}

// v2 §7 checks 5 and 6.
export function checkHeaderBoundsV2(header) {
  if (!inRange(header.kdfIterations, MIN_ITERATIONS, MAX_ITERATIONS)) {
    fail('iterations_out_of_range', `kdfIterations ${header.kdfIterations} outside ${MIN_ITERATIONS}…${MAX_ITERATIONS}`);
  }
  if (!inRange(header.chunkSize, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE)) {
    fail('chunk_size_out_of_range', `chunkSize ${header.chunkSize} outside ${MIN_CHUNK_SIZE}…${MAX_CHUNK_SIZE}`);
  }
}

// --- Layout (v2 §3, §5): everything follows from the chunk size and the file size. BigInt throughout.
// Valid once checks 6 (chunk size in bounds) and 7 (recordCount ≤ 2^32) passed; `lastRecordLength`
// ≥ 16 is check 8.

export function layoutV2(chunkSize, fileSize) {
  const recordSize = BigInt(chunkSize) + BigInt(TAG_SIZE); // S
  const bodySize = BigInt(fileSize) - BigInt(HEADER_SIZE_V2); // B ≥ 0 after check 4
  const recordCount = bodySize / recordSize + 1n; // n = ⌊B/S⌋ + 1
  const lastRecordLength = bodySize - (recordCount - 1n) * recordSize; // r = B mod S, no overflow: (n−1)·S ≤ B
  return {
    recordSize,
    bodySize,
    recordCount,
    lastRecordLength,
    payloadLength: (recordCount - 1n) * BigInt(chunkSize) + lastRecordLength - BigInt(TAG_SIZE),
    recordOffset: (i) => BigInt(HEADER_SIZE_V2) + BigInt(i) * recordSize,
    recordLength: (i) => (BigInt(i) < recordCount - 1n ? recordSize : lastRecordLength),
    isFinal: (i) => BigInt(i) === recordCount - 1n,
  };
}

// --- One record's AES-256-GCM (v2 §5)

// nonce_i = 00×7 ‖ u32be(i) ‖ f, f = 01 on the last record only.
export function recordNonceV2(index, final) {
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(Number(index), 7);
  nonce[11] = final ? 1 : 0;
  return nonce;
}

// Returns the record: ciphertext ‖ tag.
export function sealRecordV2(payloadKey, headerBytes, index, final, plaintext) {
  const cipher = crypto.createCipheriv('aes-256-gcm', payloadKey, recordNonceV2(index, final), { authTagLength: TAG_SIZE });
  cipher.setAAD(headerBytes);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([ciphertext, cipher.getAuthTag()]);
}

// `record` is ciphertext ‖ tag. Returns the plaintext, or null if it does not authenticate. A record
// shorter than a tag never authenticates (check 8 makes it impossible; this is the second line).
export function openRecordV2(payloadKey, headerBytes, index, final, record) {
  if (record.length < TAG_SIZE) return null;
  // authTagLength: 16, or node would accept a shorter tag passed to setAuthTag (v2 §10).
  const decipher = crypto.createDecipheriv('aes-256-gcm', payloadKey, recordNonceV2(index, final), { authTagLength: TAG_SIZE });
  decipher.setAAD(headerBytes);
  decipher.setAuthTag(record.subarray(record.length - TAG_SIZE));
  const plaintext = decipher.update(record.subarray(0, record.length - TAG_SIZE)); // held until final() (v2 §8)
  try {
    decipher.final();
  } catch {
    plaintext.fill(0);
    return null;
  }
  return plaintext;
}

// --- Seal (v2 §6)

function checkSealParametersV2({ iterations, chunkSize, kdfSalt, payloadSalt }) {
  if (!Number.isInteger(iterations) || !inRange(iterations, MIN_ITERATIONS, MAX_ITERATIONS)) {
    fail('iterations_out_of_range', `iterations ${iterations} outside ${MIN_ITERATIONS}…${MAX_ITERATIONS}`);
  }
  if (!Number.isInteger(chunkSize) || !inRange(chunkSize, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE)) {
    fail('chunk_size_out_of_range', `chunkSize ${chunkSize} outside ${MIN_CHUNK_SIZE}…${MAX_CHUNK_SIZE}`);
  }
  if (kdfSalt?.length !== SALT_SIZE) fail('invalid_argument', 'kdfSalt must be 16 bytes');
  if (payloadSalt?.length !== PAYLOAD_SALT_SIZE) fail('invalid_argument', 'payloadSalt must be 16 bytes');
}

// Seals a stream whose length is not known in advance. `nextChunk()` returns the next chunkSize bytes of
// the payload, or fewer (0 included) at its end, once. A full chunk is never the last record (the last
// carries 0 … chunkSize − 1 bytes), so each full chunk is sealed as soon as it is read, and the flagged
// record is the last thing written (v2 §6).
export function sealV2Stream(nextChunk, sink, { passphrase, iterations = DEFAULT_ITERATIONS, chunkSize = DEFAULT_CHUNK_SIZE, kdfSalt, payloadSalt }) {
  checkSealParametersV2({ iterations, chunkSize, kdfSalt, payloadSalt });
  checkPassphraseForSealing(passphrase); // before the payload, which a stream gives only as it is read
  const keys = deriveKeysV2(passphrase, kdfSalt, iterations, payloadSalt);
  try {
    const headerBytes = encodeHeaderV2({ kdfIterations: iterations, kdfSalt, payloadSalt, chunkSize }, keys.headerKey);
    sink.write(headerBytes);
    for (let i = 0n; ; i++) {
      const plaintext = nextChunk();
      if (plaintext.length > chunkSize) throw new Error('nextChunk returned more than chunkSize bytes');
      if (plaintext.length < chunkSize) {
        sink.write(sealRecordV2(keys.payloadKey, headerBytes, i, true, plaintext));
        return;
      }
      // A full chunk at index 2^32 − 1 would need a final record at index 2^32 (v2 §10, counter overflow).
      if (i === MAX_RECORD_COUNT - 1n) fail('too_many_chunks', 'the payload needs more than 2^32 records');
      sink.write(sealRecordV2(keys.payloadKey, headerBytes, i, false, plaintext));
    }
  } finally {
    wipeKeys(keys);
  }
}

// Seals a source of known size (the same bytes as sealV2Stream; the size is checked first).
export function sealV2(source, sink, params) {
  const chunkSize = params.chunkSize ?? DEFAULT_CHUNK_SIZE;
  checkSealParametersV2({ iterations: params.iterations ?? DEFAULT_ITERATIONS, chunkSize, kdfSalt: params.kdfSalt, payloadSalt: params.payloadSalt });
  if (source.size / BigInt(chunkSize) + 1n > MAX_RECORD_COUNT) fail('too_many_chunks', 'the payload needs more than 2^32 records');
  let position = 0n;
  const nextChunk = () => {
    const length = source.size - position < BigInt(chunkSize) ? Number(source.size - position) : chunkSize;
    const bytes = length === 0 ? Buffer.alloc(0) : source.read(position, length);
    position += BigInt(length);
    return bytes;
  };
  sealV2Stream(nextChunk, sink, params);
}

// --- Open (v2 §7)

// v2 §7 checks 4–8, for a source whose first 45 bytes passed checks 1–3. Returns { headerBytes, header, layout }.
export function checkStructureV2(source) {
  if (source.size < BigInt(HEADER_SIZE_V2)) fail('short_header', `the file has ${source.size} bytes, fewer than the 77 of a version 2 header`); // check 4
  const headerBytes = source.read(0n, HEADER_SIZE_V2);
  const header = decodeHeaderV2(headerBytes);
  checkHeaderBoundsV2(header); // checks 5, 6
  const layout = layoutV2(header.chunkSize, source.size);
  if (layout.recordCount > MAX_RECORD_COUNT) fail('too_many_chunks', `the file size implies ${layout.recordCount} records, more than 2^32`); // check 7
  if (layout.lastRecordLength < BigInt(TAG_SIZE)) { // check 8
    fail('truncated', `the last record has ${layout.lastRecordLength} bytes, fewer than a 16-byte tag: the file was cut`);
  }
  return { headerBytes, header, layout };
}

// Opens a version 2 `source` (in index order, v2 §8), handing each authenticated record's plaintext to
// `onPlaintext(buffer, index)`. Returns the decoded header; throws a GoshuinError on the first failed check.
export function openV2(source, passphrase, onPlaintext = () => {}) {
  const { headerBytes, header, layout } = checkStructureV2(source); // checks 1–8
  const keys = deriveKeysV2(passphrase, header.kdfSalt, header.kdfIterations, header.payloadSalt);
  try {
    // Check 9: the MAC, compared in constant time; it commits to the key (and to every header byte).
    if (!crypto.timingSafeEqual(headerMacOf(keys.headerKey, headerBytes), header.headerMac)) {
      fail('auth_failed', 'the header MAC does not verify: wrong passphrase, or the header was altered');
    }
    // Check 10: once the MAC holds, any record failure is damage, at the lowest failing index.
    for (let i = 0n; i < layout.recordCount; i++) {
      const record = source.read(layout.recordOffset(i), Number(layout.recordLength(i)));
      const plaintext = openRecordV2(keys.payloadKey, headerBytes, i, layout.isFinal(i), record);
      if (plaintext === null) fail('chunk_damaged', 'the record does not authenticate (the header MAC holds: the file is damaged)', Number(i));
      onPlaintext(plaintext, Number(i));
    }
  } finally {
    wipeKeys(keys);
  }
  return header;
}

// =============================================================================================
// Both versions

// v2 §7 checks 1–3: the size of the smallest header, the magic, the version byte. Returns 1 or 2.
export function containerVersionOf(source) {
  if (source.size < BigInt(HEADER_SIZE)) fail('short_header', `the file has ${source.size} bytes, fewer than 45`);
  const first = source.read(0n, HEADER_SIZE);
  if (!first.subarray(0, 4).equals(MAGIC)) fail('bad_magic', 'the first 4 bytes are not GSHN');
  const version = first.readUInt8(4);
  if (version !== VERSION && version !== VERSION_2) fail('unsupported_version', `version ${version} is neither 1 nor 2`);
  return version;
}

// Opens a file of either version, by its version byte alone: version 1 by container-v1.md's rules,
// version 2 by container-v2.md's, never one after the other.
export function open(source, passphrase, onPlaintext = () => {}) {
  return containerVersionOf(source) === VERSION ? openV1(source, passphrase, onPlaintext) : openV2(source, passphrase, onPlaintext);
}

// ---------------------------------------------------------------------------------------------
// Sources and sinks

export function bufferSource(buffer) {
  return {
    size: BigInt(buffer.length),
    read: (position, length) => buffer.subarray(Number(position), Number(position) + length),
  };
}

export function bufferSink() {
  const parts = [];
  return { write: (buffer) => parts.push(Buffer.from(buffer)), bytes: () => Buffer.concat(parts) };
}

// Operating-system errors become `io`, a full disk included (Spec/decisions/0002), with the system's text.
function withIo(action) {
  try {
    return action();
  } catch (error) {
    if (error instanceof GoshuinError) throw error;
    fail('io', error.message);
  }
}

export function fileSource(fd) {
  return {
    size: withIo(() => fs.fstatSync(fd, { bigint: true }).size),
    read(position, length) {
      const buffer = Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const n = withIo(() => fs.readSync(fd, buffer, done, length - done, position + BigInt(done)));
        if (n === 0) fail('io', `unexpected end of file at ${position + BigInt(done)}`);
        done += n;
      }
      return buffer;
    },
  };
}

export function fileSink(fd) {
  return { write: (buffer) => withIo(() => fs.writeSync(fd, buffer)) };
}

// Runs `produce(sink)` into a temporary file beside `outPath` and moves it to `outPath` only when
// `produce` returns, so a failure never leaves a partial output (§7.3). Never replaces an existing file.
function writeAtomically(outPath, produce) {
  if (fs.existsSync(outPath)) fail('output_exists', `${outPath} exists`);
  const tempPath = path.join(path.dirname(outPath), `.${path.basename(outPath)}.${crypto.randomBytes(6).toString('hex')}.partial`);
  let fd = withIo(() => fs.openSync(tempPath, 'wx', 0o600));
  try {
    produce(fileSink(fd));
    withIo(() => fs.fsyncSync(fd));
    withIo(() => fs.closeSync(fd));
    fd = undefined;
    linkWithoutReplacing(tempPath, outPath);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tempPath, { force: true });
  }
}

// link() refuses to replace a file that appeared meanwhile, unlike rename().
function linkWithoutReplacing(fromPath, toPath) {
  try {
    fs.linkSync(fromPath, toPath);
  } catch (error) {
    if (error.code === 'EEXIST') fail('output_exists', `${toPath} exists`);
    withIo(() => { throw error; });
  }
}

function withInputFile(inPath, use) {
  const fd = withIo(() => fs.openSync(inPath, 'r'));
  try {
    return use(fileSource(fd));
  } finally {
    fs.closeSync(fd);
  }
}

export function sealFile(inPath, outPath, { passphrase, iterations, chunkSize, salt = crypto.randomBytes(SALT_SIZE), nonceBase = crypto.randomBytes(NONCE_BASE_SIZE) }) {
  withInputFile(inPath, (source) => writeAtomically(outPath, (sink) => seal(source, sink, { passphrase, iterations, chunkSize, salt, nonceBase })));
}

// v2: both salts fresh from the CSPRNG for every file (v2 §6); fixed ones are for vectors only.
export function sealFileV2(inPath, outPath, { passphrase, iterations, chunkSize, kdfSalt = crypto.randomBytes(SALT_SIZE), payloadSalt = crypto.randomBytes(PAYLOAD_SALT_SIZE) }) {
  withInputFile(inPath, (source) => writeAtomically(outPath, (sink) => sealV2(source, sink, { passphrase, iterations, chunkSize, kdfSalt, payloadSalt })));
}

// v2 from a descriptor whose length is not known (a pipe): one chunk in memory, no temporary copy of the
// input; the output still appears only when complete.
export function sealDescriptorV2(fd, outPath, { passphrase, iterations, chunkSize = DEFAULT_CHUNK_SIZE, kdfSalt = crypto.randomBytes(SALT_SIZE), payloadSalt = crypto.randomBytes(PAYLOAD_SALT_SIZE) }) {
  let ended = false;
  const nextChunk = () => {
    if (ended) throw new Error('nextChunk called after the end');
    const buffer = Buffer.alloc(chunkSize);
    let filled = 0;
    while (filled < chunkSize) {
      let n;
      try {
        n = fs.readSync(fd, buffer, filled, chunkSize - filled, null);
      } catch (error) {
        if (error.code === 'EAGAIN') { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); continue; }
        if (error.code === 'EOF') n = 0;
        else fail('io', error.message);
      }
      if (n === 0) { ended = true; break; }
      filled += n;
    }
    return buffer.subarray(0, filled);
  };
  writeAtomically(outPath, (sink) => sealV2Stream(nextChunk, sink, { passphrase, iterations, chunkSize, kdfSalt, payloadSalt }));
}

// `onPlaintext(buffer, index)` also sees each released chunk (used by the vector checker).
export function openFile(inPath, outPath, passphrase, onPlaintext = () => {}) {
  return withInputFile(inPath, (source) => {
    let header;
    writeAtomically(outPath, (sink) => {
      header = open(source, passphrase, (plaintext, index) => {
        sink.write(plaintext);
        onPlaintext(plaintext, index);
      });
    });
    return header;
  });
}

// Header fields of a file as plain JSON values, with the layout and the result of the checks that need no
// passphrase: v1 checks 1–9; for version byte 2, v2 checks 1–8 (the MAC is shown, not verified: v2 §9).
export function inspectFile(inPath) {
  return withInputFile(inPath, (source) => {
    const { headerBytes, header } = readHeader(source);
    if (header.magic.equals(MAGIC) && header.version === VERSION_2) return inspectV2(source, headerBytes);
    const result = {
      magic: header.magic.toString('hex'),
      version: header.version,
      kdfIterations: header.kdfIterations,
      salt: header.salt.toString('hex'),
      nonceBase: header.nonceBase.toString('hex'),
      chunkSize: header.chunkSize,
      plaintextLength: jsonInteger(header.plaintextLength),
      fileSize: jsonInteger(source.size),
    };
    try {
      const { layout } = checkStructure(source);
      checkLengthPrefixes(source, layout);
      Object.assign(result, { chunkCount: jsonInteger(layout.chunkCount), expectedFileSize: jsonInteger(layout.expectedFileSize), structure: 'ok' });
    } catch (error) {
      if (!(error instanceof GoshuinError)) throw error;
      result.structure = error.code;
      if (error.chunkIndex !== undefined) result.chunkIndex = error.chunkIndex;
    }
    return result;
  });
}

function inspectV2(source, first45) {
  const full = source.size >= BigInt(HEADER_SIZE_V2);
  const header = decodeHeaderV2(full ? source.read(0n, HEADER_SIZE_V2) : first45);
  const result = {
    magic: header.magic.toString('hex'),
    version: header.version,
    kdfIterations: header.kdfIterations,
    kdfSalt: header.kdfSalt.toString('hex'),
    payloadSalt: header.payloadSalt.toString('hex'),
    chunkSize: header.chunkSize,
    headerMac: header.headerMac?.toString('hex'),
    headerMacVerified: false, // never without the passphrase: every value here is unauthenticated
    fileSize: jsonInteger(source.size),
  };
  try {
    const { layout } = checkStructureV2(source);
    Object.assign(result, {
      recordCount: jsonInteger(layout.recordCount),
      lastRecordLength: jsonInteger(layout.lastRecordLength),
      payloadLength: jsonInteger(layout.payloadLength), // implied by the size, confirmed only by the final record
      structure: 'ok',
    });
  } catch (error) {
    if (!(error instanceof GoshuinError)) throw error;
    result.structure = error.code;
  }
  return result;
}

// A BigInt as a JSON number when exact, otherwise as a decimal string.
const jsonInteger = (value) => (value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString());

// ---------------------------------------------------------------------------------------------
// Command line

const USAGE = `usage: node goshuin.mjs <command>
  seal IN OUT --passphrase-env VAR [--format 1|2] [--iterations N] [--chunk-size N]   (IN "-": standard input, v2 only)
  open IN OUT --passphrase-env VAR                                                    (either version, by its version byte)
  inspect FILE
  generate DIR
  generate-random DIR [--seed S] [--count N] [--v2-count N]   (N version 1 vectors, then N version 2 unless --v2-count)
  check DIR [--json]
  wycheproof DIR
  hkdf FILE`;

// Splits argv into positional arguments and --options; `flags` names the options that take no value.
export function parseArguments(argv, flags = []) {
  const positional = [];
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    if (!argument.startsWith('--')) { positional.push(argument); continue; }
    const name = argument.slice(2);
    if (flags.includes(name)) { options[name] = true; continue; }
    if (i + 1 >= argv.length) fail('invalid_argument', `${argument} needs a value`);
    options[name] = argv[++i];
  }
  return { positional, options };
}

function integerOption(options, name, fallback) {
  if (options[name] === undefined) return fallback;
  if (!/^[0-9]+$/.test(options[name])) fail('invalid_argument', `--${name} must be a decimal integer`);
  return Number(options[name]);
}

// The passphrase comes from an environment variable, never from argv (visible to other users).
// Its bytes are wiped after use (§4); the environment's own copy is out of reach.
function withPassphrase(options, use) {
  const variable = options['passphrase-env'];
  if (!variable) fail('invalid_argument', '--passphrase-env VAR is required');
  const value = process.env[variable];
  if (value === undefined) fail('invalid_argument', `environment variable ${variable} is not set`);
  const passphrase = Buffer.from(value, 'utf8');
  try {
    return use(passphrase);
  } finally {
    passphrase.fill(0);
  }
}

function expectPositional(positional, count) {
  if (positional.length !== count) fail('invalid_argument', `expected ${count} argument(s)\n${USAGE}`);
  return positional;
}

const COMMANDS = {
  seal(argv) {
    const { positional, options } = parseArguments(argv);
    const [inPath, outPath] = expectPositional(positional, 2);
    const iterations = integerOption(options, 'iterations', DEFAULT_ITERATIONS);
    const chunkSize = integerOption(options, 'chunk-size', DEFAULT_CHUNK_SIZE);
    const format = integerOption(options, 'format', 1); // v1 stays the default until the app reads v2
    if (format !== 1 && format !== 2) fail('invalid_argument', '--format must be 1 or 2');
    if (inPath === '-' && format !== 2) fail('invalid_argument', 'sealing standard input needs --format 2 (version 1 writes the payload length first)');
    withPassphrase(options, (passphrase) => {
      if (format === 1) sealFile(inPath, outPath, { passphrase, iterations, chunkSize });
      else if (inPath === '-') sealDescriptorV2(0, outPath, { passphrase, iterations, chunkSize });
      else sealFileV2(inPath, outPath, { passphrase, iterations, chunkSize });
    });
    return 0;
  },
  open(argv) {
    const { positional, options } = parseArguments(argv);
    const [inPath, outPath] = expectPositional(positional, 2);
    withPassphrase(options, (passphrase) => openFile(inPath, outPath, passphrase));
    return 0;
  },
  inspect(argv) {
    const [file] = expectPositional(parseArguments(argv).positional, 1);
    console.log(JSON.stringify(inspectFile(file), null, 2));
    return 0;
  },
  async generate(argv) {
    const [dir] = expectPositional(parseArguments(argv).positional, 1);
    const { generateKnownAnswerSet } = await import('./generate.mjs');
    console.log(`${generateKnownAnswerSet(dir)} vectors written to ${dir}`);
    return 0;
  },
  async 'generate-random'(argv) {
    const { positional, options } = parseArguments(argv);
    const [dir] = expectPositional(positional, 1);
    const { generateRandomSet } = await import('./generate.mjs');
    const seed = options.seed ?? crypto.randomBytes(16).toString('hex');
    const count = integerOption(options, 'count', 40);
    const written = generateRandomSet(dir, { seed, count, v2Count: integerOption(options, 'v2-count', count) });
    console.log(`${written} random vectors written to ${dir} (seed ${seed})`);
    return 0;
  },
  async check(argv) {
    const { positional, options } = parseArguments(argv, ['json']);
    const [dir] = expectPositional(positional, 1);
    const { checkVectorSet, formatCheckReport } = await import('./vectors.mjs');
    const results = checkVectorSet(dir);
    console.log(formatCheckReport(results, { json: Boolean(options.json) }));
    return results.every((r) => r.status === 'ok' || r.status === 'skipped') ? 0 : 1;
  },
  async hkdf(argv) {
    const [file] = expectPositional(parseArguments(argv).positional, 1);
    const { runHkdfKnownAnswers } = await import('./vectors.mjs');
    const { passed, failed, lines } = runHkdfKnownAnswers(file);
    for (const line of lines) console.log(line);
    console.log(`${passed} passed, ${failed} failed`);
    return failed === 0 && passed > 0 ? 0 : 1;
  },
  async wycheproof(argv) {
    const [dir] = expectPositional(parseArguments(argv).positional, 1);
    const { runWycheproof } = await import('./vectors.mjs');
    const { passed, failed, lines } = runWycheproof(dir);
    for (const line of lines) console.log(line);
    console.log(`${passed} passed, ${failed} failed`);
    return failed === 0 && passed > 0 ? 0 : 1;
  },
};

async function main(argv) {
  const command = COMMANDS[argv[0]];
  if (!command) {
    console.error(USAGE);
    return 2;
  }
  try {
    return await command(argv.slice(1));
  } catch (error) {
    if (!(error instanceof GoshuinError)) throw error;
    console.error(`error: ${error.message}`);
    return 1;
  }
}

// No top-level await: the commands import modules that import this one, which must be evaluated first.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
