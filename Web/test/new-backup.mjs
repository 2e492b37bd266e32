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
  await rescueCheck(path.join(scratch, "cut.goshuin"), bytes, "cut");
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
});

fs.rmSync(scratch, { recursive: true, force: true });
runner.finish("web-new-backup");
