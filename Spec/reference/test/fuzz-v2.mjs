#!/usr/bin/env node
// Random hostile version 2 files: seals of a few sizes, mutated one to three times (bit flips, bytes set,
// cuts, bytes appended, inserted or removed, records moved, header fields set to bounds, headers given a
// valid MAC after an edit, records sealed again with the wrong flag or index), each opened by the
// reference (goshuin.mjs `open`) and by the independent restatement (restatement-v2.mjs). Any
// difference in the code, the chunk index, the released bytes or the plaintext, or any exception that is
// not a GoshuinError, fails the run.
//
//   node Spec/reference/test/fuzz-v2.mjs [--seed S] [--iterations N]

import crypto from 'node:crypto';
import { GoshuinError, bufferSink, bufferSource, deriveKeysV2, open, sealRecordV2, sealV2 } from '../goshuin.mjs';
import { restatedOpenV2 } from './restatement-v2.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const seed = option('seed', crypto.randomBytes(8).toString('hex'));
const iterations = Number(option('iterations', 3000));

class Random {
  constructor(text) { this.stream = crypto.createCipheriv('aes-256-ctr', crypto.createHash('sha256').update(`fuzz-v2/${text}`).digest(), Buffer.alloc(16)); }
  bytes(n) { return this.stream.update(Buffer.alloc(n)); }
  int(min, max) { return min + Math.floor((this.bytes(6).readUIntBE(0, 6) / 2 ** 48) * (max - min + 1)); }
  pick(list) { return list[this.int(0, list.length - 1)]; }
}
const random = new Random(seed);

const PASSPHRASE = Buffer.from('fuzz passphrase');
const BASES = [[1024, 0], [1024, 1], [1024, 1023], [1024, 1024], [1024, 1025], [1024, 2048], [1024, 2548], [1025, 3000], [1536, 4000]].map(([chunkSize, length]) => {
  const params = { passphrase: PASSPHRASE, iterations: 1000, chunkSize, kdfSalt: random.bytes(16), payloadSalt: random.bytes(16) };
  const plaintext = random.bytes(length);
  const sink = bufferSink();
  sealV2(bufferSource(plaintext), sink, params);
  const keys = deriveKeysV2(PASSPHRASE, params.kdfSalt, 1000, params.payloadSalt);
  return { ...params, plaintext, file: sink.bytes(), keys };
});

const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v >>> 0); return b; };
function put(file, offset, bytes) { const copy = Buffer.from(file); bytes.copy(copy, offset); return copy; }
// A header edited and given the MAC its new bytes would have under PASSPHRASE: the records then decide.
function remac(file) {
  if (file.length < 77) return file;
  const iterations = file.readUInt32BE(5);
  if (iterations < 1000 || iterations > 5000) return file; // out of bounds (the MAC is never read) or slow
  const keys = deriveKeysV2(PASSPHRASE, file.subarray(9, 25), iterations, file.subarray(25, 41));
  return put(file, 45, crypto.createHmac('sha256', keys.headerKey).update(file.subarray(0, 45)).digest());
}

function mutate(base, file) {
  const S = base.chunkSize + 16;
  const anywhere = () => random.int(0, Math.max(0, file.length - 1));
  const edits = [
    () => (file.length ? (() => { const c = Buffer.from(file); c[anywhere()] ^= 1 << random.int(0, 7); return c; })() : file),
    () => (file.length ? put(file, anywhere(), random.bytes(1)) : file),
    () => file.subarray(0, random.int(0, file.length)),
    () => file.subarray(0, Math.min(file.length, 77 + random.int(0, 4) * S + random.pick([0, 1, 15, 16, 17]))),
    () => Buffer.concat([file, random.pick([Buffer.alloc(random.int(1, 40)), random.bytes(random.pick([1, 15, 16, 17, S, S + 1]))])]),
    () => { const at = anywhere(); return Buffer.concat([file.subarray(0, at), random.bytes(random.int(1, 20)), file.subarray(at)]); },
    () => { const at = anywhere(); return Buffer.concat([file.subarray(0, at), file.subarray(at + random.int(1, 40))]); },
    () => (file.length >= 45 ? put(file, 5, u32(random.pick([0, 999, 1000, 1001, 2000001, 0xffffffff]))) : file),
    () => (file.length >= 45 ? put(file, 41, u32(random.pick([0, 1023, 1024, 1025, base.chunkSize - 1, base.chunkSize + 1, 67108864, 67108865, 0xffffffff]))) : file),
    () => (file.length >= 5 ? put(file, 4, Buffer.of(random.pick([0, 1, 2, 3, 0x82]))) : file),
    () => (file.length >= 45 ? put(file, random.pick([9, 25]) + random.int(0, 15), random.bytes(1)) : file),
    () => remac(file),
    () => remac(file.length >= 45 ? put(file, 41, u32(random.pick([1024, 1025, 1040, base.chunkSize + 1, base.chunkSize * 2]))) : file),
    () => { // a record sealed again under the real key with a chosen index and flag, at a record position
      const count = Math.floor((file.length - 77) / S) + 1;
      if (file.length < 77 || count < 1) return file;
      const i = random.int(0, count - 1);
      const plaintext = random.pick([base.plaintext.subarray(i * base.chunkSize, (i + 1) * base.chunkSize), random.bytes(random.int(0, base.chunkSize))]);
      const record = sealRecordV2(base.keys.payloadKey, file.subarray(0, 77), random.pick([i, i + 1, Math.max(0, i - 1)]), random.pick([true, false]), plaintext);
      return Buffer.concat([file.subarray(0, 77 + i * S), record, file.subarray(Math.min(file.length, 77 + (i + 1) * S))]);
    },
    () => { // two records swapped
      const count = Math.floor((file.length - 77) / S);
      if (count < 2) return file;
      const [i, j] = [random.int(0, count - 1), random.int(0, count - 1)];
      const record = (k) => file.subarray(77 + k * S, 77 + (k + 1) * S);
      const copy = Buffer.from(file);
      record(i).copy(copy, 77 + j * S);
      record(j).copy(copy, 77 + i * S);
      return copy;
    },
  ];
  return Buffer.from(random.pick(edits)());
}

function referenceOutcome(file, passphrase) {
  const released = [];
  try {
    open(bufferSource(file), passphrase, (plaintext) => released.push(Buffer.from(plaintext)));
    return { code: 'success', plaintext: Buffer.concat(released) };
  } catch (error) {
    if (!(error instanceof GoshuinError)) throw error;
    return { code: error.code, chunkIndex: error.chunkIndex, released: Buffer.concat(released) };
  }
}

const tally = {};
let compared = 0;
for (let n = 0; n < iterations; n++) {
  const base = random.pick(BASES);
  let file = base.file;
  for (let k = random.int(1, 3); k > 0; k--) file = mutate(base, file);
  const passphrase = random.int(0, 9) === 0 ? Buffer.from('another passphrase') : PASSPHRASE;
  const expected = restatedOpenV2(file, passphrase);
  const actual = referenceOutcome(file, passphrase);
  if (expected.code === 'v1') { tally['(version 1, not restated)'] = (tally['(version 1, not restated)'] ?? 0) + 1; continue; }
  compared++;
  const same = expected.code === actual.code && expected.chunkIndex === actual.chunkIndex
    && (expected.code === 'success' ? expected.plaintext.equals(actual.plaintext) : expected.released.equals(actual.released));
  if (!same) {
    console.error(`MISMATCH (seed ${seed}, case ${n}, ${file.length} bytes): reference ${actual.code}/${actual.chunkIndex}, restatement ${expected.code}/${expected.chunkIndex}`);
    console.error(`file: ${file.toString('hex').slice(0, 400)}…`);
    process.exit(1);
  }
  const key = expected.chunkIndex === undefined ? expected.code : `${expected.code} (index ${expected.chunkIndex})`;
  tally[key] = (tally[key] ?? 0) + 1;
}
console.log(`fuzz-v2: ${compared} files compared, 0 differences (seed ${seed})`);
for (const [code, count] of Object.entries(tally).sort()) console.log(`  ${String(count).padStart(5)}  ${code}`);
