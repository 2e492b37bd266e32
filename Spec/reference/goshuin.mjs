// Reference implementation of the `.goshuin` v1 container (Spec/container-v1.md), and its command line.
// Node 20, node: modules only. Section numbers (§) refer to container-v1.md.
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

// `passphrase` is a Buffer of the exact bytes (a string is taken as its UTF-8, unnormalized).
// `length` is 32 for the container; other lengths only serve the Wycheproof run.
export function deriveKey(passphrase, salt, iterations, length = KEY_SIZE) {
  return crypto.pbkdf2Sync(Buffer.from(passphrase), salt, iterations, length, 'sha256');
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
// Seal (§6)

export function seal(source, sink, { passphrase, iterations = DEFAULT_ITERATIONS, chunkSize = DEFAULT_CHUNK_SIZE, salt, nonceBase }) {
  checkSealParameters({ iterations, chunkSize, salt, nonceBase });
  if (source.size === 0n) fail('empty_payload', 'the payload to seal is empty');
  const layout = layoutOf({ chunkSize, plaintextLength: source.size });
  if (layout.chunkCount > MAX_CHUNK_COUNT) fail('too_many_chunks', 'the payload needs more than 2^32 chunks');

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

// Opens `source`, handing each authenticated chunk's plaintext to `onPlaintext(buffer, index)` as soon
// as it authenticates (§7.3). Returns the decoded header; throws a GoshuinError on the first failed check.
export function open(source, passphrase, onPlaintext = () => {}) {
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

// Header fields of a file as plain JSON values, with the layout and the result of checks 1–8.
export function inspectFile(inPath) {
  return withInputFile(inPath, (source) => {
    const { header } = readHeader(source);
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

// A BigInt as a JSON number when exact, otherwise as a decimal string.
const jsonInteger = (value) => (value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString());

// ---------------------------------------------------------------------------------------------
// Command line

const USAGE = `usage: node goshuin.mjs <command>
  seal IN OUT --passphrase-env VAR [--iterations N] [--chunk-size N]
  open IN OUT --passphrase-env VAR
  inspect FILE
  generate DIR
  generate-random DIR [--seed S] [--count N]
  check DIR [--json]
  wycheproof DIR`;

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
    withPassphrase(options, (passphrase) => sealFile(inPath, outPath, { passphrase, iterations, chunkSize }));
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
    const count = generateRandomSet(dir, { seed, count: integerOption(options, 'count', 40) });
    console.log(`${count} random vectors written to ${dir} (seed ${seed})`);
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
