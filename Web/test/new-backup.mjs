// Issue 37 under Node: the page's "Save as a new backup the app can import" (src/core/72-backup-layout.mjs,
// 73-backup-writer.mjs) against goshuin-tool and the Node reference (Spec/reference/goshuin.mjs).
//
//   node Web/test/new-backup.mjs --tool .build/debug/goshuin-tool [--rescue-tool PATH]
//
// Backups are sealed by goshuin-tool from a folder (known times), opened (or salvaged, after one chunk is
// damaged, or the file cut) by the page's core, and written again as a new backup. Each new file must verify
// with `goshuin-tool verify --backup`, open with the Node reference (container version 1, 600,000 rounds and
// 4 MiB chunks by default), and its ZIP must be, byte for byte, the ZIP goshuin-tool's seal wrote for the same
// entries (for a salvage: what `seal` of the folder that `open --extract --salvage` restores writes, with the
// damaged backup's manifest.json in it in directory mode; and what `rescue` writes, by --tool or --rescue-tool). Last
// line: "web-new-backup: N passed, N failed".

import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as reference from "../../Spec/reference/goshuin.mjs";
import { sealsInWorkers } from "../src/core/71-sealing-runs.mjs";
import { assert, equal, loadPageCore, testRunner } from "./page-harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : undefined);
const tool = path.resolve(option("--tool") || path.join(here, "../../.build/debug/goshuin-tool"));
// The tool's own `rescue`, unless another build is named.
const rescueTool = option("--rescue-tool") ? path.resolve(option("--rescue-tool")) : tool;
const core = await loadPageCore();
const runner = testRunner({ verbose: true });
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "goshuin-new-backup-"));
const PASSPHRASE = "  sakura 桜 – correct horse  ";
const NEW_PASSPHRASE = "a new one for the family 家族";
const MTIME = 1787250600; // 2026-08-20 18:30:00 UTC
const encode = (text) => new TextEncoder().encode(text);

function run(command, argv, passphrase, input) {
  const result = spawnSync(command, argv, { env: { ...process.env, GOSHUIN_PASSPHRASE: passphrase }, input, maxBuffer: 1 << 30 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

/** A folder of records.csv and photos of the sizes given, every file at MTIME + its index. */
function makeFolder(name, photoSizes) {
  const folder = path.join(scratch, name);
  fs.mkdirSync(folder);
  const files = {};
  let records = "date,shrine,photo\n";
  photoSizes.forEach((size, i) => {
    const photo = `IMG_${String(i + 1).padStart(4, "0")}.jpg`;
    records += `2026-09-${String(i + 1).padStart(2, "0")},Shrine ${i + 1},${photo}\n`;
    const bytes = Buffer.alloc(size);
    for (let k = 0; k < size; k++) bytes[k] = (k * 7 + i * 13 + (k >> 9)) & 0xff;
    files[photo] = bytes;
  });
  files["records.csv"] = Buffer.from(records + "note,\"a long, quoted note\",\n".repeat(50));
  Object.entries(files).forEach(([file, bytes], i) => {
    fs.writeFileSync(path.join(folder, file), bytes);
    fs.utimesSync(path.join(folder, file), MTIME + i * 60, MTIME + i * 60);
  });
  return { folder, files };
}

function seal(folder, output, chunkSize) {
  const argv = ["seal", folder, "-o", output, "--iterations", "1000"];
  if (chunkSize) argv.push("--chunk-size", String(chunkSize));
  const result = run(tool, argv, PASSPHRASE);
  equal(result.status, 0, "goshuin-tool seal: " + result.stderr);
  return fs.readFileSync(output);
}

function referenceSource(bytes) {
  return { size: BigInt(bytes.length), read: (offset, length) => bytes.subarray(Number(offset), Number(offset) + length) };
}

/** The payload of a version 1 file, by the Node reference. */
function openByReference(bytes, passphrase) {
  const pieces = [];
  reference.openV1(referenceSource(bytes), Buffer.from(passphrase, "utf8"), (piece) => pieces.push(Buffer.from(piece)));
  return Buffer.concat(pieces);
}

/** The page writes a new backup of `backup` into memory: the file's bytes and what the writer returned. */
async function writeNew(backup, passphrase, options = {}) {
  const pieces = [];
  const key = await core.newBackup.passphraseKey(encode(passphrase));
  const result = await core.newBackup.write(backup, key, {
    iterations: 1000, ...options, output: async (bytes) => pieces.push(Buffer.from(bytes)),
  });
  return { bytes: Buffer.concat(pieces), result };
}

function verifyWithTool(bytes, passphrase, name) {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, bytes);
  const result = run(tool, ["verify", file, "--backup"], passphrase);
  equal(result.status, 0, "goshuin-tool verify --backup " + name + ": " + result.stderr);
  return result.stderr;
}

/** The ZIP `seal` writes for a folder holding exactly `files` (name → bytes) at `times` (name → seconds). */
function toolZip(name, files, times, manifest) {
  const folder = path.join(scratch, name);
  fs.mkdirSync(folder);
  for (const [file, bytes] of Object.entries(files)) {
    fs.writeFileSync(path.join(folder, file), bytes);
    if (times[file] !== null) fs.utimesSync(path.join(folder, file), times[file], times[file]);
  }
  if (manifest) fs.writeFileSync(path.join(folder, "manifest.json"), manifest);
  const sealed = seal(folder, path.join(scratch, name + ".goshuin"));
  return openByReference(sealed, PASSPHRASE);
}

function unzipByPython(zip) {
  const out = execFileSync("python3", ["-c", `
import sys, zipfile, io, json, hashlib
z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
assert z.testzip() is None
print(json.dumps({i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist()}))
`], { input: zip });
  return JSON.parse(out.toString());
}

const sha = (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");

const small = makeFolder("small", [3000, 70000, 200, 150000, 9000]);
const smallSealed = seal(small.folder, path.join(scratch, "small.goshuin"));
const smallZip = openByReference(smallSealed, PASSPHRASE);

await runner.test("an opened backup saved again is, byte for byte, the ZIP seal wrote; it verifies", async () => {
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(smallSealed)), encode(PASSPHRASE));
  const { bytes, result } = await writeNew(backup, PASSPHRASE);
  verifyWithTool(bytes, PASSPHRASE, "small-again.goshuin");
  const zip = openByReference(bytes, PASSPHRASE);
  assert(zip.equals(smallZip), "the ZIP differs from seal's");
  equal(bytes.readUInt8(4), 1, "container version");
  equal(result.photos.length, 5, "photos");
  equal(bytes.length, result.fileSize, "file size");
  // records.csv is deflated here: the room asked for before writing (82-private-file.mjs) is more than it takes.
  const most = core.newBackup.sizeAtMost(backup);
  assert(most > bytes.length && most - bytes.length <= 16 * 1024, "at most " + most + ", took " + bytes.length);
});

await runner.test("the defaults: 600,000 rounds, 4 MiB chunks, fresh salt and nonce each time", async () => {
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(smallSealed)), encode(PASSPHRASE));
  const one = (await writeNew(backup, PASSPHRASE, { iterations: undefined })).bytes;
  const two = (await writeNew(backup, PASSPHRASE, { iterations: undefined })).bytes;
  const header = reference.decodeHeader(one.subarray(0, 45));
  equal(header.kdfIterations, 600000, "iterations");
  equal(header.chunkSize, 4194304, "chunk size");
  assert(!one.subarray(9, 33).equals(two.subarray(9, 33)), "salt and nonce base are fresh");
  assert(openByReference(one, PASSPHRASE).equals(smallZip), "the ZIP");
});

await runner.test("under a new passphrase: opens with the new one only (tool and reference)", async () => {
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(smallSealed)), encode(PASSPHRASE));
  const { bytes } = await writeNew(backup, NEW_PASSPHRASE);
  verifyWithTool(bytes, NEW_PASSPHRASE, "small-new.goshuin");
  const old = run(tool, ["verify", path.join(scratch, "small-new.goshuin"), "--backup"], PASSPHRASE);
  equal(old.status, 65, "the old passphrase is refused");
  assert(old.stderr.includes("auth_failed"), old.stderr);
  let code = null;
  try {
    openByReference(bytes, PASSPHRASE);
  } catch (error) {
    code = error.code;
  }
  equal(code, "auth_failed", "the reference with the old passphrase");
  assert(openByReference(bytes, NEW_PASSPHRASE).equals(smallZip), "the ZIP");
});

await runner.test("several chunks, a chunk size of the caller's, progress and Stop", async () => {
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(smallSealed)), encode(PASSPHRASE));
  const seen = [];
  const { bytes } = await writeNew(backup, PASSPHRASE, { chunkSize: 4096, onBytes: (done, total) => seen.push([done, total]) });
  verifyWithTool(bytes, PASSPHRASE, "small-chunks.goshuin");
  assert(openByReference(bytes, PASSPHRASE).equals(smallZip), "the ZIP");
  // Progress in steps (a run of chunks each: several a worker), rising, to the end.
  assert(seen.length >= 4 && seen.every(([done], i) => i === 0 || done > seen[i - 1][0]), "progress in rising steps");
  assert(seen[seen.length - 1][0] === seen[seen.length - 1][1], "progress to the end");
  const controller = new AbortController();
  let code = null;
  try {
    await writeNew(backup, PASSPHRASE, { chunkSize: 4096, signal: controller.signal, onBytes: (done) => { if (done > 50000) controller.abort(); } });
  } catch (error) {
    code = error.code;
  }
  equal(code, "interrupted", "Stop");
});

await runner.test("the bytes handed to the output are its own: each given back once written, the backup is whole", async () => {
  // As the page's private-file download does (82-private-file.mjs): it frees each record's memory at once.
  // Here a buffer is detached as a transfer detaches it; the sealer must not use one again (the header, its AAD).
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(smallSealed)), encode(PASSPHRASE));
  const key = await core.newBackup.passphraseKey(encode(PASSPHRASE));
  for (const chunkSize of [4096, 1 << 20]) {
    const pieces = [];
    let detached = 0;
    await core.newBackup.write(backup, key, {
      iterations: 1000, chunkSize,
      output: async (bytes) => {
        pieces.push(Buffer.from(bytes));
        if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) {
          structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
          detached++;
        }
      },
    });
    assert(detached === pieces.length, chunkSize + ": " + detached + " of " + pieces.length + " handed whole");
    const bytes = Buffer.concat(pieces);
    verifyWithTool(bytes, PASSPHRASE, "small-given-back.goshuin");
    assert(openByReference(bytes, PASSPHRASE).equals(smallZip), chunkSize + ": the ZIP");
  }
});

await runner.test("a photo whose bytes are not its CRC-32 stops the save, wherever its runs fall", async () => {
  // Chunks of 4 KiB: each photo's data starts in one run and, but for the smallest, runs on into others; its
  // CRC-32 is put together from its parts (Spec/decisions/0056).
  for (const name of ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0004.jpg"]) {
    const backup = await core.openBackup(core.bytesSource(new Uint8Array(smallSealed)), encode(PASSPHRASE));
    backup.byName.get(name).crc32 ^= 1;
    let code = null;
    try {
      await writeNew(backup, PASSPHRASE, { chunkSize: 4096 });
    } catch (error) {
      code = error.code;
    }
    equal(code, "entry_corrupt", name);
  }
});

await runner.test("the passphrase rules: empty refused, mismatch refused, short warned, not Unicode refused", async () => {
  const codeOf = (a, b) => {
    try {
      core.newBackup.checkPassphrase(a, b);
      return null;
    } catch (error) {
      return error.code;
    }
  };
  equal(codeOf("", ""), "empty_passphrase", "empty");
  equal(codeOf("a good long one", "a good long one "), "passphrase_mismatch", "mismatch");
  equal(codeOf("ab\uD800cd efghijk", "ab\uD800cd efghijk"), "invalid_argument", "lone surrogate");
  equal(core.newBackup.checkPassphrase("short", "short").short, true, "short");
  equal(core.newBackup.checkPassphrase("桜桜桜桜桜桜桜桜桜桜", "桜桜桜桜桜桜桜桜桜桜").short, false, "ten characters");
  equal(core.newBackup.checkPassphrase("桜桜桜桜桜桜桜桜桜", "桜桜桜桜桜桜桜桜桜").characters, 9, "nine characters");
});

// Damage: the same folder sealed in 16 KiB chunks, one chunk inside IMG_0002.jpg's data overwritten.
const chunk = 16384;
const damagedSealed = seal(small.folder, path.join(scratch, "chunked.goshuin"), chunk);
const damaged = Buffer.from(damagedSealed);
const damagedIndex = 2;
const offset = 45 + damagedIndex * (chunk + 20) + 100;
damaged.fill(0x55, offset, offset + 64);
fs.writeFileSync(path.join(scratch, "damaged.goshuin"), damaged);

function salvagedFolderZip(name, backup) {
  const files = {};
  const times = {};
  const manifestBytes = backup.salvage.mode === "directory" ? smallZipManifest() : null;
  for (const file of [backup.records, ...backup.photos]) {
    files[file.name] = small.files[file.name];
    times[file.name] = backup.byName.get(file.name).modified;
  }
  return toolZip(name, files, times, manifestBytes);
}

/** The manifest.json of the backup sealed from the folder, as `open --extract` writes it. */
function smallZipManifest() {
  const extract = path.join(scratch, "small-extracted");
  if (!fs.existsSync(extract)) equal(run(tool, ["open", path.join(scratch, "small.goshuin"), "--extract", extract], PASSPHRASE).status, 0, "extract");
  return fs.readFileSync(path.join(extract, "manifest.json"));
}

async function rescueCheck(file, bytes, name) {
  if (!rescueTool) return;
  const output = path.join(scratch, name + ".rescued.goshuin");
  const result = run(rescueTool, ["rescue", file, "-o", output], PASSPHRASE);
  assert(result.status === 0 || result.status === 65, "goshuin-tool rescue: " + result.stderr);
  const theirs = openByReference(fs.readFileSync(output), PASSPHRASE);
  const ours = openByReference(bytes, PASSPHRASE);
  assert(ours.equals(theirs), "the ZIP differs from goshuin-tool rescue's");
}

await runner.test("salvage (directory mode): the new backup holds exactly the intact entries, as seal and rescue write them", async () => {
  const backup = await core.salvageBackup(core.bytesSource(new Uint8Array(damaged)), encode(PASSPHRASE));
  equal(backup.salvage.mode, "directory", "mode");
  const lost = backup.salvage.lost.map((l) => l.name);
  assert(lost.length >= 1 && !lost.includes("records.csv"), "lost: " + lost);
  const { bytes, result } = await writeNew(backup, PASSPHRASE);
  verifyWithTool(bytes, PASSPHRASE, "salvaged-new.goshuin");
  const zip = openByReference(bytes, PASSPHRASE);
  const listed = unzipByPython(zip);
  const expected = {};
  for (const name of Object.keys(small.files)) if (!lost.includes(name)) expected[name] = sha(small.files[name]);
  const manifest = JSON.parse(execFileSync("python3", ["-c", "import sys,zipfile,io; sys.stdout.write(zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())).read('manifest.json').decode())"], { input: zip }).toString());
  delete listed["manifest.json"];
  assert(JSON.stringify(Object.keys(listed).sort()) === JSON.stringify(Object.keys(expected).sort()), "entries " + Object.keys(listed));
  for (const name of Object.keys(expected)) equal(listed[name], expected[name], name);
  equal(manifest.photos.length, result.photos.length, "manifest photos");
  equal(manifest.createdAt, backup.createdAt, "createdAt kept");
  assert(zip.equals(salvagedFolderZip("salvaged-folder", backup)), "the ZIP differs from seal's of the salvaged folder");
  assert(core.newBackup.sizeAtMost(backup) >= bytes.length, "at most " + core.newBackup.sizeAtMost(backup) + ", took " + bytes.length);
  await rescueCheck(path.join(scratch, "damaged.goshuin"), bytes, "damaged");
});

await runner.test("salvage (walk mode, the file cut): createdAt the newest entry's time; seal's ZIP of the same folder", async () => {
  const cut = damagedSealed.subarray(0, damagedSealed.length - 2000);
  fs.writeFileSync(path.join(scratch, "cut.goshuin"), cut);
  const backup = await core.salvageBackup(core.bytesSource(new Uint8Array(cut)), encode(PASSPHRASE));
  equal(backup.salvage.mode, "walk", "mode");
  const { bytes, result } = await writeNew(backup, PASSPHRASE, { fileTime: 1 });
  verifyWithTool(bytes, PASSPHRASE, "cut-new.goshuin");
  const times = [backup.records, ...backup.photos].map((f) => backup.byName.get(f.name).modified);
  equal(result.createdAt, new Date(Math.max(...times) * 1000).toISOString().slice(0, 19) + "Z", "createdAt");
  const zip = openByReference(bytes, PASSPHRASE);
  assert(zip.equals(salvagedFolderZip("cut-folder", backup)), "the ZIP differs from seal's of the salvaged folder");
  assert(core.newBackup.sizeAtMost(backup) >= bytes.length, "at most " + core.newBackup.sizeAtMost(backup) + ", took " + bytes.length);
  await rescueCheck(path.join(scratch, "cut.goshuin"), bytes, "cut");
});

await runner.test("a failed opening's damage check goes on into the salvage: what salvageBackup restores, and says", async () => {
  let failure = null;
  try {
    await core.openBackup(core.bytesSource(new Uint8Array(damaged)), encode(PASSPHRASE), { describeDamage: true });
  } catch (error) {
    failure = error;
  }
  equal(failure && failure.code, "chunk_damaged", "the opening's verdict");
  const container = failure.damage.container;
  assert(container instanceof core.SalvageContainer && container.damagedCount === 1, "every chunk authenticated, one damaged");
  assert(!JSON.stringify(failure.damage).includes("container"), "not part of what the error says");
  const asText = (backup) => JSON.stringify({ salvage: backup.salvage, digests: [...backup.digests], photos: backup.photos, records: backup.records },
    (key, value) => (typeof value === "bigint" ? value.toString() : value));
  const goneOn = await core.salvageEntries(container, {});
  const fresh = await core.salvageBackup(core.bytesSource(new Uint8Array(damaged)), encode(PASSPHRASE));
  equal(asText(goneOn), asText(fresh), "the same salvage");
  // Saved as a new backup, it is what a fresh salvage's is.
  const { bytes } = await writeNew(goneOn, PASSPHRASE);
  assert(openByReference(bytes, PASSPHRASE).equals(salvagedFolderZip("gone-on", fresh)), "the new backup");
  // A wrong passphrase: no damage check, nothing to go on from.
  let wrong = null;
  try {
    await core.openBackup(core.bytesSource(new Uint8Array(damaged)), encode(PASSPHRASE + "x"), { describeDamage: true });
  } catch (error) {
    wrong = error;
  }
  equal(wrong && wrong.code, "auth_failed", "wrong passphrase");
  assert(!(wrong.damage && wrong.damage.container), "no container");
});

await runner.test("salvage of a Blob: chunks and entries checked by the pool's tasks, the same salvage as from bytes", async () => {
  // Many chunks: runs of several, reads of several records; damage among chunks 0–3 (checked first, here),
  // at the edges of runs, two in a row, and the last chunk.
  const many = makeFolder("many-chunks", Array.from({ length: 24 }, (_, i) => 180000 + i * 3001));
  const sealed = seal(many.folder, path.join(scratch, "many-chunks.goshuin"), 4096);
  const count = Math.ceil((sealed.length - 45) / (4096 + 20));
  const asText = (backup) => JSON.stringify({ salvage: backup.salvage, digests: [...backup.digests], photos: backup.photos, records: backup.records },
    (key, value) => (typeof value === "bigint" ? value.toString() : value));
  for (const indices of [[1], [5, 6], [count >> 1, (count >> 1) + 7, count - 1], []]) {
    const bytes = Buffer.from(sealed);
    for (const index of indices) bytes[45 + index * (4096 + 20) + 4 + 99] ^= 0x40;
    const fromBytes = await core.salvageBackup(core.bytesSource(new Uint8Array(bytes)), encode(PASSPHRASE));
    // The entries' progress is the index of the one under way, below its total (the page says "done + 1 of total").
    const entriesProgress = [];
    const fromBlob = await core.salvageBackup(core.blobSource(new Blob([bytes])), encode(PASSPHRASE), {
      onProgress: (stage, done, total) => stage === "salvage-entries" && entriesProgress.push([done, total]),
    });
    assert(entriesProgress.every(([done, total]) => done >= 0 && done < total), `damaged ${indices}: entries' progress ${JSON.stringify(entriesProgress)}`);
    equal(fromBlob.container.damagedCount, indices.length, `damaged ${indices}`);
    indices.forEach((index) => assert(!fromBlob.container.isIntactChunk(index), `chunk ${index} damaged`));
    equal(asText(fromBlob), asText(fromBytes), `damaged ${indices}: the same salvage`);
    if (indices.length === 0) continue;
    // A failed opening of the Blob: its damage check skips what the opening authenticated, and finds the same.
    let failure = null;
    try {
      await core.openBackup(core.blobSource(new Blob([bytes])), encode(PASSPHRASE), { describeDamage: true });
    } catch (error) {
      failure = error;
    }
    equal(failure && failure.code, "chunk_damaged", "the opening's verdict");
    equal(failure.damage.container.damagedCount, indices.length, "the damage check's damaged chunks");
    equal(asText(await core.salvageEntries(failure.damage.container, {})), asText(fromBytes), "gone on from the damage check");
  }
  // The task alone, over every chunk: several reads of records, each chunk's bit as the container says.
  const { authenticateChunksTask } = await import("../src/core/13-chunk-runs.mjs");
  const bytes = Buffer.from(sealed);
  [3, 4, count - 2].forEach((index) => (bytes[45 + index * (4096 + 20) + 2] ^= 0x01)); // a wrong length prefix
  const source = core.blobSource(new Blob([bytes]));
  const whole = await core.salvageBackup(core.bytesSource(new Uint8Array(bytes)), encode(PASSPHRASE));
  for (const [first, last] of [[0, count - 1], [4, 4], [count - 3, count - 1]]) {
    const reads = [];
    const counted = { blob: source.blob, size: source.size, read: (offset, length) => (reads.push(length), source.read(offset, length)) };
    const { result } = await authenticateChunksTask({ first, last, header: whole.container.header, key: whole.container.key }, {}, counted);
    for (let index = first; index <= last; index++) {
      const bit = index - first;
      equal((result.damaged[bit >> 3] >> (bit & 7)) & 1, [3, 4, count - 2].includes(index) ? 1 : 0, `chunk ${index}`);
    }
    assert(reads.every((length) => length <= 4194304), "reads of 4 MiB at most");
    if ((last - first + 1) * (4096 + 20) > 4194304) assert(reads.length > 1, "several reads");
    else equal(reads.length, 1, "one read");
  }
  let refused = null;
  try {
    await authenticateChunksTask({ first: 0, last: count, header: whole.container.header, key: whole.container.key }, {}, source);
  } catch (error) {
    refused = error;
  }
  equal(refused && refused.code, "internal", "a chunk past the file");
});

await runner.test("salvage: a whole version 1 file is sealed by the workers; a cut one, version 2, by this thread", async () => {
  const whole = await core.salvageBackup(core.bytesSource(new Uint8Array(damaged)), encode(PASSPHRASE));
  assert(sealsInWorkers(whole, []), "a damaged chunk in a whole file: the workers");
  const cut = await core.salvageBackup(core.bytesSource(new Uint8Array(damagedSealed.subarray(0, damagedSealed.length - 2000))), encode(PASSPHRASE));
  assert(!sealsInWorkers(cut, []), "a cut file: this thread (its header may claim 2^32 chunks)");
  const v2 = path.join(scratch, "chunked-v2.goshuin");
  equal(run(tool, ["seal", small.folder, "-o", v2, "--iterations", "1000", "--format", "2", "--chunk-size", String(chunk)], PASSPHRASE).status, 0, "seal --format 2");
  const v2Damaged = Buffer.from(fs.readFileSync(v2));
  const v2At = v2Damaged.length >> 1;
  v2Damaged.fill(0x55, v2At, v2At + 64);
  const v2Backup = await core.salvageBackup(core.bytesSource(new Uint8Array(v2Damaged)), encode(PASSPHRASE));
  assert(v2Backup.salvage && !sealsInWorkers(v2Backup, []), "version 2: this thread");
  const { bytes } = await writeNew(v2Backup, PASSPHRASE);
  verifyWithTool(bytes, PASSPHRASE, "salvaged-v2-new.goshuin");
});

await runner.test("salvage sealed by the workers: an intact chunk altered after the salvage fails the save (io), never a wrong file", async () => {
  const count = Math.ceil((damaged.length - 45) / (chunk + 20));
  let failures = 0;
  for (let index = 0; index < count; index++) {
    if (index === damagedIndex) continue;
    const bytes = new Uint8Array(damaged);
    const backup = await core.salvageBackup(core.bytesSource(bytes), encode(PASSPHRASE));
    bytes[45 + index * (chunk + 20) + 4 + 7] ^= 0x01;
    let out = null;
    let error = null;
    try {
      out = (await writeNew(backup, PASSPHRASE, { chunkSize: 4096 })).bytes;
    } catch (caught) {
      error = caught;
    }
    if (out) assert(openByReference(out, PASSPHRASE).equals(salvagedFolderZip("altered-" + index, backup)), `chunk ${index}: a wrong file written`);
    else {
      assert(error.code === "io" && /no longer does/.test(error.detail), `chunk ${index}: ${error.code}: ${error.detail}`);
      failures++;
    }
  }
  assert(failures >= 1, "no altered chunk was read again");
});

await runner.test("records.csv lost: no new backup (zip_malformed), as rescue writes none", async () => {
  const lostRecords = Buffer.from(damagedSealed);
  lostRecords.fill(0x33, 45 + 50, 45 + 80); // chunk 0 holds records.csv
  const backup = await core.salvageBackup(core.bytesSource(new Uint8Array(lostRecords)), encode(PASSPHRASE));
  assert(!backup.records, "records.csv is lost");
  let code = null;
  try {
    await writeNew(backup, PASSPHRASE);
  } catch (error) {
    code = error.code;
  }
  equal(code, "zip_malformed", "code");
});

await runner.test("a large records.csv (over 16 MiB) is stored and streamed, as seal stores it", async () => {
  const big = makeFolder("big-records", [1000]);
  const line = "2026-09-01,Shrine,IMG_0001.jpg," + "x".repeat(200) + "\n";
  fs.writeFileSync(path.join(big.folder, "records.csv"), "date,shrine,photo,note\n" + line.repeat(Math.ceil((17 << 20) / line.length)));
  fs.utimesSync(path.join(big.folder, "records.csv"), MTIME, MTIME);
  const sealed = seal(big.folder, path.join(scratch, "big-records.goshuin"));
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(sealed)), encode(PASSPHRASE));
  const { bytes } = await writeNew(backup, PASSPHRASE);
  assert(openByReference(bytes, PASSPHRASE).equals(openByReference(sealed, PASSPHRASE)), "the ZIP differs from seal's");
  // records.csv stored, in several chunks: the most a new backup takes is exactly what it takes.
  equal(core.newBackup.sizeAtMost(backup), bytes.length, "at most");
});

// The workers' runs (Spec/decisions/0056): borders, odd sizes, version 2, damage after opening, Stop.
const unhandled = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));
const poolSize = (() => {
  const pool = core.createWorkerPool({ inThread: true });
  pool.close();
  return pool.size;
})();

/** The local headers of a ZIP: [{ at (local header), data, end }] in order. */
function zipEntries(zip) {
  const out = [];
  let at = 0;
  while (zip.readUInt32LE(at) === 0x04034b50) {
    const n = zip.readUInt16LE(at + 26), e = zip.readUInt16LE(at + 28), size = zip.readUInt32LE(at + 18);
    const data = at + 30 + n + e;
    out.push({ name: zip.subarray(at + 30, at + 30 + n).toString(), at, data, end: data + size });
    at = data + size;
  }
  return out;
}

/** The chunk and run borders writeInWorkers uses for a payload of `size` in chunks of `chunkSize`. */
function borders(size, chunkSize) {
  const chunkCount = Math.ceil(size / chunkSize);
  const runBytes = Math.min(16777216, 33554432 / poolSize);
  const perRun = Math.max(1, Math.min(Math.floor(runBytes / chunkSize), Math.ceil(chunkCount / (4 * poolSize))));
  const runs = new Set();
  for (let r = perRun; r < chunkCount; r += perRun) runs.add(r * chunkSize);
  return { perRun, runs, isChunk: (x) => x % chunkSize === 0 && x > 0 && x < size };
}

async function saveAndCompare(sealed, expectedZip, label, options = {}) {
  const source = options.source ? options.source(sealed) : core.bytesSource(new Uint8Array(sealed));
  const backup = await core.openBackup(source, encode(PASSPHRASE));
  const { bytes, result } = await writeNew(backup, PASSPHRASE, options.write || {});
  const zip = openByReference(bytes, PASSPHRASE);
  assert(zip.equals(expectedZip), label + ": the ZIP differs from seal's");
  equal(bytes.length, result.fileSize, label + ": file size");
  return bytes;
}

const oddSizes = [0, 1, 1023, 1024, 1025, 4095, 4096, 4097, 8192, 12345, 0, 65536, 2, 100000, 3, 16384, 2047, 0];
const odd = makeFolder("odd", oddSizes);
const oddZip = openByReference(seal(odd.folder, path.join(scratch, "odd.goshuin")), PASSPHRASE);

await runner.test("runs: odd sizes (empty photos, chunk multiples), source and new chunks of 1, 4 KiB and 4 MiB", async () => {
  for (const sourceChunk of [1024, 4096, undefined]) {
    const sealed = seal(odd.folder, path.join(scratch, `odd-${sourceChunk}.goshuin`), sourceChunk);
    assert(openByReference(sealed, PASSPHRASE).equals(oddZip), "seal is deterministic");
    for (const chunkSize of [1024, 1536, 4096, 5000, undefined]) {
      const bytes = await saveAndCompare(sealed, oddZip, `source ${sourceChunk}, new ${chunkSize}`, { write: { chunkSize } });
      if (chunkSize === 1024 && sourceChunk === 4096) verifyWithTool(bytes, PASSPHRASE, "odd-new.goshuin");
    }
  }
});

await runner.test("runs: photos starting and ending exactly at chunk and run borders", async () => {
  const sealed = seal(odd.folder, path.join(scratch, "odd-b.goshuin"), 1024);
  const entries = zipEntries(oddZip);
  const hits = { dataAtRun: [], endAtRun: [], headerAtRun: [], dataAtChunk: [], endAtChunk: [], emptyAtRun: [], emptyAtChunk: [] };
  for (let cs = 1024; cs <= 40000; cs++) {
    const b = borders(oddZip.length, cs);
    for (const e of entries.slice(1, -1)) {
      const empty = e.data === e.end;
      if (b.runs.has(e.data)) (empty ? hits.emptyAtRun : hits.dataAtRun).push(cs);
      if (!empty && b.runs.has(e.end)) hits.endAtRun.push(cs);
      if (b.runs.has(e.at)) hits.headerAtRun.push(cs);
      if (b.isChunk(e.data)) (empty ? hits.emptyAtChunk : hits.dataAtChunk).push(cs);
      if (!empty && b.isChunk(e.end)) hits.endAtChunk.push(cs);
    }
  }
  const chosen = new Set();
  for (const [kind, list] of Object.entries(hits)) {
    assert(list.length > 0, "no chunk size puts a border at " + kind);
    list.slice(0, 3).forEach((cs) => chosen.add(cs));
  }
  for (const cs of chosen) await saveAndCompare(sealed, oddZip, "chunk size " + cs, { write: { chunkSize: cs } });
});

await runner.test("runs: 300 small photos of random sizes, chunks of 1 KiB", async () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const many = makeFolder("many", Array.from({ length: 300 }, () => Math.floor(rand() * 3000)));
  const sealed = seal(many.folder, path.join(scratch, "many.goshuin"), 1024);
  const zip = openByReference(sealed, PASSPHRASE);
  for (const chunkSize of [1024, 1100]) await saveAndCompare(sealed, zip, "many " + chunkSize, { write: { chunkSize } });
});

await runner.test("runs: a payload of one chunk, and of exactly one chunk", async () => {
  const one = makeFolder("one", [2000]);
  const sealed = seal(one.folder, path.join(scratch, "one.goshuin"));
  const zip = openByReference(sealed, PASSPHRASE);
  assert(zip.length > 1025, "a payload over 1 KiB");
  await saveAndCompare(sealed, zip, "one chunk");
  // A chunk size equal to the payload: one chunk exactly full; one byte less: two chunks, the last of one byte.
  await saveAndCompare(sealed, zip, "exact", { write: { chunkSize: zip.length } });
  await saveAndCompare(sealed, zip, "one over", { write: { chunkSize: zip.length - 1 } });
});

await runner.test("runs: a version 2 source backup (header MAC, final flag), several chunk sizes", async () => {
  for (const sourceChunk of [1024, 4096, undefined]) {
    const argv = ["seal", odd.folder, "-o", path.join(scratch, `odd-v2-${sourceChunk}.goshuin`), "--iterations", "1000", "--format", "2"];
    if (sourceChunk) argv.push("--chunk-size", String(sourceChunk));
    equal(run(tool, argv, PASSPHRASE).status, 0, "seal --format 2");
    const sealed = fs.readFileSync(path.join(scratch, `odd-v2-${sourceChunk}.goshuin`));
    equal(sealed.readUInt8(4), 2, "version 2");
    for (const chunkSize of [1024, 4096, undefined]) {
      const bytes = await saveAndCompare(sealed, oddZip, `v2 source ${sourceChunk}, new ${chunkSize}`, { write: { chunkSize } });
      if (chunkSize === 1024 && sourceChunk === 1024) verifyWithTool(bytes, PASSPHRASE, "odd-v2-new.goshuin");
    }
  }
});

await runner.test("runs: the file sent to the workers (a Blob source), and records handed over as Blobs", async () => {
  const sealed = seal(odd.folder, path.join(scratch, "odd-blob.goshuin"), 4096);
  await saveAndCompare(sealed, oddZip, "blob source", { source: (s) => core.blobSource(new Blob([s])), write: { chunkSize: 1024 } });
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(sealed)), encode(PASSPHRASE));
  const parts = [];
  const key = await core.newBackup.passphraseKey(encode(PASSPHRASE));
  const result = await core.newBackup.write(backup, key, {
    iterations: 1000, chunkSize: 1024, blobs: true,
    output: async (bytes) => parts.push(bytes instanceof Blob ? Buffer.from(await bytes.arrayBuffer()) : Buffer.from(bytes)),
  });
  const bytes = Buffer.concat(parts);
  equal(bytes.length, result.fileSize, "file size with Blobs");
  assert(openByReference(bytes, PASSPHRASE).equals(oddZip), "the ZIP with Blobs");
});

await runner.test("runs: a source chunk altered after opening fails the save, wherever it falls; nothing wrong is written", async () => {
  const chunk = 1024;
  const sealed = seal(odd.folder, path.join(scratch, "odd-c.goshuin"), chunk);
  const count = Math.ceil(oddZip.length / chunk);
  const failed = [];
  for (let index = 0; index < count; index++) {
    {
      const chunkSize = index % 2 ? 1024 : 4096;
      const bytes = new Uint8Array(sealed);
      const backup = await core.openBackup(core.bytesSource(bytes), encode(PASSPHRASE));
      bytes[45 + index * (chunk + 20) + 4 + 7] ^= 0x01; // a byte of chunk `index`'s ciphertext
      let out = null;
      let code = null;
      let detail = "";
      try {
        out = (await writeNew(backup, PASSPHRASE, { chunkSize })).bytes;
      } catch (error) {
        code = error.code;
        detail = error.detail || "";
      }
      assert(!/not yet judged/.test(detail), `chunk ${index}: the file's verdict, not a worker's: ${detail}`);
      if (out) {
        // Chunks holding no photo's bytes are not read again (their bytes are the ones checked at opening): the file must be right.
        assert(openByReference(out, PASSPHRASE).equals(oddZip), `chunk ${index}: a wrong file written`);
      } else {
        assert(code === "chunk_damaged" || code === "auth_failed", `chunk ${index}: ${code}`);
        failed.push(index);
      }
    }
  }
  // Every chunk that holds a photo's byte is read again, so its damage must fail the save.
  const entries = zipEntries(oddZip).slice(1, -1);
  for (let index = 0; index < count; index++) {
    const holds = entries.some((e) => e.end > e.data && e.data < (index + 1) * chunk && e.end > index * chunk);
    if (holds) assert(failed.includes(index), `chunk ${index} holds a photo's bytes and its damage went unseen`);
  }
});

await runner.test("runs: the source replaced after opening (the same folder sealed again) fails the save", async () => {
  const sealed = seal(odd.folder, path.join(scratch, "odd-r1.goshuin"), 1024);
  const other = seal(odd.folder, path.join(scratch, "odd-r2.goshuin"), 1024);
  equal(sealed.length, other.length, "same length");
  const bytes = new Uint8Array(sealed);
  const backup = await core.openBackup(core.bytesSource(bytes), encode(PASSPHRASE));
  bytes.set(other);
  let code = null;
  try {
    await writeNew(backup, PASSPHRASE, { chunkSize: 1024 });
  } catch (error) {
    code = error.code;
  }
  assert(code === "chunk_damaged" || code === "auth_failed", "code " + code);
});

await runner.test("runs: Stop at every step: interrupted, nothing written after, no unhandled rejection", async () => {
  const sealed = seal(odd.folder, path.join(scratch, "odd-s.goshuin"), 1024);
  for (const source of [core.bytesSource(new Uint8Array(sealed)), core.blobSource(new Blob([sealed]))]) {
    const backup = await core.openBackup(source, encode(PASSPHRASE));
    let steps = 0;
    await writeNew(backup, PASSPHRASE, { chunkSize: 1024, onBytes: () => steps++ });
    assert(steps >= 4, "steps " + steps);
    for (let stopAt = -1; stopAt < steps; stopAt++) {
      const controller = new AbortController();
      if (stopAt === -1) controller.abort();
      let seen = 0;
      let rejected = false;
      let writesAfter = 0;
      let code = null;
      const key = await core.newBackup.passphraseKey(encode(PASSPHRASE));
      try {
        await core.newBackup.write(backup, key, {
          iterations: 1000, chunkSize: 1024, signal: controller.signal,
          output: async () => { if (rejected) writesAfter++; },
          onBytes: () => { if (seen++ === stopAt) controller.abort(); },
        });
      } catch (error) {
        code = error.code;
      }
      rejected = true;
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (stopAt < steps - 1) equal(code, "interrupted", "Stop at step " + stopAt);
      equal(writesAfter, 0, "writes after the end, Stop at " + stopAt);
    }
  }
  equal(unhandled.length, 0, "unhandled rejections: " + unhandled.map(String).join("; "));
});

await runner.test("Stop before the first record: the header's write, failed as an aborted file's does, is no unhandled rejection", async () => {
  // The page's private file and the Save picker's file are aborted at Stop: a write under way then rejects.
  // Stop during the key's derivation leaves only the header's write, which nothing else awaits.
  const sealed = seal(odd.folder, path.join(scratch, "odd-h.goshuin"), 1024);
  for (const source of [core.bytesSource(new Uint8Array(sealed)), core.blobSource(new Blob([sealed]))]) {
    {
      const backup = await core.openBackup(source, encode(PASSPHRASE));
      const controller = new AbortController();
      const key = await core.newBackup.passphraseKey(encode(PASSPHRASE));
      const before = unhandled.length;
      let code = null;
      try {
        await core.newBackup.write(backup, key, {
          iterations: 1000, chunkSize: 1024, signal: controller.signal,
          output: () => new Promise((resolve, reject) => setTimeout(() => reject(undefined), 5)),
          onKey: () => controller.abort(),
        });
      } catch (error) {
        code = error && error.code;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      equal(code, "interrupted", "the code");
      equal(unhandled.length - before, 0, "unhandled rejections");
    }
  }
});

await runner.test("runs: a photo's CRC-32 wrong in every run position, chunks of 1 KiB", async () => {
  const sealed = seal(odd.folder, path.join(scratch, "odd-crc.goshuin"), 4096);
  for (const name of Object.keys(odd.files).filter((n) => n !== "records.csv" && odd.files[n].length > 0)) {
    const backup = await core.openBackup(core.bytesSource(new Uint8Array(sealed)), encode(PASSPHRASE));
    backup.byName.get(name).crc32 ^= 0x80000000;
    let code = null;
    try {
      await writeNew(backup, PASSPHRASE, { chunkSize: 1024 });
    } catch (error) {
      code = error.code;
    }
    equal(code, "entry_corrupt", name);
  }
  equal(unhandled.length, 0, "unhandled rejections");
});

await runner.test("runs: 21 MiB in runs of several chunks of 1 MiB and 4 MiB, source chunks of 4 MiB and 64 KiB", async () => {
  const mib = 1048576;
  const large = makeFolder("large", [3 * mib + 17, 5 * mib + 1000, 700 * 1024, 6 * mib + 5, 2 * mib + 333, 4 * mib]);
  for (const sourceChunk of [undefined, 65536]) {
    const sealed = seal(large.folder, path.join(scratch, `large-${sourceChunk}.goshuin`), sourceChunk);
    const zip = openByReference(sealed, PASSPHRASE);
    for (const chunkSize of [mib, mib + 1, undefined]) {
      const bytes = await saveAndCompare(sealed, zip, `large, source ${sourceChunk}, new ${chunkSize}`, { write: { chunkSize } });
      if (chunkSize === mib && !sourceChunk) verifyWithTool(bytes, PASSPHRASE, "large-new.goshuin");
    }
  }
});

await runner.test("runs: a run that reads the wrong bytes (an offset off by one, another photo's bytes) is caught by the CRC-32", async () => {
  const twins = makeFolder("twins", [5000, 5000, 9000, 1024, 1024]);
  const sealed = seal(twins.folder, path.join(scratch, "twins.goshuin"), 1024);
  const codeOf = async (alter) => {
    const backup = await core.openBackup(core.bytesSource(new Uint8Array(sealed)), encode(PASSPHRASE));
    alter(backup);
    try {
      await writeNew(backup, PASSPHRASE, { chunkSize: 1024 });
      return null;
    } catch (error) {
      return error.code;
    }
  };
  for (const name of Object.keys(twins.files).filter((n) => n !== "records.csv")) {
    for (const shift of [1, -1]) equal(await codeOf((b) => (b.byName.get(name).dataOffset += shift)), "entry_corrupt", name + " shifted " + shift);
  }
  for (const [a, b] of [["IMG_0001.jpg", "IMG_0002.jpg"], ["IMG_0004.jpg", "IMG_0005.jpg"]]) {
    const code = await codeOf((backup) => {
      const x = backup.byName.get(a), y = backup.byName.get(b);
      [x.dataOffset, y.dataOffset] = [y.dataOffset, x.dataOffset];
    });
    equal(code, "entry_corrupt", a + " and " + b + " swapped");
  }
});

/** `zip` (a ZIP seal wrote, no ZIP64) with the entries `names` deflated (raw deflate), everything else as it was. */
async function deflated(zip, names, deflate = null) {
  const zlib = await import("node:zlib");
  deflate = deflate || zlib.deflateRawSync;
  const end = zip.length - 22;
  const count = zip.readUInt16LE(end + 10);
  let cd = zip.readUInt32LE(end + 16);
  const locals = [];
  const centrals = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const n = zip.readUInt16LE(cd + 28), e = zip.readUInt16LE(cd + 30), c = zip.readUInt16LE(cd + 32);
    const name = zip.subarray(cd + 46, cd + 46 + n).toString();
    const offset = zip.readUInt32LE(cd + 42);
    const ln = zip.readUInt16LE(offset + 26), le = zip.readUInt16LE(offset + 28);
    const dataAt = offset + 30 + ln + le;
    let data = zip.subarray(dataAt, dataAt + zip.readUInt32LE(cd + 20));
    const local = Buffer.from(zip.subarray(offset, dataAt));
    const central = Buffer.from(zip.subarray(cd, cd + 46 + n + e + c));
    if (names.includes(name)) {
      data = deflate(data);
      local.writeUInt16LE(8, 8);
      local.writeUInt32LE(data.length, 18);
      central.writeUInt16LE(8, 10);
      central.writeUInt32LE(data.length, 20);
    }
    central.writeUInt32LE(at, 42);
    locals.push(local, data);
    centrals.push(central);
    at += local.length + data.length;
    cd += central.length;
  }
  const directory = Buffer.concat(centrals);
  const eocd = Buffer.from(zip.subarray(end));
  eocd.writeUInt32LE(directory.length, 12);
  eocd.writeUInt32LE(at, 16);
  return Buffer.concat([...locals, directory, eocd]);
}

function sealByReference(zip, chunkSize) {
  const out = [];
  reference.seal(referenceSource(zip), { write: (bytes) => out.push(Buffer.from(bytes)) }, {
    passphrase: Buffer.from(PASSPHRASE, "utf8"), iterations: 1000, chunkSize, salt: crypto.randomBytes(16), nonceBase: crypto.randomBytes(8),
  });
  return Buffer.concat(out);
}

await runner.test("the room asked for holds a records.csv whose deflate data a crafted backup padded (kept as it is)", async () => {
  // seal deflated records.csv; 30,000 empty stored blocks put before its deflate data still inflate to it, and
  // the new backup keeps the backup's own deflate data (recordsKept): 150 KB more than the file stored.
  const zip = openByReference(smallSealed, PASSPHRASE);
  const padding = Buffer.concat(Array.from({ length: 30000 }, () => Buffer.from([0, 0, 0, 0xff, 0xff])));
  const sealed = sealByReference(await deflated(zip, ["records.csv"], (data) => Buffer.concat([padding, data])), 4096);
  const backup = await core.openBackup(core.bytesSource(new Uint8Array(sealed)), encode(PASSPHRASE));
  assert(Number(backup.byName.get("records.csv").compressedSize) > 150000, "padded in the source");
  const { bytes } = await writeNew(backup, PASSPHRASE);
  assert(bytes.length > 150000, "the padding kept: " + bytes.length);
  const most = core.newBackup.sizeAtMost(backup);
  assert(most >= bytes.length, "at most " + most + ", took " + bytes.length);
});

await runner.test("runs: a backup whose photos are deflated is written by this thread, as seal writes the folder", async () => {
  const folder = makeFolder("deflated", [3000, 0, 70000, 4096]);
  for (const [name, bytes] of Object.entries(folder.files)) {
    if (name === "records.csv") continue;
    const random = crypto.randomBytes(bytes.length);
    fs.writeFileSync(path.join(folder.folder, name), random);
    folder.files[name] = random;
  }
  Object.keys(folder.files).forEach((name, i) => fs.utimesSync(path.join(folder.folder, name), MTIME + i * 60, MTIME + i * 60));
  const zip = openByReference(seal(folder.folder, path.join(scratch, "deflated-src.goshuin")), PASSPHRASE);
  for (const names of [["IMG_0003.jpg"], ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0004.jpg"]]) {
    const sealed = sealByReference(await deflated(zip, names), 1024);
    const backup = await core.openBackup(core.bytesSource(new Uint8Array(sealed)), encode(PASSPHRASE));
    equal(backup.byName.get(names[0]).method, 8, "deflated in the source");
    for (const chunkSize of [1024, undefined]) {
      const { bytes } = await writeNew(backup, PASSPHRASE, { chunkSize });
      assert(openByReference(bytes, PASSPHRASE).equals(zip), "the ZIP differs from seal's, " + names);
    }
  }
});

/**
 * Runs `save(markEnd)` and counts the chunks WebCrypto encrypts once `markEnd()` is called or the save has
 * ended (and `settle` ms after): work a save that has ended must not go on doing. Returns { code, after }.
 */
async function encryptsAfterEnd(save, settle) {
  const subtle = globalThis.crypto.subtle;
  const encrypt = subtle.encrypt;
  let ended = false;
  let after = 0;
  subtle.encrypt = function (...args) {
    if (ended) after++;
    return encrypt.apply(subtle, args);
  };
  let code = null;
  try {
    try {
      await save(() => { ended = true; });
    } catch (error) {
      code = error.code;
    }
    ended = true;
    await new Promise((resolve) => setTimeout(resolve, settle));
  } finally {
    delete subtle.encrypt; // the prototype's again
  }
  return { code, after };
}

await runner.test("runs: Stop while the key is derived: no run is read or sealed after it", async () => {
  const sealed = seal(odd.folder, path.join(scratch, "odd-k.goshuin"), 1024);
  // A Blob source: the runs' tasks are sent the file, as the page's workers are (no signal reaches them).
  for (const source of [core.bytesSource(new Uint8Array(sealed)), core.blobSource(new Blob([sealed]))]) {
    const backup = await core.openBackup(source, encode(PASSPHRASE));
    const controller = new AbortController();
    const { code, after } = await encryptsAfterEnd(
      (markEnd) => writeNew(backup, PASSPHRASE, { chunkSize: 1024, signal: controller.signal, onKey: () => { controller.abort(); markEnd(); } }),
      50
    );
    equal(code, "interrupted", "Stop");
    equal(after, 0, "chunks sealed after Stop" + (source.blob ? " (Blob source)" : ""));
  }
});

await runner.test("runs: a run that fails ends the others, also where the runs are in this thread", async () => {
  const sealed = seal(odd.folder, path.join(scratch, "odd-e.goshuin"), 1024);
  for (const source of [core.bytesSource(new Uint8Array(sealed)), core.blobSource(new Blob([sealed]))]) {
    const backup = await core.openBackup(source, encode(PASSPHRASE));
    backup.byName.get("IMG_0002.jpg").crc32 ^= 1; // in the first run
    const { code, after } = await encryptsAfterEnd(() => writeNew(backup, PASSPHRASE, { chunkSize: 1024 }), 100);
    equal(code, "entry_corrupt", "code");
    equal(after, 0, "chunks sealed after the save failed" + (source.blob ? " (Blob source)" : ""));
  }
});

await runner.test("runs: SealerV1.putSealed with a run's records as one Blob, then write(): the chunk index goes on", async () => {
  const payload = crypto.randomBytes(3000);
  const out = [];
  const key = await core.newBackup.passphraseKey(encode(PASSPHRASE));
  const sealer = await core.newBackup.SealerV1.create(key, payload.length, {
    iterations: 1000, chunkSize: 1024, output: async (bytes) => out.push(bytes instanceof Blob ? Buffer.from(await bytes.arrayBuffer()) : Buffer.from(bytes)),
  });
  const records = [];
  for (let index = 0; index < 2; index++) {
    const nonce = new Uint8Array(12);
    nonce.set(sealer.nonceBase);
    new DataView(nonce.buffer).setUint32(8, index);
    const sealed = new Uint8Array(await globalThis.crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: sealer.header, tagLength: 128 }, sealer.key, payload.subarray(index * 1024, index * 1024 + 1024)));
    const record = Buffer.alloc(4 + sealed.length);
    record.writeUInt32BE(sealed.length, 0);
    record.set(sealed, 4);
    records.push(record);
  }
  await sealer.putSealed([new Blob(records)], 2048); // a worker's run with `blobs`: one Blob of two records
  await sealer.write(payload.subarray(2048));
  await sealer.finish();
  assert(openByReference(Buffer.concat(out), PASSPHRASE).equals(payload), "the payload");
});

await runner.test("runs: a run's buffer used again holds the last run's bytes: a run whose pieces leave a gap fails (internal)", async () => {
  const { sealChunksTask } = await import("../src/core/26-sealing-task.mjs");
  const key = await globalThis.crypto.subtle.importKey("raw", crypto.randomBytes(32), "AES-GCM", false, ["encrypt", "decrypt"]);
  const header = new Uint8Array(45);
  const nonceBase = new Uint8Array(8);
  const sealing = { key, header, nonceBase, chunkSize: 1024, plaintextLength: 4096, blobs: false };
  const run = (first, pieces) => sealChunksTask({ first, last: first + 1, sealing, pieces }, {}, null);
  const opened = async (record, index) => {
    const nonce = new Uint8Array(12);
    new DataView(nonce.buffer).setUint32(8, index);
    return Buffer.from(await globalThis.crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce, additionalData: header, tagLength: 128 }, key, new Uint8Array(record, 4)));
  };
  const first = crypto.randomBytes(2048);
  const sealed = await run(0, [{ at: 0, bytes: first }]);
  assert((await opened(sealed.result.records[1], 1)).equals(first.subarray(1024)), "the first run");
  // The second run's buffer is the first's (this thread keeps it): 16 bytes left unwritten would be the first
  // run's, sealed into the new backup.
  const code = await run(2, [{ at: 2048, bytes: crypto.randomBytes(1000) }, { at: 3064, bytes: crypto.randomBytes(1032) }]).then(
    () => null,
    (error) => error.code
  );
  equal(code, "internal", "a run with a gap");
  const second = crypto.randomBytes(2048);
  const again = await run(2, [{ at: 2048, bytes: second.subarray(0, 1000) }, { at: 3048, bytes: second.subarray(1000) }]);
  assert((await opened(again.result.records[0], 2)).equals(second.subarray(0, 1024)), "the second run, whole");
});

await runner.test("SpareBuffers: a kept buffer serves sizes within its slack, each taken by one taker at a time", async () => {
  const { SpareBuffers } = await import("../src/core/00-bytes.mjs");
  const mib = 1048576;
  const runs = new SpareBuffers(2, mib);
  const first = runs.take(3 * mib + 5);
  equal(first.buffer.byteLength, 4 * mib, "rounded up to a MiB");
  runs.keep(first);
  runs.keep(first);
  equal(runs.kept.length, 1, "kept once");
  equal(runs.take(2 * mib).buffer === first.buffer, false, "a buffer 2 MiB larger serves no run (slack under a MiB)");
  const again = runs.take(3 * mib + 100);
  equal(again.buffer, first.buffer, "the kept buffer, for a size within its slack");
  equal(again.length, 3 * mib + 100, "a view of the size asked");
  equal(runs.take(3 * mib + 100).buffer === first.buffer, false, "taken: not handed out twice");
  const digests = new SpareBuffers(2, mib, Infinity);
  const large = digests.take(6 * mib);
  digests.keep(large);
  equal(digests.take(100).buffer, large.buffer, "a digest buffer serves any photo it can hold");
  const reads = new SpareBuffers(4, 1);
  const read = reads.take(1000);
  equal(read.buffer.byteLength, 1000, "reads: exactly their size");
  reads.keep(read);
  equal(reads.take(999).buffer === read.buffer, false, "reads: never a larger buffer");
  equal(reads.take(1000).buffer, read.buffer, "reads: the same size");
});

await runner.test("runs: source chunks of 4, 6 and 7 MiB, a chunk given back once used (ArrayBuffer transfer), as browsers do", async () => {
  // Browsers detach a chunk given back (transfer(0)); Node 20 has no transfer, so one that detaches stands in.
  const native = ArrayBuffer.prototype.transfer;
  let given = 0;
  if (typeof native !== "function") {
    ArrayBuffer.prototype.transfer = function (length) {
      given++;
      structuredClone(this, { transfer: [this] });
      return new ArrayBuffer(length || 0);
    };
  }
  try {
    const mib = 1048576;
    // 130 MiB: runs of 16 MiB, each over three source chunks (runs are about an eighth of the payload).
    const big = makeFolder("big-chunks", [70 * mib + 5, 60 * mib]);
    const expected = openByReference(seal(big.folder, path.join(scratch, "big-expected.goshuin")), PASSPHRASE);
    // 7 MiB and 6 MiB + 1 KiB: the cache (12 MiB) holds two chunks, the one a run is copying and the next.
    for (const sourceChunk of [4 * mib, 6 * mib + 1024, 7 * mib]) {
      const sealed = seal(big.folder, path.join(scratch, `big-${sourceChunk}.goshuin`), sourceChunk);
      await saveAndCompare(sealed, expected, "source chunks of " + sourceChunk, { write: { chunkSize: mib } });
    }
    if (typeof native !== "function") assert(given > 0, "no chunk was given back: the test tests nothing");
  } finally {
    if (typeof native !== "function") delete ArrayBuffer.prototype.transfer;
  }
});

fs.rmSync(scratch, { recursive: true, force: true });
runner.finish("web-new-backup");
