#!/usr/bin/env node
// The page's own decoding code under Node 20 (the same WebCrypto and DecompressionStream as a browser):
//
//   node Web/test/vectors.mjs [KNOWN_ANSWER_DIR]        (default: KnownAnswer/ of this repository)
//
// 1. every committed known-answer vector: the key, the verdict (code and chunk index) whatever order the
//    chunks are read in, the plaintext's SHA-256 on success and the released prefix on failure;
// 2. the backup vector, and backups built here, through the ZIP scan, the manifest and the binding;
// 3. the ZIPs of archive-cases.mjs (valid ones and hostile ones for every rule of Spec/backup-v1.md §4
//    and the order of §4.1, the same as the shared corpus Tests/ArchiveCorpus), sealed by a small sealer
//    written here from container-v1.md (node:crypto), and opened as the page opens a file;
// 4. SHA-256, CRC-32, the CSV reader and the ZIP writer of the page.
//
// The script under test is the one inside Web/goshuin-open.html, taken from the committed page.
import { createCipheriv, createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { mkdirSync, openAsBlob, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import zlib from "node:zlib";
import { PHOTOS, RECORDS, archiveCases, backupEntries, bytesOf, crc32, deflateRaw, makeZip, manifestFor, png } from "./archive-cases.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, "..", "..");
const argv = process.argv.slice(2);
// --write-cases DIR: also write every sealed hostile-ZIP case and its expected code to DIR (cases.json),
// so that the browser test runs the same suite in Chromium.
const writeCasesAt = argv.includes("--write-cases") ? argv.splice(argv.indexOf("--write-cases"), 2)[1] : null;
const vectorDir = argv[0] || join(repository, "KnownAnswer");
const writtenCases = [];

// ---- the page's script

const page = readFileSync(join(here, "..", "goshuin-open.html"), "utf8");
const scriptMatch = /<script>([\s\S]*)<\/script>/.exec(page);
if (!scriptMatch) throw new Error("no script in goshuin-open.html");
vm.runInThisContext(scriptMatch[1], { filename: "goshuin-open.html" });
const core = globalThis.GoshuinCore;

// ---- a minimal runner

let passed = 0;
let failed = 0;
const failures = [];
let prefix = "";
async function test(name, body) {
  name = prefix + name;
  try {
    await body();
    passed++;
  } catch (error) {
    failed++;
    failures.push(name);
    console.log(`FAIL ${name}: ${error && error.stack ? error.stack : error}`);
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message || "assertion failed");
}
function equal(actual, expected, message) {
  if (actual !== expected) throw new Error(`${message || "values differ"}: got ${String(actual)}, expected ${String(expected)}`);
}
const hex = (bytes) => Buffer.from(bytes).toString("hex");

// ---- a sealer written from container-v1.md, for fixtures

function u32be(value) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}
function seal(payload, passphrase, { iterations = 1000, chunkSize = 1024, salt = randomBytes(16), nonceBase = randomBytes(8) } = {}) {
  const header = Buffer.alloc(45);
  header.write("GSHN", 0, "latin1");
  header[4] = 1;
  header.writeUInt32BE(iterations, 5);
  Buffer.from(salt).copy(header, 9);
  Buffer.from(nonceBase).copy(header, 25);
  header.writeUInt32BE(chunkSize, 33);
  header.writeBigUInt64BE(BigInt(payload.length), 37);
  const key = pbkdf2Sync(Buffer.from(passphrase), Buffer.from(salt), iterations, 32, "sha256");
  const parts = [header];
  for (let i = 0, offset = 0; offset < payload.length; i++, offset += chunkSize) {
    const plain = payload.subarray(offset, Math.min(payload.length, offset + chunkSize));
    const cipher = createCipheriv("aes-256-gcm", key, Buffer.concat([Buffer.from(nonceBase), u32be(i)]));
    cipher.setAAD(header);
    const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    parts.push(u32be(body.length), body);
  }
  return new Uint8Array(Buffer.concat(parts));
}
const PASSPHRASE = "correct horse battery staple";
const passBytes = () => new TextEncoder().encode(PASSPHRASE);

async function openBytes(fileBytes, passphrase = PASSPHRASE) {
  try {
    const backup = await core.openBackup(core.bytesSource(fileBytes), new TextEncoder().encode(passphrase));
    return { code: "success", backup };
  } catch (error) {
    if (!(error instanceof core.GoshuinError)) throw error;
    return { code: error.code, chunkIndex: error.chunkIndex, detail: error.detail };
  }
}

// ---- ZIPs: built by archive-cases.mjs

async function openZip(zip, options) {
  return openBytes(seal(zip, PASSPHRASE, options));
}
async function expectZip(name, zip, code, options) {
  await test(name, async () => {
    const file = seal(zip, PASSPHRASE, options);
    if (writeCasesAt && prefix === "") writtenCases.push({ name, code, file });
    const result = await openBytes(file);
    equal(result.code, code, `${name} (${result.detail || ""})`);
  });
}

// ======== 1. known-answer vectors

async function vectorTests() {
  const names = readdirSync(vectorDir).filter((n) => n.endsWith(".json")).sort();
  assert(names.length > 0, `no vectors in ${vectorDir}`);
  const structural = new Set([
    "short_header", "bad_magic", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range",
    "empty_payload", "too_many_chunks", "truncated", "trailing_data", "chunk_length_invalid",
  ]);
  for (const jsonName of names) {
    const vector = JSON.parse(readFileSync(join(vectorDir, jsonName), "utf8"));
    await test(`vector ${vector.name}`, async () => {
      const passphrase = vector.passphraseHex !== undefined ? new Uint8Array(Buffer.from(vector.passphraseHex, "hex")) : new TextEncoder().encode(vector.passphrase);
      equal(hex(await core.pbkdf2(passphrase, new Uint8Array(Buffer.from(vector.salt, "hex")), vector.iterations)), vector.key, "key");
      const blob = await openAsBlob(join(vectorDir, vector.file));
      const source = core.blobSource(blob);
      let keyDerived = false;
      let reader;
      try {
        reader = await core.openContainer(source, passphrase, { onKeyDerivation: () => (keyDerived = true) });
      } catch (error) {
        if (!(error instanceof core.GoshuinError)) throw error;
        equal(error.code, vector.expect, "code");
        equal(error.chunkIndex, vector.chunkIndex, "chunk index");
        assert(structural.has(error.code), `${error.code} before the key derivation`);
        assert(!keyDerived, "the key was derived before a structural failure was reported");
        equal(vector.releasedLength, 0, "released length");
        return;
      }
      assert(!structural.has(vector.expect), `expected ${vector.expect} before the key derivation, but the key was derived`);
      const count = reader.header.chunkCount;
      // In order: the verdict, and what a streaming reader would have released before it.
      const hash = createHash("sha256");
      let released = 0;
      let verdict = { code: "success" };
      for (let i = 0; i < count; i++) {
        try {
          const bytes = await reader.chunk(i);
          hash.update(bytes);
          released += bytes.length;
        } catch (error) {
          if (!(error instanceof core.GoshuinError)) throw error;
          verdict = { code: error.code, chunkIndex: error.chunkIndex };
          break;
        }
      }
      equal(verdict.code, vector.expect, "code (chunks in order)");
      equal(verdict.chunkIndex, vector.chunkIndex, "chunk index (chunks in order)");
      if (vector.expect === "success") {
        equal(released, vector.plaintextLength, "plaintext length");
        equal(hash.digest("hex"), vector.plaintextSha256, "plaintext SHA-256");
      } else {
        equal(released, vector.releasedLength, "released length");
        equal(hash.digest("hex"), vector.releasedSha256, "released SHA-256");
      }
      // Any other order gives the same verdict: the last chunk first (as the page reads a ZIP), then the
      // others; and a shuffled order.
      const orders = [[count - 1, ...Array.from({ length: count - 1 }, (_, i) => i)]];
      const shuffled = Array.from({ length: count }, (_, i) => i);
      let seed = vector.name.length * 7919;
      for (let i = shuffled.length - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const j = seed % (i + 1);
        [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
      }
      orders.push(shuffled);
      for (const order of orders) {
        const fresh = new core.ContainerReader(source, reader.header, reader.key);
        let other = { code: "success" };
        for (const i of order) {
          try {
            await fresh.chunk(i);
          } catch (error) {
            if (!(error instanceof core.GoshuinError)) throw error;
            other = { code: error.code, chunkIndex: error.chunkIndex };
            break;
          }
        }
        equal(other.code, vector.expect, `code (order ${order.slice(0, 6)}…)`);
        equal(other.chunkIndex, vector.chunkIndex, `chunk index (order ${order.slice(0, 6)}…)`);
      }
    });
  }

  await test("vector success-backup-zip opens as a backup", async () => {
    const vector = JSON.parse(readFileSync(join(vectorDir, "success-backup-zip.json"), "utf8"));
    const blob = await openAsBlob(join(vectorDir, vector.file));
    const backup = await core.openBackup(core.blobSource(blob), new TextEncoder().encode(vector.passphrase));
    equal(backup.createdAt, "2026-11-29T12:00:00Z", "createdAt");
    equal(backup.photos.map((p) => p.name).join(","), "photo-0001.jpg", "photos");
    const rows = core.parseCsv(new TextDecoder().decode(await backup.read("records.csv")));
    equal(rows.length, 4, "rows");
    equal(rows[0].join("|"), "date|shrine|prefecture|note", "header row");
    equal(rows[3][3], "high tide, torii in the sea", "quoted cell");
    equal(backup.files.map((f) => f.name).join(","), "manifest.json,records.csv,photo-0001.jpg", "files");
  });
}

// ======== 2. the rule "one verdict per file" on files damaged here

async function verdictTests() {
  const payload = new Uint8Array(randomBytes(1024 * 7 + 100));
  const count = 8;
  const sealed = seal(payload, PASSPHRASE);
  const damage = (file, chunks) => {
    const copy = file.slice();
    for (const i of chunks) copy[45 + i * 1044 + 4 + 10] ^= 1;
    return copy;
  };
  const expected = (set) => {
    if (set.length === 0) return { code: "success" };
    const lowest = Math.min(...set);
    if (lowest > 0) return { code: "chunk_damaged", chunkIndex: lowest };
    for (let j = 1; j <= 3 && j < count; j++) if (!set.includes(j)) return { code: "chunk_damaged", chunkIndex: 0 };
    return { code: "auth_failed" };
  };
  const sets = [[], [0], [1], [7], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7], [2, 5], [0, 5], [1, 2, 3], [6, 7], [0, 2, 3]];
  for (const set of sets) {
    await test(`one verdict per file: damaged chunks [${set}]`, async () => {
      const file = damage(sealed, set);
      const want = expected(set);
      const source = core.bytesSource(file);
      const reader = await core.openContainer(source, passBytes());
      for (const order of [[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0], [5, 0, 7, 2, 1, 6, 3, 4], [3, 7]]) {
        const fresh = new core.ContainerReader(source, reader.header, reader.key);
        let got = { code: "success" };
        for (const i of order) {
          try {
            await fresh.chunk(i);
          } catch (error) {
            got = { code: error.code, chunkIndex: error.chunkIndex };
            break;
          }
        }
        if (order.length < count && got.code === "success") continue; // the damage is elsewhere
        equal(got.code, want.code, `order ${order}`);
        equal(got.chunkIndex, want.chunkIndex, `index, order ${order}`);
      }
    });
  }
  await test("a wrong passphrase is auth_failed, found from the last chunk", async () => {
    const result = await openBytes(seal(makeZip(backupEntries()), PASSPHRASE), "Correct horse battery staple");
    equal(result.code, "auth_failed");
  });
  await test("a damaged middle chunk of a backup is chunk_damaged at its index", async () => {
    const zip = makeZip(backupEntries({ photos: [{ name: "big.jpg", data: randomBytes(5000) }] }));
    const file = seal(zip, PASSPHRASE);
    file[45 + 3 * 1044 + 4 + 100] ^= 0x80;
    const result = await openBytes(file);
    equal(result.code, "chunk_damaged");
    equal(result.chunkIndex, 3);
  });
  // Spec/backup-v1.md §4.1 step 0: a fault of the payload is reported only in a file whose every chunk
  // authenticates; otherwise the chunk's verdict, as a reader in index order (open -o) gives it. The page
  // reads the manifest from the last chunks and stops the streaming pass at the first bad entry, so the
  // damaged chunks below are ones it has not read when it finds the fault.
  const big = { name: "big.jpg", data: randomBytes(5000) }; // stored: its data covers chunks 1–4
  const invalidManifest = JSON.stringify({ ...JSON.parse(manifestFor(RECORDS, [big])), purchases: [] });
  const payloadFaults = [
    ["manifest_invalid", "an unknown key in manifest.json (step 3)", makeZip(backupEntries({ photos: [big], manifest: invalidManifest }))],
    ["unsafe_entry_name", "a name with a space (step 2)", makeZip([...backupEntries({ photos: [big] }), { name: "a b.jpg", data: "x" }])],
    ["entry_corrupt", "records.csv's CRC-32, the first entry (step 5)", makeZip(backupEntries({ photos: [big] }).map((e, i) => (i === 0 ? { ...e, crc: 12345 } : e)))],
  ];
  for (const [code, what, zip] of payloadFaults) {
    const sealed = seal(zip, PASSPHRASE);
    const count = Math.ceil(zip.length / 1024);
    for (const [set, want] of [
      [[], { code }],
      [[1], { code: "chunk_damaged", chunkIndex: 1 }],
      [[3, 2], { code: "chunk_damaged", chunkIndex: 2 }],
      [[0], { code: "chunk_damaged", chunkIndex: 0 }],
      [[0, 1, 2, 3], { code: "auth_failed" }],
    ]) {
      const name = `§4.1 step 0: ${what}${set.length ? ` and damaged chunks [${set}] of ${count}` : ""}: ${want.code}`;
      await test(name, async () => {
        assert(count >= 6, `only ${count} chunks`);
        const file = sealed.slice();
        for (const i of set) file[45 + i * 1044 + 4 + 10] ^= 1;
        if (writeCasesAt && prefix === "") writtenCases.push({ name, code: want.code, file });
        const stages = new Set();
        let result;
        try {
          await core.openBackup(core.bytesSource(file), passBytes(), { onProgress: (stage) => stages.add(stage) });
          result = { code: "success" };
        } catch (error) {
          if (!(error instanceof core.GoshuinError)) throw error;
          result = { code: error.code, chunkIndex: error.chunkIndex, detail: error.detail };
        }
        equal(result.code, want.code, `code (${result.detail})`);
        equal(result.chunkIndex, want.chunkIndex, "chunk index");
        // The fault is found before every chunk was read: the page shows the pass that authenticates the rest.
        if (set.length === 0) assert(stages.has("rest"), `stages ${[...stages]}`);
      });
    }
  }
  await test("a header changed in bounds is auth_failed", async () => {
    const file = seal(makeZip(backupEntries()), PASSPHRASE);
    file[20] ^= 1; // salt
    equal((await openBytes(file)).code, "auth_failed");
  });
}

// ======== 3. the ZIP scan, the manifest, the binding

async function zipTests() {
  const valid = makeZip(backupEntries());
  await test("a valid backup opens, in 1 KiB and in 64 KiB chunks", async () => {
    for (const chunkSize of [1024, 65536]) {
      const result = await openZip(valid, { chunkSize });
      equal(result.code, "success", result.detail);
      const backup = result.backup;
      equal(backup.photos.map((p) => p.name).join(","), "IMG_0001.jpg,IMG_0002.png");
      equal(hex(await backup.read("IMG_0002.png")), hex(PHOTOS[1].data), "photo bytes");
      const rows = core.parseCsv(new TextDecoder().decode(await backup.read("records.csv")));
      equal(rows[2][3], '<b>bold</b>, "quoted"', "a cell with HTML and quotes is text");
    }
  });
  await test("a backup with no photos and empty records opens", async () => {
    const result = await openZip(makeZip(backupEntries({ records: "", photos: [] })));
    equal(result.code, "success", result.detail);
    equal(core.parseCsv(new TextDecoder().decode(await result.backup.read("records.csv"))).length, 0);
  });
  // Every case of the shared corpus. A payload of 0 bytes is the container's empty_payload before any ZIP
  // is read.
  for (const c of archiveCases()) {
    const code = c.expect;
    await expectZip(`${c.name}: ${c.comment}`, c.zip, c.zip.length === 0 ? "empty_payload" : code === "ok" ? "success" : code);
  }
}

// ======== 4. building blocks

async function unitTests() {
  await test("SHA-256 agrees with WebCrypto for lengths 0–300, split anywhere, and 3 MiB", async () => {
    for (let length = 0; length <= 300; length++) {
      const data = new Uint8Array(randomBytes(length));
      const want = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", data)));
      equal(hex(core.sha256(data)), want, `length ${length}`);
      const split = Math.floor(length / 3);
      const h = new core.Sha256();
      h.update(data.subarray(0, split)).update(data.subarray(split, split * 2)).update(data.subarray(split * 2));
      equal(hex(h.digest()), want, `split, length ${length}`);
    }
    const big = new Uint8Array(randomBytes(3 * 1048576 + 17));
    const h = new core.Sha256();
    for (let at = 0; at < big.length; at += 65537) h.update(big.subarray(at, at + 65537));
    equal(hex(h.digest()), hex(new Uint8Array(await crypto.subtle.digest("SHA-256", big))), "3 MiB");
    equal(hex(core.sha256(new TextEncoder().encode("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "FIPS 180-2 abc");
  });
  await test("CRC-32: the check value and a bitwise reference", async () => {
    equal(core.crc32Update(0, new TextEncoder().encode("123456789")), 0xcbf43926, "check value");
    for (const length of [0, 1, 7, 8, 9, 63, 64, 1000, 4099]) {
      const data = new Uint8Array(randomBytes(length));
      equal(core.crc32Update(0, data), crc32(data), `length ${length}`);
      equal(core.crc32Update(core.crc32Update(0, data.subarray(0, length >> 1)), data.subarray(length >> 1)), crc32(data), `split ${length}`);
    }
  });
  await test("CSV: quotes, doubled quotes, line breaks in quotes, CRLF, BOM, ragged rows", async () => {
    const rows = core.parseCsv('\ufeffa,b,c\r\n1,"x, ""y""\nz",3\r\n\r\n4,5\n"",,\n');
    equal(JSON.stringify(rows), JSON.stringify([["a", "b", "c"], ["1", 'x, "y"\nz', "3"], ["4", "5"], ["", "", ""]]));
    equal(JSON.stringify(core.parseCsv("a,b")), JSON.stringify([["a", "b"]]), "no final newline");
    equal(JSON.stringify(core.parseCsv('"unterminated,1\n2')), JSON.stringify([["unterminated,1\n2"]]), "an unterminated quote");
    equal(core.parseCsv("").length, 0, "empty");
  });
  await test("names: §3.1 and §3.2 (extensions in any case)", async () => {
    const safe = (s) => core.isSafeEntryName(new TextEncoder().encode(s));
    assert(safe("a") && safe("a.jpg") && safe("...a") && safe("A-Z_0.9"), "safe names");
    assert(!safe("") && !safe(".") && !safe("..") && !safe("a b") && !safe("é") && !safe("a".repeat(256)), "unsafe names");
    for (const ok of ["IMG_0001.jpg", "X.jpeg", "9.heic", "Z.heif", "p-1_2.webp", "a".repeat(100) + ".png", "CON1.jpg", "COM10.jpg", "console.jpg",
      "IMG_0001.HEIC", "IMG_0003.JPG", "x.Jpeg", "Z.HEIF", "p.WebP", "a.PNG", "b.hEiF"])
      assert(core.isValidPhotoName(ok), ok);
    for (const bad of ["con.jpg", "CON.JPG", "com1.png", "LPT9.heic", "aux.webp", "a.gif", "a.jpg.jpg", "_a.jpg", "a", "a".repeat(101) + ".jpg", "a b.jpg", "a.jp g",
      "a.GIF", "a.JPG.JPG", "a.JPGX", "Nul.Png", "a.he\u0131c", "a.HE\u0130C"])
      assert(!core.isValidPhotoName(bad), bad);
  });
  await test("the tests' deflate encoder: zlib inflates it back; without BFINAL it never ends", async () => {
    for (const text of ["", "a", RECORDS, "a".repeat(70000), Buffer.concat([randomBytes(3000), Buffer.alloc(600, 7)])]) {
      const data = bytesOf(text);
      equal(hex(zlib.inflateRawSync(deflateRaw(data))), hex(data), `length ${data.length}`);
      equal(hex(zlib.inflateRawSync(deflateRaw(data, { matches: true }))), hex(data), `with matches, length ${data.length}`);
    }
    // Matches at every distance code: a random 40 KiB block, then pieces of it copied from far and near.
    const random = randomBytes(40000);
    const copies = Buffer.concat([random, ...[1, 3, 7, 100, 1000, 5000, 20000, 32768, 39000].map((back) => random.subarray(40000 - back, 40000 - back + 300))]);
    equal(hex(zlib.inflateRawSync(deflateRaw(copies, { matches: true }))), hex(copies), "matches at many distances");
    assert(deflateRaw(copies, { matches: true }).length < deflateRaw(copies).length, "matches make it shorter");
    let ended = true;
    try {
      zlib.inflateRawSync(deflateRaw(RECORDS, { final: false }));
    } catch {
      ended = false;
    }
    assert(!ended, "deflate data without a final block inflated");
  });
  await test("the page reads a raw payload (payloadSource) as it reads a sealed one", async () => {
    const backup = await core.readBackup(core.payloadSource(makeZip(backupEntries()), 7));
    equal(hex(await backup.read("IMG_0001.jpg")), hex(PHOTOS[0].data), "photo bytes");
  });
  await test("the page's ZIP writer makes what its scanner accepts, with and without ZIP64", async () => {
    const files = [
      { name: "manifest.json", data: manifestFor(RECORDS, PHOTOS) },
      { name: "records.csv", data: RECORDS },
      ...PHOTOS,
    ];
    for (const limit of [undefined, 1, 100]) {
      const blob = core.buildZip(files.map((f) => ({ name: f.name, data: new Blob([bytesOf(f.data)]), crc32: crc32(bytesOf(f.data)) })), limit);
      const zip = new Uint8Array(await blob.arrayBuffer());
      const result = await openZip(zip);
      equal(result.code, "success", `limit ${limit}: ${result.detail}`);
      equal(hex(await result.backup.read("IMG_0001.jpg")), hex(PHOTOS[0].data), "bytes");
    }
  });
  await test("the ZIP plan's size is the ZIP's; files split into parts of a bounded size", async () => {
    const files = [{ name: "a.jpg", size: 10, crc32: 1 }, { name: "b.jpg", size: 300, crc32: 2 }, { name: "c.jpg", size: 5, crc32: 3 }];
    const blob = core.buildZip(files.map((f) => ({ name: f.name, data: new Blob([new Uint8Array(f.size)]), crc32: f.crc32 })));
    equal(core.zipPlan(files).size, blob.size, "size");
    equal(JSON.stringify(core.splitForZips(files, 100).map((g) => g.map((f) => f.name))), JSON.stringify([["a.jpg"], ["b.jpg"], ["c.jpg"]]));
    equal(JSON.stringify(core.splitForZips(files, 1000).map((g) => g.length)), JSON.stringify([3]));
    equal(JSON.stringify(core.splitForZips(files, 310).map((g) => g.length)), JSON.stringify([2, 1]));
  });
  await test("checks 1–9 come before the key derivation on a file of many small chunks", async () => {
    const file = seal(new Uint8Array(300 * 1024), PASSPHRASE);
    const last = 45 + 299 * 1044;
    file[last + 3] ^= 1;
    let derived = false;
    try {
      await core.openContainer(core.bytesSource(file), passBytes(), { onKeyDerivation: () => (derived = true) });
      throw new Error("opened");
    } catch (error) {
      equal(error.code, "chunk_length_invalid");
      equal(error.chunkIndex, 299);
      assert(!derived, "derived the key");
    }
  });
  await test("key derivation progress reaches 1", async () => {
    const seen = [];
    const file = seal(makeZip(backupEntries()), PASSPHRASE, { iterations: 200000 });
    await core.openBackup(core.bytesSource(file), passBytes(), { onProgress: (stage, done, total) => stage === "key" && seen.push(done / total) });
    assert(seen.length >= 2 && seen[seen.length - 1] === 1, `progress ${seen}`);
  });
  await test("every error code has advice", async () => {
    for (const code of ["short_header", "bad_magic", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range", "empty_payload", "too_many_chunks", "truncated", "trailing_data", "chunk_length_invalid", "auth_failed", "chunk_damaged", "zip_malformed", "unsafe_entry_name", "duplicate_entry", "unsupported_entry", "zip_limit_exceeded", "entry_corrupt", "manifest_invalid", "manifest_mismatch", "io"])
      assert(core.advice(code) !== core.advice("internal"), code);
  });
}

// ---- run

const started = Date.now();
if (writeCasesAt) mkdirSync(writeCasesAt, { recursive: true });
await vectorTests();
await verdictTests();
await zipTests();
// Again with every entry hashed by the page's incremental SHA-256 (entries above limits.bufferedDigest).
const bufferedDigest = core.limits.bufferedDigest;
core.limits.bufferedDigest = 0;
prefix = "[incremental SHA-256] ";
await zipTests();
core.limits.bufferedDigest = bufferedDigest;
prefix = "";
await unitTests();
console.log(`Node ${process.version}, DecompressionStream refuses trailing bytes: ${await core.inflateRefusesTrailingBytes()}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (writeCasesAt) {
  const index = writtenCases.map((c, i) => {
    const file = `case-${String(i).padStart(3, "0")}.goshuin`;
    writeFileSync(join(writeCasesAt, file), c.file);
    return { name: c.name, code: c.code, file };
  });
  writeFileSync(join(writeCasesAt, "cases.json"), JSON.stringify({ passphrase: PASSPHRASE, cases: index }, null, 1));
}
if (failures.length) console.log(`failed: ${failures.join("; ")}`);
console.log(`web-node: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
