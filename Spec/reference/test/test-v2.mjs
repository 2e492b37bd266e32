#!/usr/bin/env node
// Tests of the version 2 reference and of the vector checker, each of which fails when the rule it names
// is broken:  node Spec/reference/test/test-v2.mjs [KNOWN_ANSWER_DIR]   (default: KnownAnswer/)
// The fuzz loop beside it (fuzz-v2.mjs) compares the reader with an independent restatement.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  GoshuinError, HEADER_SIZE_V2, bufferSink, bufferSource, deriveKey, deriveKeysV2, encodeHeader, encodeHeaderV2,
  layoutV2, open, openRecordV2, recordNonceV2, seal, sealChunk, sealRecordV2, sealV2, sealV2Stream,
} from '../goshuin.mjs';
import { katPlaintext } from '../generate.mjs';
import { checkVectorSet, formatVector, sha256Hex } from '../vectors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const reference = path.join(here, '..', 'goshuin.mjs');
const knownAnswer = process.argv[2] ?? path.join(here, '..', '..', '..', 'KnownAnswer');
let passed = 0;
let failed = 0;
function test(name, body) {
  try {
    body();
    passed++;
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}: ${error.stack}`);
  }
}
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'goshuin-test-v2-'));
const passphrase = Buffer.from('test passphrase');
const params = { passphrase, iterations: 1000, chunkSize: 1024, kdfSalt: Buffer.alloc(16, 1), payloadSalt: Buffer.alloc(16, 2) };
const sealBytes = (plaintext, p = params) => { const sink = bufferSink(); sealV2(bufferSource(plaintext), sink, p); return sink.bytes(); };
const codeOf = (file, pass = passphrase) => {
  try { open(bufferSource(file), pass); return 'success'; } catch (error) { if (error instanceof GoshuinError) return error.code; throw error; }
};

test('layout: every size from 77 to 77 + 3·S + 20 against counting records one by one', () => {
  const S = 1040n;
  for (let size = 77n; size <= 77n + 3n * S + 20n; size++) {
    const layout = layoutV2(1024, size);
    let remaining = size - 77n;
    let count = 1n;
    while (remaining >= S) { remaining -= S; count++; }
    assert.equal(layout.recordCount, count, `size ${size}`);
    assert.equal(layout.lastRecordLength, remaining, `size ${size}`);
    if (remaining >= 16n) assert.equal(layout.payloadLength, (count - 1n) * 1024n + remaining - 16n);
  }
});

test('layout: the largest counts need no more than 64 bits', () => {
  const layout = layoutV2(67108864, 77n + 2n ** 32n * (67108864n + 16n) - 1n);
  assert.equal(layout.recordCount, 2n ** 32n);
  assert.equal(layout.lastRecordLength, 67108864n + 15n);
  assert.ok(77n + 2n ** 32n * (67108864n + 16n) < 2n ** 63n);
});

test('sizes: a payload of k·chunkSize + j has k + 1 records, an empty final one when j = 0', () => {
  for (const length of [0, 1, 1023, 1024, 1025, 2047, 2048, 2049]) {
    const file = sealBytes(crypto.randomBytes(length));
    assert.equal(file.length, 77 + Math.floor(length / 1024) * 1040 + (length % 1024) + 16, `length ${length}`);
  }
});

test('nonce: 00×7 ‖ u32be(i) ‖ f', () => {
  assert.equal(recordNonceV2(0, false).toString('hex'), '000000000000000000000000');
  assert.equal(recordNonceV2(0x01020304, true).toString('hex'), '000000000000000102030401');
  assert.equal(recordNonceV2(2 ** 32 - 1, false).toString('hex'), '00000000000000ffffffff00');
});

test('streaming seal: the same bytes as the sized seal, for every short read pattern', () => {
  for (const length of [0, 5, 1024, 3000, 4096]) {
    const plaintext = crypto.randomBytes(length);
    let position = 0;
    const sink = bufferSink();
    sealV2Stream(() => { const part = plaintext.subarray(position, position + 1024); position += part.length; return part; }, sink, params);
    assert.ok(sink.bytes().equals(sealBytes(plaintext)), `length ${length}`);
  }
});

test('streaming seal: the flagged record is the last thing written', () => {
  const writes = [];
  const plaintext = crypto.randomBytes(2048);
  let position = 0;
  sealV2Stream(() => { const part = plaintext.subarray(position, position + 1024); position += part.length; return part; }, { write: (b) => writes.push(Buffer.from(b)) }, params);
  const keys = deriveKeysV2(passphrase, params.kdfSalt, 1000, params.payloadSalt);
  const header = writes[0];
  assert.equal(writes.length, 4);
  assert.ok(openRecordV2(keys.payloadKey, header, 2, true, writes[3]).length === 0);
  assert.equal(openRecordV2(keys.payloadKey, header, 1, true, writes[2]), null);
});

test('counter: a writer refuses a payload that needs a record at index 2^32', () => {
  const sink = { write: () => {} };
  // 2^32 · chunkSize bytes: 2^32 full records, and the empty final record would be index 2^32.
  const huge = { size: 2n ** 32n * 1024n, read: () => { throw new Error('read'); } };
  assert.throws(() => sealV2(huge, sink, params), (e) => e.code === 'too_many_chunks');
  // One byte less fits (the last record, index 2^32 − 1, holds 1,023 bytes): the sealer starts reading.
  const justFits = { size: 2n ** 32n * 1024n - 1n, read: () => { throw new Error('read'); } };
  assert.throws(() => sealV2(justFits, sink, params), /read/);
  // (The streaming sealer's own check, before a full chunk at index 2^32 − 1, cannot be reached in a test.)
});

test('short tags: node accepts a 4-byte tag without authTagLength; the reference refuses it', () => {
  const key = crypto.randomBytes(32);
  const nonce = recordNonceV2(0, true);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(Buffer.from('hello')), cipher.final()]);
  const shortTag = cipher.getAuthTag().subarray(0, 4);
  const lax = crypto.createDecipheriv('aes-256-gcm', key, nonce); // no authTagLength: the pitfall
  let accepted = true;
  try { lax.setAuthTag(shortTag); lax.update(ciphertext); lax.final(); } catch { accepted = false; }
  // If a node version stops accepting it, the pitfall is gone there; the reference must refuse it either way.
  console.log(`  (node ${process.version} ${accepted ? 'accepts' : 'refuses'} a 4-byte GCM tag when authTagLength is not given)`);
  assert.equal(openRecordV2(key, Buffer.alloc(0), 0, true, Buffer.concat([ciphertext, shortTag])), null);
  assert.equal(openRecordV2(key, Buffer.alloc(0), 0, true, Buffer.alloc(15)), null);
});

test('passphrase pitfall: P and P ‖ 00 give one PBKDF2 key; P of more than 64 bytes equals SHA-256(P)', () => {
  const salt = crypto.randomBytes(16);
  assert.ok(deriveKey(Buffer.from('abc'), salt, 1000).equals(deriveKey(Buffer.from('abc\0\0'), salt, 1000)));
  const long = Buffer.alloc(65, 0x61);
  assert.ok(deriveKey(long, salt, 1000).equals(deriveKey(crypto.createHash('sha256').update(long).digest(), salt, 1000)));
  assert.ok(!deriveKey(Buffer.from('abc'), salt, 1000).equals(deriveKey(Buffer.from('abc '), salt, 1000)));
});

test('dispatch: version byte 1 on a v2 file is read by the v1 rules, never by v2 after a failure', () => {
  const file = sealBytes(crypto.randomBytes(100));
  const asV1 = Buffer.from(file);
  asV1[4] = 1;
  // Read as v1: chunkSize is bytes 33–36 (payloadSalt bytes 8–11) = 0x02020202 = 33,686,018, in bounds;
  // plaintextLength is bytes 37–44 (payloadSalt 12–15 ‖ the v2 chunkSize) = 0x0202020200000400, which
  // needs more than 2^32 chunks of that size: v1 check 7.
  assert.ok(0x0202020200000400n / 33686018n + 1n > 2n ** 32n);
  assert.equal(codeOf(asV1), 'too_many_chunks');
  const other = Buffer.from(asV1);
  other.writeUInt32BE(0xffffffff, 33); // v1 chunkSize out of bounds: v1 check 5
  assert.equal(codeOf(other), 'chunk_size_out_of_range');
  for (const version of [0, 3, 0x82, 0xff]) { const f = Buffer.from(file); f[4] = version; assert.equal(codeOf(f), 'unsupported_version'); }
});

test('MAC: each of the 77 header bytes, flipped, is refused before any record is used', () => {
  const file = sealBytes(crypto.randomBytes(2048));
  for (let byte = 0; byte < HEADER_SIZE_V2; byte++) {
    if (byte >= 5 && byte < 9) continue; // the iteration count: tried below, some flips are slow or out of bounds
    const f = Buffer.from(file);
    f[byte] ^= 0x10;
    const released = [];
    let code;
    try { open(bufferSource(f), passphrase, (p) => released.push(p)); code = 'success'; } catch (error) { code = error.code; }
    assert.notEqual(code, 'success', `byte ${byte}`);
    assert.notEqual(code, 'chunk_damaged', `byte ${byte}: the MAC must fail first`);
    assert.equal(released.length, 0);
  }
  const f = Buffer.from(file);
  f[8] ^= 0x01; // 1,000 → 1,001
  assert.equal(codeOf(f), 'auth_failed');
});

test('seal - --format 2 from a pipe: opens to the bytes sent, exact multiples included', () => {
  for (const length of [0, 1024, 5000]) {
    const input = crypto.randomBytes(length);
    const out = path.join(scratch, `piped-${length}.goshuin`);
    const env = { ...process.env, GP: 'piped passphrase' };
    const sealed = spawnSync(process.execPath, [reference, 'seal', '-', out, '--format', '2', '--passphrase-env', 'GP', '--iterations', '1000', '--chunk-size', '1024'], { input, env });
    assert.equal(sealed.status, 0, sealed.stderr.toString());
    const opened = path.join(scratch, `piped-${length}.out`);
    const result = spawnSync(process.execPath, [reference, 'open', out, opened, '--passphrase-env', 'GP'], { env });
    assert.equal(result.status, 0, result.stderr.toString());
    assert.ok(fs.readFileSync(opened).equals(input));
    assert.equal(fs.statSync(out).size, 77 + Math.floor(length / 1024) * 1040 + (length % 1024) + 16);
  }
  const refused = spawnSync(process.execPath, [reference, 'seal', '-', path.join(scratch, 'v1-pipe'), '--passphrase-env', 'GP'], { input: 'x', env: { ...process.env, GP: 'p' } });
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr.toString(), /--format 2/);
});

test('open: a failing v2 file leaves no output', () => {
  const file = sealBytes(crypto.randomBytes(3000));
  file[77 + 1040 + 5] ^= 1;
  const input = path.join(scratch, 'damaged.goshuin');
  fs.writeFileSync(input, file);
  const result = spawnSync(process.execPath, [reference, 'open', input, path.join(scratch, 'damaged.out'), '--passphrase-env', 'GP'], { env: { ...process.env, GP: passphrase.toString() } });
  assert.equal(result.status, 1);
  assert.match(result.stderr.toString(), /chunk_damaged \(chunk 1\)/);
  assert.ok(!fs.readdirSync(scratch).some((name) => name.includes('damaged.out')));
});

// --- the checker: every rule of vectors-v1.md §5 that a wrong vector breaks must be reported

// Copies a committed vector (its files renamed as `renamed` says) into a folder of its own, edited, as
// `jsonName`.json, and checks it.
function checkEdited(vectorName, edit, extraFiles = [], renamed = {}, jsonName = vectorName) {
  const dir = fs.mkdtempSync(path.join(scratch, 'vectors-'));
  const json = JSON.parse(fs.readFileSync(path.join(knownAnswer, `${vectorName}.json`), 'utf8'));
  for (const file of [json.file, json.plaintextFile, ...extraFiles].filter(Boolean)) fs.copyFileSync(path.join(knownAnswer, file), path.join(dir, renamed[file] ?? file));
  const edited = edit(json) ?? json;
  fs.writeFileSync(path.join(dir, `${jsonName}.json`), typeof edited === 'string' ? edited : JSON.stringify(edited, null, 2));
  return checkVectorSet(dir)[0];
}
const expectStatus = (result, status, pattern) => {
  assert.equal(result.status, status, JSON.stringify(result));
  if (pattern) assert.match(result.reason, pattern);
};

test('checker: the committed v2 vectors pass unedited (the control for the tests below)', () => {
  expectStatus(checkEdited('v2-success-three-records', () => {}), 'ok');
  expectStatus(checkEdited('v2-structure-records-2-32-plus-1', () => {}), 'ok');
});
test('checker: a wrong headerKey or payloadKey fails', () => {
  for (const key of ['headerKey', 'payloadKey']) {
    expectStatus(checkEdited('v2-success-three-records', (v) => { v[key] = v[key].replace(/^./, (c) => (c === '0' ? '1' : '0')); }), 'fail', new RegExp(key));
  }
});
test('checker: v1 and v2 keys are not mixed', () => {
  expectStatus(checkEdited('v2-success-1-byte', (v) => { v.nonceBase = '0011223344556677'; }), 'malformed', /nonceBase/);
  expectStatus(checkEdited('v2-success-1-byte', (v) => { delete v.payloadSalt; }), 'malformed', /payloadSalt/);
  expectStatus(checkEdited('v2-success-1-byte', (v) => { delete v.headerKey; }), 'malformed', /headerKey/);
  expectStatus(checkEdited('v2-success-1-byte', (v) => { delete v.containerVersion; }), 'malformed', /nonceBase/);
  expectStatus(checkEdited('success-1-byte', (v) => { v.payloadSalt = v.salt; }), 'malformed', /payloadSalt/);
  expectStatus(checkEdited('success-1-byte', (v) => { v.containerVersion = 1; }), 'ok');
  expectStatus(checkEdited('success-1-byte', (v) => { v.containerVersion = 3; }), 'malformed', /containerVersion/);
});
test('checker: empty payloads are for v2 only', () => {
  expectStatus(checkEdited('v2-success-empty', () => {}), 'ok');
  expectStatus(checkEdited('v2-success-empty', (v) => { v.containerVersion = 1; v.nonceBase = '0011223344556677'; delete v.payloadSalt; delete v.headerKey; delete v.payloadKey; }), 'malformed', /plaintextLength/);
});
test('checker: codes that version 2 does not have are malformed in a v2 vector', () => {
  for (const code of ['trailing_data', 'empty_payload']) expectStatus(checkEdited('v2-appended-1-byte', (v) => { v.expect = code; delete v.chunkIndex; }), 'malformed', /container version 2/);
  expectStatus(checkEdited('v2-appended-1-byte', (v) => { v.expect = 'chunk_length_invalid'; }), 'malformed');
});
test('checker: a wrong verdict, index or released prefix fails', () => {
  expectStatus(checkEdited('v2-cut-inside-record-1', (v) => { v.expect = 'truncated'; delete v.chunkIndex; }), 'fail', /got chunk_damaged/);
  expectStatus(checkEdited('v2-cut-inside-record-1', (v) => { v.chunkIndex = 0; }), 'fail', /chunk index/);
  expectStatus(checkEdited('v2-cut-inside-record-1', (v) => { v.releasedLength = 0; }), 'fail', /released/);
});
test('checker: fileSize is the size of the file opened', () => {
  expectStatus(checkEdited('v2-structure-records-2-32-plus-1', (v) => { v.fileSize -= 1040; }), 'fail', /got truncated/);
  expectStatus(checkEdited('v2-structure-records-2-32-plus-1', (v) => { v.fileSize = 10; }), 'malformed', /not larger/);
  expectStatus(checkEdited('v2-success-1-byte', (v) => { v.fileSize = 1000; }), 'malformed', /failure vectors only/);
  expectStatus(checkEdited('success-1-byte', (v) => { v.fileSize = 1000; }), 'malformed', /fileSize/);
});
test('checker: what is wrong with the vector itself is malformed, a disagreement fails (vectors-v1.md §3)', () => {
  expectStatus(checkEdited('v2-success-1-byte', (v) => { v.fileSha256 = '0'.repeat(64); }), 'malformed', /SHA-256/);
  expectStatus(checkEdited('v2-success-1-byte', (v) => { v.file = 'elsewhere.goshuin'; }), 'malformed', /missing/);
  expectStatus(checkEdited('success-256-chunks', (v) => { v.plaintextSha256 = '0'.repeat(64); }), 'malformed', /plaintextFile/);
  expectStatus(checkEdited('v2-success-1-byte', () => '{"format": "goshuin-known-answer",'), 'malformed', /JSON/);
  expectStatus(checkEdited('v2-success-1-byte', (v) => { v.key = '0'.repeat(64); }), 'fail', /key differs/);
});
test('checker: the files of every valid NAME are valid file names, and a NAME holds no ".." (vectors-v1.md §1)', () => {
  const longest = `success-256-chunks-${'x'.repeat(81)}`;
  assert.equal(longest.length, 100);
  const dir = fs.mkdtempSync(path.join(scratch, 'names-'));
  const json = JSON.parse(fs.readFileSync(path.join(knownAnswer, 'success-256-chunks.json'), 'utf8'));
  fs.copyFileSync(path.join(knownAnswer, json.file), path.join(dir, `${longest}.goshuin`));
  fs.copyFileSync(path.join(knownAnswer, json.plaintextFile), path.join(dir, `${longest}.plaintext`));
  fs.writeFileSync(path.join(dir, `${longest}.json`), JSON.stringify({ ...json, name: longest, file: `${longest}.goshuin`, plaintextFile: `${longest}.plaintext` }));
  expectStatus(checkVectorSet(dir)[0], 'ok');
  expectStatus(checkEdited('v2-success-1-byte', (v) => { v.file = 'sealed.bin'; }, [], { 'v2-success-1-byte.goshuin': 'sealed.bin' }), 'ok');
  expectStatus(checkEdited('v2-success-1-byte', (v) => { v.name = 'v2..success'; }, [], {}, 'v2..success'), 'malformed');
});
test('checker: plaintextHex holds at most 4,096 bytes of payload, 8,192 hex digits', () => {
  for (const [length, status] of [[4096, 'ok'], [4097, 'malformed']]) {
    const dir = fs.mkdtempSync(path.join(scratch, 'inline-'));
    const plaintext = crypto.createHash('sha512').update('inline').digest().subarray(0, 1).toString('hex').repeat(length);
    const bytes = Buffer.from(plaintext, 'hex');
    const file = sealBytes(bytes);
    const keys = deriveKeysV2(passphrase, params.kdfSalt, 1000, params.payloadSalt);
    fs.writeFileSync(path.join(dir, 'inline.goshuin'), file);
    fs.writeFileSync(path.join(dir, 'inline.json'), formatVector({
      format: 'goshuin-known-answer', version: 1, containerVersion: 2, name: 'inline', comment: `${length} bytes inline`,
      expect: 'success', passphrase: passphrase.toString(), iterations: 1000, salt: params.kdfSalt.toString('hex'),
      payloadSalt: params.payloadSalt.toString('hex'), chunkSize: 1024, key: keys.passwordKey.toString('hex'),
      headerKey: keys.headerKey.toString('hex'), payloadKey: keys.payloadKey.toString('hex'), plaintextHex: plaintext,
      plaintextLength: length, plaintextSha256: sha256Hex(bytes), file: 'inline.goshuin', fileSha256: sha256Hex(file),
    }));
    expectStatus(checkVectorSet(dir)[0], status);
  }
});
test('vectors-v1.md names every committed vector whose plaintext is not the derived stream of its name', () => {
  const spec = fs.readFileSync(path.join(here, '..', '..', 'vectors-v1.md'), 'utf8');
  const named = new Set([...spec.matchAll(/`([a-z0-9][a-z0-9-]*)`/g)].map((m) => m[1]));
  for (const jsonFile of fs.readdirSync(knownAnswer).filter((f) => f.endsWith('.json'))) {
    const vector = JSON.parse(fs.readFileSync(path.join(knownAnswer, jsonFile), 'utf8'));
    const parts = vector.name.split('-');
    // The name, or a stem of at least two words the spec names (two vectors about one seal, vectors-v1.md §5.6).
    const stems = parts.map((_, i) => parts.slice(0, parts.length - i).join('-')).filter((stem) => stem.includes('-'));
    if (stems.some((stem) => sha256Hex(katPlaintext(stem, vector.plaintextLength)) === vector.plaintextSha256 && (stem === vector.name || named.has(stem)))) continue;
    assert.ok(stems.some((stem) => named.has(stem)), `${vector.name}: its plaintext is not the derived stream, and vectors-v1.md does not say so`);
  }
});
test('checker: a success vector must seal again to the same bytes (payloadSalt is used)', () => {
  expectStatus(checkEdited('v2-success-1-byte', (v) => {
    v.payloadSalt = '00'.repeat(16);
    const key = Buffer.from(v.key, 'hex');
    v.headerKey = Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(16), Buffer.from('goshuin/v2/header-mac'), 32)).toString('hex');
    v.payloadKey = Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(16), Buffer.from('goshuin/v2/payload'), 32)).toString('hex');
  }), 'fail', /sealing the plaintext again/);
});
test('checker: the RFC 5869 file is checked, and a changed byte fails', () => {
  const dir = fs.mkdtempSync(path.join(scratch, 'hkdf-'));
  fs.mkdirSync(path.join(dir, 'rfc5869'));
  const text = fs.readFileSync(path.join(knownAnswer, 'rfc5869', 'hkdf-sha256.json'), 'utf8');
  fs.writeFileSync(path.join(dir, 'rfc5869', 'hkdf-sha256.json'), text);
  assert.deepEqual(checkVectorSet(dir), [{ name: 'rfc5869/hkdf-sha256.json', status: 'ok' }]);
  const document = JSON.parse(text);
  document.tests[2].okm = document.tests[2].okm.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
  fs.writeFileSync(path.join(dir, 'rfc5869', 'hkdf-sha256.json'), JSON.stringify(document));
  assert.equal(checkVectorSet(dir)[0].status, 'fail');
});

// --- the writer's refusals, in the order of container-v1.md §6 and container-v2.md §6

const codeOfSealing = (seal) => { try { seal(); return 'sealed'; } catch (error) { if (error instanceof GoshuinError) return error.code; throw error; } };
const v1Params = { iterations: 1000, chunkSize: 1024, salt: Buffer.alloc(16, 3), nonceBase: Buffer.alloc(8, 4) };
test('seal: an empty passphrase is refused by every writer, after the parameters and the known payload', () => {
  const empty = Buffer.alloc(0);
  const sealV1 = (plaintext, p) => () => seal(bufferSource(plaintext), bufferSink(), { ...v1Params, ...p });
  assert.equal(codeOfSealing(sealV1(Buffer.alloc(10), { passphrase: empty })), 'empty_passphrase');
  assert.equal(codeOfSealing(sealV1(Buffer.alloc(0), { passphrase: empty })), 'empty_payload');
  assert.equal(codeOfSealing(sealV1(Buffer.alloc(10), { passphrase: empty, salt: Buffer.alloc(15) })), 'invalid_argument');
  assert.equal(codeOfSealing(sealV1(Buffer.alloc(10), { passphrase: empty, iterations: 999, chunkSize: 1023 })), 'iterations_out_of_range');
  assert.equal(codeOfSealing(sealV1(Buffer.alloc(10), { passphrase: empty, chunkSize: 1023, salt: Buffer.alloc(15) })), 'chunk_size_out_of_range');
  assert.equal(codeOfSealing(() => sealBytes(Buffer.alloc(10), { ...params, passphrase: empty })), 'empty_passphrase');
  assert.equal(codeOfSealing(() => sealBytes(Buffer.alloc(10), { ...params, passphrase: empty, payloadSalt: Buffer.alloc(8) })), 'invalid_argument');
  // A string that is not Unicode has no UTF-8 bytes: refused, never substituted (container-v1.md §4).
  assert.equal(codeOfSealing(sealV1(Buffer.alloc(10), { passphrase: 'a\uD800b' })), 'invalid_argument');
  assert.equal(codeOfSealing(() => sealBytes(Buffer.alloc(10), { ...params, passphrase: '\uDC00' })), 'invalid_argument');
  assert.equal(codeOfSealing(() => deriveKey('x\uD800', params.kdfSalt, 1000)), 'invalid_argument');
  assert.equal(codeOfSealing(() => deriveKey('ヂ', params.kdfSalt, 1000)), 'sealed');
  // A stream is read only after the passphrase is accepted: its payload cannot be judged first.
  let read = false;
  assert.equal(codeOfSealing(() => sealV2Stream(() => { read = true; return Buffer.alloc(0); }, bufferSink(), { ...params, passphrase: empty })), 'empty_passphrase');
  assert.equal(read, false);
  const result = spawnSync(process.execPath, [reference, 'seal', '-', path.join(scratch, 'empty-passphrase.goshuin'), '--format', '2', '--passphrase-env', 'GP'], { env: { ...process.env, GP: '' }, input: 'x' });
  assert.match(result.stderr.toString(), /empty_passphrase/);
  assert.ok(!fs.readdirSync(scratch).some((name) => name.includes('empty-passphrase')));
});

// A third party's success vector sealed with an empty passphrase, which this reference's writer refuses: the
// header and records made here by hand, as that writer made them.
function emptyPassphraseVector(dir, version) {
  const name = `theirs-empty-passphrase-v${version}`;
  const plaintext = Buffer.from(crypto.createHash('sha512').update(name).digest().toString('hex').repeat(20));
  const empty = Buffer.alloc(0);
  let file;
  const fields = { format: 'goshuin-known-answer', version: 1 };
  if (version === 1) {
    const header = encodeHeader({ kdfIterations: 1000, salt: v1Params.salt, nonceBase: v1Params.nonceBase, chunkSize: 1024, plaintextLength: plaintext.length });
    const key = deriveKey(empty, v1Params.salt, 1000);
    const chunks = [0, 1, 2].map((i) => sealChunk(key, header, v1Params.nonceBase, i, plaintext.subarray(i * 1024, (i + 1) * 1024)));
    file = Buffer.concat([header, ...chunks]);
    Object.assign(fields, { nonceBase: v1Params.nonceBase.toString('hex'), key: key.toString('hex') });
  } else {
    const keys = deriveKeysV2(empty, params.kdfSalt, 1000, params.payloadSalt);
    const header = encodeHeaderV2({ kdfIterations: 1000, kdfSalt: params.kdfSalt, payloadSalt: params.payloadSalt, chunkSize: 1024 }, keys.headerKey);
    const records = [0, 1, 2].map((i) => sealRecordV2(keys.payloadKey, header, i, i === 2, plaintext.subarray(i * 1024, (i + 1) * 1024)));
    file = Buffer.concat([header, ...records]);
    Object.assign(fields, { containerVersion: 2, payloadSalt: params.payloadSalt.toString('hex'), key: keys.passwordKey.toString('hex'), headerKey: keys.headerKey.toString('hex'), payloadKey: keys.payloadKey.toString('hex') });
  }
  fs.writeFileSync(path.join(dir, `${name}.goshuin`), file);
  const salt = (version === 1 ? v1Params.salt : params.kdfSalt).toString('hex');
  fs.writeFileSync(path.join(dir, `${name}.json`), formatVector({
    ...fields, name, comment: 'sealed by another writer with an empty passphrase', expect: 'success', passphrase: '',
    iterations: 1000, salt, chunkSize: 1024, plaintextHex: plaintext.toString('hex'), plaintextLength: plaintext.length,
    plaintextSha256: sha256Hex(plaintext), file: `${name}.goshuin`, fileSha256: sha256Hex(file),
  }));
}
test('checker: a valid vector with an empty passphrase passes, not sealed again, and says why', () => {
  const dir = fs.mkdtempSync(path.join(scratch, 'empty-passphrase-'));
  emptyPassphraseVector(dir, 1);
  emptyPassphraseVector(dir, 2);
  const results = checkVectorSet(dir);
  assert.equal(results.length, 2);
  for (const result of results) {
    expectStatus(result, 'ok');
    assert.match(result.note, /^not re-sealed: its passphrase is empty, which every writer must refuse/);
  }
});

test('key commitment: the v1 file opens under both passphrases, its v2 twin only under the first', () => {
  const v1 = fs.readFileSync(path.join(knownAnswer, 'success-not-key-committing-first.goshuin'));
  assert.equal(v1.length, 129);
  assert.ok(v1.equals(fs.readFileSync(path.join(knownAnswer, 'success-not-key-committing-second.goshuin'))));
  const plain = (file, pass) => { const parts = []; open(bufferSource(file), Buffer.from(pass), (p) => parts.push(p)); return Buffer.concat(parts); };
  const [a, b] = [plain(v1, 'correct horse battery staple'), plain(v1, 'tr0ub4dor&3')];
  assert.ok(!a.equals(b));
  assert.equal(a.subarray(0, 32).toString(), 'Visited: Meiji Jingu, Ise Jingu.');
  assert.equal(b.subarray(32, 48).toString(), 'No visits. None.');
  const v2 = fs.readFileSync(path.join(knownAnswer, 'v2-key-commitment-first.goshuin'));
  assert.equal(plain(v2, 'correct horse battery staple').subarray(0, 32).toString(), 'Visited: Meiji Jingu, Ise Jingu.');
  assert.equal(codeOf(v2, Buffer.from('tr0ub4dor&3')), 'auth_failed');
  // Without the MAC the record alone would open under the second passphrase: the MAC is what refuses it.
  const json = JSON.parse(fs.readFileSync(path.join(knownAnswer, 'v2-key-commitment-second.json'), 'utf8'));
  const opened = openRecordV2(Buffer.from(json.payloadKey, 'hex'), v2.subarray(0, 77), 0, true, v2.subarray(77));
  assert.ok(opened !== null && opened.subarray(32, 48).toString() === 'No visits. None.');
});

test('a record sealed under another index or flag never authenticates at this position', () => {
  const keys = deriveKeysV2(passphrase, params.kdfSalt, 1000, params.payloadSalt);
  const header = sealBytes(Buffer.alloc(0)).subarray(0, 77);
  const record = sealRecordV2(keys.payloadKey, header, 5, false, Buffer.alloc(1024, 7));
  assert.ok(openRecordV2(keys.payloadKey, header, 5, false, record));
  for (const [index, final] of [[5, true], [4, false], [6, false], [2 ** 32 - 1, false]]) assert.equal(openRecordV2(keys.payloadKey, header, index, final, record), null);
});

fs.rmSync(scratch, { recursive: true, force: true });
console.log(`test-v2: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
