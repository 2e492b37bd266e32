// Generates known-answer vector sets (Spec/vectors-v1.md §4, §5.6): the deterministic committed set
// (KnownAnswer/, container versions 1 and 2, and the RFC 5869 HKDF cases) and random sets for
// differential testing. Every expected result is what this reference opener reports for the file; for
// the committed set it must also match the result declared in the tables below, written from the spec by
// hand.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {
  FIELD, FIELD_V2, GoshuinError, HEADER_SIZE, HEADER_SIZE_V2, PREFIX_SIZE, TAG_SIZE, MAX_CHUNK_SIZE, KEY_SIZE,
  INFO_HEADER_MAC, INFO_PAYLOAD, bufferSink, bufferSource, chunkNonce, deriveKey, deriveKeysV2, encodeHeader,
  encodeHeaderV2, hkdfExtract, hkdfSha256, open, openRecordV2, recordNonceV2, seal, sealChunk, sealRecordV2, sealV2,
} from './goshuin.mjs';
import { FORMAT, HKDF_KNOWN_ANSWERS, MAX_HEX_PLAINTEXT, formatVector, sha256, sha256Hex } from './vectors.mjs';
import { gcmKeystream, twoKeyCiphertext } from './commitment.mjs';

// ---------------------------------------------------------------------------------------------
// Deterministic values (vectors-v1.md §4)

const u32be = (value) => { const b = Buffer.alloc(4); b.writeUInt32BE(value); return b; };
const u64be = (value) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(value)); return b; };

export const katSalt = (name) => sha256(`goshuin-kat/salt/${name}`).subarray(0, 16);
export const katNonceBase = (name) => sha256(`goshuin-kat/nonce/${name}`).subarray(0, 8);

// The first `length` bytes of SHA-256(NAME ‖ "/" ‖ u32be(0)) ‖ SHA-256(NAME ‖ "/" ‖ u32be(1)) ‖ …
export function katPlaintext(name, length) {
  const blocks = [];
  for (let i = 0; i * 32 < length; i++) blocks.push(sha256(Buffer.concat([Buffer.from(`${name}/`), u32be(i)])));
  return Buffer.concat(blocks).subarray(0, length);
}

// ---------------------------------------------------------------------------------------------
// Sealing and opening in memory

function sealBuffer(plaintext, params) {
  const sink = bufferSink();
  seal(bufferSource(plaintext), sink, params);
  return sink.bytes();
}

// Seals more chunks for an existing seal (same key, header as AAD and nonceBase), e.g. an extra chunk.
function chunkSealer(sealed, { passphrase, salt, iterations, nonceBase }) {
  const key = deriveKey(passphrase, salt, iterations);
  return (index, plaintext) => sealChunk(key, sealed.subarray(0, HEADER_SIZE), nonceBase, index, plaintext);
}

// `file` followed by zero bytes up to `size` (vectors-v1.md §5.4), without holding them.
export function zeroExtendedSource(file, size) {
  return {
    size: BigInt(size),
    read(position, length) {
      const bytes = Buffer.alloc(length);
      const start = Number(position);
      if (start < file.length) file.copy(bytes, 0, start, Math.min(file.length, start + length));
      return bytes;
    },
  };
}

// What a checker must find when opening `file` (zero-extended to `fileSize` when given): success, or the
// code, index and released plaintext.
export function openOutcome(file, passphrase, fileSize) {
  const hash = crypto.createHash('sha256');
  let releasedLength = 0;
  try {
    const source = fileSize === undefined ? bufferSource(file) : zeroExtendedSource(file, fileSize);
    open(source, passphrase, (plaintext) => { hash.update(plaintext); releasedLength += plaintext.length; });
    return { expect: 'success' };
  } catch (error) {
    if (!(error instanceof GoshuinError)) throw error;
    return { expect: error.code, chunkIndex: error.chunkIndex, releasedLength, releasedSha256: hash.digest('hex') };
  }
}

// ---------------------------------------------------------------------------------------------
// File edits: each returns a new Buffer. Chunk positions come from the seal's own layout (`chunksOf`).

function setBytes(file, offset, bytes) {
  const copy = Buffer.from(file);
  bytes.copy(copy, offset);
  return copy;
}

// Sets a header field (§2) to a value: a number/BigInt for the integer fields, bytes otherwise.
function setField(file, field, value) {
  const { offset, size } = FIELD[field];
  const encoded = Buffer.isBuffer(value) ? value : size === 1 ? Buffer.of(value) : size === 4 ? u32be(value) : u64be(value);
  return setBytes(file, offset, encoded);
}

// Flips bit `bit` (0 = least significant) of the big-endian field, or of the byte at `offset`.
function flipBit(file, offset, bit = 0) {
  const copy = Buffer.from(file);
  copy[offset] ^= 1 << bit;
  return copy;
}

function flipFieldBit(file, field, bit) {
  const { offset, size } = FIELD[field];
  return flipBit(file, offset + size - 1 - (bit >> 3), bit & 7);
}

const truncate = (file, length) => Buffer.from(file.subarray(0, length));
const append = (file, bytes) => Buffer.concat([file, bytes]);

// The chunk records of a seal, cut at the offsets its chunk size gives (§3), not at its length
// prefixes, so that edits can be combined with prefix edits.
function chunkRecords(sealed, chunkSize) {
  const recordOffset = (i) => HEADER_SIZE + i * (chunkSize + 20);
  const records = [];
  for (let offset = HEADER_SIZE; offset < sealed.length; offset += chunkSize + 20) {
    records.push(Buffer.from(sealed.subarray(offset, offset + chunkSize + 20)));
  }
  return {
    header: Buffer.from(sealed.subarray(0, HEADER_SIZE)),
    records,
    count: records.length,
    prefixOffset: recordOffset,
    ciphertextOffset: (i) => recordOffset(i) + PREFIX_SIZE,
    tagOffset: (i) => recordOffset(i) + records[i].length - TAG_SIZE,
  };
}

const join = (header, records) => Buffer.concat([header, ...records]);

function withRecords(sealed, chunkSize, change) {
  const { header, records } = chunkRecords(sealed, chunkSize);
  return join(header, change([...records]));
}

const swapChunks = (i, j) => (sealed, { chunkSize }) => withRecords(sealed, chunkSize, (r) => { [r[i], r[j]] = [r[j], r[i]]; return r; });
const copyChunk = (from, to) => (sealed, { chunkSize }) => withRecords(sealed, chunkSize, (r) => { r[to] = r[from]; return r; });
const deleteChunk = (i) => (sealed, { chunkSize }) => withRecords(sealed, chunkSize, (r) => { r.splice(i, 1); return r; });
const setPrefix = (i, value) => (sealed, { chunkSize }) => setBytes(sealed, chunkRecords(sealed, chunkSize).prefixOffset(i), u32be(value));
const addToPrefix = (i, delta) => (sealed, ctx) => setPrefix(i, sealed.readUInt32BE(chunkRecords(sealed, ctx.chunkSize).prefixOffset(i)) + delta)(sealed, ctx);
const flipCiphertext = (i, byte = 0, bit = 0) => (sealed, { chunkSize }) => flipBit(sealed, chunkRecords(sealed, chunkSize).ciphertextOffset(i) + byte, bit);
const flipTag = (i, byte = 0, bit = 0) => (sealed, { chunkSize }) => flipBit(sealed, chunkRecords(sealed, chunkSize).tagOffset(i) + byte, bit);
const both = (...edits) => (sealed, ctx) => edits.reduce((file, edit) => edit(file, ctx), sealed);

// ---------------------------------------------------------------------------------------------
// A minimal ZIP writer: stored entries, DOS time 1980-01-01 00:00, Unix mode 0644 (for the
// backup payload vector; the backup layout itself is backup-v1.md's business).

const DOS_TIME = 0x0000; // 00:00:00
const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01
const UNIX_FILE_0644 = (0o100644 << 16) >>> 0;

export function storedZip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const fileName = Buffer.from(name, 'utf8');
    const common = Buffer.alloc(26);
    common.writeUInt16LE(10, 0); // version needed: 1.0, stored
    common.writeUInt16LE(0, 2); // flags
    common.writeUInt16LE(0, 4); // method: stored
    common.writeUInt16LE(DOS_TIME, 6);
    common.writeUInt16LE(DOS_DATE, 8);
    common.writeUInt32LE(zlib.crc32(data), 10);
    common.writeUInt32LE(data.length, 14); // compressed size
    common.writeUInt32LE(data.length, 18); // uncompressed size
    common.writeUInt16LE(fileName.length, 22);
    common.writeUInt16LE(0, 24); // extra field length
    const local = Buffer.concat([u32le(0x04034b50), common, fileName, data]);
    const centralTail = Buffer.alloc(12);
    centralTail.writeUInt16LE(0, 0); // comment length
    centralTail.writeUInt16LE(0, 2); // disk number start
    centralTail.writeUInt16LE(0, 4); // internal attributes
    centralTail.writeUInt32LE(UNIX_FILE_0644, 6);
    const madeBy = Buffer.alloc(2);
    madeBy.writeUInt16LE((3 << 8) | 20); // Unix, ZIP 2.0
    centrals.push(Buffer.concat([u32le(0x02014b50), madeBy, common, centralTail.subarray(0, 10), u32le(offset), fileName]));
    locals.push(local);
    offset += local.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, central, end]);
}

function u32le(value) {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
}

function backupZip(name) {
  const records = Buffer.from([
    'date,shrine,prefecture,note',
    '2026-01-01,Meiji Jingu,Tokyo,hatsumode',
    '2026-03-15,Fushimi Inari Taisha,Kyoto,',
    '2026-05-05,Itsukushima Jinja,Hiroshima,"high tide, torii in the sea"',
    '',
  ].join('\n'));
  const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), katPlaintext(`${name}/photo-0001.jpg`, 296), Buffer.from([0xff, 0xd9])]);
  const describe = (fileName, data) => ({ name: fileName, size: data.length, sha256: sha256Hex(data) });
  const manifest = Buffer.from(JSON.stringify({
    format: 'goshuin-backup',
    version: 1,
    createdAt: '2026-11-29T12:00:00Z',
    records: describe('records.csv', records),
    photos: [describe('photo-0001.jpg', photo)],
  }));
  return storedZip([
    { name: 'manifest.json', data: manifest },
    { name: 'records.csv', data: records },
    { name: 'photo-0001.jpg', data: photo },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Writing a vector

// Removes the files a previous run wrote: `generate` owns the top-level vector files of its directory.
function prepareDirectory(dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && /\.(json|goshuin|plaintext)$/.test(entry.name)) fs.rmSync(path.join(dir, entry.name));
  }
}

// A passphrase given as a string is written as `passphrase`, as bytes as `passphraseHex`.
const passphraseFields = (passphrase) => (typeof passphrase === 'string' ? { passphrase } : { passphraseHex: passphrase.toString('hex') });

// `params` holds salt and nonceBase (container version 1) or kdfSalt and payloadSalt (version 2).
function writeVector(dir, { name, comment, openWith, params, plaintext, file, outcome, fileSize }) {
  const usesFile = plaintext.length > MAX_HEX_PLAINTEXT;
  const v2 = params.payloadSalt !== undefined;
  fs.writeFileSync(path.join(dir, `${name}.goshuin`), file);
  if (usesFile) fs.writeFileSync(path.join(dir, `${name}.plaintext`), plaintext);
  const salt = v2 ? params.kdfSalt : params.salt;
  const key = deriveKey(Buffer.from(openWith), salt, params.iterations);
  const fields = {
    format: FORMAT,
    version: 1,
    containerVersion: v2 ? 2 : undefined,
    name,
    comment,
    expect: outcome.expect,
    chunkIndex: outcome.chunkIndex,
    ...passphraseFields(openWith),
    iterations: params.iterations,
    salt: salt.toString('hex'),
    nonceBase: v2 ? undefined : params.nonceBase.toString('hex'),
    payloadSalt: v2 ? params.payloadSalt.toString('hex') : undefined,
    chunkSize: params.chunkSize,
    key: key.toString('hex'),
    headerKey: v2 ? hkdfSha256(key, params.payloadSalt, INFO_HEADER_MAC, KEY_SIZE).toString('hex') : undefined,
    payloadKey: v2 ? hkdfSha256(key, params.payloadSalt, INFO_PAYLOAD, KEY_SIZE).toString('hex') : undefined,
    plaintextHex: usesFile ? undefined : plaintext.toString('hex'),
    plaintextFile: usesFile ? `${name}.plaintext` : undefined,
    plaintextLength: plaintext.length,
    plaintextSha256: sha256Hex(plaintext),
    file: `${name}.goshuin`,
    fileSha256: sha256Hex(file),
    fileSize,
    releasedLength: outcome.releasedLength,
    releasedSha256: outcome.releasedSha256,
  };
  fs.writeFileSync(path.join(dir, `${name}.json`), formatVector(fields));
}

// ---------------------------------------------------------------------------------------------
// The committed set. Defaults: 1,024-byte chunks, 1,000 iterations, PASSPHRASE. `length` is the
// payload length; `mutate(sealed, ctx)` turns the seal into the file; `openWith` is the opening
// passphrase; `expect`/`chunkIndex` are the declared results, checked against the opener.

const PASSPHRASE = 'correct horse battery staple';
const JAPANESE = 'がっこうのパスワード';
const FOUR_CHUNKS = 3 * 1024 + 700; // 4 chunks, the last one short
const SIX_CHUNKS = 5 * 1024 + 300;
const HEADER_BASE = 1024 + 476; // 2 chunks: a valid seal whose header is then edited
const RECORD_1K = 4 + 1024 + 16; // a full record with 1 KiB chunks: chunkOffset(i) = 45 + i·RECORD_1K

const KNOWN_ANSWERS = [
  // --- success: sizes around chunk boundaries
  { name: 'success-1-byte', length: 1, comment: 'The smallest payload: one chunk of 1 byte, record length 17.' },
  { name: 'success-chunk-size-minus-1', length: 1023, comment: 'One chunk one byte short of the chunk size.' },
  { name: 'success-chunk-size', length: 1024, comment: 'Exactly one full chunk: chunkCount = ceil(1024/1024) = 1, no empty second chunk.' },
  { name: 'success-chunk-size-plus-1', length: 1025, comment: 'One full chunk and a last chunk of 1 byte.' },
  { name: 'success-two-chunks-exact', length: 2048, comment: 'An exact multiple (2x): two full chunks, the last one full too.' },
  { name: 'success-three-chunks-exact', length: 3072, comment: 'An exact multiple (3x): three full chunks.' },
  { name: 'success-four-chunks', length: FOUR_CHUNKS, comment: 'Four chunks, the last one 700 bytes: the seal most failure vectors are made from.' },
  { name: 'success-256-chunks', length: 256 * 1024, comment: '256 full 1 KiB chunks: chunk indexes past one byte in the nonce counter.' },
  { name: 'success-257-chunks', length: 256 * 1024 + 1, comment: '257 chunks with a 1-byte last chunk at index 256 (nonce ends 00 00 01 00).' },
  // --- success: chunk sizes
  { name: 'success-chunk-size-64kib', chunkSize: 65536, length: 65536 + 1, comment: '64 KiB chunks: one full chunk and a 1-byte last chunk.' },
  { name: 'success-chunk-size-4mib-default', chunkSize: 4194304, length: 100, comment: 'The default 4 MiB chunk size with a small payload: one short chunk, no padding to the chunk size.' },
  { name: 'success-chunk-size-64mib-maximum', chunkSize: MAX_CHUNK_SIZE, length: 100, comment: 'The largest chunk size allowed (64 MiB), in bounds, with a small payload.' },
  // --- success: iterations
  { name: 'success-iterations-1000-minimum', length: 100, iterations: 1000, comment: 'The smallest iteration count allowed (1,000).' },
  { name: 'success-iterations-600000-default', length: 100, iterations: 600000, comment: 'The default iteration count (600,000).' },
  { name: 'success-iterations-2000000-maximum', length: 100, iterations: 2000000, comment: 'The largest iteration count allowed (2,000,000).' },
  // --- success: passphrases (used as their UTF-8 bytes, §4)
  { name: 'success-passphrase-japanese-nfc', length: 200, passphrase: JAPANESE.normalize('NFC'), comment: 'A Japanese passphrase in NFC (precomposed が, パ, ド): its UTF-8 bytes as given.' },
  { name: 'success-passphrase-japanese-nfd', length: 200, passphrase: Buffer.from(JAPANESE.normalize('NFD'), 'utf8'), comment: 'The same Japanese passphrase in NFD (か + U+3099 …), given as hex: no normalization, so the key differs from the NFC vector.' },
  { name: 'success-passphrase-emoji', length: 200, passphrase: '⛩️ 🦊🔑 御朱印', comment: 'A passphrase with emoji (4-byte UTF-8), a variation selector U+FE0F and kanji.' },
  { name: 'success-passphrase-spaces-kept', length: 200, passphrase: '  spaced out  ', comment: 'Leading and trailing spaces are part of the passphrase: no trimming (§4).' },
  { name: 'success-passphrase-bytes-not-utf8', length: 200, passphrase: Buffer.from('c328a0a1ff6b6579', 'hex'), comment: 'Passphrase bytes that are not valid UTF-8 (passphraseHex): PBKDF2 takes bytes; a checker must pass them through unchanged.' },
  // --- success: a real payload
  { name: 'success-backup-zip', plaintext: backupZip, comment: 'A small backup ZIP (stored entries manifest.json, records.csv, photo-0001.jpg; 1980-01-01 00:00; mode 0644) in 1 KiB chunks.' },

  // --- header: checks 1–7 of §7, on crafted files (a valid 2-chunk seal whose header was edited)
  { name: 'header-short-0-bytes', length: HEADER_BASE, mutate: (f) => truncate(f, 0), expect: 'short_header', comment: 'An empty file: check 1, fewer than 45 bytes.' },
  { name: 'header-short-44-bytes', length: HEADER_BASE, mutate: (f) => truncate(f, 44), expect: 'short_header', comment: 'The first 44 bytes of a valid seal: check 1 fails before the magic is looked at.' },
  { name: 'header-bad-magic-zip', length: HEADER_BASE, mutate: (f) => setField(f, 'magic', Buffer.from('504b0304', 'hex')), expect: 'bad_magic', comment: 'The magic replaced by a ZIP signature: check 2, not a .goshuin file.' },
  { name: 'header-magic-bit-flip', length: HEADER_BASE, mutate: (f) => flipBit(f, 0, 0), expect: 'bad_magic', comment: 'One bit flipped in the magic (G → F): check 2 fails, before any authentication.' },
  { name: 'header-version-0', length: HEADER_BASE, mutate: (f) => setField(f, 'version', 0), expect: 'unsupported_version', comment: 'Version byte 0: check 3.' },
  { name: 'header-version-2', length: HEADER_BASE, mutate: (f) => setField(f, 'version', 2), expect: 'auth_failed', comment: 'A version 1 file with its version byte set to 2: read by the version 2 rules (container-v2.md §7), never as version 1. Its 1,585 bytes pass checks 4–8 there (the v2 chunkSize field, bytes 41–44, holds 1,500, the low half of plaintextLength; one record of 1,508 bytes), and the header MAC (bytes 45–76, here chunk 0 prefix and ciphertext) does not verify: auth_failed (decisions/0030).' },
  { name: 'header-version-3', length: HEADER_BASE, mutate: (f) => setField(f, 'version', 3), expect: 'unsupported_version', comment: 'Version byte 3: check 3, a version no reader of versions 1 and 2 knows (the role header-version-2 had before version 2 existed).' },
  { name: 'header-version-bit-flip', length: HEADER_BASE, mutate: (f) => flipFieldBit(f, 'version', 7), expect: 'unsupported_version', comment: 'The top bit of the version flipped (0x81): check 3.' },
  { name: 'header-iterations-0', length: HEADER_BASE, mutate: (f) => setField(f, 'kdfIterations', 0), expect: 'iterations_out_of_range', comment: 'kdfIterations 0: check 4, below 1,000.' },
  { name: 'header-iterations-999', length: HEADER_BASE, mutate: (f) => setField(f, 'kdfIterations', 999), expect: 'iterations_out_of_range', comment: 'kdfIterations 999, one below the minimum: check 4.' },
  { name: 'header-iterations-2000001', length: HEADER_BASE, mutate: (f) => setField(f, 'kdfIterations', 2000001), expect: 'iterations_out_of_range', comment: 'kdfIterations 2,000,001, one above the maximum: check 4, refused before any key derivation.' },
  { name: 'header-iterations-ffffffff', length: HEADER_BASE, mutate: (f) => setField(f, 'kdfIterations', 0xffffffff), expect: 'iterations_out_of_range', comment: 'kdfIterations 4,294,967,295: check 4 (the attack the bound exists for).' },
  { name: 'header-iterations-bit-flip-below-minimum', length: HEADER_BASE, mutate: (f) => flipFieldBit(f, 'kdfIterations', 3), expect: 'iterations_out_of_range', comment: 'A bit flip turning 1,000 into 992: check 4 fails before authentication could.' },
  { name: 'header-chunk-size-0', length: HEADER_BASE, mutate: (f) => setField(f, 'chunkSize', 0), expect: 'chunk_size_out_of_range', comment: 'chunkSize 0: check 5 (and no division by zero in the layout).' },
  { name: 'header-chunk-size-1023', length: HEADER_BASE, mutate: (f) => setField(f, 'chunkSize', 1023), expect: 'chunk_size_out_of_range', comment: 'chunkSize 1,023, one below the minimum: check 5.' },
  { name: 'header-chunk-size-64mib-plus-1', length: HEADER_BASE, mutate: (f) => setField(f, 'chunkSize', MAX_CHUNK_SIZE + 1), expect: 'chunk_size_out_of_range', comment: 'chunkSize 67,108,865, one above the maximum: check 5.' },
  { name: 'header-chunk-size-ffffffff', length: HEADER_BASE, mutate: (f) => setField(f, 'chunkSize', 0xffffffff), expect: 'chunk_size_out_of_range', comment: 'chunkSize 4,294,967,295: check 5, refused before any buffer is allocated.' },
  { name: 'header-empty-payload', length: HEADER_BASE, mutate: (f) => setField(f, 'plaintextLength', 0), expect: 'empty_payload', comment: 'plaintextLength 0 with the chunks kept: check 6 comes before the file size check 8.' },
  { name: 'header-empty-payload-header-only', length: HEADER_BASE, mutate: (f) => setField(truncate(f, HEADER_SIZE), 'plaintextLength', 0), expect: 'empty_payload', comment: 'A bare 45-byte header with plaintextLength 0: check 6, an empty payload is never valid.' },
  { name: 'header-too-many-chunks', length: HEADER_BASE, mutate: (f) => setField(f, 'plaintextLength', 2n ** 42n + 1n), expect: 'too_many_chunks', comment: 'plaintextLength 2^42 + 1 with 1 KiB chunks: chunkCount = 2^32 + 1, check 7.' },
  { name: 'header-too-many-chunks-u64-max', length: HEADER_BASE, mutate: (f) => setField(setField(f, 'chunkSize', MAX_CHUNK_SIZE), 'plaintextLength', 2n ** 64n - 1n), expect: 'too_many_chunks', comment: 'plaintextLength 2^64 − 1 with 64 MiB chunks: chunkCount 2^38, check 7; the layout must not overflow.' },
  { name: 'header-plaintext-length-bit-63', length: HEADER_BASE, mutate: (f) => flipFieldBit(f, 'plaintextLength', 63), expect: 'too_many_chunks', comment: 'The top bit of plaintextLength flipped: about 2^53 chunks, check 7.' },
  { name: 'header-order-magic-before-version', length: HEADER_BASE, mutate: (f) => setField(setField(f, 'magic', Buffer.from('GSHX')), 'version', 2), expect: 'bad_magic', comment: 'Bad magic and version 2: check 2 comes first.' },
  { name: 'header-order-version-before-iterations', length: HEADER_BASE, mutate: (f) => setField(setField(f, 'version', 0), 'kdfIterations', 0), expect: 'unsupported_version', comment: 'Version 0 and iterations 0: check 3 comes first.' },
  { name: 'header-order-iterations-before-chunk-size', length: HEADER_BASE, mutate: (f) => setField(setField(f, 'kdfIterations', 0), 'chunkSize', 0), expect: 'iterations_out_of_range', comment: 'Iterations 0 and chunkSize 0: check 4 comes first.' },
  { name: 'header-order-chunk-size-before-empty', length: HEADER_BASE, mutate: (f) => setField(setField(f, 'chunkSize', 0), 'plaintextLength', 0), expect: 'chunk_size_out_of_range', comment: 'chunkSize 0 and plaintextLength 0: check 5 comes first.' },

  // --- structure: checks 8 and 9 (file size, length prefixes), still before the key is derived
  { name: 'structure-truncated-header-only', length: FOUR_CHUNKS, mutate: (f) => truncate(f, HEADER_SIZE), expect: 'truncated', comment: 'A valid header alone: checks 1–7 pass, the file is smaller than expectedFileSize (check 8).' },
  { name: 'structure-truncated-mid-chunk', length: FOUR_CHUNKS, mutate: (f) => truncate(f, HEADER_SIZE + RECORD_1K + 4 + 500), expect: 'truncated', comment: 'Cut in the middle of chunk 1: check 8, decided by the file size alone.' },
  { name: 'structure-truncated-at-chunk-boundary', length: FOUR_CHUNKS, mutate: (f) => truncate(f, HEADER_SIZE + 3 * RECORD_1K), expect: 'truncated', comment: 'The last chunk dropped, cut exactly at a chunk boundary: check 8 (the header length catches it).' },
  { name: 'structure-truncated-last-byte', length: FOUR_CHUNKS, mutate: (f) => truncate(f, f.length - 1), expect: 'truncated', comment: 'The last byte of the last tag missing: check 8.' },
  { name: 'structure-chunk-deleted', length: FOUR_CHUNKS, mutate: deleteChunk(1), expect: 'truncated', comment: 'Chunk 1 removed, the header kept: the file is 1,044 bytes short, check 8.' },
  { name: 'structure-chunk-count-2-32-allowed', length: HEADER_BASE, mutate: (f) => setField(f, 'plaintextLength', 2n ** 42n), expect: 'truncated', comment: 'plaintextLength 2^42 with 1 KiB chunks: exactly 2^32 chunks passes check 7, so check 8 reports truncated.' },
  { name: 'structure-trailing-one-byte', length: FOUR_CHUNKS, mutate: (f) => append(f, Buffer.of(0)), expect: 'trailing_data', comment: 'One byte appended: the file is larger than expectedFileSize, check 8.' },
  { name: 'structure-trailing-extra-chunk', length: 3072, mutate: (f, ctx) => append(f, ctx.sealChunk(3, ctx.extraPlaintext(1024))), expect: 'trailing_data', comment: 'A valid chunk 3 (same key, nonce index 3, same header as AAD) appended to a 3-chunk file: nothing follows the last chunk, check 8.' },
  { name: 'structure-header-chunk-size-bit-11', length: FOUR_CHUNKS, mutate: (f) => flipFieldBit(f, 'chunkSize', 11), expect: 'trailing_data', comment: 'chunkSize 1,024 → 3,072 by a bit flip: 2 chunks expected, the file is 40 bytes longer, check 8.' },
  { name: 'structure-header-plaintext-length-bit-0', length: FOUR_CHUNKS, mutate: (f) => flipFieldBit(f, 'plaintextLength', 0), expect: 'truncated', comment: 'plaintextLength 3,772 → 3,773 by a bit flip: the file is one byte short, check 8.' },
  { name: 'structure-header-chunk-size-bit-0', length: FOUR_CHUNKS, mutate: (f) => flipFieldBit(f, 'chunkSize', 0), expect: 'chunk_length_invalid', chunkIndex: 0, comment: 'chunkSize 1,024 → 1,025: still 4 chunks and the same file size, but chunk 0 should now hold 1,041 bytes, check 9 at index 0.' },
  { name: 'structure-length-prefix-zero-first', length: FOUR_CHUNKS, mutate: setPrefix(0, 0), expect: 'chunk_length_invalid', chunkIndex: 0, comment: 'Chunk 0 length prefix 0 instead of 1,040: check 9.' },
  { name: 'structure-length-prefix-zero-later', length: FOUR_CHUNKS, mutate: setPrefix(2, 0), expect: 'chunk_length_invalid', chunkIndex: 2, comment: 'Chunk 2 length prefix 0: check 9 at index 2, before any chunk is decrypted (nothing released).' },
  { name: 'structure-length-prefix-minus-1-first', length: FOUR_CHUNKS, mutate: addToPrefix(0, -1), expect: 'chunk_length_invalid', chunkIndex: 0, comment: 'Chunk 0 length prefix 1,039, one too small: check 9.' },
  { name: 'structure-length-prefix-minus-1-later', length: FOUR_CHUNKS, mutate: addToPrefix(2, -1), expect: 'chunk_length_invalid', chunkIndex: 2, comment: 'Chunk 2 length prefix one too small: check 9 at index 2.' },
  { name: 'structure-length-prefix-plus-1-first', length: FOUR_CHUNKS, mutate: addToPrefix(0, 1), expect: 'chunk_length_invalid', chunkIndex: 0, comment: 'Chunk 0 length prefix 1,041, one too large: check 9.' },
  { name: 'structure-length-prefix-plus-1-later', length: FOUR_CHUNKS, mutate: addToPrefix(2, 1), expect: 'chunk_length_invalid', chunkIndex: 2, comment: 'Chunk 2 length prefix one too large: check 9 at index 2.' },
  { name: 'structure-length-prefix-ffffffff-first', length: FOUR_CHUNKS, mutate: setPrefix(0, 0xffffffff), expect: 'chunk_length_invalid', chunkIndex: 0, comment: 'Chunk 0 length prefix 0xFFFFFFFF: check 9; a reader that sized a buffer from it would allocate 4 GiB.' },
  { name: 'structure-length-prefix-ffffffff-later', length: FOUR_CHUNKS, mutate: setPrefix(2, 0xffffffff), expect: 'chunk_length_invalid', chunkIndex: 2, comment: 'Chunk 2 length prefix 0xFFFFFFFF: check 9 at index 2.' },
  { name: 'structure-length-prefix-last-chunk-full', length: FOUR_CHUNKS, mutate: setPrefix(3, 1040), expect: 'chunk_length_invalid', chunkIndex: 3, comment: 'The short last chunk (700 bytes) claims a full 1,040-byte record: check 9 at index 3 (prefixes are read at computed offsets).' },
  { name: 'structure-length-prefix-bit-flip', length: FOUR_CHUNKS, mutate: (f) => flipBit(f, HEADER_SIZE + RECORD_1K + 3, 0), expect: 'chunk_length_invalid', chunkIndex: 1, comment: 'One bit flipped in the length prefix of chunk 1 (1,040 → 1,041): check 9, not an authentication failure.' },
  { name: 'structure-length-prefix-lowest-index-wins', length: FOUR_CHUNKS, mutate: both(setPrefix(3, 0), setPrefix(1, 0)), expect: 'chunk_length_invalid', chunkIndex: 1, comment: 'Prefixes of chunks 1 and 3 both wrong: check 9 goes in order and reports index 1.' },
  { name: 'structure-length-prefix-before-authentication', length: FOUR_CHUNKS, mutate: both(flipCiphertext(0), setPrefix(2, 0)), expect: 'chunk_length_invalid', chunkIndex: 2, comment: 'Chunk 0 damaged and chunk 2 prefix wrong: check 9 covers every prefix before any tag is verified (check 11).' },
  { name: 'structure-chunks-swapped-short-last', length: FOUR_CHUNKS, mutate: swapChunks(2, 3), expect: 'chunk_length_invalid', chunkIndex: 2, comment: 'The full chunk 2 and the short last chunk swapped: the record at chunkOffset(2) has prefix 716, check 9 at index 2.' },

  // --- authentication: check 11 with the §7.1 verdict and §7.3 released plaintext
  { name: 'auth-wrong-passphrase', length: FOUR_CHUNKS, openWith: 'correct horse battery stable', expect: 'auth_failed', comment: 'Opened with a wrong passphrase: chunk 0 fails and so do probed chunks 1–3, auth_failed, nothing released.' },
  { name: 'auth-wrong-passphrase-single-chunk', length: 100, openWith: 'wrong', expect: 'auth_failed', comment: 'A wrong passphrase on a 1-chunk file: chunk 0 fails and there is nothing to probe.' },
  { name: 'auth-passphrase-nfd-for-nfc', length: 200, passphrase: JAPANESE.normalize('NFC'), openWith: Buffer.from(JAPANESE.normalize('NFD'), 'utf8'), expect: 'auth_failed', comment: 'Sealed with the NFC passphrase, opened with its NFD form (hex): different bytes, different key (§4), auth_failed.' },
  { name: 'auth-passphrase-not-trimmed', length: 200, openWith: `${PASSPHRASE} `, expect: 'auth_failed', comment: 'Opened with the passphrase plus a trailing space: no trimming (§4), so a wrong key.' },
  { name: 'auth-header-salt-bit', length: FOUR_CHUNKS, mutate: (f) => flipFieldBit(f, 'salt', 77), expect: 'auth_failed', comment: 'One salt bit flipped: another key and another AAD, every chunk fails, auth_failed.' },
  { name: 'auth-header-nonce-base-bit', length: FOUR_CHUNKS, mutate: (f) => flipFieldBit(f, 'nonceBase', 0), expect: 'auth_failed', comment: 'One nonceBase bit flipped: every nonce and the AAD differ, every chunk fails, auth_failed.' },
  { name: 'auth-header-iterations-bit-in-bounds', length: FOUR_CHUNKS, mutate: (f) => flipFieldBit(f, 'kdfIterations', 10), expect: 'auth_failed', comment: 'kdfIterations 1,000 → 2,024 by a bit flip, still in bounds: another key and AAD, auth_failed.' },
  { name: 'auth-header-chunk-size-bit-in-bounds', length: 100, mutate: (f) => flipFieldBit(f, 'chunkSize', 0), expect: 'auth_failed', comment: 'chunkSize 1,024 → 1,025 on a 100-byte payload: the layout is unchanged, only the AAD differs, auth_failed.' },
  { name: 'auth-chunk-deleted-header-adjusted', length: FOUR_CHUNKS, mutate: (f) => setField(deleteChunk(1)(f, { chunkSize: 1024 }), 'plaintextLength', FOUR_CHUNKS - 1024), expect: 'auth_failed', comment: 'Chunk 1 removed and plaintextLength lowered to match: the layout is consistent but the header (AAD) changed, so every chunk fails.' },
  { name: 'auth-first-chunk-ciphertext-bit', length: FOUR_CHUNKS, mutate: flipCiphertext(0, 0, 0), expect: 'chunk_damaged', chunkIndex: 0, comment: 'One ciphertext bit in chunk 0: chunk 0 fails, probed chunk 1 authenticates, so chunk_damaged at 0 (§7.1), nothing released.' },
  { name: 'auth-middle-chunk-ciphertext-bit', length: FOUR_CHUNKS, mutate: flipCiphertext(2, 500, 3), expect: 'chunk_damaged', chunkIndex: 2, comment: 'One ciphertext bit in chunk 2: chunks 0 and 1 authenticate and are released (2,048 bytes), then chunk_damaged at 2.' },
  { name: 'auth-last-chunk-ciphertext-bit', length: FOUR_CHUNKS, mutate: flipCiphertext(3, 699, 7), expect: 'chunk_damaged', chunkIndex: 3, comment: 'The last ciphertext bit of the last chunk: chunks 0–2 released (3,072 bytes), chunk_damaged at 3.' },
  { name: 'auth-single-chunk-ciphertext-bit', length: 100, mutate: flipCiphertext(0, 50, 1), expect: 'auth_failed', comment: 'Damage in the only chunk: no other chunk to probe, so §7.1 yields auth_failed, not chunk_damaged.' },
  { name: 'auth-tag-bit', length: FOUR_CHUNKS, mutate: flipTag(1, 15, 0), expect: 'chunk_damaged', chunkIndex: 1, comment: 'One bit of chunk 1 tag: chunk 0 released (1,024 bytes), chunk_damaged at 1.' },
  { name: 'auth-first-chunk-tag-bit', length: FOUR_CHUNKS, mutate: flipTag(0, 0, 7), expect: 'chunk_damaged', chunkIndex: 0, comment: 'One bit of chunk 0 tag: chunk 1 authenticates in the probe, chunk_damaged at 0.' },
  { name: 'auth-chunks-swapped-0-1', length: FOUR_CHUNKS, mutate: swapChunks(0, 1), expect: 'chunk_damaged', chunkIndex: 0, comment: 'Chunks 0 and 1 swapped: both fail (wrong nonce index) but probed chunk 2 authenticates, chunk_damaged at 0.' },
  { name: 'auth-chunks-swapped-1-2', length: FOUR_CHUNKS, mutate: swapChunks(1, 2), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Chunks 1 and 2 swapped: chunk 0 released, chunk 1 fails (the nonce binds the index), chunk_damaged at 1.' },
  { name: 'auth-chunks-swapped-two-chunk-file', length: 2048, mutate: swapChunks(0, 1), expect: 'auth_failed', comment: 'Both chunks of a 2-chunk file swapped: no chunk authenticates, so §7.1 says auth_failed although it is damage.' },
  { name: 'auth-chunk-duplicated', length: FOUR_CHUNKS, mutate: copyChunk(1, 2), expect: 'chunk_damaged', chunkIndex: 2, comment: 'Chunk 1 copied over chunk 2: chunks 0–1 released (2,048 bytes), chunk 2 fails under nonce index 2, chunk_damaged at 2.' },
  { name: 'auth-chunk-from-other-file', length: FOUR_CHUNKS, mutate: (f, ctx) => withRecords(f, 1024, (r) => { r[1] = chunkRecords(ctx.donor, 1024).records[1]; return r; }), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Chunk 1 taken from another seal of the same payload and passphrase (other salt and nonceBase): chunk 0 released, chunk_damaged at 1.' },
  { name: 'auth-probe-fourth-chunk-authenticates', length: SIX_CHUNKS, mutate: both(flipCiphertext(0), flipCiphertext(1), flipCiphertext(2)), expect: 'chunk_damaged', chunkIndex: 0, comment: 'Chunks 0–2 damaged, chunk 3 intact: chunk 3 is the last one probed and authenticates, chunk_damaged at 0.' },
  { name: 'auth-probe-window-exhausted', length: SIX_CHUNKS, mutate: both(flipCiphertext(0), flipCiphertext(1), flipCiphertext(2), flipCiphertext(3)), expect: 'auth_failed', comment: 'Chunks 0–3 damaged, chunks 4–5 intact: the probe stops after chunk 3 (4 chunks in all), so auth_failed.' },

  // --- one verdict whatever the reader (§7.1): damage patterns a reader that starts elsewhere than chunk 0
  // (the final chunk first, several chunks in parallel) must still judge by the lowest failing chunk
  { name: 'verdict-last-chunk-only', length: SIX_CHUNKS, mutate: flipTag(5, 3, 2), expect: 'chunk_damaged', chunkIndex: 5, comment: 'Only the last of 6 chunks damaged: L = 5. A reader that authenticates the final chunk first must try chunks 0–4 before calling it chunk_damaged at 5; chunks 0–4 (5,120 bytes) are released in order.' },
  { name: 'verdict-chunk-1-and-last', length: SIX_CHUNKS, mutate: both(flipCiphertext(1, 9), flipCiphertext(5, 0)), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Chunks 1 and 5 of 6 damaged: the lowest failing chunk is 1, so chunk_damaged at 1, also for a reader that meets chunk 5 first; chunk 0 released.' },
  { name: 'verdict-chunk-0-and-last', length: SIX_CHUNKS, mutate: both(flipCiphertext(0, 100), flipTag(5, 0)), expect: 'chunk_damaged', chunkIndex: 0, comment: 'Chunks 0 and 5 of 6 damaged: L = 0 and probed chunk 1 authenticates, chunk_damaged at 0 (not at 5), nothing released.' },
  { name: 'verdict-first-four-and-last', length: SIX_CHUNKS, mutate: both(flipCiphertext(0), flipCiphertext(1), flipCiphertext(2), flipCiphertext(3), flipCiphertext(5)), expect: 'auth_failed', comment: 'Chunks 0–3 and 5 damaged, only chunk 4 intact: L = 0 and no chunk of the probe window (1–3) authenticates, so auth_failed, although chunk 4 would.' },
  { name: 'verdict-two-middle-chunks', length: SIX_CHUNKS, mutate: both(flipTag(4, 8), flipTag(2, 8)), expect: 'chunk_damaged', chunkIndex: 2, comment: 'Chunks 2 and 4 of 6 damaged: chunk_damaged at 2, the lowest, whichever a reader meets first; chunks 0–1 released.' },
];

// Seals an entry's payload, applies its edit and returns everything a vector needs.
function buildKnownAnswer(entry) {
  const { name, chunkSize = 1024, iterations = 1000, passphrase = PASSPHRASE } = entry;
  const plaintext = entry.plaintext ? entry.plaintext(name) : katPlaintext(name, entry.length);
  const params = { iterations, chunkSize, salt: katSalt(name), nonceBase: katNonceBase(name) };
  const sealing = { ...params, passphrase: Buffer.from(passphrase) };
  const sealed = sealBuffer(plaintext, sealing);
  // Material beyond the vector's own (an extra chunk, another seal) follows §4's rules under NAME/suffix.
  const ctx = {
    chunkSize,
    extraPlaintext: (length) => katPlaintext(`${name}/extra`, length),
    sealChunk: chunkSealer(sealed, sealing),
    // Another seal of the same payload and passphrase, with its own salt and nonceBase.
    get donor() { return sealBuffer(plaintext, { ...sealing, salt: katSalt(`${name}/donor`), nonceBase: katNonceBase(`${name}/donor`) }); },
  };
  const file = entry.mutate ? entry.mutate(sealed, ctx) : sealed;
  const openWith = entry.openWith ?? passphrase;
  return { name, comment: entry.comment, openWith, params, plaintext, file, outcome: openOutcome(file, Buffer.from(openWith)) };
}

// The opener must agree with the result written down from the spec; a disagreement is a bug in one of them.
function assertDeclared(entry, outcome) {
  const declared = { expect: entry.expect ?? 'success', chunkIndex: entry.chunkIndex };
  if (outcome.expect !== declared.expect || outcome.chunkIndex !== declared.chunkIndex) {
    throw new Error(`${entry.name}: the opener says ${outcome.expect}/${outcome.chunkIndex}, the table says ${declared.expect}/${declared.chunkIndex}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Container version 2 (container-v2.md): the committed v2 vectors (vectors-v1.md §5.6)

export const katPayloadSalt = (name) => sha256(`goshuin-kat/payload-salt/${name}`).subarray(0, 16);

function sealBufferV2(plaintext, params) {
  const sink = bufferSink();
  sealV2(bufferSource(plaintext), sink, params);
  return sink.bytes();
}

// The records of a v2 seal, cut every S = chunkSize + 16 bytes after the 77-byte header (v2 §5).
function recordsV2(sealed, chunkSize) {
  const S = chunkSize + TAG_SIZE;
  const records = [];
  for (let offset = HEADER_SIZE_V2; offset < sealed.length; offset += S) records.push(Buffer.from(sealed.subarray(offset, offset + S)));
  return {
    header: Buffer.from(sealed.subarray(0, HEADER_SIZE_V2)),
    records,
    recordOffset: (i) => HEADER_SIZE_V2 + i * S,
    tagOffset: (i) => HEADER_SIZE_V2 + i * S + records[i].length - TAG_SIZE,
  };
}

function withRecordsV2(sealed, chunkSize, change) {
  const { header, records } = recordsV2(sealed, chunkSize);
  return Buffer.concat([header, ...change([...records])]);
}

function setFieldV2(file, field, value) {
  const { offset, size } = FIELD_V2[field];
  const encoded = Buffer.isBuffer(value) ? value : size === 1 ? Buffer.of(value) : u32be(value);
  return setBytes(file, offset, encoded);
}

function flipFieldBitV2(file, field, bit) {
  const { offset, size } = FIELD_V2[field];
  return flipBit(file, offset + size - 1 - (bit >> 3), bit & 7);
}

const S_1K = 1024 + TAG_SIZE; // S with 1 KiB chunks: record i at 77 + i·1,040
const V2_THREE = 2 * 1024 + 500; // records S, S and a last one of 516 bytes: 2,673 bytes in all
const V2_SIX = 5 * 1024 + 300; // six records, the last of 316 bytes
const V2_FULL_LAST = 1023; // one record of S − 1 = 1,039 bytes: the longest last record
const SECOND_PASSPHRASE = 'tr0ub4dor&3';
const LONG_PASSPHRASE = 'a passphrase of more than sixty-four bytes is hashed by HMAC before use';

const swapRecords = (i, j) => (f, { chunkSize }) => withRecordsV2(f, chunkSize, (r) => { [r[i], r[j]] = [r[j], r[i]]; return r; });
const copyRecord = (from, to) => (f, { chunkSize }) => withRecordsV2(f, chunkSize, (r) => { r[to] = r[from]; return r; });
const deleteRecord = (i) => (f, { chunkSize }) => withRecordsV2(f, chunkSize, (r) => { r.splice(i, 1); return r; });
const flipRecordByte = (i, byte = 0, bit = 0) => (f, { chunkSize }) => flipBit(f, recordsV2(f, chunkSize).recordOffset(i) + byte, bit);
const flipRecordTag = (i, byte = 0, bit = 0) => (f, { chunkSize }) => flipBit(f, recordsV2(f, chunkSize).tagOffset(i) + byte, bit);
// Record i sealed again under the file's own key and header, with the flag `final`.
const reflag = (i, final) => (f, ctx) => withRecordsV2(f, ctx.chunkSize, (r) => { r[i] = ctx.sealRecord(i, final, ctx.chunkPlaintext(i)); return r; });
const cutTo = (length) => (f) => truncate(f, length);
const bothV2 = (...edits) => (f, ctx) => edits.reduce((file, edit) => edit(file, ctx), f);

// One line per vector, as v1's table: `length` (payload), `mutate(sealed, ctx)`, `openWith`, the declared
// `expect`/`chunkIndex`; `stem` names the derivation of the salts and plaintext when two vectors share a
// seal (default: the vector's name); `fileSize` zero-extends the file (vectors-v1.md §5.4).
const KNOWN_ANSWERS_V2 = [
  // --- success: sizes around the chunk size, the empty final record
  { name: 'v2-success-1-byte', length: 1, comment: 'One byte: a single final record of 17 bytes (1 + tag), nonce 00×7 ‖ 00000000 ‖ 01; 94 bytes in all.' },
  { name: 'v2-success-empty', length: 0, comment: 'An empty payload is valid in version 2 (decisions/0031): one empty final record, the 16-byte tag alone; 93 bytes. The record authenticates the header and the key.' },
  { name: 'v2-success-chunk-size-minus-1', length: V2_FULL_LAST, comment: 'chunkSize − 1 bytes: the longest last record, S − 1 = 1,039 bytes. A last record is never S bytes long.' },
  { name: 'v2-success-chunk-size', length: 1024, comment: 'Exactly one chunk (1×): a full record with flag 00, then an empty final record (tag only, flag 01) at index 1; 77 + 1,040 + 16 bytes.' },
  { name: 'v2-success-chunk-size-plus-1', length: 1025, comment: 'One full record and a final record of 1 byte.' },
  { name: 'v2-success-two-chunks-exact', length: 2048, comment: 'An exact multiple (2×): two full records and an empty final record at index 2.' },
  { name: 'v2-success-three-records', length: V2_THREE, comment: 'Records of 1,040, 1,040 and 516 bytes (2,673 bytes in all): the seal most v2 failure vectors are made from.' },
  { name: 'v2-success-256-chunks-exact', length: 256 * 1024, comment: '256 full records and an empty final record at index 256: nonce 00×7 ‖ 00000100 ‖ 01, the counter past one byte.' },
  { name: 'v2-success-chunk-size-1025', chunkSize: 1025, length: 3000, comment: 'A chunk size that is no power of two (1,025, S = 1,041): records of 1,041, 1,041 and 966 bytes.' },
  { name: 'v2-success-chunk-size-64mib-maximum', chunkSize: MAX_CHUNK_SIZE, length: 100, comment: 'The largest chunk size (67,108,864) with 100 bytes: one final record of 116 bytes, no padding.' },
  { name: 'v2-success-chunk-size-1024-minimum', chunkSize: 1024, length: 100, comment: 'The smallest chunk size (1,024) named as a bound; one final record of 116 bytes.' },
  { name: 'v2-success-iterations-1000-minimum', length: 100, iterations: 1000, comment: 'The smallest iteration count allowed (1,000).' },
  { name: 'v2-success-iterations-2000000-maximum', length: 100, iterations: 2000000, comment: 'The largest iteration count allowed (2,000,000).' },
  { name: 'v2-success-passphrase-bytes-not-utf8', length: 200, passphrase: Buffer.from('c328a0a1ff6b6579', 'hex'), comment: 'Passphrase bytes that are not valid UTF-8 (passphraseHex), used as they are.' },
  { name: 'v2-success-passphrase-trailing-nul', length: 200, openWith: Buffer.concat([Buffer.from(PASSPHRASE), Buffer.of(0)]), comment: 'Sealed with "correct horse battery staple", opened with the same bytes and a NUL (passphraseHex): HMAC pads a key shorter than 64 bytes with zeros, so PBKDF2 gives the same key and the file opens (container-v2.md §10). A checker must pass the NUL through and expect success.' },
  { name: 'v2-success-passphrase-long-is-its-sha256', length: 200, passphrase: LONG_PASSPHRASE, openWith: sha256(LONG_PASSPHRASE), comment: 'Sealed with a passphrase of 71 bytes, opened with its SHA-256 (32 bytes, passphraseHex): HMAC replaces a key longer than 64 bytes by its hash, so PBKDF2 gives the same key (container-v2.md §10).' },
  { name: 'v2-success-backup-zip', plaintext: backupZip, comment: 'A backup ZIP built as success-backup-zip\'s is (stored entries manifest.json, records.csv, photo-0001.jpg; the photo\'s bytes derived from this vector\'s name) sealed as version 2 in 1 KiB chunks.' },

  // --- header: checks 1–6
  { name: 'v2-header-short-0-bytes', length: V2_THREE, mutate: cutTo(0), expect: 'short_header', comment: 'An empty file: check 1.' },
  { name: 'v2-header-short-44-bytes', length: V2_THREE, mutate: cutTo(44), expect: 'short_header', comment: 'The first 44 bytes of a v2 seal: check 1, before the magic.' },
  { name: 'v2-header-short-45-bytes', length: V2_THREE, mutate: cutTo(45), expect: 'short_header', comment: 'The first 45 bytes of a v2 seal: checks 1–3 pass (magic, version 2), check 4 needs 77 bytes.' },
  { name: 'v2-header-short-76-bytes', length: V2_THREE, mutate: cutTo(76), expect: 'short_header', comment: 'The header without its last MAC byte: check 4.' },
  { name: 'v2-header-bad-magic-zip', length: V2_THREE, mutate: (f) => setFieldV2(f, 'magic', Buffer.from('504b0304', 'hex')), expect: 'bad_magic', comment: 'The magic replaced by a ZIP signature: check 2.' },
  { name: 'v2-header-magic-bit-flip', length: V2_THREE, mutate: (f) => flipBit(f, 3, 0), expect: 'bad_magic', comment: 'One bit of the magic flipped (N → O): check 2, before any key.' },
  { name: 'v2-header-version-3', length: V2_THREE, mutate: (f) => setFieldV2(f, 'version', 3), expect: 'unsupported_version', comment: 'Version byte 3: check 3.' },
  { name: 'v2-header-version-bit-7', length: V2_THREE, mutate: (f) => flipFieldBitV2(f, 'version', 7), expect: 'unsupported_version', comment: 'The top bit of the version flipped (0x82): check 3.' },
  { name: 'v2-header-version-1-no-fallback', length: V2_THREE, mutate: (f) => setFieldV2(f, 'version', 1), expect: 'chunk_size_out_of_range', comment: 'A v2 file with its version byte set to 1 is read by the version 1 rules alone (container-v1.md §7), never by v2 after a v1 failure: v1 check 5 reads its chunkSize from bytes 33–36, here payloadSalt bytes 8–11, 0x72c08010 = 1,925,218,320: out of bounds.' },
  { name: 'v2-header-iterations-999', length: V2_THREE, mutate: (f) => setFieldV2(f, 'kdfIterations', 999), expect: 'iterations_out_of_range', comment: 'kdfIterations 999, one below the minimum: check 5, before any key derivation.' },
  { name: 'v2-header-iterations-2000001', length: V2_THREE, mutate: (f) => setFieldV2(f, 'kdfIterations', 2000001), expect: 'iterations_out_of_range', comment: 'kdfIterations 2,000,001, one above the maximum: check 5.' },
  { name: 'v2-header-iterations-ffffffff', length: V2_THREE, mutate: (f) => setFieldV2(f, 'kdfIterations', 0xffffffff), expect: 'iterations_out_of_range', comment: 'kdfIterations 4,294,967,295: check 5.' },
  { name: 'v2-header-chunk-size-0', length: V2_THREE, mutate: (f) => setFieldV2(f, 'chunkSize', 0), expect: 'chunk_size_out_of_range', comment: 'chunkSize 0: check 6 (and no division by zero in the layout).' },
  { name: 'v2-header-chunk-size-1023', length: V2_THREE, mutate: (f) => setFieldV2(f, 'chunkSize', 1023), expect: 'chunk_size_out_of_range', comment: 'chunkSize 1,023, one below the minimum: check 6.' },
  { name: 'v2-header-chunk-size-64mib-plus-1', length: V2_THREE, mutate: (f) => setFieldV2(f, 'chunkSize', MAX_CHUNK_SIZE + 1), expect: 'chunk_size_out_of_range', comment: 'chunkSize 67,108,865, one above the maximum: check 6.' },
  { name: 'v2-header-chunk-size-ffffffff', length: V2_THREE, mutate: (f) => setFieldV2(f, 'chunkSize', 0xffffffff), expect: 'chunk_size_out_of_range', comment: 'chunkSize 4,294,967,295: check 6, before any buffer.' },
  { name: 'v2-header-order-magic-before-version', length: V2_THREE, mutate: (f) => setFieldV2(setFieldV2(f, 'magic', Buffer.from('GSHX')), 'version', 3), expect: 'bad_magic', comment: 'Bad magic and version 3: check 2 comes first.' },
  { name: 'v2-header-order-version-before-short', length: V2_THREE, mutate: (f) => setFieldV2(truncate(f, 50), 'version', 3), expect: 'unsupported_version', comment: 'A 50-byte file with version byte 3: check 3 comes before the 77-byte check 4.' },
  { name: 'v2-header-order-short-before-iterations', length: V2_THREE, mutate: (f) => setFieldV2(truncate(f, 50), 'kdfIterations', 0), expect: 'short_header', comment: 'A 50-byte v2 file with kdfIterations 0: check 4 comes before check 5.' },
  { name: 'v2-header-order-iterations-before-chunk-size', length: V2_THREE, mutate: (f) => setFieldV2(setFieldV2(f, 'kdfIterations', 0), 'chunkSize', 0), expect: 'iterations_out_of_range', comment: 'Iterations 0 and chunkSize 0: check 5 comes first.' },
  { name: 'v2-header-order-chunk-size-before-size', length: V2_THREE, mutate: (f) => setFieldV2(truncate(f, 80), 'chunkSize', 0), expect: 'chunk_size_out_of_range', comment: 'chunkSize 0 on an 80-byte file (a last record of 3 bytes): check 6 comes before checks 7 and 8.' },

  // --- structure: checks 7 and 8, from the file size alone
  { name: 'v2-structure-cut-0-records', length: V2_THREE, mutate: cutTo(HEADER_SIZE_V2), expect: 'truncated', comment: 'The 3-record file cut at its first record boundary, the header alone: B = 0, n = 1, r = 0 < 16, check 8.' },
  { name: 'v2-structure-cut-1-record', length: V2_THREE, mutate: cutTo(HEADER_SIZE_V2 + S_1K), expect: 'truncated', comment: 'Cut at the second record boundary (77 + 1,040): n = 2, r = 0, check 8. Without a length field, every cut at a record boundary is caught.' },
  { name: 'v2-structure-cut-2-records', length: V2_THREE, mutate: cutTo(HEADER_SIZE_V2 + 2 * S_1K), expect: 'truncated', comment: 'Cut at the third record boundary (the final record dropped): n = 3, r = 0, check 8.' },
  { name: 'v2-structure-cut-empty-final-record', length: 2048, mutate: cutTo(HEADER_SIZE_V2 + 2 * S_1K), expect: 'truncated', comment: 'A 2× exact multiple with its empty final record (the 16-byte tag) dropped: r = 0, check 8.' },
  { name: 'v2-structure-cut-leaving-15-bytes', length: V2_THREE, mutate: cutTo(HEADER_SIZE_V2 + 2 * S_1K + 15), expect: 'truncated', comment: 'Cut 15 bytes into the last record: r = 15 < 16, check 8.' },
  { name: 'v2-structure-empty-seal-minus-1', length: 0, mutate: (f) => truncate(f, f.length - 1), expect: 'truncated', comment: 'The empty payload seal (93 bytes) without its last byte: r = 15, check 8.' },
  { name: 'v2-structure-chunk-size-changed-size-first', length: V2_THREE, mutate: (f) => setFieldV2(f, 'chunkSize', 1282), expect: 'truncated', comment: 'chunkSize 1,024 → 1,282 (in bounds): B = 2,596 = 2 × 1,298, so n = 3 and r = 0: check 8 fails before the MAC would.' },
  { name: 'v2-structure-records-2-32-plus-1', length: 1, fileSize: HEADER_SIZE_V2 + 2 ** 32 * S_1K, expect: 'too_many_chunks', comment: 'A 1-byte seal zero-extended to 77 + 2^32 × 1,040 bytes (fileSize; sparse, about 4 TiB): n = 2^32 + 1, check 7.' },
  { name: 'v2-structure-records-2-32', length: 1, fileSize: HEADER_SIZE_V2 + (2 ** 32 - 1) * S_1K, expect: 'truncated', comment: 'Zero-extended to 77 + (2^32 − 1) × 1,040 bytes: exactly 2^32 records pass check 7; r = 0, so check 8 says truncated.' },
  { name: 'v2-structure-records-2-32-mac', length: 1, mutate: (f) => flipBit(f, FIELD_V2.headerMac.offset, 0), fileSize: HEADER_SIZE_V2 + (2 ** 32 - 1) * S_1K + 16, expect: 'auth_failed', comment: 'Exactly 2^32 records with a last record of 16 bytes: checks 7 and 8 pass; a MAC bit is flipped, so check 9 says auth_failed. No record is read.' },
  { name: 'v2-structure-record-deleted', length: V2_THREE, mutate: deleteRecord(1), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Record 1 removed: the layout is consistent (S and 516 bytes), the MAC holds, record 0 is released, the old final record fails at index 1.' },

  // --- cuts inside a record and data after the last record: the size checks pass, the records judge
  { name: 'v2-cut-inside-record-1', length: V2_THREE, mutate: cutTo(HEADER_SIZE_V2 + S_1K + 500), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Cut 500 bytes into record 1: n = 2, r = 500 ≥ 16, so the size checks pass; record 1 is read as a 500-byte final record and fails: chunk_damaged at 1, record 0 released.' },
  { name: 'v2-cut-leaving-16-bytes', length: V2_THREE, mutate: cutTo(HEADER_SIZE_V2 + 2 * S_1K + 16), expect: 'chunk_damaged', chunkIndex: 2, comment: 'Cut 16 bytes into the last record: r = 16 passes check 8; the 16-byte record fails at index 2; records 0–1 released.' },
  { name: 'v2-cut-last-byte', length: V2_THREE, mutate: (f) => truncate(f, f.length - 1), expect: 'chunk_damaged', chunkIndex: 2, comment: 'The last byte of the last tag missing: r = 515, chunk_damaged at 2.' },
  { name: 'v2-appended-1-byte', length: V2_THREE, mutate: (f, ctx) => append(f, ctx.extraPlaintext(1)), expect: 'chunk_damaged', chunkIndex: 2, comment: 'One byte after the last record: the last record is read as 517 bytes and fails, chunk_damaged at 2 (version 2 has no trailing_data).' },
  { name: 'v2-appended-15-bytes', length: V2_THREE, mutate: (f, ctx) => append(f, ctx.extraPlaintext(15)), expect: 'chunk_damaged', chunkIndex: 2, comment: '15 bytes appended: chunk_damaged at 2.' },
  { name: 'v2-appended-16-bytes', length: V2_THREE, mutate: (f, ctx) => append(f, ctx.extraPlaintext(16)), expect: 'chunk_damaged', chunkIndex: 2, comment: '16 bytes appended (a tag\'s length): chunk_damaged at 2.' },
  { name: 'v2-appended-valid-record', length: V2_THREE, mutate: (f, ctx) => append(f, ctx.sealRecord(3, true, ctx.extraPlaintext(1024))), expect: 'chunk_damaged', chunkIndex: 2, comment: 'S = 1,040 bytes appended, a record sealed under the file\'s key and header as index 3 with the final flag: n = 4, the old final record is now read as a full record with flag 00 and fails, chunk_damaged at 2.' },
  { name: 'v2-appended-1-byte-full-last-record', length: V2_FULL_LAST, mutate: (f, ctx) => append(f, ctx.extraPlaintext(1)), expect: 'truncated', comment: 'One byte after a 1,039-byte last record: B = S, so n = 2 and r = 0: check 8 says truncated, not chunk_damaged.' },
  { name: 'v2-appended-17-bytes-full-last-record', length: V2_FULL_LAST, mutate: (f, ctx) => append(f, ctx.extraPlaintext(17)), expect: 'chunk_damaged', chunkIndex: 0, comment: '17 bytes after a 1,039-byte last record: n = 2, r = 16; the MAC holds and record 0 (the old final record and one byte) fails with flag 00: chunk_damaged at 0.' },

  // --- authentication: check 9 (the MAC) and check 10 (the records), no probe window
  { name: 'v2-auth-wrong-passphrase', length: V2_THREE, openWith: 'correct horse battery stable', expect: 'auth_failed', comment: 'A wrong passphrase: the header MAC does not verify (check 9), nothing released.' },
  { name: 'v2-auth-single-chunk-wrong-passphrase', stem: 'v2-auth-single-chunk', length: 100, openWith: 'wrong', expect: 'auth_failed', comment: 'The one-record file of v2-auth-single-chunk-damaged, intact, under a wrong passphrase: auth_failed by the MAC. (In version 1 both read as auth_failed.)' },
  { name: 'v2-auth-single-chunk-damaged', stem: 'v2-auth-single-chunk', length: 100, mutate: flipRecordByte(0, 50, 1), expect: 'chunk_damaged', chunkIndex: 0, comment: 'The same one-record file (salts and payload from v2-auth-single-chunk) with one ciphertext bit flipped, under the right passphrase: the MAC holds, so chunk_damaged at 0, told apart from the wrong passphrase.' },
  { name: 'v2-auth-empty-payload-wrong-passphrase', length: 0, openWith: 'wrong', expect: 'auth_failed', comment: 'The empty payload seal under a wrong passphrase: auth_failed by the MAC.' },
  { name: 'v2-auth-empty-payload-tag-bit', length: 0, mutate: flipRecordTag(0, 7, 4), expect: 'chunk_damaged', chunkIndex: 0, comment: 'The empty payload seal with a tag bit flipped: the MAC holds, the empty final record fails, chunk_damaged at 0, nothing released.' },
  { name: 'v2-auth-header-iterations-in-bounds', length: V2_THREE, mutate: (f) => flipFieldBitV2(f, 'kdfIterations', 0), expect: 'auth_failed', comment: 'kdfIterations 1,000 → 1,001: in bounds, another key and MAC input, auth_failed.' },
  { name: 'v2-auth-header-kdf-salt-bit', length: V2_THREE, mutate: (f) => flipFieldBitV2(f, 'kdfSalt', 77), expect: 'auth_failed', comment: 'One kdfSalt bit flipped: auth_failed by the MAC.' },
  { name: 'v2-auth-header-payload-salt-bit', length: V2_THREE, mutate: (f) => flipFieldBitV2(f, 'payloadSalt', 0), expect: 'auth_failed', comment: 'One payloadSalt bit flipped: other HKDF keys, auth_failed by the MAC.' },
  { name: 'v2-auth-header-chunk-size-in-bounds', length: 100, mutate: (f) => flipFieldBitV2(f, 'chunkSize', 0), expect: 'auth_failed', comment: 'chunkSize 1,024 → 1,025 on a one-record file: the layout is unchanged (n = 1, r = 116), the MAC input differs, auth_failed.' },
  { name: 'v2-auth-header-mac-first-bit', length: V2_THREE, mutate: (f) => flipBit(f, FIELD_V2.headerMac.offset, 7), expect: 'auth_failed', comment: 'The first bit of the MAC (byte 45) flipped: auth_failed.' },
  { name: 'v2-auth-header-mac-last-byte', length: V2_THREE, mutate: (f) => flipBit(f, HEADER_SIZE_V2 - 1, 0), expect: 'auth_failed', comment: 'The last MAC byte (76) changed: auth_failed; every MAC byte counts.' },
  { name: 'v2-auth-first-record-bit', length: V2_THREE, mutate: flipRecordByte(0), expect: 'chunk_damaged', chunkIndex: 0, comment: 'One ciphertext bit in record 0: the MAC holds, so chunk_damaged at 0 (no probe window), nothing released.' },
  { name: 'v2-auth-middle-record-bit', length: V2_THREE, mutate: flipRecordByte(1, 500, 3), expect: 'chunk_damaged', chunkIndex: 1, comment: 'One ciphertext bit in record 1: record 0 released (1,024 bytes), chunk_damaged at 1.' },
  { name: 'v2-auth-last-record-bit', length: V2_THREE, mutate: flipRecordByte(2, 499, 7), expect: 'chunk_damaged', chunkIndex: 2, comment: 'The last ciphertext bit of the last record: records 0–1 released (2,048 bytes), chunk_damaged at 2.' },
  { name: 'v2-auth-last-record-tag-bit', length: V2_THREE, mutate: flipRecordTag(2, 15, 0), expect: 'chunk_damaged', chunkIndex: 2, comment: 'One bit of the last tag: chunk_damaged at 2.' },
  { name: 'v2-auth-empty-final-record-tag-bit', length: 2048, mutate: flipRecordTag(2, 0, 0), expect: 'chunk_damaged', chunkIndex: 2, comment: 'One bit of the empty final record of a 2× exact multiple: both full records released (2,048 bytes), chunk_damaged at 2.' },
  { name: 'v2-auth-records-swapped-0-1', length: V2_THREE, mutate: swapRecords(0, 1), expect: 'chunk_damaged', chunkIndex: 0, comment: 'Records 0 and 1 swapped: the MAC holds, record 0 fails under nonce index 0, chunk_damaged at 0.' },
  { name: 'v2-auth-record-duplicated', length: V2_THREE, mutate: copyRecord(0, 1), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Record 0 copied over record 1: record 0 released, chunk_damaged at 1.' },
  { name: 'v2-auth-record-from-other-file', length: V2_THREE, mutate: (f, ctx) => withRecordsV2(f, 1024, (r) => { r[1] = recordsV2(ctx.donor, 1024).records[1]; return r; }), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Record 1 taken from another seal of the same payload and passphrase (salts from NAME/donor): record 0 released, chunk_damaged at 1.' },
  { name: 'v2-auth-flag-on-non-final-record', length: V2_THREE, mutate: reflag(1, true), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Record 1 sealed again under the file\'s key with the final flag 01 (as a writer that stopped there would): read with flag 00, it fails; chunk_damaged at 1.' },
  { name: 'v2-auth-flag-missing-on-last-record', length: V2_THREE, mutate: reflag(2, false), expect: 'chunk_damaged', chunkIndex: 2, comment: 'The last record sealed again with flag 00: read as final (flag 01), it fails; records 0–1 released, chunk_damaged at 2.' },
  { name: 'v2-auth-flag-missing-on-empty-final', length: 1024, mutate: reflag(1, false), expect: 'chunk_damaged', chunkIndex: 1, comment: 'A 1× exact multiple whose empty final record was sealed with flag 00: record 0 released, chunk_damaged at 1.' },
  { name: 'v2-verdict-last-record-only', length: V2_SIX, mutate: flipRecordTag(5, 3, 2), expect: 'chunk_damaged', chunkIndex: 5, comment: 'Only the last of 6 records damaged: chunk_damaged at 5, also for a reader that authenticates the final record first; records 0–4 (5,120 bytes) released in order.' },
  { name: 'v2-verdict-records-1-and-last', length: V2_SIX, mutate: bothV2(flipRecordByte(1, 9), flipRecordByte(5, 0)), expect: 'chunk_damaged', chunkIndex: 1, comment: 'Records 1 and 5 damaged: the lowest failing index, 1, whichever a reader meets first.' },
  { name: 'v2-verdict-first-four-and-last', length: V2_SIX, mutate: bothV2(flipRecordByte(0), flipRecordByte(1), flipRecordByte(2), flipRecordByte(3), flipRecordByte(5)), expect: 'chunk_damaged', chunkIndex: 0, comment: 'Records 0–3 and 5 damaged: the MAC holds, so chunk_damaged at 0 (version 1 said auth_failed here: verdict-first-four-and-last).' },
];

// Seals a v2 entry's payload, applies its edit and returns what a vector needs.
function buildKnownAnswerV2(entry) {
  const { name, chunkSize = 1024, iterations = 1000, passphrase = PASSPHRASE } = entry;
  const stem = entry.stem ?? name;
  const plaintext = entry.plaintext ? entry.plaintext(stem) : katPlaintext(stem, entry.length);
  const params = { iterations, chunkSize, kdfSalt: katSalt(stem), payloadSalt: katPayloadSalt(stem) };
  const sealing = { ...params, passphrase: Buffer.from(passphrase) };
  const sealed = sealBufferV2(plaintext, sealing);
  const keys = deriveKeysV2(sealing.passphrase, params.kdfSalt, iterations, params.payloadSalt);
  const header = sealed.subarray(0, HEADER_SIZE_V2);
  const ctx = {
    chunkSize,
    extraPlaintext: (length) => katPlaintext(`${name}/extra`, length),
    chunkPlaintext: (i) => plaintext.subarray(i * chunkSize, Math.min(plaintext.length, (i + 1) * chunkSize)),
    sealRecord: (index, final, bytes) => sealRecordV2(keys.payloadKey, header, index, final, bytes),
    get donor() { return sealBufferV2(plaintext, { ...sealing, kdfSalt: katSalt(`${name}/donor`), payloadSalt: katPayloadSalt(`${name}/donor`) }); },
  };
  const file = entry.mutate ? entry.mutate(sealed, ctx) : sealed;
  const openWith = entry.openWith ?? passphrase;
  const outcome = openOutcome(file, Buffer.from(openWith), entry.fileSize);
  return { name, comment: entry.comment, openWith, params, plaintext, file, outcome, fileSize: entry.fileSize };
}

// ---------------------------------------------------------------------------------------------
// The key-commitment pair (vectors-v1.md §4, §5.6): a v1 file that opens under two passphrases to two
// plaintexts, and its v2 twin, whose header MAC refuses the second passphrase. Salts and nonce base are
// derived from the pair's stem; the ciphertext is solved with GHASH algebra (commitment.mjs).

const COMMITMENT_TEXT_FIRST = Buffer.from('Visited: Meiji Jingu, Ise Jingu.'); // 32 bytes, readable under the first key
const COMMITMENT_TEXT_SECOND = Buffer.from('No visits. None.'); // 16 bytes, readable under the second key

// 64 bytes of ciphertext: blocks 0–1 decrypt to the first text under key1, block 2 to the second text under
// key2, block 3 is solved so that one tag authenticates under both keys.
function twoKeyRecord(key1, key2, nonce, aad) {
  const [stream1, stream2] = [key1, key2].map((key) => gcmKeystream(key, nonce, 64));
  const chosen = Buffer.alloc(64);
  for (let i = 0; i < 32; i++) chosen[i] = COMMITMENT_TEXT_FIRST[i] ^ stream1[i];
  for (let i = 0; i < 16; i++) chosen[32 + i] = COMMITMENT_TEXT_SECOND[i] ^ stream2[32 + i];
  const { ciphertext, tag } = twoKeyCiphertext({ key1, key2, nonce, aad, ciphertext: chosen, freeBlock: 3 });
  const xor = (a, b) => Buffer.from(a.map((byte, i) => byte ^ b[i]));
  return { ciphertext, tag, plaintext1: xor(ciphertext, stream1), plaintext2: xor(ciphertext, stream2) };
}

function keyCommitmentVectors() {
  const [first, second] = [PASSPHRASE, SECOND_PASSPHRASE].map((p) => Buffer.from(p));
  // Version 1: a 129-byte file, 45 + 4 + 64 + 16.
  const v1Stem = 'success-not-key-committing';
  const v1 = { iterations: 1000, chunkSize: 1024, salt: katSalt(v1Stem), nonceBase: katNonceBase(v1Stem) };
  const header1 = encodeHeader({ kdfIterations: v1.iterations, salt: v1.salt, nonceBase: v1.nonceBase, chunkSize: v1.chunkSize, plaintextLength: 64 });
  const r1 = twoKeyRecord(deriveKey(first, v1.salt, 1000), deriveKey(second, v1.salt, 1000), chunkNonce(v1.nonceBase, 0), header1);
  const file1 = Buffer.concat([header1, u32be(80), r1.ciphertext, r1.tag]);
  if (file1.length !== 129) throw new Error('the v1 key-commitment file is not 129 bytes');
  // Version 2: the same construction on the record, under the two payload keys; the MAC is the first key's.
  const v2Stem = 'v2-key-commitment';
  const v2 = { iterations: 1000, chunkSize: 1024, kdfSalt: katSalt(v2Stem), payloadSalt: katPayloadSalt(v2Stem) };
  const [keys1, keys2] = [first, second].map((p) => deriveKeysV2(p, v2.kdfSalt, 1000, v2.payloadSalt));
  const header2 = encodeHeaderV2({ kdfIterations: 1000, kdfSalt: v2.kdfSalt, payloadSalt: v2.payloadSalt, chunkSize: 1024 }, keys1.headerKey);
  const r2 = twoKeyRecord(keys1.payloadKey, keys2.payloadKey, recordNonceV2(0, true), header2);
  const file2 = Buffer.concat([header2, r2.ciphertext, r2.tag]);
  // The twin is meaningful only if its record alone would open under the second passphrase too.
  const record2 = Buffer.concat([r2.ciphertext, r2.tag]);
  if (!openRecordV2(keys2.payloadKey, header2, 0, true, record2)?.equals(r2.plaintext2)) throw new Error('the v2 twin record does not open under the second payload key');

  const note1 = 'Version 1 is not key-committing (AES-GCM alone is not: Albertini et al. 2022). The 129-byte one-chunk file of success-not-key-committing-first and -second (identical bytes; salt and nonceBase derived from the stem success-not-key-committing) was built with GHASH algebra in GF(2^128): ciphertext blocks 0–1 are chosen under the first passphrase, block 2 under the second, block 3 solves tag(K1) = tag(K2).';
  return [
    { entry: { name: 'success-not-key-committing-first' }, vector: { name: 'success-not-key-committing-first', comment: `${note1} Under "${PASSPHRASE}" it opens to a plaintext beginning "${COMMITMENT_TEXT_FIRST}".`, openWith: PASSPHRASE, params: v1, plaintext: r1.plaintext1, file: file1 } },
    { entry: { name: 'success-not-key-committing-second' }, vector: { name: 'success-not-key-committing-second', comment: `${note1} Under "${SECOND_PASSPHRASE}" the same file opens to another plaintext, whose bytes 32–47 read "${COMMITMENT_TEXT_SECOND}".`, openWith: SECOND_PASSPHRASE, params: v1, plaintext: r1.plaintext2, file: file1 } },
    { entry: { name: 'v2-key-commitment-first' }, vector: { name: 'v2-key-commitment-first', comment: `The version 2 twin of success-not-key-committing (salts from the stem v2-key-commitment): its one record was solved the same way, so it authenticates under the payload keys of both "${PASSPHRASE}" and "${SECOND_PASSPHRASE}"; the header MAC is the first one's. Under "${PASSPHRASE}" it opens, to a plaintext beginning "${COMMITMENT_TEXT_FIRST}".`, openWith: PASSPHRASE, params: v2, plaintext: r2.plaintext1, file: file2 } },
    { entry: { name: 'v2-key-commitment-second', expect: 'auth_failed' }, vector: { name: 'v2-key-commitment-second', comment: `The file of v2-key-commitment-first under "${SECOND_PASSPHRASE}": its record would authenticate under that passphrase's payload key, but the header MAC commits to the key, so check 9 refuses it: auth_failed. (Version 1 opened the same construction: success-not-key-committing-second.)`, openWith: SECOND_PASSPHRASE, params: v2, plaintext: r2.plaintext1, file: file2 } },
  ].map(({ entry, vector }) => ({ entry, vector: { ...vector, outcome: openOutcome(vector.file, Buffer.from(vector.openWith)) } }));
}

// ---------------------------------------------------------------------------------------------
// RFC 5869 Appendix A, test cases 1–3 (HKDF-SHA256), transcribed from the RFC; written to
// KnownAnswer/rfc5869/hkdf-sha256.json for every implementation to check its HKDF against.

const range = (first, last) => Buffer.from(Array.from({ length: last - first + 1 }, (_, i) => first + i));
const RFC5869_CASES = [
  { tcId: 1, ikm: Buffer.alloc(22, 0x0b), salt: range(0x00, 0x0c), info: range(0xf0, 0xf9), length: 42,
    prk: '077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5',
    okm: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865' },
  { tcId: 2, ikm: range(0x00, 0x4f), salt: range(0x60, 0xaf), info: range(0xb0, 0xff), length: 82,
    prk: '06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244',
    okm: 'b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87' },
  { tcId: 3, ikm: Buffer.alloc(22, 0x0b), salt: Buffer.alloc(0), info: Buffer.alloc(0), length: 42,
    prk: '19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04',
    okm: '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8' },
];

function writeHkdfKnownAnswers(dir) {
  const tests = RFC5869_CASES.map(({ tcId, ikm, salt, info, length, prk, okm }) => {
    // The transcription must agree with this HKDF and node's before it is written.
    if (hkdfExtract(salt, ikm).toString('hex') !== prk || hkdfSha256(ikm, salt, info, length).toString('hex') !== okm
      || Buffer.from(crypto.hkdfSync('sha256', ikm, salt, info, length)).toString('hex') !== okm) {
      throw new Error(`RFC 5869 test case ${tcId} does not match`);
    }
    return { tcId, ikm: ikm.toString('hex'), salt: salt.toString('hex'), info: info.toString('hex'), length, prk, okm };
  });
  const document = {
    source: 'RFC 5869, Appendix A, test cases 1-3 (HKDF with SHA-256)',
    hash: 'SHA-256',
    comment: 'prk = HKDF-Extract(salt, ikm) = HMAC-SHA256(salt, ikm); okm = HKDF-Expand(prk, info, length). An empty salt means 32 zero bytes (RFC 5869 section 2.2). container-v2.md section 4 uses the same function with ikm = K_pw, salt = payloadSalt, info = "goshuin/v2/header-mac" or "goshuin/v2/payload", length 32.',
    tests,
  };
  const filePath = path.join(dir, HKDF_KNOWN_ANSWERS);
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  fs.writeFileSync(filePath, `${JSON.stringify(document, null, 2)}\n`);
}

export function generateKnownAnswerSet(dir) {
  const names = new Set();
  const pairs = [
    ...KNOWN_ANSWERS.map((entry) => ({ entry, build: () => buildKnownAnswer(entry) })),
    ...KNOWN_ANSWERS_V2.map((entry) => ({ entry, build: () => buildKnownAnswerV2(entry) })),
    ...keyCommitmentVectors().map(({ entry, vector }) => ({ entry, build: () => vector })),
  ];
  const built = pairs.map(({ entry, build }) => {
    if (names.has(entry.name)) throw new Error(`duplicate vector name ${entry.name}`);
    names.add(entry.name);
    const vector = build();
    assertDeclared(entry, vector.outcome);
    return vector;
  });
  prepareDirectory(dir);
  for (const vector of built) writeVector(dir, vector);
  writeHkdfKnownAnswers(dir);
  return built.length;
}

// ---------------------------------------------------------------------------------------------
// Random sets: random parameters in bounds, lengths around chunk boundaries, random passphrases and
// random damage; the expected result is whatever the opener reports for the damaged file.

// A deterministic byte stream from a seed (AES-256-CTR keyed by SHA-256 of the seed).
class SeededRandom {
  constructor(seed) {
    this.stream = crypto.createCipheriv('aes-256-ctr', sha256(`goshuin-random/${seed}`), Buffer.alloc(16));
  }
  bytes(n) { return this.stream.update(Buffer.alloc(n)); }
  // An integer in [min, max]; 48 random bits, so the bias is negligible for test data.
  int(min, max) { return min + Math.floor((this.bytes(6).readUIntBE(0, 6) / 2 ** 48) * (max - min + 1)); }
  chance(probability) { return this.int(0, 999_999) < probability * 1_000_000; }
  pick(list) { return list[this.int(0, list.length - 1)]; }
}

const PASSPHRASE_ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  'あいうえおかきくけこがぎぐげごぱぴぷぺぽアイウエオガギグゲゴパピプペポーッ御朱印神社寺',
  ['🔑', '⛩️', '🦊', '👨\u200d👩\u200d👧', '🇯🇵', '\u00e9', 'e\u0301', '\u00c5', '\u212b', 'ß', '\ufb01', 'か\u3099', '\u00a0', '\u2126'],
];

function randomPassphrase(random) {
  if (random.chance(0.15)) return random.bytes(random.int(1, 24)); // raw bytes, maybe not UTF-8
  const alphabet = [...random.pick(PASSPHRASE_ALPHABETS)];
  let text = '';
  for (let n = random.int(1, 20); n > 0; n--) text += random.pick(random.chance(0.8) ? alphabet : [...random.pick(PASSPHRASE_ALPHABETS)]);
  return text;
}

function randomParameters(random) {
  const iterations = random.chance(0.85) ? random.int(1000, 3000) : random.pick([1000, random.int(3001, 50000)]);
  const chunkSizeKind = random.int(1, 20);
  const chunkSize = chunkSizeKind <= 16 ? random.int(1024, 100000) : chunkSizeKind <= 17 ? 1024 : chunkSizeKind <= 19 ? random.int(100001, 4194304) : MAX_CHUNK_SIZE;
  // Lengths around chunk boundaries; large chunks get few chunks, the 64 MiB chunk only small payloads.
  const k = random.int(1, chunkSize > 100000 ? 1 : 4);
  const length = chunkSize === MAX_CHUNK_SIZE ? random.int(1, 5000) : random.pick([1, k * chunkSize - 1, k * chunkSize, k * chunkSize + 1]);
  return { iterations, chunkSize, length, salt: random.bytes(16), nonceBase: random.bytes(8) };
}

// Random damage to `sealed`; returns { file, openWith, what }.
function randomDamage(random, sealed, { chunkSize, passphrase, sealChunkAt }) {
  const chunks = chunkRecords(sealed, chunkSize);
  const anyChunk = () => random.int(0, chunks.count - 1);
  const twoChunks = () => { const i = anyChunk(); let j = anyChunk(); while (j === i) j = anyChunk(); return [i, j]; };
  const ctx = { chunkSize };
  const damages = [
    () => ({ what: 'truncated', file: truncate(sealed, random.int(0, sealed.length - 1)) }),
    () => ({ what: 'bytes appended', file: append(sealed, random.bytes(random.int(1, 64))) }),
    () => ({ what: 'valid extra chunk appended', file: append(sealed, sealChunkAt(chunks.count, random.bytes(random.int(1, chunkSize)))) }),
    () => { const byte = random.int(0, HEADER_SIZE - 1); return { what: `header bit flipped in byte ${byte}`, file: flipBit(sealed, byte, random.int(0, 7)) }; },
    () => { const i = anyChunk(); return { what: `prefix bit flipped in chunk ${i}`, file: flipBit(sealed, chunks.prefixOffset(i) + random.int(0, 3), random.int(0, 7)) }; },
    () => { const i = anyChunk(); return { what: `ciphertext bit flipped in chunk ${i}`, file: flipBit(sealed, chunks.ciphertextOffset(i) + random.int(0, chunks.records[i].length - 21), random.int(0, 7)) }; },
    () => { const i = anyChunk(); return { what: `tag bit flipped in chunk ${i}`, file: flipBit(sealed, chunks.tagOffset(i) + random.int(0, 15), random.int(0, 7)) }; },
    () => { const i = anyChunk(); const value = random.pick([0, 0xffffffff, chunks.records[i].length - 5, chunks.records[i].length - 3, random.int(0, 0xffffffff)]); return { what: `prefix of chunk ${i} set to ${value}`, file: setPrefix(i, value)(sealed, ctx) }; },
    () => { const i = anyChunk(); return { what: `chunk ${i} deleted`, file: deleteChunk(i)(sealed, ctx) }; },
    () => ({ what: 'wrong passphrase', file: sealed, openWith: randomPassphrase(random) }),
  ];
  if (chunks.count > 1) {
    damages.push(() => { const [i, j] = twoChunks(); return { what: `chunks ${i} and ${j} swapped`, file: swapChunks(i, j)(sealed, ctx) }; });
    damages.push(() => { const [i, j] = twoChunks(); return { what: `chunk ${i} copied over chunk ${j}`, file: copyChunk(i, j)(sealed, ctx) }; });
  }
  return { openWith: passphrase, ...random.pick(damages)() };
}

// Random v2 parameters: as v1's, and lengths 0 and exact multiples (the empty final record) too.
function randomParametersV2(random) {
  const { iterations, chunkSize } = randomParameters(random);
  const k = random.int(1, chunkSize > 100000 ? 1 : 4);
  const length = chunkSize === MAX_CHUNK_SIZE ? random.pick([0, random.int(1, 5000)]) : random.pick([0, 1, k * chunkSize - 1, k * chunkSize, k * chunkSize + 1, random.int(1, k * chunkSize)]);
  return { iterations, chunkSize, length, kdfSalt: random.bytes(16), payloadSalt: random.bytes(16) };
}

// Random damage to a v2 seal; returns { file, openWith, what }. `sealRecordAt(index, final, plaintext)`
// seals a record under the seal's own key and header.
function randomDamageV2(random, sealed, { chunkSize, passphrase, plaintext, sealRecordAt }) {
  const { records, recordOffset, tagOffset } = recordsV2(sealed, chunkSize);
  const S = chunkSize + TAG_SIZE;
  const anyRecord = () => random.int(0, records.length - 1);
  const twoRecords = () => { const i = anyRecord(); let j = anyRecord(); while (j === i) j = anyRecord(); return [i, j]; };
  const ctx = { chunkSize };
  const chunkPlaintext = (i) => plaintext.subarray(i * chunkSize, Math.min(plaintext.length, (i + 1) * chunkSize));
  const damages = [
    () => ({ what: 'truncated', file: truncate(sealed, random.int(0, sealed.length - 1)) }),
    () => { const k = random.int(0, records.length - 1); return { what: `cut at record boundary ${k}`, file: truncate(sealed, HEADER_SIZE_V2 + k * S) }; },
    () => { const k = random.int(0, 16); return { what: `cut ${k} bytes into the last record`, file: truncate(sealed, Math.min(sealed.length - 1, recordOffset(records.length - 1) + k)) }; },
    () => ({ what: 'bytes appended', file: append(sealed, random.bytes(random.pick([1, 15, 16, 17, random.int(1, 64), S]))) }),
    () => ({ what: 'valid extra record appended', file: append(sealed, sealRecordAt(records.length, random.chance(0.5), random.bytes(random.int(0, chunkSize)))) }),
    () => { const byte = random.int(0, HEADER_SIZE_V2 - 1); return { what: `header bit flipped in byte ${byte}`, file: flipBit(sealed, byte, random.int(0, 7)) }; },
    () => { const value = random.pick([0, 999, 1000, 1001, 2000000, 2000001, 0xffffffff]); return { what: `kdfIterations set to ${value}`, file: setFieldV2(sealed, 'kdfIterations', value) }; },
    () => { const value = random.pick([0, 1023, 1024, chunkSize - 1, chunkSize + 1, MAX_CHUNK_SIZE, MAX_CHUNK_SIZE + 1, 0xffffffff]); return { what: `chunkSize set to ${value}`, file: setFieldV2(sealed, 'chunkSize', value) }; },
    // Not 1: a file read by the v1 rules may expect a code no v2 vector can (vectors-v1.md §5.2).
    () => { const value = random.pick([0, 3, 0x82, 0xff]); return { what: `version set to ${value}`, file: setFieldV2(sealed, 'version', value) }; },
    () => { const i = anyRecord(); return { what: `ciphertext or tag bit flipped in record ${i}`, file: flipBit(sealed, recordOffset(i) + random.int(0, records[i].length - 1), random.int(0, 7)) }; },
    () => { const i = anyRecord(); return { what: `tag bit flipped in record ${i}`, file: flipBit(sealed, tagOffset(i) + random.int(0, 15), random.int(0, 7)) }; },
    () => { const i = anyRecord(); const final = i !== records.length - 1; return { what: `record ${i} sealed again with flag ${final ? '01' : '00'}`, file: withRecordsV2(sealed, chunkSize, (r) => { r[i] = sealRecordAt(i, final, chunkPlaintext(i)); return r; }) }; },
    () => { const i = anyRecord(); return { what: `record ${i} deleted`, file: deleteRecord(i)(sealed, ctx) }; },
    () => ({ what: 'wrong passphrase', file: sealed, openWith: randomPassphrase(random) }),
    () => ({ what: 'passphrase with a NUL appended (the same PBKDF2 key when shorter than 64 bytes)', file: sealed, openWith: Buffer.concat([Buffer.from(passphrase), Buffer.of(0)]) }),
  ];
  if (records.length > 1) {
    damages.push(() => { const [i, j] = twoRecords(); return { what: `records ${i} and ${j} swapped`, file: swapRecords(i, j)(sealed, ctx) }; });
    damages.push(() => { const [i, j] = twoRecords(); return { what: `record ${i} copied over record ${j}`, file: copyRecord(i, j)(sealed, ctx) }; });
  }
  return { openWith: passphrase, ...random.pick(damages)() };
}

// `count` version 1 vectors (random-NNN, the same for a seed as before version 2 existed), then
// `v2Count` version 2 vectors (v2-random-NNN) from their own stream of the seed.
export function generateRandomSet(dir, { seed, count = 40, v2Count = count }) {
  const random = new SeededRandom(seed);
  prepareDirectory(dir);
  for (let n = 0; n < count; n++) {
    const name = `random-${String(n).padStart(3, '0')}`;
    const { length, ...params } = randomParameters(random);
    const passphrase = randomPassphrase(random);
    const plaintext = random.bytes(length);
    const sealing = { ...params, passphrase: Buffer.from(passphrase) };
    const sealed = sealBuffer(plaintext, sealing);
    const damaged = random.chance(0.4) ? { what: 'intact', file: sealed, openWith: passphrase } : randomDamage(random, sealed, { chunkSize: params.chunkSize, passphrase, sealChunkAt: chunkSealer(sealed, sealing) });
    const outcome = openOutcome(damaged.file, Buffer.from(damaged.openWith));
    const comment = `Random vector (seed ${seed}, #${n}): ${length} bytes in ${params.chunkSize}-byte chunks, ${damaged.what}; the expected result is what the reference opener reports.`;
    writeVector(dir, { name, comment, openWith: damaged.openWith, params, plaintext, file: damaged.file, outcome });
  }
  const randomV2 = new SeededRandom(`${seed}/v2`);
  for (let n = 0; n < v2Count; n++) {
    const name = `v2-random-${String(n).padStart(3, '0')}`;
    const { length, ...params } = randomParametersV2(randomV2);
    const passphrase = randomPassphrase(randomV2);
    const plaintext = randomV2.bytes(length);
    const sealing = { ...params, passphrase: Buffer.from(passphrase) };
    const sealed = sealBufferV2(plaintext, sealing);
    const keys = deriveKeysV2(sealing.passphrase, params.kdfSalt, params.iterations, params.payloadSalt);
    const sealRecordAt = (index, final, bytes) => sealRecordV2(keys.payloadKey, sealed.subarray(0, HEADER_SIZE_V2), index, final, bytes);
    const damaged = randomV2.chance(0.3) ? { what: 'intact', file: sealed, openWith: passphrase } : randomDamageV2(randomV2, sealed, { chunkSize: params.chunkSize, passphrase, plaintext, sealRecordAt });
    const outcome = openOutcome(damaged.file, Buffer.from(damaged.openWith));
    const comment = `Random version 2 vector (seed ${seed}, #${n}): ${length} bytes in ${params.chunkSize}-byte chunks, ${damaged.what}; the expected result is what the reference opener reports.`;
    writeVector(dir, { name, comment, openWith: damaged.openWith, params, plaintext, file: damaged.file, outcome });
  }
  return count + v2Count;
}
