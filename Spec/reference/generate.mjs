// Generates known-answer vector sets (Spec/vectors-v1.md §4): the deterministic committed set
// (KnownAnswer/) and random sets for differential testing. Every expected result is what this
// reference opener reports for the file; for the committed set it must also match the result
// declared in the table below, written from the spec by hand.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {
  FIELD, GoshuinError, HEADER_SIZE, PREFIX_SIZE, TAG_SIZE, MAX_CHUNK_SIZE,
  bufferSink, bufferSource, deriveKey, open, seal, sealChunk,
} from './goshuin.mjs';
import { FORMAT, MAX_HEX_PLAINTEXT, formatVector, sha256, sha256Hex } from './vectors.mjs';

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

// What a checker must find when opening `file`: success, or the code, index and released plaintext.
export function openOutcome(file, passphrase) {
  const hash = crypto.createHash('sha256');
  let releasedLength = 0;
  try {
    open(bufferSource(file), passphrase, (plaintext) => { hash.update(plaintext); releasedLength += plaintext.length; });
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

function writeVector(dir, { name, comment, openWith, params, plaintext, file, outcome }) {
  const usesFile = plaintext.length > MAX_HEX_PLAINTEXT;
  fs.writeFileSync(path.join(dir, `${name}.goshuin`), file);
  if (usesFile) fs.writeFileSync(path.join(dir, `${name}.plaintext`), plaintext);
  const fields = {
    format: FORMAT,
    version: 1,
    name,
    comment,
    expect: outcome.expect,
    chunkIndex: outcome.chunkIndex,
    ...passphraseFields(openWith),
    iterations: params.iterations,
    salt: params.salt.toString('hex'),
    nonceBase: params.nonceBase.toString('hex'),
    chunkSize: params.chunkSize,
    key: deriveKey(Buffer.from(openWith), params.salt, params.iterations).toString('hex'),
    plaintextHex: usesFile ? undefined : plaintext.toString('hex'),
    plaintextFile: usesFile ? `${name}.plaintext` : undefined,
    plaintextLength: plaintext.length,
    plaintextSha256: sha256Hex(plaintext),
    file: `${name}.goshuin`,
    fileSha256: sha256Hex(file),
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

export function generateKnownAnswerSet(dir) {
  const names = new Set();
  const built = KNOWN_ANSWERS.map((entry) => {
    if (names.has(entry.name)) throw new Error(`duplicate vector name ${entry.name}`);
    names.add(entry.name);
    const vector = buildKnownAnswer(entry);
    assertDeclared(entry, vector.outcome);
    return vector;
  });
  prepareDirectory(dir);
  for (const vector of built) writeVector(dir, vector);
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

export function generateRandomSet(dir, { seed, count = 40 }) {
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
  return count;
}
