#!/usr/bin/env node
// The survey of a backup against its recovery sets in the page's workers (issue 36; Web/src/core/25-survey-tasks.mjs,
// 29-shared-reads.mjs, 82-par2-survey.mjs), under Node 20, where the pool's tasks run in this
// thread through the same code:
//
//   node Web/test/survey.mjs [--workers] [--seed N] [--verbose]
//
// With --workers, the pool's tasks run in Web Workers imitated here (fake-workers.mjs: messages cloned, reads
// through the page), some of which may fail to start; otherwise in this thread, as where no worker starts.
//
// 1. SharedReads: every reader gets exactly the file's bytes, each block is read once while the readers keep
//    together, the blocks kept stay bounded, a reader that starts late reads again, Stop ends the reads held.
// 2. surveyBackup against a survey written here from Spec/recovery-par2.md §7.1 (each slice at its place, its
//    MD5 and CRC-32 padded with zeros; missing past the end, damaged where the file is cut; the whole file's MD5
//    up to the first damaged slice; the XOR of the intact slices), on random files, damages and candidates of
//    several slice sizes and lengths (the whole slices hashed four at a time, and those hashed alone: the last,
//    the cut, those over 8 MiB), with pools of 1 to 4 places (navigator.hardwareConcurrency).
//
// 3. md5InWorker (the repaired file's MD5, taken up where the survey left it) against node:crypto.
// 4. blobSource, which every reader of a picked file uses: in a worker's task (`streamed`), reads of 1 MiB or
//    more streamed, one after the other, from a byte stream kept open until close(); slices where a Blob's
//    stream is not a byte stream (WebKitGTK), and in the page's thread.
//
// The last line is "web-survey: N passed, N failed".
import { createHash, randomBytes } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { assert, equal, hex, loadPageCore, testRunner } from "./page-harness.mjs";

const argv = process.argv.slice(2);
// --workers: the pool's worker mode, with Web Workers imitated (fake-workers.mjs), instead of its in-thread mode.
const workers = argv.includes("--workers") ? await import("./fake-workers.mjs") : null;
await loadPageCore();
if (workers) workers.setServe((await import("../src/core/28-worker-tasks.mjs")).serveWorker);
const { SharedReads } = await import("../src/core/29-shared-reads.mjs");
const { md5InWorker, surveyBackup } = await import("../src/core/82-par2-survey.mjs");
const { blobSource } = await import("../src/core/05-sources.mjs");
const { pacer } = await import("../src/core/08-pacing.mjs");
const { crc32Update, Md5 } = await import("../src/core/02-kernels.mjs");

const seedAt = argv.indexOf("--seed");
let seed = seedAt >= 0 ? Number(argv[seedAt + 1]) : Date.now() % 1000000;
const startSeed = seed;
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const randomInt = (n) => Math.floor(random() * n);

const runner = testRunner({ verbose: argv.includes("--verbose") });
runner.prefix = workers ? "[workers] " : "";
const test = runner.test;
const md5 = (bytes) => createHash("md5").update(bytes).digest();

/** A source over `bytes` that counts its reads, each answered after `delay` turns of the event loop. */
function countingSource(bytes, delay = 1) {
  const source = {
    size: bytes.length,
    reads: [],
    async read(offset, length) {
      source.reads.push([offset, length]);
      for (let i = 0; i < delay; i++) await new Promise((resolve) => setImmediate(resolve));
      return new Uint8Array(bytes.subarray(offset, offset + length)); // a buffer of its own, as a Blob's read gives
    },
  };
  return source;
}

/** Reads [from, to) through `reader` in pieces of `piece`, `pause` turns between them; the bytes read. */
async function readAll(reader, from, to, piece, pause) {
  const out = new Uint8Array(to - from);
  for (let at = from; at < to; at += piece) {
    const bytes = await reader.read(at, Math.min(piece, to - at));
    out.set(bytes, at - from);
    for (let i = 0; i < pause; i++) await new Promise((resolve) => setImmediate(resolve));
  }
  reader.close();
  return out;
}

/**
 * `body()` with ArrayBuffer.prototype.transfer (not in Node 20) that really detaches the buffer it is called
 * on, as the engines' does: a block given back while a read still copies from it would give that read no
 * bytes. Resolves with the number of buffers given back.
 */
async function withDetachingTransfer(body) {
  let released = 0;
  ArrayBuffer.prototype.transfer = function (length) {
    structuredClone(this, { transfer: [this] });
    released++;
    return new ArrayBuffer(length);
  };
  try {
    await body();
  } finally {
    delete ArrayBuffer.prototype.transfer;
  }
  return released;
}

async function sharedReadsTests() {
  const KiB = 1024;
  await test("SharedReads: every block given back once no reader needs it (ArrayBuffer.prototype.transfer), never while read", async () => {
    const bytes = randomBytes(700 * KiB + 5);
    const source = countingSource(bytes);
    const shared = new SharedReads(source, { blockSize: 16 * KiB, ahead: 48 * KiB, readAhead: 32 * KiB });
    let results;
    const released = await withDetachingTransfer(async () => {
      results = await Promise.all([readAll(shared.reader(0), 0, bytes.length, 5 * KiB, 0), readAll(shared.reader(0), 0, bytes.length, 7 * KiB, 2), readAll(shared.reader(0), 0, bytes.length, 16 * KiB, 1)]);
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    });
    assert(results.every((got) => Buffer.from(got).equals(bytes)), "a reader got other bytes");
    equal(released, source.reads.length, "blocks given back");
  });
  await test("SharedReads: two readers at different speeds get the file's bytes, each block read once, few blocks kept", async () => {
    const bytes = randomBytes(1024 * KiB + 123);
    const source = countingSource(bytes);
    const shared = new SharedReads(source, { blockSize: 16 * KiB, ahead: 64 * KiB, readAhead: 32 * KiB });
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, shared.blocks.size)), 0);
    const [fast, slow] = await Promise.all([
      readAll(shared.reader(0), 0, bytes.length, 5 * KiB, 0),
      readAll(shared.reader(0), 0, bytes.length, 7 * KiB, 3),
    ]);
    clearInterval(watch);
    assert(Buffer.from(fast).equals(bytes) && Buffer.from(slow).equals(bytes), "a reader got other bytes");
    const blocks = source.reads.map(([offset]) => offset / (16 * KiB));
    equal(new Set(blocks).size, blocks.length, "a block read twice");
    equal(blocks.length, Math.ceil(bytes.length / (16 * KiB)), "blocks read");
    assert(most <= (64 + 32) / 16 + 2, `${most} blocks kept at once`);
    equal(shared.blocks.size, 0, "blocks kept after every reader closed");
  });
  await test("SharedReads: a reader that opens after the others passed reads again, and gets the right bytes", async () => {
    const bytes = randomBytes(300 * KiB);
    const source = countingSource(bytes, 0);
    const shared = new SharedReads(source, { blockSize: 16 * KiB, ahead: 32 * KiB, readAhead: 16 * KiB });
    const first = await readAll(shared.reader(0), 0, bytes.length, 10 * KiB, 0);
    const late = await readAll(shared.reader(50 * KiB), 50 * KiB, 200 * KiB, 9 * KiB, 0);
    assert(Buffer.from(first).equals(bytes) && Buffer.from(late).equals(bytes.subarray(50 * KiB, 200 * KiB)), "other bytes");
  });
  await test("SharedReads: a reader held back by a slower one goes on when it moves, and a read that goes back is refused", async () => {
    const bytes = randomBytes(200 * KiB);
    const shared = new SharedReads(countingSource(bytes, 0), { blockSize: 16 * KiB, ahead: 32 * KiB, readAhead: 0 });
    const slow = shared.reader(0);
    const fast = shared.reader(0);
    await fast.read(0, 16 * KiB);
    let done = false;
    const held = fast.read(40 * KiB, 16 * KiB).then((b) => ((done = true), b));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert(!done, "a read 56 KiB in was not held back while the slowest reader is at 0 (32 KiB allowed)");
    await slow.read(30 * KiB, 1 * KiB);
    assert(Buffer.from(await held).equals(bytes.subarray(40 * KiB, 56 * KiB)), "the held read's bytes");
    let refused = null;
    await fast.read(10 * KiB, 1).catch((error) => (refused = error));
    equal(refused && refused.code, "internal", "a read that goes back");
  });
  await test("SharedReads: close() ends a read held back with interrupted and frees every block", async () => {
    const shared = new SharedReads(countingSource(randomBytes(200 * KiB), 0), { blockSize: 16 * KiB, ahead: 32 * KiB, readAhead: 16 * KiB });
    shared.reader(0);
    const fast = shared.reader(0);
    const held = fast.read(100 * KiB, 8 * KiB).catch((error) => error);
    shared.close();
    equal((await held).code, "interrupted", "the held read");
    equal(shared.blocks.size, 0, "blocks kept");
  });
}

// ---- surveyBackup against a survey written from the spec

/** The checksums packet's entries (MD5 16 bytes, CRC-32 u32le) of `bytes` in slices of `sliceSize`. */
function checksumsOf(bytes, sliceSize) {
  const count = Math.ceil(bytes.length / sliceSize);
  const out = new Uint8Array(20 * count);
  for (let i = 0; i < count; i++) {
    const slice = new Uint8Array(sliceSize);
    slice.set(bytes.subarray(i * sliceSize, Math.min(bytes.length, (i + 1) * sliceSize)));
    out.set(md5(slice), 20 * i);
    new DataView(out.buffer).setUint32(20 * i + 16, crc32Update(0, slice), true);
  }
  return out;
}

function candidateOf(original, sliceSize) {
  return {
    description: { length: original.length },
    sliceSize,
    sliceCount: Math.ceil(original.length / sliceSize),
    checksums: checksumsOf(original, sliceSize),
    otherSliceCount: 0,
    exponents: [{ exponent: 0 }],
  };
}

/** What the survey must find in `file` for `candidate` (Spec/recovery-par2.md §7.1), `single`: with the parity. */
function expectedSurvey(file, candidate, single) {
  const { sliceSize: S, sliceCount, checksums } = candidate;
  const L = candidate.description.length;
  const size = file.length;
  const status = new Uint8Array(sliceCount).fill(2);
  let intactBytes = 0;
  let nonZeroIntactBytes = 0;
  const parity = single ? new Uint8Array(S) : null;
  for (let i = 0; i < sliceCount; i++) {
    const start = i * S;
    const end = Math.min(start + S, L);
    if (end > size) {
      if (start < size) status[i] = 1; // the file ends inside it
      continue;
    }
    const padded = new Uint8Array(S);
    padded.set(file.subarray(start, end));
    const intact = Buffer.from(md5(padded)).equals(checksums.subarray(20 * i, 20 * i + 16)) && crc32Update(0, padded) === new DataView(checksums.buffer).getUint32(20 * i + 16, true);
    status[i] = intact ? 0 : 1;
    if (intact) {
      intactBytes += end - start;
      if (file.subarray(start, end).some((b) => b !== 0)) nonZeroIntactBytes += end - start;
      if (parity) for (let k = start; k < end; k++) parity[k - start] ^= file[k];
    }
  }
  let resumeSlice = status.indexOf(1);
  let fileDigest = null;
  if (resumeSlice >= 0) fileDigest = md5(file.subarray(0, resumeSlice * S));
  else if (size < L) {
    resumeSlice = size / S; // cut at a slice's border: the slices after it missing
    fileDigest = md5(file.subarray(0, size));
  } else resumeSlice = sliceCount;
  const digestAtEnd = L === 0 ? md5(new Uint8Array(0)) : fileDigest === null && L <= size ? md5(file.subarray(0, L)) : null;
  return { status, intactBytes, nonZeroIntactBytes, resumeSlice, fileDigest, digestAtEnd, parity };
}

/** `body()` with a pool of `places` (navigator.hardwareConcurrency, which Node 20 lacks). */
async function withPlaces(places, body) {
  globalThis.navigator = { hardwareConcurrency: places };
  try {
    return await body();
  } finally {
    delete globalThis.navigator;
  }
}

async function surveyOf(file, candidates, places) {
  return withPlaces(places, async () => {
    const recovery = { backupSource: blobSource(new Blob([file])), file: { firstNonZero: -2 } };
    let last = -1;
    let total = -1;
    const states = await surveyBackup(recovery, candidates, (stage, done, all) => {
      assert(stage === "recovery-verify" && done >= last && done <= all, `progress ${stage} ${done} of ${all} after ${last}`);
      last = done;
      total = all;
    }, pacer(undefined));
    equal(last, total, "the progress at its end");
    return { states, firstNonZero: recovery.file.firstNonZero };
  });
}

function compare(state, expected, label) {
  equal(hex(state.status), hex(expected.status), `${label}: status`);
  equal(state.intactBytes, expected.intactBytes, `${label}: intact bytes`);
  equal(state.nonZeroIntactBytes, expected.nonZeroIntactBytes, `${label}: intact bytes not all zeros`);
  equal(state.resumeSlice, expected.resumeSlice, `${label}: the slice a repair's MD5 goes on from`);
  equal(state.fileDigest && hex(state.fileDigest.clone().digest()), expected.fileDigest && hex(expected.fileDigest), `${label}: the file's MD5 up to it`);
  equal(state.digestAtEnd && hex(state.digestAtEnd.clone().digest()), expected.digestAtEnd && hex(expected.digestAtEnd), `${label}: the whole file's MD5`);
  if (expected.parity) equal(state.parity && md5(state.parity).toString("hex"), md5(expected.parity).toString("hex"), `${label}: the XOR of the intact slices`);
}

function firstNonZeroOf(bytes) {
  const at = bytes.findIndex((b) => b !== 0);
  return at;
}

/** A file for the candidates: `original` damaged by `damage` (flips, zeroed runs, a cut, bytes added). */
function damaged(original, damage) {
  let file = Uint8Array.from(original);
  if (damage === "flips") for (let i = 0; i < 3; i++) if (file.length) file[randomInt(file.length)] ^= 1 << randomInt(8);
  if (damage === "zeros" && file.length) file.fill(0, randomInt(file.length), randomInt(file.length) + 5000);
  if (damage === "cut") file = file.slice(0, randomInt(file.length + 1));
  if (damage === "added") file = Buffer.concat([file, randomBytes(1 + randomInt(9000))]);
  return file;
}

async function surveyTests() {
  const SIZES = [4, 1000, 4096, 65540, 1 << 20]; // PAR 2.0's slice sizes are multiples of 4
  for (let trial = 0; trial < 24; trial++) {
    const length = randomInt(3 << 20);
    const original = random() < 0.2 ? new Uint8Array(length) : randomBytes(length);
    if (random() < 0.3) original.fill(0, 0, randomInt(length + 1)); // a start of zeros: intact slices not all zeros
    const damage = ["none", "flips", "zeros", "cut", "added"][trial % 5];
    const file = damaged(original, damage);
    const count = 1 + randomInt(3);
    const candidates = [];
    for (let c = 0; c < count; c++) {
      const sliceSize = SIZES[randomInt(SIZES.length)];
      // The others: the same file shorter or longer (other lengths inside or past a slice), another size.
      const own = c === 0 ? original : c === 1 ? original.subarray(0, randomInt(original.length + 1)) : Buffer.concat([original, randomBytes(randomInt(5000))]);
      if (Math.ceil(own.length / sliceSize) > 32768) continue;
      candidates.push(candidateOf(own, sliceSize));
    }
    const places = 1 + (trial % 4);
    const detaching = trial % 3 === 0; // the shared reads' blocks really given back
    const label = `${damage}, ${length} bytes, ${candidates.length} candidate(s) of slices ${candidates.map((c) => c.sliceSize).join("/")} and lengths ${candidates.map((c) => c.description.length).join("/")}, ${places} place(s)`;
    await test(`survey (seed ${startSeed}, trial ${trial}): ${label}`, async () => {
      let survey;
      if (detaching) await withDetachingTransfer(async () => (survey = await surveyOf(file, candidates, places)));
      else survey = await surveyOf(file, candidates, places);
      const { states, firstNonZero } = survey;
      equal(firstNonZero, firstNonZeroOf(file), "the file's first byte not zero");
      candidates.forEach((candidate, i) => compare(states[i], expectedSurvey(file, candidate, candidates.length === 1), `candidate ${i}`));
    });
  }
  await test("survey: slices over 8 MiB hashed alone, one damaged, the parity of the intact ones, with 1 and 2 places", async () => {
    const original = randomBytes(3 * (9 << 20) + 12345);
    const file = Uint8Array.from(original);
    file[(9 << 20) + 77] ^= 4;
    const candidate = candidateOf(original, 9 << 20);
    for (const places of [1, 2]) {
      const { states } = await surveyOf(file, [candidate], places);
      compare(states[0], expectedSurvey(file, candidate, true), `${places} place(s)`);
      equal(hex(states[0].status), "00010000", "slice 1 damaged");
    }
  });
  await test("survey: the whole file's MD5 stops soon after the first damaged slice, and goes to the end of a file that may be intact", async () => {
    const original = randomBytes(128 << 20);
    const file = Uint8Array.from(original);
    file[(3 << 20) + 5] ^= 1;
    const candidate = candidateOf(original, 1 << 20);
    for (const places of [1, 2, 3]) {
      const recovery = { backupSource: blobSource(new Blob([file])), file: {} };
      const states = await withPlaces(places, () => surveyBackup(recovery, [candidate], () => {}, pacer(undefined)));
      compare(states[0], expectedSurvey(file, candidate, true), `${places} place(s)`);
      // The damage is judged when its run of 32 MiB is back; the MD5 is no more than 64 MiB ahead of it.
      assert(recovery.file.hashedTo <= 96 << 20, `${places} place(s): the file's MD5 went to ${recovery.file.hashedTo} for a damage at 3 MiB`);
      const intact = { backupSource: blobSource(new Blob([original])), file: {} };
      const whole = await surveyBackup(intact, [candidate], () => {}, pacer(undefined));
      equal(intact.file.hashedTo, original.length, "an intact file's MD5 to its end");
      equal(hex(whole[0].digestAtEnd.clone().digest()), md5(original).toString("hex"), "its MD5");
    }
  });
  await test("survey: an empty file and an empty candidate; a file of zeros", async () => {
    for (const [file, original] of [[new Uint8Array(0), new Uint8Array(0)], [new Uint8Array(70000), new Uint8Array(70000)], [new Uint8Array(0), randomBytes(5000)]]) {
      const candidate = candidateOf(original, 4096);
      const { states, firstNonZero } = await surveyOf(file, [candidate], 2);
      compare(states[0], expectedSurvey(file, candidate, true), `${file.length} bytes for ${original.length}`);
      equal(firstNonZero, firstNonZeroOf(file), "first not zero");
    }
  });
  await test("survey: an all-zero copy of a 256 MiB backup (never written) is read once, and progress never stalls", async () => {
    const original = randomBytes(256 << 20);
    const source = countingSource(new Uint8Array(original.length), 0);
    const bytesRead = () => source.reads.reduce((sum, [, length]) => sum + length, 0);
    const recovery = { backupSource: source, file: {} };
    await surveyBackup(recovery, [candidateOf(original, 4 << 20)], () => {}, pacer(undefined));
    equal(recovery.file.firstNonZero, -1, "all zeros");
    assert(bytesRead() <= 1.2 * original.length, `the backup was read ${(bytesRead() / original.length).toFixed(2)} times`);
    const damaged = Uint8Array.from(original);
    damaged[1 << 20] ^= 1;
    const seen = [];
    await surveyBackup({ backupSource: blobSource(new Blob([damaged])), file: {} }, [candidateOf(original, 4 << 20)], (stage, done, total) => seen.push(done / total), pacer(undefined));
    assert(seen[seen.length - 2] > 0.9, `the last progress before the end was ${(100 * seen[seen.length - 2]).toFixed(0)}%, the MD5 stopping early`);
  });
  await test("survey: 16 sets of about 32,768 slices each on a 5 MiB backup, one place: the main thread never held 100 ms", async () => {
    const size = 5 << 20;
    const file = randomBytes(size);
    const candidates = [];
    for (let g = 0; g < 16; g++) {
      const sliceSize = Math.ceil(size / 32768 / 4) * 4 + 4 * g;
      const count = Math.ceil(size / sliceSize);
      candidates.push({ description: { length: size }, sliceSize, sliceCount: count, checksums: randomBytes(20 * count), otherSliceCount: 0, exponents: [] });
    }
    const monitor = monitorEventLoopDelay({ resolution: 5 });
    monitor.enable();
    try {
      await withPlaces(1, () => surveyBackup({ backupSource: blobSource(new Blob([file])), file: {} }, candidates, () => {}, pacer(undefined)));
    } finally {
      monitor.disable();
    }
    assert(monitor.max / 1e6 < 100, `the event loop was held ${(monitor.max / 1e6).toFixed(0)} ms`);
  });
  await test("survey and md5InWorker: Stop pressed before they start hashes nothing", async () => {
    const file = randomBytes(64 << 20);
    const controller = new AbortController();
    controller.abort();
    let hashed = 0;
    const recovery = { backupSource: blobSource(new Blob([file])), file: {} };
    const errors = [
      await surveyBackup(recovery, [candidateOf(file, 1 << 20)], (stage, done) => (hashed = done), pacer(controller.signal)).catch((e) => e),
      await md5InWorker(new Blob([file]), 0, file.length, Md5(), (count) => (hashed += count), pacer(controller.signal)).catch((e) => e),
    ];
    assert(errors.every((e) => e && e.code === "interrupted"), `${errors.map((e) => e && e.code)}`);
    equal(hashed, 0, "bytes hashed");
  });
  if (workers)
    await test("survey: two of four workers cannot start; their tasks run in the page's thread, reads through the page included", async () => {
      const original = randomBytes(80 << 20);
      const file = Uint8Array.from(original);
      file[50 << 20] ^= 1;
      workers.workerControl.failing = new Set([2, 3]);
      try {
        for (const sliceSize of [20 << 20, 1 << 20]) {
          const candidate = candidateOf(original, sliceSize);
          const { states } = await surveyOf(file, [candidate], 4);
          compare(states[0], expectedSurvey(file, candidate, true), `slices of ${sliceSize}`);
        }
      } finally {
        workers.workerControl.failing = new Set();
      }
    });
  await test("survey: Stop while it reads ends it with interrupted, every place", async () => {
    const file = randomBytes(8 << 20);
    const controller = new AbortController();
    const recovery = { backupSource: blobSource(new Blob([file])), file: {} };
    let error = null;
    await surveyBackup(recovery, [candidateOf(file, 4096)], (stage, done) => {
      if (done > 1 << 20) controller.abort();
    }, pacer(controller.signal)).catch((e) => (error = e));
    equal(error && error.code, "interrupted", "the survey stopped");
  });
}

async function md5InWorkerTests() {
  await test("md5InWorker: a file's MD5 taken up at an offset from the state before it, with its progress, and Stop", async () => {
    const bytes = randomBytes((20 << 20) + 4321);
    for (const from of [0, 1, 63, 64, 65, 5 << 20, (17 << 20) + 3, bytes.length]) {
      let hashed = 0;
      const digest = await md5InWorker(new Blob([bytes]), from, bytes.length, Md5().update(bytes.subarray(0, from)), (count) => (hashed += count), pacer(undefined));
      equal(hex(digest.digest()), md5(bytes).toString("hex"), `from ${from}`);
      equal(hashed, bytes.length - from, `progress from ${from}`);
    }
    const controller = new AbortController();
    let error = null;
    await md5InWorker(new Blob([bytes]), 0, bytes.length, Md5(), (count) => controller.abort(), pacer(controller.signal)).catch((e) => (error = e));
    equal(error && error.code, "interrupted", "stopped");
  });
}

/**
 * A Blob imitated over `bytes`: its slices' streams give chunks of `chunk` bytes, as byte streams, or as plain
 * streams with `plain` (WebKitGTK's); the file cut short after `cutAt` bytes when given; `streams` counts them.
 */
function chunkedBlob(bytes, chunk, cutAt, plain) {
  const blob = {
    size: bytes.length,
    streams: 0,
    cancelled: 0,
    stream: () => blob.slice(0, bytes.length).stream(),
    slice(start, end) {
      const part = bytes.subarray(start, Math.min(end, cutAt === undefined ? bytes.length : cutAt));
      return {
        arrayBuffer: async () => new Uint8Array(part).buffer,
        stream() {
          blob.streams++;
          let at = 0;
          return new ReadableStream({
            type: plain ? undefined : "bytes",
            cancel() {
              blob.cancelled++;
            },
            pull(controller) {
              if (at >= part.length) {
                controller.close();
                if (controller.byobRequest) controller.byobRequest.respond(0); // a byte stream's read waiting ends, done
                return;
              }
              controller.enqueue(new Uint8Array(part.subarray(at, at + chunk)));
              at += chunk;
            },
          });
        },
      };
    },
  };
  return blob;
}

async function blobSourceTests() {
  const bytes = randomBytes((9 << 20) + 777);
  const blobs = {
    "a Blob (a byte stream)": () => new Blob([bytes]),
    "chunks of 100,003 bytes": () => chunkedBlob(bytes, 100003),
    "chunks of 5 MiB": () => chunkedBlob(bytes, 5 << 20),
    "no byte stream (slices)": () => chunkedBlob(bytes, 65536, undefined, true),
  };
  for (const [kind, make] of Object.entries(blobs)) {
    await test(`blobSource, ${kind}: every read its bytes, in any order, at once or not`, async () => {
      const blob = make();
      const source = blobSource(blob, { streamed: true });
      const reads = [];
      for (let i = 0; i < 40; i++) {
        const length = randomInt(4) === 0 ? randomInt(70000) : (1 << 20) + randomInt(3 << 20);
        reads.push([randomInt(bytes.length - length + 1), length]);
      }
      let at = 0;
      for (let i = 0; i < 8; i++) { // reads that follow on from each other
        const length = Math.min(bytes.length - at, (1 << 20) + randomInt(1 << 20));
        reads.push([at, length]);
        at += length;
      }
      for (const [offset, length] of reads) equal(hex(await source.read(offset, length)), hex(bytes.subarray(offset, offset + length)), `read ${offset} ${length}`);
      const together = await Promise.all(reads.map(([offset, length]) => source.read(offset, length)));
      together.forEach((got, i) => equal(hex(got), hex(bytes.subarray(reads[i][0], reads[i][0] + reads[i][1])), `together ${reads[i]}`));
      for (const [offset, length] of [[bytes.length - 1000, 2 << 20], [bytes.length + 5, 1 << 20]]) {
        let error = null;
        await source.read(offset, length).catch((e) => (error = e));
        equal(error && error.code, "io", `past the end: ${offset} ${length}`);
      }
      equal(hex(await source.read(3, 1 << 20)), hex(bytes.subarray(3, 3 + (1 << 20))), "a read after a failed one");
    });
  }
  await test("blobSource: reads that follow on from each other share one stream; a read elsewhere starts another", async () => {
    const blob = chunkedBlob(bytes, 65536);
    const source = blobSource(blob, { streamed: true });
    for (let at = 0; at + (1 << 20) <= 8 << 20; at += 1 << 20) await source.read(at, 1 << 20);
    equal(blob.streams, 1, "eight reads in a row, one stream");
    await source.read(100, 4096); // a small read: a slice, the stream kept
    await source.read(8 << 20, 1 << 20);
    equal(blob.streams, 1, "the ninth, after a small read elsewhere");
    await source.read(0, 1 << 20);
    equal(blob.streams, 2, "a read back: a new stream");
    equal(blob.cancelled, 1, "the first stream ended");
    source.close(); // as a task's end does
    await source.read(1 << 20, 1 << 20);
    equal(blob.cancelled, 2, "closed: the stream kept open ended");
    equal(blob.streams, 3, "the next read after close: a new stream");
    // Without `streamed` (the page's thread, whose sources nothing closes): slices only.
    const page = chunkedBlob(bytes, 65536);
    const unstreamed = blobSource(page);
    for (let at = 0; at + (1 << 20) <= 4 << 20; at += 1 << 20) equal(hex(await unstreamed.read(at, 1 << 20)), hex(bytes.subarray(at, at + (1 << 20))), `unstreamed ${at}`);
    equal(page.streams, 0, "no stream");
    const plain = chunkedBlob(bytes, 65536, undefined, true);
    const sliced = blobSource(plain, { streamed: true });
    for (let at = 0; at + (1 << 20) <= 4 << 20; at += 1 << 20) equal(hex(await sliced.read(at, 1 << 20)), hex(bytes.subarray(at, at + (1 << 20))), `plain ${at}`);
    equal(plain.streams, 1, "no byte stream: one tried, then slices");
  });
  await test("blobSource: a file cut while it is read is io (the file changed), never short bytes", async () => {
    const source = blobSource(chunkedBlob(bytes, 300000, 5 << 20), { streamed: true });
    equal(hex(await source.read(0, 2 << 20)), hex(bytes.subarray(0, 2 << 20)), "before the cut");
    let error = null;
    await source.read(2 << 20, 4 << 20).catch((e) => (error = e));
    equal(error && error.code, "io", "across the cut");
    // Chromium fails a stream of a file changed on disk with "TypeError: network error" (a slice: NotReadableError).
    const failing = {
      size: bytes.length,
      stream: () => failing.slice(0, bytes.length).stream(),
      slice: (start, end) => ({
        arrayBuffer: async () => new Uint8Array(bytes.subarray(start, end)).buffer,
        stream: () => {
          let sent = false;
          return new ReadableStream({
            type: "bytes",
            pull(controller) {
              if (sent) return controller.error(new TypeError("network error"));
              sent = true;
              controller.enqueue(new Uint8Array(bytes.subarray(start, start + 65536)));
            },
          });
        },
      }),
    };
    error = null;
    await blobSource(failing, { streamed: true }).read(0, 2 << 20).catch((e) => (error = e));
    equal(error && error.code, "io", "a stream that fails as a TypeError");
    // Firefox ESR fails a slice of a file deleted since it was picked with AbortError: io, not "stopped".
    const deleted = { size: bytes.length, slice: () => ({ arrayBuffer: async () => { throw new DOMException("The operation was aborted.", "AbortError"); } }) };
    error = null;
    await blobSource(deleted).read(0, 4096).catch((e) => (error = e));
    equal(error && error.code, "io", "a slice that fails as an AbortError");
  });
}

await blobSourceTests();
await sharedReadsTests();
await md5InWorkerTests();
await surveyTests();
console.log(`seed ${startSeed}`);
runner.finish("web-survey");
