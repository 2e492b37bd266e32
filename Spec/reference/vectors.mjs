// Known-answer vectors (Spec/vectors-v1.md): the strict vector format (container versions 1 and 2), the
// checker, the run of the Wycheproof AES-GCM and PBKDF2 files against the same primitives the container
// uses, and the RFC 5869 HKDF-SHA256 cases (KnownAnswer/rfc5869/hkdf-sha256.json).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  GoshuinError, bufferSource, checkPassphraseForSealing, deriveKey, fileSink, fileSource, hkdfExtract, hkdfSha256, openChunk, openFile, seal,
  sealChunk, sealV2, INFO_HEADER_MAC, INFO_PAYLOAD, KEY_SIZE, MIN_ITERATIONS, MAX_ITERATIONS, MIN_CHUNK_SIZE,
  MAX_CHUNK_SIZE,
} from './goshuin.mjs';

export const FORMAT = 'goshuin-known-answer';
// vectors-v1.md §1: a vector's NAME, and the files it names (room for NAME.plaintext); neither holds "..".
export const NAME_PATTERN = /^(?!.*\.\.)[a-z0-9][a-z0-9._-]{0,99}$/;
export const FILE_NAME_PATTERN = /^(?!.*\.\.)[a-z0-9][a-z0-9._-]{0,109}$/;
export const MAX_HEX_PLAINTEXT = 4096;
export const ERROR_CODES = [ // container-v1.md §8
  'short_header', 'bad_magic', 'unsupported_version', 'iterations_out_of_range', 'chunk_size_out_of_range',
  'empty_payload', 'too_many_chunks', 'truncated', 'trailing_data', 'chunk_length_invalid', 'auth_failed',
  'chunk_damaged', 'output_exists', 'invalid_argument', 'io', 'no_space',
];
const CODES_WITH_INDEX = ['chunk_damaged', 'chunk_length_invalid'];
// The reading codes a container version 2 vector may expect (vectors-v1.md §5.2): version 2 has no
// empty_payload, trailing_data or chunk_length_invalid.
export const ERROR_CODES_V2 = [
  'short_header', 'bad_magic', 'unsupported_version', 'iterations_out_of_range', 'chunk_size_out_of_range',
  'too_many_chunks', 'truncated', 'auth_failed', 'chunk_damaged',
];
// Where a vector directory may hold the RFC 5869 test cases (vectors-v1.md §5.5).
export const HKDF_KNOWN_ANSWERS = path.join('rfc5869', 'hkdf-sha256.json');

export const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest();
export const sha256Hex = (bytes) => sha256(bytes).toString('hex');

// ---------------------------------------------------------------------------------------------
// Strict JSON (RFC 8259). JSON.parse keeps the last of duplicate keys and turns 1.0 or 1e3 into an
// integer silently; this parser rejects duplicates and keeps each number's text for the schema to judge.

export class JsonNumber {
  constructor(text) { this.text = text; }
}

export function parseStrictJson(text) {
  let at = 0;
  const error = (message) => { throw new Error(`JSON: ${message} at offset ${at}`); };
  const describe = (c) => (c === undefined ? 'end of text' : `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
  const skipSpace = () => { while (/[ \t\n\r]/.test(text[at] ?? '')) at++; };
  const expectText = (literal, value) => {
    if (!text.startsWith(literal, at)) error(`unexpected ${describe(text[at])}`);
    at += literal.length;
    return value;
  };

  function parseValue() {
    skipSpace();
    const c = text[at];
    if (c === '{') return parseObject();
    if (c === '[') return parseArray();
    if (c === '"') return parseString();
    if (c === 't') return expectText('true', true);
    if (c === 'f') return expectText('false', false);
    if (c === 'n') return expectText('null', null);
    return parseNumber();
  }

  function parseObject() {
    const object = Object.create(null); // no prototype: a key like "__proto__" is plain data
    const seen = new Set();
    at++;
    skipSpace();
    if (text[at] === '}') { at++; return object; }
    for (;;) {
      skipSpace();
      if (text[at] !== '"') error('expected a key');
      const key = parseString();
      if (seen.has(key)) error(`duplicate key ${JSON.stringify(key)}`);
      seen.add(key);
      skipSpace();
      expectText(':');
      object[key] = parseValue();
      skipSpace();
      if (text[at] === '}') { at++; return object; }
      expectText(',');
    }
  }

  function parseArray() {
    const array = [];
    at++;
    skipSpace();
    if (text[at] === ']') { at++; return array; }
    for (;;) {
      array.push(parseValue());
      skipSpace();
      if (text[at] === ']') { at++; return array; }
      expectText(',');
    }
  }

  const ESCAPES = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  function parseString() {
    let result = '';
    at++;
    for (;;) {
      const c = text[at];
      if (c === undefined) error('unterminated string');
      if (c === '"') break;
      if (c < ' ') error('control character in string');
      if (c !== '\\') { result += c; at++; continue; }
      const escape = text[at + 1];
      if (escape === 'u') {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) error('bad \\u escape');
        result += String.fromCharCode(parseInt(hex, 16));
        at += 6;
      } else if (escape in ESCAPES) {
        result += ESCAPES[escape];
        at += 2;
      } else {
        error('bad escape');
      }
    }
    at++;
    if (!result.isWellFormed()) error('string with an unpaired surrogate');
    return result;
  }

  function parseNumber() {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(at));
    if (!match) error(`unexpected ${describe(text[at])}`);
    at += match[0].length;
    return new JsonNumber(match[0]);
  }

  const value = parseValue();
  skipSpace();
  if (at !== text.length) error('text after the value');
  return value;
}

// ---------------------------------------------------------------------------------------------
// The vector schema (vectors-v1.md §2). `readVector` returns the vector with decoded values, or throws
// a MalformedVector.

class MalformedVector extends Error {}
const malformed = (message) => { throw new MalformedVector(message); };

const hexOf = (bytes) => (text) => new RegExp(`^[0-9a-f]{${2 * bytes}}$`).test(text);
const isHex = (text) => /^(?:[0-9a-f]{2})*$/.test(text);
// Any plain file name of the vector's folder: a writer SHOULD use NAME.goshuin and NAME.plaintext, a checker
// accepts any (vectors-v1.md §1).
const isPlainFileName = (text) => FILE_NAME_PATTERN.test(text);

// Each key: its JSON type and a rule on its value.
// Rules that depend on the container version are in checkKeyCombinations.
const SCHEMA = {
  format: ['string', (v) => v === FORMAT],
  version: ['integer', (v) => v === 1],
  containerVersion: ['integer', (v) => v === 1 || v === 2],
  name: ['string', (v) => NAME_PATTERN.test(v)],
  comment: ['string', () => true],
  expect: ['string', (v) => v === 'success' || ERROR_CODES.includes(v)],
  chunkIndex: ['integer', (v) => v < 2 ** 32],
  passphrase: ['string', () => true],
  passphraseHex: ['string', isHex],
  iterations: ['integer', (v) => v >= MIN_ITERATIONS && v <= MAX_ITERATIONS],
  salt: ['string', hexOf(16)],
  nonceBase: ['string', hexOf(8)],
  payloadSalt: ['string', hexOf(16)],
  chunkSize: ['integer', (v) => v >= MIN_CHUNK_SIZE && v <= MAX_CHUNK_SIZE],
  key: ['string', hexOf(32)],
  headerKey: ['string', hexOf(32)],
  payloadKey: ['string', hexOf(32)],
  plaintextHex: ['string', (v) => isHex(v) && v.length <= 2 * MAX_HEX_PLAINTEXT],
  plaintextFile: ['string', isPlainFileName],
  plaintextLength: ['integer', () => true],
  plaintextSha256: ['string', hexOf(32)],
  file: ['string', isPlainFileName],
  fileSha256: ['string', hexOf(32)],
  fileSize: ['integer', (v) => v >= 1],
  releasedLength: ['integer', () => true],
  releasedSha256: ['string', hexOf(32)],
};
export const VECTOR_KEYS = Object.keys(SCHEMA); // also the order the generator writes them in
const ALWAYS_REQUIRED = ['format', 'version', 'name', 'comment', 'expect', 'iterations', 'salt',
  'chunkSize', 'key', 'plaintextLength', 'plaintextSha256', 'file', 'fileSha256'];
// Keys one container version requires and the other forbids (vectors-v1.md §5.1).
const ONLY_IN = { 1: ['nonceBase'], 2: ['payloadSalt', 'headerKey', 'payloadKey'] };
const FORBIDDEN_IN = { 1: ['payloadSalt', 'headerKey', 'payloadKey', 'fileSize'], 2: ['nonceBase'] };

// A JSON integer: no sign, fraction or exponent, at most 2^53 − 1 (every integer field is ≥ 0).
function integerValue(value) {
  if (!(value instanceof JsonNumber) || !/^(0|[1-9][0-9]*)$/.test(value.text)) return undefined;
  return BigInt(value.text) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value.text) : undefined;
}

function readVector(jsonBytes, expectedName) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(jsonBytes);
  } catch {
    malformed('not valid UTF-8');
  }
  let object;
  try {
    object = parseStrictJson(text);
  } catch (error) {
    malformed(error instanceof RangeError ? 'JSON nested too deeply' : error.message);
  }
  // A JSON file that is not an object with a `format` member is not a vector (vectors-v1.md §1): skipped.
  if (object === null || typeof object !== 'object' || Array.isArray(object) || object instanceof JsonNumber || !('format' in object)) return null;

  const vector = {};
  for (const [key, value] of Object.entries(object)) {
    if (!(key in SCHEMA)) malformed(`unknown key ${JSON.stringify(key)}`);
    const [type, rule] = SCHEMA[key];
    const typed = type === 'integer' ? integerValue(value) : (typeof value === 'string' ? value : undefined);
    if (typed === undefined) malformed(`${key} is not ${type === 'integer' ? 'an integer in 0 … 2^53 − 1 without fraction or exponent' : 'a string'}`);
    if (!rule(typed)) malformed(`${key} has an unacceptable value ${JSON.stringify(typed).slice(0, 80)}`);
    vector[key] = typed;
  }
  checkKeyCombinations(vector, expectedName);
  return vector;
}

// The container version a vector's sealing parameters are for: containerVersion, 1 when absent.
export const containerVersionOfVector = (vector) => vector.containerVersion ?? 1;

function checkKeyCombinations(vector, expectedName) {
  for (const key of ALWAYS_REQUIRED) if (!(key in vector)) malformed(`missing ${key}`);
  if (vector.name !== expectedName) malformed(`name ${JSON.stringify(vector.name)} is not the file name ${JSON.stringify(expectedName)}`);
  const containerVersion = containerVersionOfVector(vector);
  for (const key of ONLY_IN[containerVersion]) if (!(key in vector)) malformed(`missing ${key} (required with container version ${containerVersion})`);
  for (const key of FORBIDDEN_IN[containerVersion]) if (key in vector) malformed(`${key} is not a key of a container version ${containerVersion} vector`);
  const exactlyOne = (a, b) => { if ((a in vector) === (b in vector)) malformed(`exactly one of ${a} and ${b} is required`); };
  exactlyOne('passphrase', 'passphraseHex');
  exactlyOne('plaintextHex', 'plaintextFile');
  // Version 1 has no empty payload; version 2 seals one as a single empty final record.
  if (containerVersion === 1 && vector.plaintextLength < 1) malformed('plaintextLength must be at least 1 with container version 1');
  if (containerVersion === 1 && vector.plaintextHex === '') malformed('plaintextHex must not be empty with container version 1');
  if ('plaintextHex' in vector && vector.plaintextHex.length / 2 !== vector.plaintextLength) malformed('plaintextHex does not have plaintextLength bytes');
  if (containerVersion === 2 && vector.expect !== 'success' && !ERROR_CODES_V2.includes(vector.expect)) {
    malformed(`${vector.expect} is not a code a container version 2 vector can expect`);
  }
  if ('fileSize' in vector && vector.expect === 'success') malformed('fileSize is for failure vectors only');
  const success = vector.expect === 'success';
  for (const key of ['releasedLength', 'releasedSha256']) {
    if (success && key in vector) malformed(`${key} is for failure vectors only`);
    if (!success && !(key in vector)) malformed(`missing ${key}`);
  }
  if ('chunkIndex' in vector && !CODES_WITH_INDEX.includes(vector.expect)) malformed(`chunkIndex goes only with ${CODES_WITH_INDEX.join(' or ')}`);
  if (!('chunkIndex' in vector) && CODES_WITH_INDEX.includes(vector.expect)) malformed(`a ${vector.expect} vector needs chunkIndex`);
}

// The vector's decoded byte values.
function decodeVector(vector) {
  const bytes = (key) => (key in vector ? Buffer.from(vector[key], 'hex') : undefined);
  return {
    passphrase: 'passphrase' in vector ? Buffer.from(vector.passphrase, 'utf8') : Buffer.from(vector.passphraseHex, 'hex'),
    salt: bytes('salt'),
    nonceBase: bytes('nonceBase'),
    payloadSalt: bytes('payloadSalt'),
  };
}

// Writes a vector's JSON in the order of the schema table.
export function formatVector(fields) {
  const unknown = Object.keys(fields).filter((key) => !(key in SCHEMA));
  if (unknown.length > 0) throw new Error(`unknown vector keys ${unknown}`);
  const ordered = Object.fromEntries(VECTOR_KEYS.filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]]));
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// The checker (vectors-v1.md §3)

class CheckFailure extends Error {}
const failCheck = (message) => { throw new CheckFailure(message); };

function sha256OfFile(filePath) {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(filePath, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    let n;
    while ((n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0) hash.update(buffer.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

// §3 step 2: the files a vector names are part of the vector; one that is missing or differs from what the
// vector states makes it malformed, as its JSON would (§3: malformed is the vector's fault, failed this
// implementation's disagreement).
function checkNamedFile(dir, fileName, expectedSha256, what) {
  const filePath = path.join(dir, fileName);
  if (!fs.lstatSync(filePath, { throwIfNoEntry: false })?.isFile()) malformed(`${what} ${fileName} is missing or not a regular file`);
  if (sha256OfFile(filePath) !== expectedSha256) malformed(`${what} ${fileName} does not have the stated SHA-256`);
  return filePath;
}

// Runs `use(source)` on the vector's plaintext, from plaintextHex or plaintextFile.
function withPlaintext(dir, vector, use) {
  if ('plaintextHex' in vector) return use(bufferSource(Buffer.from(vector.plaintextHex, 'hex')));
  const fd = fs.openSync(path.join(dir, vector.plaintextFile), 'r');
  try {
    return use(fileSource(fd));
  } finally {
    fs.closeSync(fd);
  }
}

function makeTemporaryDirectory() {
  return fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'goshuin-check-'));
}

function checkVector(dir, vector) {
  // §3.2: the files and their hashes.
  const goshuinPath = checkNamedFile(dir, vector.file, vector.fileSha256, 'file');
  if ('plaintextFile' in vector) {
    const plaintextPath = checkNamedFile(dir, vector.plaintextFile, vector.plaintextSha256, 'plaintextFile');
    if (fs.statSync(plaintextPath).size !== vector.plaintextLength) malformed('plaintextFile does not have plaintextLength bytes');
  } else if (sha256Hex(Buffer.from(vector.plaintextHex, 'hex')) !== vector.plaintextSha256) {
    malformed('plaintextHex does not have plaintextSha256');
  }
  if ('fileSize' in vector && vector.fileSize <= fs.statSync(goshuinPath).size) {
    malformed(`fileSize ${vector.fileSize} is not larger than ${vector.file} (${fs.statSync(goshuinPath).size} bytes)`);
  }

  // §3.3: the key on its own; for version 2 also the two HKDF keys, from the stated key (§5.3).
  const decoded = decodeVector(vector);
  const { passphrase, salt } = decoded;
  if (deriveKey(passphrase, salt, vector.iterations).toString('hex') !== vector.key) failCheck('key differs from PBKDF2-HMAC-SHA256(passphrase, salt, iterations)');
  if (containerVersionOfVector(vector) === 2) {
    const passwordKey = Buffer.from(vector.key, 'hex');
    if (hkdfSha256(passwordKey, decoded.payloadSalt, INFO_HEADER_MAC, KEY_SIZE).toString('hex') !== vector.headerKey) failCheck('headerKey differs from HKDF-SHA256(key, payloadSalt, "goshuin/v2/header-mac", 32)');
    if (hkdfSha256(passwordKey, decoded.payloadSalt, INFO_PAYLOAD, KEY_SIZE).toString('hex') !== vector.payloadKey) failCheck('payloadKey differs from HKDF-SHA256(key, payloadSalt, "goshuin/v2/payload", 32)');
  }

  const scratch = makeTemporaryDirectory();
  const sparse = 'fileSize' in vector ? makeTemporaryDirectory() : undefined;
  try {
    const openPath = sparse ? zeroExtendedCopy(goshuinPath, vector.fileSize, sparse) : goshuinPath;
    const outcome = openToPath(openPath, path.join(scratch, 'opened'), passphrase);
    if (vector.expect === 'success') return checkSuccess(dir, vector, outcome, decoded, scratch);
    checkFailure(vector, outcome, scratch);
    return undefined;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
    if (sparse) fs.rmSync(sparse, { recursive: true, force: true });
  }
}

// §5.4: the file a vector with fileSize describes, as a sparse file: `file`'s bytes, then zeros.
function zeroExtendedCopy(goshuinPath, fileSize, dir) {
  const copy = path.join(dir, 'zero-extended.goshuin');
  fs.copyFileSync(goshuinPath, copy);
  try {
    fs.truncateSync(copy, fileSize);
  } catch (error) {
    failCheck(`cannot make the ${fileSize}-byte sparse file the vector describes: ${error.message}`);
  }
  return copy;
}

// Opens to a path, hashing what the streaming reader releases. Returns { error?, released }.
function openToPath(goshuinPath, outPath, passphrase) {
  const hash = crypto.createHash('sha256');
  let releasedLength = 0;
  let error;
  try {
    openFile(goshuinPath, outPath, passphrase, (plaintext) => { hash.update(plaintext); releasedLength += plaintext.length; });
  } catch (thrown) {
    error = thrown;
  }
  return { error, released: { length: releasedLength, sha256: hash.digest('hex') }, outPath };
}

// Returns a note when the vector could not be sealed again (§3.5).
function checkSuccess(dir, vector, { error, outPath }, { passphrase, salt, nonceBase, payloadSalt }, scratch) {
  // §3.4: opening succeeds and yields exactly the plaintext.
  if (error) failCheck(`opening failed: ${error.message}`);
  if (fs.statSync(outPath).size !== vector.plaintextLength || sha256OfFile(outPath) !== vector.plaintextSha256) failCheck('opening yields another plaintext');
  // §3.5: a passphrase every writer must refuse (an empty one) is opened, not sealed again.
  try {
    checkPassphraseForSealing(passphrase);
  } catch (refusal) {
    if (!(refusal instanceof GoshuinError)) throw refusal;
    return `not re-sealed: its passphrase is empty, which every writer must refuse (container-v1.md §4); the file opened`;
  }
  // §3.5: sealing again with the recorded parameters gives the same bytes.
  const resealedPath = path.join(scratch, 'resealed');
  const fd = fs.openSync(resealedPath, 'wx');
  try {
    withPlaintext(dir, vector, (source) => (containerVersionOfVector(vector) === 2
      ? sealV2(source, fileSink(fd), { passphrase, iterations: vector.iterations, chunkSize: vector.chunkSize, kdfSalt: salt, payloadSalt })
      : seal(source, fileSink(fd), { passphrase, iterations: vector.iterations, chunkSize: vector.chunkSize, salt, nonceBase })));
  } finally {
    fs.closeSync(fd);
  }
  if (sha256OfFile(resealedPath) !== vector.fileSha256) failCheck('sealing the plaintext again gives other bytes');
  return undefined;
}

function checkFailure(vector, { error, released }, scratch) {
  // §3.4: the code and index.
  if (!error) failCheck(`opening succeeded, expected ${vector.expect}`);
  if (!(error instanceof GoshuinError)) failCheck(`opening crashed: ${error.message}`);
  if (error.code !== vector.expect) failCheck(`got ${error.code}, expected ${vector.expect}`);
  if ('chunkIndex' in vector && error.chunkIndex !== vector.chunkIndex) failCheck(`got chunk index ${error.chunkIndex}, expected ${vector.chunkIndex}`);
  // §3.5: the released plaintext.
  if (released.length !== vector.releasedLength || released.sha256 !== vector.releasedSha256) {
    failCheck(`released ${released.length} bytes (${released.sha256}), expected ${vector.releasedLength} (${vector.releasedSha256})`);
  }
  // §3.6: no output left behind (the scratch directory held only the output path).
  const left = fs.readdirSync(scratch);
  if (left.length > 0) failCheck(`opening left ${left.join(', ')} behind`);
}

// Checks every *.json in `dir` (not recursive). Returns [{ name, status: ok|fail|malformed|skipped, reason?,
// note? }]: a note says what was not checked on a vector that passed.
// The RFC 5869 cases, when the directory holds them, come last as one result named by their path.
export function checkVectorSet(dir) {
  const jsonFiles = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const results = jsonFiles.map((jsonFile) => {
    const name = jsonFile.slice(0, -'.json'.length);
    try {
      const vector = readVector(fs.readFileSync(path.join(dir, jsonFile)), name);
      if (vector === null) return { name, status: 'skipped', reason: 'not a vector (no "format" member)' };
      const note = checkVector(dir, vector);
      return note === undefined ? { name, status: 'ok' } : { name, status: 'ok', note };
    } catch (error) {
      if (error instanceof MalformedVector) return { name, status: 'malformed', reason: error.message };
      return { name, status: 'fail', reason: error.message };
    }
  });
  const hkdfPath = path.join(dir, HKDF_KNOWN_ANSWERS);
  if (fs.existsSync(hkdfPath)) {
    const name = HKDF_KNOWN_ANSWERS.split(path.sep).join('/');
    try {
      const { passed, failed, lines } = runHkdfKnownAnswers(hkdfPath);
      results.push(failed === 0 && passed > 0 ? { name, status: 'ok' } : { name, status: 'fail', reason: lines.join('; ') || 'no test cases' });
    } catch (error) {
      results.push({ name, status: 'fail', reason: error.message });
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// RFC 5869 Appendix A, test cases 1–3 (HKDF-SHA256): extract (PRK) and expand (OKM) through the same
// functions the container uses, and through node's own hkdfSync.

export function runHkdfKnownAnswers(filePath) {
  const suite = JSON.parse(fs.readFileSync(filePath, 'utf8'));
  if (suite.hash !== 'SHA-256' || !Array.isArray(suite.tests)) throw new Error(`${filePath}: not a SHA-256 HKDF test file`);
  const lines = [];
  let passed = 0;
  for (const test of suite.tests) {
    const [ikm, salt, info, prk, okm] = [test.ikm, test.salt, test.info, test.prk, test.okm].map((text) => Buffer.from(text, 'hex'));
    const problems = [];
    if (!hkdfExtract(salt, ikm).equals(prk)) problems.push('PRK (extract)');
    if (!hkdfSha256(ikm, salt, info, test.length).equals(okm)) problems.push('OKM (extract-then-expand)');
    if (!Buffer.from(crypto.hkdfSync('sha256', ikm, salt, info, test.length)).equals(okm)) problems.push("OKM of node's hkdfSync");
    if (okm.length !== test.length) problems.push('length');
    if (problems.length === 0) passed++;
    else lines.push(`FAIL ${path.basename(filePath)} tcId ${test.tcId}: ${problems.join(', ')} differ`);
  }
  return { passed, failed: suite.tests.length - passed, lines };
}

export function formatCheckReport(results, { json = false } = {}) {
  const count = (status) => results.filter((r) => r.status === status).length;
  const [passed, failed, malformed, skipped] = ['ok', 'fail', 'malformed', 'skipped'].map(count);
  if (json) return JSON.stringify({ passed, failed, malformed, skipped, results }, null, 2);
  const label = { ok: 'ok', fail: 'FAIL', malformed: 'MALFORMED', skipped: 'SKIP' };
  const lines = results.map(({ name, status, reason, note }) => (status === 'ok' ? `ok ${name}${note ? ` (${note})` : ''}` : `${label[status]} ${name}: ${reason}`));
  if (skipped > 0) lines.push(`${skipped} skipped (not vectors)`);
  return [...lines, `${malformed} malformed`, `${passed} passed, ${failed} failed`].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Wycheproof: AES-256-GCM with 96-bit nonces and 128-bit tags through sealChunk/openChunk, and
// PBKDF2-HMAC-SHA256 through deriveKey (any iteration count and length: the KDF is tested on its own).

const SLOW_MILLISECONDS = 2000;

export function runWycheproof(dir) {
  const suites = [wycheproofAesGcm(dir), wycheproofPbkdf2(dir)];
  const results = suites.flatMap((suite) => suite.results);
  const lines = [...results.filter((r) => r.line).map((r) => r.line), ...suites.map((suite) => suite.summary)];
  const passed = results.filter((r) => r.ok).length;
  return { passed, failed: results.length - passed, lines };
}

const readJson = (dir, fileName) => JSON.parse(fs.readFileSync(path.join(dir, fileName), 'utf8'));
const hex = (text) => Buffer.from(text, 'hex');

function wycheproofAesGcm(dir) {
  const suite = readJson(dir, 'aes_gcm_test.json');
  const groups = suite.testGroups.filter((g) => g.keySize === 256 && g.ivSize === 96 && g.tagSize === 128);
  const results = groups.flatMap((group) => group.tests.map((test) => {
    const [key, iv, aad, msg] = [hex(test.key), hex(test.iv), hex(test.aad), hex(test.msg)];
    const sealedExpected = Buffer.concat([hex(test.ct), hex(test.tag)]);
    // Our nonce is nonceBase (8 bytes) ‖ u32be(index): split the 12-byte IV the same way.
    const [nonceBase, index] = [iv.subarray(0, 8), iv.readUInt32BE(8)];
    const opened = openChunk(key, aad, nonceBase, index, sealedExpected);
    const sealed = sealChunk(key, aad, nonceBase, index, msg).subarray(4); // without the length prefix
    const correct = opened !== null && opened.equals(msg) && sealed.equals(sealedExpected);
    // "acceptable": valid if it opens, and then it must be right.
    const ok = test.result === 'valid' ? correct : test.result === 'invalid' ? opened === null : opened === null || correct;
    return { ok, line: ok ? undefined : `FAIL aes_gcm_test.json tcId ${test.tcId} (${test.result})` };
  }));
  return { results, summary: `aes_gcm_test.json: ${results.length} tests (groups keySize 256, ivSize 96, tagSize 128)` };
}

function wycheproofPbkdf2(dir) {
  const suite = readJson(dir, 'pbkdf2_hmacsha256_test.json');
  let slowest = { milliseconds: 0 };
  const results = suite.testGroups.flatMap((group) => group.tests.map((test) => {
    const started = process.hrtime.bigint();
    const derived = deriveKey(hex(test.password), hex(test.salt), test.iterationCount, test.dkLen);
    const milliseconds = Number(process.hrtime.bigint() - started) / 1e6;
    if (milliseconds > slowest.milliseconds) slowest = { milliseconds, test };
    const correct = derived.equals(hex(test.dk));
    const ok = test.result === 'invalid' ? !correct : correct;
    const slow = milliseconds > SLOW_MILLISECONDS ? ` (slow: ${milliseconds.toFixed(0)} ms)` : '';
    return { ok, line: ok && !slow ? undefined : `${ok ? 'ok' : 'FAIL'} pbkdf2_hmacsha256_test.json tcId ${test.tcId}${slow}` };
  }));
  const { milliseconds, test } = slowest;
  return { results, summary: `pbkdf2_hmacsha256_test.json: ${results.length} tests (slowest: tcId ${test?.tcId}, ${test?.iterationCount} iterations, ${milliseconds.toFixed(0)} ms)` };
}
