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
import { createCipheriv, createHash, createHmac, hkdfSync, pbkdf2Sync, randomBytes } from "node:crypto";
import { mkdirSync, openAsBlob, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { backup as salvageBackupZip, expectations as salvageExpectations, pageResults as salvagePageResults, salvageExpectation, seal as sealNamed } from "./salvage-corpus.mjs";
import { assert, equal, hex, loadPageCore, testRunner } from "./page-harness.mjs";
import { PHOTOS, RECORDS, archiveCases, backupEntries, buildZip, bytesOf, crc32, deflateRaw, le, makeZip, manifestFor, png } from "./archive-cases.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, "..", "..");
const argv = process.argv.slice(2);
// --write-cases DIR: write every sealed hostile-ZIP case and its expected code to DIR (cases.json), so that
// the browser test runs the same suite in every engine; only the tests that make the cases run then.
const writeCasesAt = argv.includes("--write-cases") ? argv.splice(argv.indexOf("--write-cases"), 2)[1] : null;
const vectorDir = argv[0] || join(repository, "KnownAnswer");
const writtenCases = [];

// ---- the page's script and the runner

const core = await loadPageCore();
// Runs of the streaming pass (51-verify-entries.mjs) of at least 1 KiB, not 4 MiB: the vectors' backups are
// checked in several runs at once, their results taken in file order, as a large backup's are.
core.limits.verifyRun = 16384;
const runner = testRunner();
const test = runner.test;

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
/** A sealer written from container-v2.md (§2–§6): the header and its MAC, then records with the final flag. */
export function sealV2(payload, passphrase, { iterations = 1000, chunkSize = 1024, kdfSalt = randomBytes(16), payloadSalt = randomBytes(16) } = {}) {
  const passwordKey = pbkdf2Sync(Buffer.from(passphrase), Buffer.from(kdfSalt), iterations, 32, "sha256");
  const hkdf = (info) => Buffer.from(hkdfSync("sha256", passwordKey, Buffer.from(payloadSalt), Buffer.from(info, "latin1"), 32));
  const header = Buffer.alloc(77);
  header.write("GSHN", 0, "latin1");
  header[4] = 2;
  header.writeUInt32BE(iterations, 5);
  Buffer.from(kdfSalt).copy(header, 9);
  Buffer.from(payloadSalt).copy(header, 25);
  header.writeUInt32BE(chunkSize, 41);
  createHmac("sha256", hkdf("goshuin/v2/header-mac")).update(header.subarray(0, 45)).digest().copy(header, 45);
  const payloadKey = hkdf("goshuin/v2/payload");
  const parts = [header];
  const count = Math.floor(payload.length / chunkSize) + 1;
  for (let i = 0; i < count; i++) {
    const plain = payload.subarray(i * chunkSize, Math.min(payload.length, (i + 1) * chunkSize));
    const nonce = Buffer.alloc(12);
    nonce.writeUInt32BE(i, 7);
    nonce[11] = i === count - 1 ? 1 : 0;
    const cipher = createCipheriv("aes-256-gcm", payloadKey, nonce, { authTagLength: 16 });
    cipher.setAAD(header);
    parts.push(cipher.update(plain), cipher.final(), cipher.getAuthTag());
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
    return { code: error.code, chunkIndex: error.chunkIndex, detail: error.detail, advice: core.errorAdvice(error) };
  }
}

// ---- ZIPs: built by archive-cases.mjs

let sealer = seal; // the ZIP suite runs once more with every backup sealed as version 2
async function openZip(zip, options) {
  return openBytes(sealer(zip, PASSPHRASE, options));
}
async function expectZip(name, zip, code, options) {
  await test(name, async () => {
    const file = sealer(zip, PASSPHRASE, options);
    if (writeCasesAt && runner.prefix === "") writtenCases.push({ name, code, file });
    const result = await openBytes(file);
    equal(result.code, code, `${name} (${result.detail || ""})`);
  });
}

// ======== 1. known-answer vectors

/**
 * A vector's file as a source: the committed bytes, and with `fileSize` (vectors-v1.md §5.4) a virtual file
 * of that size whose bytes past them read as zeros (a 4 TiB file is never written).
 */
async function vectorSource(vector) {
  const blob = await openAsBlob(join(vectorDir, vector.file));
  if (vector.fileSize === undefined) return core.blobSource(blob);
  assert(vector.fileSize > blob.size, "fileSize is not larger than the file");
  const inner = core.blobSource(blob);
  return {
    size: vector.fileSize,
    read: async (offset, length) => {
      const out = new Uint8Array(length);
      const end = Math.min(blob.size, offset + length);
      if (offset < end) out.set(await inner.read(offset, end - offset), 0);
      return out;
    },
  };
}

async function vectorTests() {
  const names = readdirSync(vectorDir).filter((n) => n.endsWith(".json")).sort();
  assert(names.length > 0, `no vectors in ${vectorDir}`);
  const structural = new Set([
    "short_header", "bad_magic", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range",
    "empty_payload", "too_many_chunks", "truncated", "trailing_data", "chunk_length_invalid",
  ]);
  let versions = { 1: 0, 2: 0 };
  for (const jsonName of names) {
    const vector = JSON.parse(readFileSync(join(vectorDir, jsonName), "utf8"));
    await test(`vector ${vector.name}`, async () => {
      const version = vector.containerVersion ?? 1;
      versions[version]++;
      const passphrase = vector.passphraseHex !== undefined ? new Uint8Array(Buffer.from(vector.passphraseHex, "hex")) : new TextEncoder().encode(vector.passphrase);
      const passwordKey = await core.pbkdf2(passphrase, new Uint8Array(Buffer.from(vector.salt, "hex")), vector.iterations);
      equal(hex(passwordKey), vector.key, "key");
      if (version === 2) {
        // Each step on its own (vectors-v1.md §5.3): HKDF of the stated key, so an HKDF mistake shows as one.
        const keys = await core.deriveKeysV2(new Uint8Array(Buffer.from(vector.key, "hex")), new Uint8Array(Buffer.from(vector.payloadSalt, "hex")));
        equal(hex(keys.headerKey), vector.headerKey, "headerKey");
        equal(hex(keys.payloadKey), vector.payloadKey, "payloadKey");
      }
      const source = await vectorSource(vector);
      let keyDerived = false;
      let reader;
      try {
        reader = await core.openContainer(source, passphrase, { onKeyDerivation: () => (keyDerived = true) });
      } catch (error) {
        if (!(error instanceof core.GoshuinError)) throw error;
        equal(error.code, vector.expect, "code");
        equal(error.chunkIndex, vector.chunkIndex, "chunk index");
        if (error.code === "auth_failed") {
          // Version 2's check 9, the header MAC: after the key derivation, before any record.
          assert(keyDerived, "auth_failed without a key");
          assert(source.size >= 77 && (await source.read(4, 1))[0] === 2, "auth_failed before a record from a file that is not version 2");
        } else {
          assert(structural.has(error.code), `${error.code} before the key derivation`);
          assert(!keyDerived, "the key was derived before a structural failure was reported");
        }
        equal(vector.releasedLength, 0, "released length");
        return;
      }
      assert(!structural.has(vector.expect), `expected ${vector.expect} before the key derivation, but the key was derived`);
      equal(reader.header.version, (await source.read(4, 1))[0], "the rules of the file's version byte");
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

  await test("vectors of both container versions were read", async () => {
    assert(versions[1] >= 90 && versions[2] >= 80, `versions ${JSON.stringify(versions)}`);
  });

  for (const name of ["success-backup-zip", "v2-success-backup-zip"]) {
    await test(`vector ${name} opens as a backup`, async () => {
      const vector = JSON.parse(readFileSync(join(vectorDir, `${name}.json`), "utf8"));
      const blob = await openAsBlob(join(vectorDir, vector.file));
      const backup = await core.openBackup(core.blobSource(blob), new TextEncoder().encode(vector.passphrase));
      equal(backup.header.version, vector.containerVersion ?? 1, "version");
      equal(backup.createdAt, "2026-11-29T12:00:00Z", "createdAt");
      equal(backup.photos.map((p) => p.name).join(","), "photo-0001.jpg", "photos");
      const rows = core.parseCsv(new TextDecoder().decode(await backup.read("records.csv")));
      equal(rows.length, 4, "rows");
      equal(rows[0].join("|"), "date|shrine|prefecture|note", "header row");
      equal(rows[3][3], "high tide, torii in the sea", "quoted cell");
      equal(backup.files.map((f) => f.name).join(","), "manifest.json,records.csv,photo-0001.jpg", "files");
    });
  }

  // RFC 5869's cases (vectors-v1.md §5.5) through the page's HKDF and HMAC (WebCrypto).
  const hkdfCases = JSON.parse(readFileSync(join(vectorDir, "rfc5869", "hkdf-sha256.json"), "utf8"));
  assert(hkdfCases.hash === "SHA-256" && hkdfCases.tests.length >= 3, "rfc5869/hkdf-sha256.json");
  for (const c of hkdfCases.tests) {
    await test(`rfc5869/hkdf-sha256.json case ${c.tcId}`, async () => {
      const bytes = (h) => new Uint8Array(Buffer.from(h, "hex"));
      equal(hex(await core.hmacSha256(bytes(c.salt), bytes(c.ikm))), c.prk, "PRK = HMAC-SHA256(salt, IKM)");
      equal(hex(await core.hkdfSha256(bytes(c.ikm), bytes(c.salt), bytes(c.info), c.length)), c.okm, "OKM");
    });
  }
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
  // Version 2: the header MAC decides the passphrase, so any failing record is damage, at the lowest index
  // (no probe window), whatever order the records are read in.
  const sealed2 = sealV2(payload, PASSPHRASE); // 1024 × 7 + 100 bytes: 8 records, the last of 116 bytes
  const damage2 = (file, records) => {
    const copy = file.slice();
    for (const i of records) copy[77 + i * 1040 + 10] ^= 1;
    return copy;
  };
  for (const set of sets) {
    await test(`version 2, one verdict per file: damaged records [${set}]`, async () => {
      const source = core.bytesSource(damage2(sealed2, set));
      const reader = await core.openContainer(source, passBytes());
      equal(reader.header.version, 2, "version");
      equal(reader.header.chunkCount, 8, "records");
      const want = set.length === 0 ? { code: "success" } : { code: "chunk_damaged", chunkIndex: Math.min(...set) };
      for (const order of [[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0], [5, 0, 7, 2, 1, 6, 3, 4]]) {
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
        equal(got.code, want.code, `order ${order}`);
        equal(got.chunkIndex, want.chunkIndex, `index, order ${order}`);
      }
    });
  }
  await test("version 2: a wrong passphrase is auth_failed from the header MAC, before any record is read", async () => {
    const source = core.bytesSource(sealed2);
    const reads = [];
    const watched = { size: source.size, read: (offset, length) => (reads.push([offset, length]), source.read(offset, length)) };
    try {
      await core.openContainer(watched, new TextEncoder().encode("Correct horse battery staple"));
      throw new Error("opened");
    } catch (error) {
      equal(error.code, "auth_failed", error.detail);
    }
    assert(reads.every(([offset, length]) => offset + length <= 77), `read ${JSON.stringify(reads)}`);
    // Damage that leaves the MAC alone is never auth_failed, even in every record.
    const all = await openBytes(damage2(sealV2(makeZip(backupEntries()), PASSPHRASE), [0, 1, 2, 3]));
    equal(all.code, "chunk_damaged");
    equal(all.chunkIndex, 0, "index");
  });
  await test("version 2: a flag on a middle record, a flag missing on the last, appended bytes, a cut: refused", async () => {
    const zip = makeZip(backupEntries({ photos: [{ name: "big.jpg", data: randomBytes(5000) }] }));
    const file = sealV2(zip, PASSPHRASE);
    const count = Math.floor(zip.length / 1024) + 1;
    assert(count >= 5, `${count} records`);
    // Records sealed again with the other flag under the file's own key (the sealer's key schedule).
    const reseal = (index, final) => {
      const copy = Buffer.from(file);
      const passwordKey = pbkdf2Sync(Buffer.from(PASSPHRASE), copy.subarray(9, 25), 1000, 32, "sha256");
      const key = Buffer.from(hkdfSync("sha256", passwordKey, copy.subarray(25, 41), Buffer.from("goshuin/v2/payload"), 32));
      const nonce = Buffer.alloc(12);
      nonce.writeUInt32BE(index, 7);
      nonce[11] = final ? 1 : 0;
      const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: 16 });
      cipher.setAAD(copy.subarray(0, 77));
      const start = 77 + index * 1040;
      const end = index === count - 1 ? copy.length : start + 1040;
      const plain = zip.subarray(index * 1024, index * 1024 + (end - start - 16));
      Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]).copy(copy, start);
      return new Uint8Array(copy);
    };
    let result = await openBytes(reseal(1, true));
    equal(`${result.code} ${result.chunkIndex}`, "chunk_damaged 1", "a flag on record 1");
    result = await openBytes(reseal(count - 1, false));
    equal(`${result.code} ${result.chunkIndex}`, `chunk_damaged ${count - 1}`, "no flag on the last record");
    result = await openBytes(new Uint8Array(Buffer.concat([file, Buffer.from("appended")])));
    equal(`${result.code} ${result.chunkIndex}`, `chunk_damaged ${count - 1}`, "8 bytes appended");
    result = await openBytes(file.subarray(0, 77 + 2 * 1040));
    equal(result.code, "truncated", "cut at a record boundary");
    result = await openBytes(file.subarray(0, 77 + 2 * 1040 + 500));
    equal(`${result.code} ${result.chunkIndex}`, "chunk_damaged 2", "cut inside a record");
    // The last record failing is what a cut looks like: the advice says so, as it does not for a middle one.
    assert(result.advice.includes("damaged or cut short"), result.advice);
    assert(!(await openBytes(reseal(1, true))).advice.includes("cut short"), "a middle record's damage is damage");
    result = await openBytes(file);
    equal(result.code, "success", result.detail);
    equal(result.backup.header.version, 2, "version");
  });
  await test("version 2: an empty payload opens as a container and is no backup (zip_malformed)", async () => {
    const empty = sealV2(new Uint8Array(0), PASSPHRASE);
    equal(empty.length, 93, "93 bytes");
    const reader = await core.openContainer(core.bytesSource(empty), passBytes());
    equal(reader.header.plaintextLength, 0, "0 bytes");
    equal((await reader.chunk(0)).length, 0, "the empty final record authenticates");
    equal((await openBytes(empty)).code, "zip_malformed", "as a backup");
    const damaged = empty.slice();
    damaged[80] ^= 1;
    equal(`${(await openBytes(damaged)).code}`, "chunk_damaged", "its tag damaged");
    equal((await openBytes(empty, "wrong")).code, "auth_failed", "a wrong passphrase");
  });
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
        if (writeCasesAt && runner.prefix === "") writtenCases.push({ name, code: want.code, file });
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
        // The fault is reported only once every chunk authenticated: found before the streaming pass (steps
        // 1-4), the page shows the pass that authenticates the rest; in it (step 5), the pass's runs read on
        // past the fault (the chunks they read count) and the page's reader authenticates what they did not.
        if (set.length === 0) assert(stages.has(what.includes("(step 5)") ? "verify" : "rest"), `stages ${[...stages]}`);
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
    await expectZip(`${c.name}: ${c.comment}`, c.zip, c.zip.length === 0 && sealer === seal ? "empty_payload" : code === "ok" ? "success" : code);
  }
}

// ======== 4. salvage (container-v1.md §7.4, backup-v1.md §4.2) beyond the shared corpus

/**
 * Every way of damaging one backup the sweep knows (each chunk flipped alone, pairs, every cut at a chunk's
 * start and inside it, bad sectors at every 1 KiB), judged by the corpus's model (salvage-corpus.mjs, which
 * knows where every entry lies) and read by the page: strict verdict, mode, restored, lost, lost chunks.
 */
async function salvageSweep() {
  const b = salvageBackupZip();
  const sealed = sealNamed(b.zip, "sweep");
  const count = Math.ceil(b.zip.length / 1024);
  const flip = (...chunks) => {
    const copy = Buffer.from(sealed);
    for (const i of chunks) copy[45 + i * 1044 + 4 + 37] ^= 4;
    return copy;
  };
  const variants = [];
  for (let i = 0; i < count; i++) variants.push([`chunk ${i} flipped`, flip(i)]);
  for (let i = 0; i + 3 < count; i += 3) variants.push([`chunks ${i} and ${i + 3} flipped`, flip(i, i + 3)]);
  for (let i = 1; i <= count; i++) {
    variants.push([`cut at chunk ${i}'s record`, sealed.subarray(0, 45 + i * 1044)]);
    variants.push([`cut 600 bytes into chunk ${i - 1}'s record`, sealed.subarray(0, 45 + (i - 1) * 1044 + 600)]);
  }
  for (let at = 0; at + 4096 <= sealed.length; at += 1024 * 3) {
    const copy = Buffer.from(sealed);
    copy.fill(0, Math.max(45, at), at + 4096);
    variants.push([`4 KiB of zeros at ${at}`, copy]);
  }
  let checked = 0;
  for (const [what, file] of variants) {
    const want = salvageExpectations(b, sealed, file);
    const got = await salvagePageResults(core, new Uint8Array(file), PASSPHRASE);
    const { name, comment, ...expected } = { ...want };
    const order = (r) => JSON.stringify({ strict: r.strict, strictChunkIndex: r.strictChunkIndex, salvage: r.salvage, mode: r.mode, restored: r.restored, lost: r.lost, manifestLost: r.manifestLost, lostChunks: r.lostChunks });
    equal(order(got), order(expected), what);
    checked++;
  }
  return checked;
}

/** The page's salvage of a version 2 file: { mode, restored (names), lost (name:reason), end }. */
async function salvageV2(file, passphrase = PASSPHRASE) {
  try {
    const result = await core.salvageBackup(core.bytesSource(new Uint8Array(file)), new TextEncoder().encode(passphrase));
    const s = result.salvage;
    return { mode: s.mode, restored: s.restored.map((r) => r.name), lost: s.lost.map((l) => `${l.name}:${l.reason}`), runs: s.lostRuns, complete: s.complete };
  } catch (error) {
    if (!(error instanceof core.GoshuinError)) throw error;
    return { code: error.code };
  }
}

async function salvageTests() {
  await test("salvage: every damage of the sweep, as the corpus's model judges it", async () => {
    const checked = await salvageSweep();
    assert(checked > 60, `${checked} variants`);
  });
  // Version 2 (container-v2.md has no salvage section: §7.4 read for its layout). Record i's states for the
  // model: every record the file holds whole and unchanged is intact; a shorter one at the file's end that
  // does not authenticate as the final one is damaged; what the file does not hold is missing.
  const b = salvageBackupZip();
  const sealed = Buffer.from(sealV2(b.zip, PASSPHRASE, { kdfSalt: Buffer.alloc(16, 1), payloadSalt: Buffer.alloc(16, 2) }));
  const records = Math.floor(b.zip.length / 1024) + 1;
  const statesV2 = (file, changed = []) => {
    const states = [];
    const full = Math.floor((file.length - 77) / 1040);
    const tail = (file.length - 77) % 1040;
    for (let i = 0; i < Math.ceil(b.zip.length / 1024); i++) {
      if (i < full) states.push(changed.includes(i) || (i === records - 1) ? "damaged" : "intact");
      // A tail of 16 bytes is a final record of no payload byte: it covers nothing, and what follows is missing.
      else if (i === full && tail > 16) states.push(changed.includes(i) || file.length !== sealed.length ? "damaged" : "intact");
      else states.push("missing");
    }
    return states;
  };
  const expectV2 = (file, changed) => {
    const want = salvageExpectation(b, statesV2(file, changed));
    return { mode: want.mode, restored: want.restored.map((r) => r.name), lost: want.lost.map((l) => `${l.name}:${l.reason}`) };
  };
  const pick = (got) => ({ mode: got.mode, restored: got.restored, lost: got.lost });
  await test("version 2 salvage: intact, every record restored, nothing lost", async () => {
    const got = await salvageV2(sealed);
    equal(JSON.stringify(pick(got)), JSON.stringify(expectV2(sealed)), "result");
    assert(got.complete && got.runs.length === 0 && got.mode === "directory", JSON.stringify(got));
  });
  await test("version 2 salvage: cut at every record boundary and inside every record", async () => {
    for (let i = 1; i < records; i++) {
      for (const extra of [0, 10, 16, 600]) {
        const file = sealed.subarray(0, 77 + i * 1040 + extra);
        const got = await salvageV2(file);
        equal(JSON.stringify(pick(got)), JSON.stringify(expectV2(file)), `cut at record ${i} + ${extra}`);
        equal(got.mode, "walk", "walk mode");
        const run = got.runs[got.runs.length - 1];
        equal(`${run.state} ${run.last}`, "missing null", "the end is lost, its length unknown");
      }
    }
  });
  await test("version 2 salvage: a flag on a middle record, damaged records 0-3 (no probe), appended bytes", async () => {
    const damage = (...indices) => {
      const copy = Buffer.from(sealed);
      for (const i of indices) copy[77 + i * 1040 + 5] ^= 1;
      return copy;
    };
    let file = damage(0, 1, 2, 3);
    let got = await salvageV2(file);
    equal(JSON.stringify(pick(got)), JSON.stringify(expectV2(file, [0, 1, 2, 3])), "records 0-3 damaged: salvaged, not auth_failed");
    // Record 5 sealed again with the final flag under the file's own key: damaged where it stands.
    const passwordKey = pbkdf2Sync(Buffer.from(PASSPHRASE), sealed.subarray(9, 25), 1000, 32, "sha256");
    const key = Buffer.from(hkdfSync("sha256", passwordKey, sealed.subarray(25, 41), Buffer.from("goshuin/v2/payload"), 32));
    const nonce = Buffer.alloc(12);
    nonce.writeUInt32BE(5, 7);
    nonce[11] = 1;
    const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: 16 });
    cipher.setAAD(sealed.subarray(0, 77));
    file = Buffer.from(sealed);
    Buffer.concat([cipher.update(b.zip.subarray(5 * 1024, 6 * 1024)), cipher.final(), cipher.getAuthTag()]).copy(file, 77 + 5 * 1040);
    got = await salvageV2(file);
    equal(JSON.stringify(pick(got)), JSON.stringify(expectV2(file, [5])), "a flag on record 5");
    equal(got.mode, "directory", "the end intact");
    for (const extra of [1, 40, 1100]) {
      file = Buffer.concat([sealed, Buffer.alloc(extra, 7)]);
      got = await salvageV2(file);
      equal(got.mode, "walk", `${extra} bytes appended: the old final record no longer authenticates`);
      equal(JSON.stringify(got.restored), JSON.stringify(expectV2(sealed.subarray(0, 77 + (records - 1) * 1040)).restored), `${extra} bytes appended: restored`);
    }
    equal((await salvageV2(sealed, "wrong")).code, "auth_failed", "a wrong passphrase: the MAC");
    equal((await salvageV2(sealed.subarray(0, 60))).code, "short_header", "60 bytes of version 2");
  });
  await test("version 2 salvage: the empty payload is intact and holds nothing", async () => {
    const got = await salvageV2(sealV2(new Uint8Array(0), PASSPHRASE));
    equal(JSON.stringify(pick(got)), JSON.stringify({ mode: "walk", restored: [], lost: [] }), "nothing");
    equal(got.runs.length, 0, "no chunk lost");
  });
  await test("salvage: a walk never takes a name outside §3 (../, /, \\, NUL, a device name, manifest.json)", async () => {
    // A cut file whose entries all have names no salvage may write, each a local header with its data,
    // then one photo with a valid name: the only thing restored.
    const names = ["../IMG_0001.jpg", "/etc/IMG_0002.jpg", "a\\IMG_0003.jpg", "IMG\u00000004.jpg", "CON.jpg", "manifest.json", "IMG_0005.gif", "notes.txt"];
    const entries = names.map((name, i) => ({ name, data: Buffer.alloc(300 + i, 0x41 + i), method: 0 }));
    entries.push({ name: "IMG_0009.jpg", data: Buffer.alloc(500, 0x39), method: 0 });
    entries.push({ name: "padding.bin", data: Buffer.alloc(3000), method: 0 });
    const built = buildZip(entries);
    const zip = built.zip;
    const kept = Math.ceil((built.dataOffsets[names.length] + 500) / 1024); // the chunks up to IMG_0009.jpg's end
    const file = seal(zip, PASSPHRASE).subarray(0, 45 + 1044 * kept);
    const result = await core.salvageBackup(core.bytesSource(new Uint8Array(file)), passBytes());
    equal(JSON.stringify(result.salvage.restored.map((r) => r.name)), JSON.stringify(["IMG_0009.jpg"]), "restored");
    // A backup holds records.csv: the cut one never met is named lost, and nothing else.
    equal(JSON.stringify(result.salvage.lost), JSON.stringify([{ name: "records.csv", reason: "not_found" }]), "nothing else is known");
    equal(JSON.stringify(result.files.map((f) => f.name)), JSON.stringify(["IMG_0009.jpg"]), "what is shown and saved");
  });
  await test("salvage: a cut file whose header claims 2^32 chunks of 1 MiB (2^52 bytes): one chunk read, one run missing", async () => {
    // Chunk 0 sealed under that header (the AAD): a ZIP entry at its start, zeros after it.
    const chunkSize = 1048576;
    const header = Buffer.alloc(45);
    header.write("GSHN", 0, "latin1");
    header[4] = 1;
    header.writeUInt32BE(1000, 5);
    header.writeUInt32BE(chunkSize, 33);
    header.writeBigUInt64BE(2n ** 52n, 37);
    const plain = Buffer.alloc(chunkSize);
    Buffer.from(makeZip([{ name: "IMG_0001.jpg", data: Buffer.alloc(5000, 0x42), method: 0 }])).copy(plain, 0);
    const key = pbkdf2Sync(Buffer.from(PASSPHRASE), header.subarray(9, 25), 1000, 32, "sha256");
    const cipher = createCipheriv("aes-256-gcm", key, Buffer.concat([header.subarray(25, 33), u32be(0)]), { authTagLength: 16 });
    cipher.setAAD(header);
    const file = Buffer.concat([header, u32be(chunkSize + 16), cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    equal((await openBytes(new Uint8Array(file))).code, "truncated", "strict");
    const began = Date.now();
    const result = await core.salvageBackup(core.bytesSource(new Uint8Array(file)), passBytes());
    equal(JSON.stringify(result.salvage.restored.map((r) => r.name)), JSON.stringify(["IMG_0001.jpg"]), "restored");
    equal(JSON.stringify(result.salvage.lostRuns), JSON.stringify([{ first: 1, last: 4294967295, state: "missing" }]), "lost runs");
    assert(result.salvage.manifestLost && result.salvage.mode === "walk", "walk mode");
    assert(Date.now() - began < 10000, `took ${Date.now() - began} ms`);
    let listed = true;
    try {
      result.lostChunkList();
    } catch (error) {
      listed = false;
    }
    assert(!listed, "listed 2^32 chunks one by one");
  });
  await test("salvage: Stop (an aborted signal) ends it between chunks", async () => {
    const controller = new AbortController();
    controller.abort();
    const b2 = salvageBackupZip();
    try {
      await core.salvageBackup(core.bytesSource(new Uint8Array(sealNamed(b2.zip, "stop"))), passBytes(), { signal: controller.signal });
      throw new Error("salvaged");
    } catch (error) {
      equal(error.code, "interrupted", error.message);
    }
  });
  await test("salvage: the strict error names the entries a damaged chunk holds (§4.2), and its verdict stays", async () => {
    const b2 = salvageBackupZip();
    const file = Buffer.from(sealNamed(b2.zip, "named"));
    const item = b2.items.find((x) => x.name === "IMG_0003.jpg");
    const chunk = Math.floor(item.start / 1024); // holds the end of IMG_0002.jpg and the start of IMG_0003.jpg
    file[45 + chunk * 1044 + 4 + 1000] ^= 1;
    try {
      await core.openBackup(core.bytesSource(new Uint8Array(file)), passBytes(), { describeDamage: true });
      throw new Error("opened");
    } catch (error) {
      equal(`${error.code} ${error.chunkIndex}`, `chunk_damaged ${chunk}`, "verdict");
      assert(error.damage && error.damage.named, "named");
      equal(JSON.stringify(error.damage.runs), JSON.stringify([{ first: chunk, last: chunk, state: "damaged", entries: [{ name: "IMG_0002.jpg", part: "end" }, { name: "IMG_0003.jpg", part: "start" }] }]), "runs");
    }
  });
}

// ======== 5. building blocks

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
  await test("sizes in goshuin-tool's units: bytes, then KiB … TiB, one decimal below 10", async () => {
    const cases = [
      [0, "0 bytes"], [1, "1 byte"], [2, "2 bytes"], [1023, "1023 bytes"], [1024, "1.0 KiB"], [1401, "1.4 KiB"],
      [10 * 1024 - 52, "9.9 KiB"], [10 * 1024, "10 KiB"], [4 << 20, "4.0 MiB"], [18 * 1048576 + 1000, "18 MiB"],
      [1048575, "1024 KiB"], [5.5 * 2 ** 30, "5.5 GiB"], [3 * 2 ** 40, "3.0 TiB"], [2 ** 53 - 1, "8192 TiB"],
    ];
    for (const [bytes, text] of cases) equal(core.formatSize(bytes), text, String(bytes));
  });
  await test("CSV: the row reader agrees with the whole-file reader and keeps at most maxFields fields", async () => {
    // The reader the page had before (one character at a time), as the reference.
    function reference(text) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const rows = [];
      let row = [], field = "", quoted = false, started = false, i = 0;
      const endRow = () => {
        row.push(field);
        if (!(row.length === 1 && row[0] === "" && !started)) rows.push(row);
        row = []; field = ""; started = false;
      };
      while (i < text.length) {
        const c = text[i];
        if (quoted) {
          if (c === '"') {
            if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
            quoted = false; i++; continue;
          }
          field += c; i++; continue;
        }
        if (c === '"' && field === "") { quoted = true; started = true; i++; }
        else if (c === ",") { row.push(field); field = ""; started = true; i++; }
        else if (c === "\r" || c === "\n") { endRow(); i += c === "\r" && text[i + 1] === "\n" ? 2 : 1; }
        else { field += c; i++; }
      }
      if (field !== "" || row.length > 0 || started) endRow();
      return rows;
    }
    const alphabet = ['"', '"', ",", ",", "\r", "\n", "\r\n", "a", "b", " ", "桜", '""'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let round = 0; round < 3000; round++) {
      let text = round % 50 === 0 ? "\ufeff" : "";
      const length = next() % 24;
      for (let k = 0; k < length; k++) text += alphabet[next() % alphabet.length];
      equal(JSON.stringify(core.parseCsv(text)), JSON.stringify(reference(text)), JSON.stringify(text));
      const capped = new core.CsvReader(text);
      const want = reference(text);
      for (const fields of want) {
        const row = capped.row(2);
        equal(JSON.stringify(row), JSON.stringify({ fields: fields.slice(0, 2), count: fields.length }), JSON.stringify(text));
      }
      equal(capped.row(2), null, "the end");
    }
    const wide = new core.CsvReader(",".repeat(1000000) + "\nx\n");
    const first = wide.row(50);
    equal(first.count, 1000001, "fields counted");
    equal(first.fields.length, 50, "fields kept");
    equal(JSON.stringify(wide.row(50)), JSON.stringify({ fields: ["x"], count: 1 }));
    equal(wide.row(50), null, "the end");
  });
  await test("photo headers: type and size of PNG, JPEG, WebP (VP8, VP8L, VP8X), GIF, BMP, HEIC and AVIF", async () => {
    const be16 = (v) => [v >> 8, v & 255];
    const be32 = (v) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    const le16 = (v) => [v & 255, v >> 8];
    const le24 = (v) => [v & 255, (v >> 8) & 255, (v >> 16) & 255];
    const le32 = (v) => [v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >>> 24) & 255];
    const text = (t) => [...Buffer.from(t, "latin1")];
    const info = (bytes) => {
      const i = core.imageInfo(new Uint8Array(bytes));
      return `${i.type} ${i.width}x${i.height}`;
    };
    const pngHeader = (w, h) => [0x89, ...text("PNG\r\n\x1a\n"), ...be32(13), ...text("IHDR"), ...be32(w), ...be32(h), 8, 2, 0, 0, 0];
    equal(info(pngHeader(20000, 20000)), "PNG 20000x20000", "PNG");
    equal(info(pngHeader(0, 5)), "PNG nullxnull", "PNG of no pixels");
    const app1 = [0xff, 0xe1, ...be16(2 + 3000), ...new Array(3000).fill(0xff)]; // EXIF-like, full of 0xFF
    const sof = (marker, w, h) => [0xff, marker, ...be16(17), 8, ...be16(h), ...be16(w), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
    equal(info([0xff, 0xd8, ...app1, 0xff, 0xdb, ...be16(4), 0, 0, ...sof(0xc0, 8064, 6048)]), "JPEG 8064x6048", "baseline JPEG");
    equal(info([0xff, 0xd8, 0xff, 0xff, ...sof(0xc2, 30000, 30000)]), "JPEG 30000x30000", "progressive, fill bytes");
    equal(info([0xff, 0xd8, 0xff, 0xc4, ...be16(4), 0, 0, ...sof(0xc1, 640, 480)]), "JPEG 640x480", "after a DHT (C4)");
    equal(info([0xff, 0xd8, 0xff, 0xda, ...be16(4), 0, 0, ...sof(0xc0, 640, 480)]), "JPEG nullxnull", "scan before the frame");
    equal(info([0xff, 0xd8, 0xff, 0xe0, ...be16(1)]), "JPEG nullxnull", "a cut segment");
    const riff = (chunk, body) => [...text("RIFF"), ...le32(4 + 8 + body.length), ...text("WEBP"), ...text(chunk), ...le32(body.length), ...body];
    equal(info(riff("VP8 ", [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, ...le16(16383), ...le16(12000)])), "WebP 16383x12000", "VP8");
    const vp8l = (w, h) => { const bits = (w - 1) | ((h - 1) << 14); return [0x2f, ...le32(bits >>> 0), 0]; };
    equal(info(riff("VP8L", vp8l(16384, 2))), "WebP 16384x2", "VP8L");
    equal(info(riff("VP8X", [0x10, 0, 0, 0, ...le24(19999), ...le24(29999)])), "WebP 20000x30000", "VP8X");
    equal(info([...text("GIF89a"), ...le16(65535), ...le16(100), 0, 0, 0, 0x3b]), "GIF 65535x100", "GIF");
    // A frame larger than the screen it is on: the larger extent counts (after an extension and a color table).
    const frame = [0x2c, ...le16(10), ...le16(20), ...le16(30000), ...le16(40000), 0x80, ...new Array(6).fill(0), 2, 2, 1, 2, 0];
    equal(info([...text("GIF89a"), ...le16(1), ...le16(1), 0x80, 0, 0, ...new Array(6).fill(0), 0x21, 0xf9, 4, 0, 0, 0, 0, 0, ...frame, 0x3b]), "GIF 30010x40020", "GIF frame beyond its screen");
    equal(info([...text("BM"), ...new Array(16).fill(0), ...le32(4000), ...le32(-3000 >>> 0)]), "BMP 4000x3000", "BMP (top-down)");
    const box = (type, body) => [...be32(8 + body.length), ...text(type), ...body];
    const ispe = (w, h) => box("ispe", [0, 0, 0, 0, ...be32(w), ...be32(h)]);
    const heif = (brand, extents) => [
      ...box("ftyp", [...text(brand), 0, 0, 0, 0, ...text("mif1"), ...text(brand)]),
      ...box("meta", [0, 0, 0, 0, ...box("hdlr", new Array(24).fill(0)), ...box("iprp", [...box("ipco", [box("hvcC", [1, 2, 3]), ...extents.map(([w, h]) => ispe(w, h))].flat()), ...box("ipma", [0, 0, 0, 0])])]),
      ...box("mdat", [1, 2, 3, 4]),
    ];
    equal(info(heif("heic", [[512, 512], [4032, 3024], [512, 512]])), "HEIC 4032x3024", "HEIC grid: the largest extent");
    equal(info(heif("avif", [[20000, 20000]])), "AVIF 20000x20000", "AVIF");
    equal(info(heif("mif1", [])), "HEIF nullxnull", "HEIF without an extent");
    equal(info([...box("ftyp", [...text("isom"), 0, 0, 0, 0, ...text("mp41")])]), "null nullxnull", "an MP4 is no photo");
    // Cut or looping boxes end the walk; they never hang it or read past the bytes.
    equal(info([...box("ftyp", [...text("heic"), 0, 0, 0, 0]), ...be32(0), ...text("meta"), 0, 0, 0, 0, ...be32(3), ...text("iprp")]), "HEIC nullxnull", "cut boxes");
    equal(info([1, 2, 3]), "null nullxnull", "three bytes");
    // Boxes nested deep: the walk stops at the depth where a photo's properties are (no stack overflow).
    let inner = ispe(100, 100);
    for (let i = 0; i < 1000; i++) inner = box("ipco", inner);
    equal(info([...box("ftyp", [...text("heic"), 0, 0, 0, 0]), ...box("meta", [0, 0, 0, 0, ...box("iprp", inner)])]), "HEIC nullxnull", "deep boxes");
    const nested = new Uint8Array(12 * 200000 + 24);
    nested.set([...box("ftyp", [...text("heic"), 0, 0, 0, 0])]);
    for (let i = 0, at = 16; i < 200000; i++, at += 12) nested.set([...be32(nested.length - at), ...text("meta"), 0, 0, 0, 0], at);
    equal(JSON.stringify(core.imageInfo(nested)), JSON.stringify({ type: "HEIC", width: null, height: null }), "meta in meta, 200,000 deep");
    equal(core.photoTypeFromName("IMG_0001.HEIC"), "HEIC");
    equal(core.photoTypeFromName("IMG_0001.jpeg"), "JPEG");
    equal(core.photoTypeFromName("IMG_0001.webp"), "WebP");
  });
  await test("entry dates: 0x5455 first, else the DOS date as UTC, else none; the ZIP writer keeps them", async () => {
    const mtime = Date.UTC(2026, 2, 15, 9, 30, 7) / 1000;
    const timeField = (flags, seconds) => Buffer.concat([le(2, 0x5455), le(2, seconds === undefined ? 1 : 5), le(1, flags), ...(seconds === undefined ? [] : [le(4, seconds)])]);
    const dos = (y, mo, d, h, mi, s) => ({ dosDate: ((y - 1980) << 9) | (mo << 5) | d, dosTime: (h << 11) | (mi << 5) | (s >> 1) });
    const entries = backupEntries();
    const dated = entries.map((entry) => {
      if (entry.name === "records.csv") return { ...entry, centralExtra: timeField(1, mtime), ...dos(2001, 1, 1, 0, 0, 0) };
      if (entry.name === "IMG_0001.jpg") return { ...entry, ...dos(2025, 12, 31, 23, 59, 58) };
      if (entry.name === "manifest.json") return { ...entry, dosDate: 0, dosTime: 0 };
      return { ...entry, centralExtra: timeField(0, 1), ...dos(2024, 2, 29, 12, 0, 0) }; // flag 0: no mtime
    });
    const backup = await core.readBackup(core.payloadSource(makeZip(dated)));
    const when = Object.fromEntries(backup.files.map((f) => [f.name, f.modified]));
    equal(when["records.csv"], mtime, "0x5455");
    equal(when["IMG_0001.jpg"], Date.UTC(2025, 11, 31, 23, 59, 58) / 1000, "DOS as UTC");
    equal(when["manifest.json"], null, "no date");
    for (const file of backup.files.filter((f) => !["records.csv", "IMG_0001.jpg", "manifest.json"].includes(f.name)))
      equal(file.modified, Date.UTC(2024, 1, 29, 12) / 1000, "0x5455 without its mtime bit: the DOS date");
    const nothing = await core.readBackup(core.payloadSource(makeZip(entries.map((e) => ({ ...e, dosDate: (2 << 5) | 31 | (1 << 9) })))));
    equal(nothing.files[0].modified, null, "31 February 1981 is no date");
    // Written: the DOS date (UTC) and 0x5455 in the local header and the central record; read back the same.
    const saved = core.buildZip(await Promise.all(backup.files.map(async (f) => ({ name: f.name, data: new Blob([await backup.read(f.name)]), crc32: f.crc32, modified: f.modified }))));
    const zip = new Uint8Array(await saved.arrayBuffer());
    const again = await core.readBackup(core.payloadSource(zip));
    // An entry without a date was written as 1980-01-01 00:00, which reads back as no date.
    equal(JSON.stringify(again.files.map((f) => f.modified)), JSON.stringify(backup.files.map((f) => f.modified)), "read back");
    const undated = await core.readBackup(core.payloadSource(makeZip(entries)));
    equal(JSON.stringify(undated.files.map((f) => f.modified)), JSON.stringify(undated.files.map(() => null)), "1980-01-01 00:00 is no date");
    const epoch = await core.readBackup(core.payloadSource(makeZip(entries.map((e) => ({ ...e, centralExtra: timeField(1, 315532800) })))));
    equal(epoch.files[0].modified, 315532800, "an extended timestamp of 1980-01-01 00:00 is that date");
    const view = Buffer.from(zip);
    let at = 0;
    const seen = {};
    while (view.readUInt32LE(at) === 0x04034b50) {
      const nameLength = view.readUInt16LE(at + 26), extraLength = view.readUInt16LE(at + 28);
      const name = view.toString("latin1", at + 30, at + 30 + nameLength);
      seen[name] = { time: view.readUInt16LE(at + 10), date: view.readUInt16LE(at + 12), extra: view.subarray(at + 30 + nameLength, at + 30 + nameLength + extraLength).toString("hex") };
      at += 30 + nameLength + extraLength + view.readUInt32LE(at + 18);
    }
    const records = seen["records.csv"];
    equal(records.extra, "55540500" + "01" + le(4, mtime).toString("hex"), "local 0x5455");
    equal(records.date, ((2026 - 1980) << 9) | (3 << 5) | 15, "DOS date");
    equal(records.time, (9 << 11) | (30 << 5) | 3, "DOS time (two-second steps)");
    equal(seen["manifest.json"].extra, "", "no date: no field");
    equal(seen["manifest.json"].date, 0x21, "no date: 1980-01-01");
    equal(seen["manifest.json"].time, 0, "no date: 00:00");
    equal(core.dosDateTime(0).date, 0x21, "before 1980: 1980-01-01");
    equal(core.dosDateTime(0xffffffff).date, (126 << 9) | (2 << 5) | 7, "the last u32 second: 2106-02-07");
  });
  await test("every error code has advice", async () => {
    for (const code of ["short_header", "bad_magic", "unsupported_version", "iterations_out_of_range", "chunk_size_out_of_range", "empty_payload", "too_many_chunks", "truncated", "trailing_data", "chunk_length_invalid", "auth_failed", "chunk_damaged", "zip_malformed", "unsafe_entry_name", "duplicate_entry", "unsupported_entry", "zip_limit_exceeded", "entry_corrupt", "manifest_invalid", "manifest_mismatch", "io"])
      assert(core.advice(code) !== core.advice("internal"), code);
  });
}

// ---- run

const started = Date.now();
if (writeCasesAt) mkdirSync(writeCasesAt, { recursive: true });
// With --write-cases, only the tests that make the cases (the browser test's hostile-ZIP suite).
if (!writeCasesAt) await vectorTests();
await verdictTests();
await zipTests();
if (!writeCasesAt) {
  // Again with every entry hashed by the page's incremental SHA-256 (entries above limits.bufferedDigest).
  const bufferedDigest = core.limits.bufferedDigest;
  core.limits.bufferedDigest = 0;
  runner.prefix = "[incremental SHA-256] ";
  await zipTests();
  core.limits.bufferedDigest = bufferedDigest;
  // Again with every backup sealed as version 2.
  sealer = sealV2;
  runner.prefix = "[version 2] ";
  await zipTests();
  sealer = seal;
  runner.prefix = "";
  await salvageTests();
  await unitTests();
}
console.log(`Node ${process.version}, DecompressionStream refuses trailing bytes: ${await core.inflateRefusesTrailingBytes()}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (writeCasesAt) {
  const index = writtenCases.map((c, i) => {
    const file = `case-${String(i).padStart(3, "0")}.goshuin`;
    writeFileSync(join(writeCasesAt, file), c.file);
    return { name: c.name, code: c.code, file };
  });
  writeFileSync(join(writeCasesAt, "cases.json"), JSON.stringify({ passphrase: PASSPHRASE, cases: index }, null, 1));
}
runner.finish("web-node");
