#!/usr/bin/env node
// The shared salvage corpus (Tests/SalvageCorpus, its README gives the format): damaged and cut backups,
// each with what a strict reader gives and what a salvaging reader (Spec/container-v1.md §7.4,
// Spec/backup-v1.md §4.2) restores and loses.
//
//   node Web/test/salvage-corpus.mjs --write Tests/SalvageCorpus   write NAME.goshuin and index.json
//   node Web/test/salvage-corpus.mjs --check Tests/SalvageCorpus   every case through the page's own code;
//                                                                  exit 1 on any mismatch
//
// Everything is deterministic. Each case's backup ZIP is built here the way backup-v1.md §5 describes the
// toolkit writing one (records.csv deflated, the photos stored, manifest.json stored and last, DOS dates in
// UTC and the 0x5455 field in both headers, made by Unix 0x033F, mode 0644), with the ZIP builder and the
// deflate encoder of archive-cases.mjs; sealed here with node:crypto as container-v1.md says, in 1,024-byte
// chunks, 1,000 iterations, the passphrase "correct horse battery staple", salt and nonce base derived from
// the case's name as vectors-v1.md §4 derives them. Then damaged or cut.
//
// The expected results are derived here from how each case was built and damaged, not by reading it: the
// builder knows where every local header, every entry's data and the central directory lie, which entries
// it made hostile and what each check makes of them; the damage is judged chunk by chunk against the
// sealed file (a record whose bytes changed is damaged, one the file ends inside is missing). The rules of
// §7.1, §7.4 and §4.2 are then applied to that knowledge (`expectations`). --check reads every committed case
// with the script inside the committed Web/goshuin-open.html (strict: openBackup; salvage: salvageBackup)
// and fails when a result differs, or when the committed files are not what --write makes.
import { createCipheriv, createHash, pbkdf2Sync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPageCore } from "./page-harness.mjs";
import { buildZip, bytesOf, crc32, deflateRaw, le, pseudoRandom, sha256hex } from "./archive-cases.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const FORMAT = "goshuin-salvage-corpus";
const PASSPHRASE = "correct horse battery staple";
const OTHER_PASSPHRASE = "tr0ub4dor&3";
const CHUNK = 1024;
const ITERATIONS = 1000;
const SIG_LOCAL = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const SIG_CENTRAL = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

// ---- sealing (container-v1.md §2–§5), salts as vectors-v1.md §4

const sha256 = (text) => createHash("sha256").update(text).digest();

export function seal(payload, name, passphrase = PASSPHRASE) {
  const salt = sha256(`goshuin-kat/salt/${name}`).subarray(0, 16);
  const nonceBase = sha256(`goshuin-kat/nonce/${name}`).subarray(0, 8);
  const header = Buffer.alloc(45);
  header.write("GSHN", 0, "latin1");
  header[4] = 1;
  header.writeUInt32BE(ITERATIONS, 5);
  salt.copy(header, 9);
  nonceBase.copy(header, 25);
  header.writeUInt32BE(CHUNK, 33);
  header.writeBigUInt64BE(BigInt(payload.length), 37);
  const key = pbkdf2Sync(Buffer.from(passphrase, "utf8"), salt, ITERATIONS, 32, "sha256");
  const parts = [header];
  for (let i = 0, offset = 0; offset < payload.length; i++, offset += CHUNK) {
    const plain = payload.subarray(offset, Math.min(payload.length, offset + CHUNK));
    const nonce = Buffer.concat([nonceBase, Buffer.from([i >>> 24, (i >>> 16) & 255, (i >>> 8) & 255, i & 255])]);
    const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: 16 });
    cipher.setAAD(header);
    const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(body.length);
    parts.push(prefix, body);
  }
  return Buffer.concat(parts);
}

const chunkCountOf = (length) => Math.ceil(length / CHUNK);
const recordOffset = (i) => 45 + i * (CHUNK + 20);
const plainLength = (length, i) => Math.min(CHUNK, length - i * CHUNK);

// ---- the backups (backup-v1.md §5)

const T0 = Date.UTC(2026, 7, 20, 18, 30, 0) / 1000; // 2026-08-20 18:30:00 UTC

function dos(seconds) {
  const t = new Date(seconds * 1000);
  return {
    dosDate: ((t.getUTCFullYear() - 1980) << 9) | ((t.getUTCMonth() + 1) << 5) | t.getUTCDate(),
    dosTime: (t.getUTCHours() << 11) | (t.getUTCMinutes() << 5) | (t.getUTCSeconds() >> 1),
  };
}
const timeField = (seconds) => Buffer.concat([le(2, 0x5455), le(2, 5), Buffer.from([1]), le(4, seconds)]);
const isoTime = (seconds) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");

/** Bytes that never hold a ZIP signature (PK\3\4, PK\1\2, PK\5\6, PK\6\6, PK\6\7): the model knows every one. */
function signatureFree(bytes) {
  for (let at = bytes.indexOf(0x50); at >= 0; at = bytes.indexOf(0x50, at + 1)) if (bytes[at + 1] === 0x4b && bytes[at + 2] <= 7) return false;
  return true;
}

/** A JPEG-like photo of `size` bytes: SOI, APP0, pseudo-random bytes, EOI; no ZIP signature in it. */
function photo(seed, size) {
  const body = pseudoRandom(size - 6, seed);
  for (let at = 0; at + 1 < body.length; at++) if (body[at] === 0x50 && body[at + 1] === 0x4b) body[at + 1] = 0x4a;
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), body, Buffer.from([0xff, 0xd9])]);
}

const SHRINES = ["Meiji Jingu", "Fushimi Inari Taisha", "Itsukushima Jinja", "Izumo Taisha", "Kasuga Taisha", "Ise Jingu Naiku", "Dazaifu Tenmangu", "Kumano Hongu Taisha"];
const WORDS = ["morning", "queue", "rain", "seal", "ink", "torii", "lantern", "moss", "cedar", "bell", "tide", "snow", "fox", "stone", "river", "bridge"];

/** records.csv: 90 visits, notes of pseudo-random words (it deflates to about three chunks). */
function recordsCsv(photos) {
  const pick = pseudoRandom(4000, 99);
  let k = 0;
  const lines = ["date,shrine,note,photo"];
  for (let i = 0; i < 90; i++) {
    const words = [];
    for (let w = 0; w < 6; w++) words.push(WORDS[pick[k++] % WORDS.length]);
    lines.push(`2026-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")},${SHRINES[i % SHRINES.length]},${words.join(" ")},${photos[i % photos.length].name}`);
  }
  return Buffer.from(lines.join("\n") + "\n", "utf8");
}

const PHOTO_SIZES = [2100, 900, 3000, 1500, 2500, 700, 1800, 2200];

function basePhotos(sizes = PHOTO_SIZES) {
  return sizes.map((size, i) => ({ name: `IMG_${String(i + 1).padStart(4, "0")}.jpg`, data: photo(1000 + i, size), time: T0 - 86400 * (sizes.length - i) }));
}

function manifestOf(records, photos, createdAt, recordsSize) {
  const file = (name, data, size) => ({ name, size: size ?? data.length, sha256: sha256hex(data) });
  return Buffer.from(JSON.stringify({
    format: "goshuin-backup",
    version: 1,
    createdAt: isoTime(createdAt),
    records: file("records.csv", records, recordsSize),
    photos: photos.map((p) => file(p.name, p.data)).sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name))),
  }), "utf8");
}

/** An entry of buildZip as the toolkit writes it: dates in both headers, Unix 0x033F, mode 0644. */
function toolEntry(name, data, method, time, extra = {}) {
  const when = dos(time);
  return { name, data, method, madeBy: 0x033f, attrs: 0o100644 * 65536, ...when, centralExtra: timeField(time), local: { extra: timeField(time), ...(extra.local || {}) }, ...extra.entry };
}

/**
 * A backup: { zip, items, cdOffset, directoryValid } where `items` are the local headers in file order, each
 * { name, start (local header), dataStart, dataEnd, data (the entry's bytes), walk: what walk mode makes of
 * it ("entry" with `walkOutcome`, or "none": no entry), central: { outcome } when the central directory
 * lists it (directory mode's outcome: "ok" or a code) }; and `central`: the central directory's entries in
 * its order { name, offset, outcome }. `directoryValid`: steps 1–4 of §4.1 pass on the central directory and
 * the manifest.
 */
export function backup({ photos = basePhotos(), records, hostile = {}, validate = true } = {}) {
  records = records ?? recordsCsv(photos);
  const recordsEntry = hostile.recordsEntry ?? { data: records, compressed: deflateRaw(records, { matches: true }), outcome: "ok" };
  const listedPhotos = photos.filter((p) => p.listed !== false);
  const createdAt = Math.max(T0, ...photos.map((p) => p.time));
  const manifest = manifestOf(recordsEntry.data, listedPhotos, createdAt, recordsEntry.declaredSize);
  const entries = [];
  const meta = [];
  entries.push(toolEntry("records.csv", recordsEntry.data, 8, T0, { entry: { compressed: recordsEntry.compressed, ...(recordsEntry.declaredSize ? { usize: recordsEntry.declaredSize, crc: recordsEntry.crc } : {}) } }));
  meta.push({ name: "records.csv", data: recordsEntry.data, walk: "entry", walkOutcome: recordsEntry.outcome, outcome: recordsEntry.outcome });
  for (const p of photos) {
    entries.push(toolEntry(p.name, p.data, p.method ?? 0, p.time, { entry: p.entry || {}, local: p.local || {} }));
    meta.push({ name: p.name, data: p.data, walk: p.walk ?? "entry", walkOutcome: p.walkOutcome ?? "ok", outcome: p.outcome ?? "ok", centralOnly: !!(p.entry && p.entry.centralOnly) });
  }
  entries.push(toolEntry("manifest.json", manifest, 0, createdAt));
  meta.push({ name: "manifest.json", data: manifest, walk: "none", outcome: "ok" });
  const built = buildZip(entries);
  const zip = Buffer.from(built.zip);
  const items = [];
  const central = [];
  entries.forEach((entry, i) => {
    central.push({ name: entry.name, offset: built.localOffsets[i], outcome: meta[i].outcome, data: meta[i].data });
    if (meta[i].centralOnly) return;
    const start = built.localOffsets[i];
    const dataStart = built.dataOffsets[i];
    const compressedLength = bytesOf(entry.compressed ?? entry.data).length;
    items.push({ name: entry.name, start, dataStart, dataEnd: dataStart + compressedLength, data: meta[i].data, walk: meta[i].walk, walkOutcome: meta[i].walkOutcome });
  });
  for (const extra of hostile.innerItems || []) items.push(extra(zip, built));
  items.sort((a, b) => a.start - b.start);
  // The model knows every signature: local ones only where a local header starts, none in any data.
  if (!validate) return { zip, items, central, cdOffset: built.cdOffset };
  const starts = new Set(items.map((item) => item.start));
  for (let at = zip.indexOf(SIG_LOCAL); at >= 0; at = zip.indexOf(SIG_LOCAL, at + 1))
    if (!starts.has(at) || at >= built.cdOffset) throw new Error(`a local-header signature at ${at} that the model does not know`);
  for (let at = zip.indexOf(SIG_CENTRAL); at >= 0; at = zip.indexOf(SIG_CENTRAL, at + 1))
    if (at < built.cdOffset) throw new Error(`a central-directory signature at ${at}, before the central directory`);
  return { zip, items, central, cdOffset: built.cdOffset, directoryValid: hostile.directoryValid ?? true };
}

// ---- the model: §7.1, §7.4 and §4.2 applied to what the builder knows

/** The state of every chunk of the damaged file against the sealed one. */
function chunkStates(sealed, file, length) {
  const states = [];
  for (let i = 0; i < chunkCountOf(length); i++) {
    const start = recordOffset(i);
    const end = start + 4 + plainLength(length, i) + 16;
    if (file.length < end) states.push("missing");
    else states.push(file.subarray(start, end).equals(sealed.subarray(start, end)) ? "intact" : "damaged");
  }
  return states;
}

export function expectations(b, sealed, file, { wrongPassphrase = false } = {}) {
  const length = b.zip.length;
  const count = chunkCountOf(length);
  const out = {};
  if (file.length >= 45 && !file.subarray(0, 45).equals(sealed.subarray(0, 45))) throw new Error("the model keeps the header intact");
  const states = chunkStates(sealed, file, length);
  const lowest = states.findIndex((s) => s !== "intact");
  const probe = () => [1, 2, 3].some((j) => j < count && states[j] === "intact");
  // Strict (container-v1.md §7, then backup-v1.md §4.1): the checks in order.
  const expectedSize = 45 + 20 * count + length;
  if (file.length < 45) out.strict = "short_header";
  else if (file.length < expectedSize) out.strict = "truncated";
  else if (file.length > expectedSize) out.strict = "trailing_data";
  else {
    const badPrefix = [...Array(count).keys()].find((i) => file.readUInt32BE(recordOffset(i)) !== plainLength(length, i) + 16);
    if (badPrefix !== undefined) {
      out.strict = "chunk_length_invalid";
      out.strictChunkIndex = badPrefix;
    } else if (wrongPassphrase) out.strict = "auth_failed";
    else if (lowest > 0) {
      out.strict = "chunk_damaged";
      out.strictChunkIndex = lowest;
    } else if (lowest === 0) {
      if (probe()) {
        out.strict = "chunk_damaged";
        out.strictChunkIndex = 0;
      } else out.strict = "auth_failed";
    } else out.strict = "ok"; // the cases' ZIPs are hostile only where a chunk is damaged too
  }
  // Salvage (§7.4): the header, the passphrase, then the chunks.
  if (file.length < 45) return { ...out, salvage: "short_header" };
  if (wrongPassphrase || (lowest === 0 && !probe())) return { ...out, salvage: "auth_failed" };
  return { ...out, ...salvageExpectation(b, states) };
}

/**
 * §4.2 on a backup `b` whose chunks have the `states` given (one per chunk of the payload as sealed:
 * "intact", "damaged" or "missing"): { salvage: "restored", mode, restored, lost, manifestLost, lostChunks }.
 */
export function salvageExpectation(b, states) {
  const length = b.zip.length;
  const count = states.length;
  const out = {};
  const intact = (start, end) => {
    if (end <= start) return true;
    if (end > length) return false;
    for (let i = Math.floor(start / CHUNK); i <= Math.floor((end - 1) / CHUNK); i++) if (states[i] !== "intact") return false;
    return true;
  };
  const reason = (start, end) => {
    const touched = [];
    for (let i = Math.floor(start / CHUNK); i <= Math.floor((Math.min(end, length) - 1) / CHUNK) && i < count; i++) touched.push(states[i]);
    if (touched.includes("damaged")) return "damaged";
    if (touched.includes("missing")) return "missing";
    return end > length ? "zip_malformed" : null;
  };
  const restored = [];
  const lost = [];
  const manifestItem = b.items.find((item) => item.name === "manifest.json");
  const tailIntact = intact(b.cdOffset, length) && intact(manifestItem.start, manifestItem.dataEnd);
  if (tailIntact && b.directoryValid) {
    out.mode = "directory";
    const ordered = b.central.map((c, index) => ({ ...c, index })).sort((x, y) => x.offset - y.offset || x.index - y.index);
    ordered.forEach((entry, i) => {
      if (entry.name === "manifest.json") return; // neither restored nor written: it lists what the backup held
      const end = i + 1 < ordered.length ? ordered[i + 1].offset : b.cdOffset;
      const why = reason(entry.offset, end);
      if (why) lost.push({ name: entry.name, reason: why });
      else if (entry.outcome !== "ok") lost.push({ name: entry.name, reason: entry.outcome });
      else restored.push({ name: entry.name, sha256: sha256hex(entry.data) });
    });
    out.manifestLost = false;
  } else {
    out.mode = "walk";
    const end = Math.min(length, states.indexOf("missing") < 0 ? length : states.indexOf("missing") * CHUNK);
    const names = new Set();
    let readUpTo = 0;
    let readAgain = 0;
    let p = 0;
    // Once the walk resumed at a signature it searched for, it may be inside a photo: records.csv is no entry.
    let resumed = false;
    let recordsMet = false;
    let recordsData = null;
    for (;;) {
      const item = b.items.find((x) => x.start === p);
      let entry = null;
      if (p + 4 <= end && intact(p, p + 4)) {
        if (p === b.cdOffset) break; // an intact central-directory signature where an entry could start
        if (item && item.walk === "entry" && intact(item.start, item.dataStart) && !(item.name === "records.csv" && resumed)) entry = item;
      }
      if (!entry) {
        resumed = true;
        const next = b.items.find((x) => x.start > p && intact(x.start, x.start + 4));
        if (!next) break;
        p = next.start;
        continue;
      }
      let why = reason(entry.dataStart, entry.dataEnd);
      if (!why) {
        // Bytes read again (headers nested in claimed data) are charged, at most `end` of them.
        const again = Math.max(0, Math.min(entry.dataEnd, readUpTo) - entry.dataStart);
        if (readAgain + again > end) why = "zip_limit_exceeded";
        else {
          readAgain += again;
          readUpTo = Math.max(readUpTo, entry.dataEnd);
        }
      }
      const checked = !why && entry.walkOutcome === "ok"; // the data passed: its sizes are confirmed
      if (entry.name === "records.csv") recordsMet = true;
      if (why) lost.push({ name: entry.name, reason: why });
      else if (entry.walkOutcome !== "ok") lost.push({ name: entry.name, reason: entry.walkOutcome });
      else if (names.has(entry.name.toLowerCase())) lost.push({ name: entry.name, reason: "duplicate_entry" });
      else {
        names.add(entry.name.toLowerCase());
        restored.push({ name: entry.name, sha256: sha256hex(entry.data) });
        if (entry.name === "records.csv") recordsData = entry.data;
      }
      if (!checked) {
        resumed = true;
        // Resume after the header: the next intact local-header signature.
        const next = b.items.find((x) => x.start > p && intact(x.start, x.start + 4));
        if (!next) break;
        p = next.start;
        continue;
      }
      if (entry.dataEnd >= end) break;
      p = entry.dataEnd;
    }
    // Every backup holds records.csv; and a restored one names the photos the walk should have found.
    if (!recordsMet && states.some((state) => state !== "intact")) lost.unshift({ name: "records.csv", reason: "not_found" });
    if (recordsData) {
      const known = new Set([...names, ...lost.map((l) => l.name.toLowerCase())]);
      for (const word of recordsData.toString("latin1").split(/[ \t\r\n",;|]+/)) {
        if (!isPhotoName(word) || known.has(word.toLowerCase())) continue;
        known.add(word.toLowerCase());
        lost.push({ name: word, reason: "not_found" });
      }
    }
    out.manifestLost = true;
  }
  const lostChunks = [];
  states.forEach((state, index) => state !== "intact" && lostChunks.push({ index, state }));
  return { ...out, salvage: "restored", restored, lost, lostChunks };
}

/** backup-v1.md §3.2, as the model reads it. */
function isPhotoName(word) {
  const match = /^([A-Za-z0-9][A-Za-z0-9_-]{0,99})\.(jpg|jpeg|png|heic|heif|webp)$/i.exec(word);
  return !!match && !/^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i.test(match[1]);
}

// ---- the cases

/** Where things lie in a backup's payload: chunks by what they hold. */
const chunkOf = (offset) => Math.floor(offset / CHUNK);
const itemNamed = (b, name) => b.items.find((item) => item.name === name);
/** A chunk whose payload bytes lie wholly inside the data of entry `name`. */
function chunkInside(b, name) {
  const item = itemNamed(b, name);
  const first = Math.ceil(item.dataStart / CHUNK);
  if ((first + 1) * CHUNK > item.dataEnd) throw new Error(`no chunk lies inside ${name}`);
  return first;
}
/** A file offset inside chunk `index`'s ciphertext. */
const inChunk = (index, at = 100) => recordOffset(index) + 4 + at;

function flip(file, ...offsets) {
  const copy = Buffer.from(file);
  for (const offset of offsets) copy[offset] ^= 0x10;
  return copy;
}

function cases() {
  const list = [];
  const add = (name, comment, b, damage, options = {}) => {
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(name) || list.some((c) => c.name === name)) throw new Error(`bad case name ${name}`);
    const sealed = seal(b.zip, name, options.wrongPassphrase ? OTHER_PASSPHRASE : PASSPHRASE);
    const file = damage(sealed, b);
    list.push({ name, comment, file, expect: expectations(b, sealed, file, options) });
  };
  const base = backup();
  const last = chunkCountOf(base.zip.length) - 1;
  const whole = (s) => s;

  add("intact", "a backup as the toolkit writes it, undamaged: salvage restores every entry, nothing is lost", base, whole);
  add("trailing-bytes", "100 bytes appended: strict trailing_data; salvage ignores them and restores every entry", base, (s) => Buffer.concat([s, Buffer.alloc(100, 0x5a)]));
  add("flip-photo-chunk", "one bit flipped in a chunk that lies inside IMG_0003.jpg's data: that photo alone is lost",
    base, (s, b) => flip(s, inChunk(chunkInside(b, "IMG_0003.jpg"))));
  add("flip-chunk-0", "one bit flipped in chunk 0 (records.csv's start), chunks 1-3 intact: the passphrase is right, records.csv is lost",
    base, (s) => flip(s, inChunk(0)));
  add("flip-chunks-0-to-3", "a bit flipped in each of chunks 0-3: nothing tells this from a wrong passphrase, salvage stops with auth_failed",
    base, (s) => flip(s, inChunk(0), inChunk(1), inChunk(2), inChunk(3)));
  add("flip-records-deflated", "one bit flipped in chunk 1, inside records.csv's deflate data: records.csv is lost, every photo restored",
    base, (s, b) => flip(s, inChunk(chunkInside(b, "records.csv"))));
  add("flip-last-chunk", "one bit flipped in the last chunk (the central directory and the end of manifest.json): walk mode, every photo restored unchecked against the manifest",
    base, (s) => flip(s, inChunk(last, 10)));
  add("flip-length-prefix", "one bit of chunk 6's length prefix flipped: strict chunk_length_invalid; salvage counts chunk 6 damaged",
    base, (s) => flip(s, recordOffset(6) + 3));
  add("bad-sector", "4 KiB of zeros at file offset 8192 (a bad sector): chunks 7-11 damaged, strict chunk_length_invalid at 8",
    base, (s) => { const c = Buffer.from(s); c.fill(0, 8192, 12288); return c; });
  for (const [percent, comment] of [[30, "records.csv and the first photos"], [60, "the photos before the cut"], [99, "every photo"]])
    add(`cut-${percent}`, `the file cut at ${percent}% of its length: strict truncated; walk mode restores ${comment}`,
      base, (s) => s.subarray(0, Math.floor((s.length * percent) / 100)));
  add("cut-after-header", "the file cut right after its header: no chunk at all, salvage stops with auth_failed (nothing tells the passphrase)",
    base, (s) => s.subarray(0, 45));
  add("cut-inside-header", "the file cut to 40 bytes: short_header for both", base, (s) => s.subarray(0, 40));
  add("two-damaged-far-apart", "bits flipped in chunks 2 and 15: the entries they touch are lost, the rest restored from the central directory",
    base, (s) => flip(s, inChunk(2), inChunk(15)));
  add("wrong-passphrase", "sealed under another passphrase: auth_failed for both, nothing released", base, whole, { wrongPassphrase: true });
  {
    // A photo whose span lies in exactly two chunks: the second damaged.
    const straddler = base.items.find((item, i) => {
      const next = base.items[i + 1];
      return item.walk === "entry" && item.name.startsWith("IMG_") && next && chunkOf(next.start - 1) === chunkOf(item.start) + 1;
    });
    add("straddle-second-damaged", `${straddler.name} straddles chunks ${chunkOf(straddler.start)}-${chunkOf(straddler.start) + 1}; only the second is damaged: it is lost, and the next photo, which starts there`,
      base, (s) => flip(s, inChunk(chunkOf(straddler.start) + 1, 500)));
  }
  {
    // Hostile ZIPs inside chunks that all authenticate but one (a bit flipped inside IMG_0003.jpg).
    const damageOne = (s, b) => flip(s, inChunk(chunkInside(b, "IMG_0003.jpg")));
    const unsafe = backup({
      photos: [...basePhotos().slice(0, 4), { name: "../IMG_0099.jpg", data: photo(99, 900), time: T0 - 3600, listed: false, walk: "none" },
        { name: "photos/IMG_0098.jpg", data: photo(98, 700), time: T0 - 3600, listed: false, walk: "none" }, ...basePhotos().slice(4)],
      hostile: { directoryValid: false },
    });
    add("hostile-unsafe-names", "entries named ../IMG_0099.jpg and photos/IMG_0098.jpg (unsafe_entry_name in the central directory: walk mode); the walk never takes them; IMG_0003.jpg damaged",
      unsafe, damageOne);
    const dup = backup({
      photos: [...basePhotos().slice(0, 2), { name: "IMG_0002.JPG", data: photo(97, 1100), time: T0 - 3600, listed: false }, ...basePhotos().slice(2)],
      hostile: { directoryValid: false },
    });
    add("hostile-duplicate-name", "IMG_0002.jpg and IMG_0002.JPG (duplicate_entry, case-folded: walk mode): the first restored, the second lost as duplicate_entry; IMG_0003.jpg damaged",
      dup, damageOne);
    // IMG_0004.jpg's data holds a whole local header and data of IMG_0009.jpg, which the central directory
    // lists at that offset: IMG_0004.jpg's data runs past the next entry's start (zip_malformed), IMG_0009.jpg
    // ends exactly where its span does.
    const inner = photo(109, 800);
    const innerName = "IMG_0009.jpg";
    const innerTime = T0 - 7200;
    const innerHeader = Buffer.concat([le(4, 0x04034b50), le(2, 20), le(2, 0), le(2, 0), le(2, dos(innerTime).dosTime), le(2, dos(innerTime).dosDate),
      le(4, crc32(inner)), le(4, inner.length), le(4, inner.length), le(2, innerName.length), le(2, 9), Buffer.from(innerName), timeField(innerTime)]);
    const head = photo(104, 1200);
    const outer = Buffer.concat([head, innerHeader, inner]);
    const photos = basePhotos();
    let overlapAt = 0;
    const overlapped = (validate) => backup({
      photos: [...photos.slice(0, 3), { ...photos[3], data: outer, outcome: "zip_malformed" },
        { name: innerName, data: inner, time: innerTime, entry: { centralOnly: true, localOffset: overlapAt } }, ...photos.slice(4)],
      hostile: {
        innerItems: [() => ({ name: innerName, start: overlapAt, dataStart: overlapAt + innerHeader.length, dataEnd: overlapAt + innerHeader.length + inner.length, data: inner, walk: "entry", walkOutcome: "ok" })],
      },
      validate,
    });
    overlapAt = itemNamed(overlapped(false), "IMG_0004.jpg").dataStart + head.length;
    const b = overlapped(true);
    add("hostile-overlap", "IMG_0009.jpg's local header lies inside IMG_0004.jpg's data, and the central directory lists both: IMG_0004.jpg lost (zip_malformed), IMG_0009.jpg restored; IMG_0003.jpg damaged",
      b, damageOne);
    // records.csv's deflate data inflates far past its declared 5,000 bytes (within the ratio), and a photo
    // is deflated declaring 250 times its compressed size.
    const bombData = Buffer.alloc(400000, 0x61);
    const bomb = { data: bombData.subarray(0, 5000), compressed: deflateRaw(bombData), outcome: "entry_corrupt", declaredSize: 5000, crc: crc32(bombData.subarray(0, 5000)) };
    add("zip-bomb-records", "records.csv's deflate data inflates to 400,000 bytes, declaring 5,000 (within the ratio): lost as entry_corrupt; IMG_0003.jpg damaged",
      backup({ hostile: { recordsEntry: bomb } }), damageOne);
    const ratioPhoto = basePhotos();
    const squeezed = deflateRaw(Buffer.alloc(60000, 0x33));
    ratioPhoto[4] = { ...ratioPhoto[4], method: 8, entry: { compressed: squeezed, usize: squeezed.length * 250 }, walk: "none" };
    const ratio = backup({ photos: ratioPhoto, hostile: { directoryValid: false } });
    add("walk-ratio-exceeded", "IMG_0005.jpg deflated declaring 250 times its compressed size (zip_limit_exceeded: walk mode, and the walk takes no such entry), the file cut at 85%",
      ratio, (s) => s.subarray(0, Math.floor(s.length * 0.85)));
  }
  {
    // A local header that claims 4 GiB (ZIP64 sizes, 2^32 bytes) in a cut file: its data is missing, and the
    // walk, which trusts no size whose data did not pass, resumes after that header and finds the next ones.
    const photos = basePhotos();
    const claim = Buffer.concat([le(2, 1), le(2, 16), le(8, 2n ** 32n), le(8, 2n ** 32n), timeField(photos[2].time)]);
    photos[2] = { ...photos[2], local: { csize: 0xffffffff, usize: 0xffffffff, extra: claim } };
    const b = backup({ photos, hostile: {} });
    const item = itemNamed(b, "IMG_0003.jpg");
    item.dataEnd = item.dataStart + 2 ** 32;
    add("walk-local-header-claims-4gib", "IMG_0003.jpg's local header claims 4 GiB (ZIP64) in a file cut at 70%: lost as missing; the walk resumes after that header and restores the photos after it, up to the cut",
      b, (s) => s.subarray(0, Math.floor(s.length * 0.7)));
  }
  {
    // IMG_0005.jpg's local header fills the end of a chunk and its data starts the next: that chunk and the
    // last are damaged. Walk mode: IMG_0004.jpg (whose data ends in that chunk) lost, IMG_0005.jpg not known.
    let photos = basePhotos();
    let b = backup({ photos });
    const target = itemNamed(b, "IMG_0005.jpg");
    const headerLength = target.dataStart - target.start;
    const wanted = Math.ceil(target.dataStart / CHUNK) * CHUNK - headerLength;
    photos = photos.map((p) => (p.name === "IMG_0004.jpg" ? { ...p, data: photo(1003, p.data.length + (wanted - target.start)) } : p));
    b = backup({ photos });
    const moved = itemNamed(b, "IMG_0005.jpg");
    if (moved.dataStart % CHUNK !== 0) throw new Error("IMG_0005.jpg's data does not start a chunk");
    const lastChunk = chunkCountOf(b.zip.length) - 1;
    add("local-header-damaged", "IMG_0005.jpg's local header alone in a damaged chunk, its data intact, and the last chunk damaged: walk mode; IMG_0005.jpg is not known at all, IMG_0004.jpg (ending in that chunk) lost",
      b, (s) => flip(s, inChunk(chunkOf(moved.start), CHUNK - 20), inChunk(lastChunk, 10)));
  }
  {
    // The same with a claim that ends IMG_0003.jpg's data 2 bytes below 2^64: lost as missing; a reader that
    // went on at that end would compute past 2^64.
    const photos = basePhotos();
    const claimOf = (size) => Buffer.concat([le(2, 1), le(2, 16), le(8, size), le(8, size), timeField(photos[2].time)]);
    photos[2] = { ...photos[2], local: { csize: 0xffffffff, usize: 0xffffffff, extra: claimOf(0n) } };
    const dataStart = itemNamed(backup({ photos, hostile: {} }), "IMG_0003.jpg").dataStart;
    const claim = 2n ** 64n - 2n - BigInt(dataStart);
    photos[2] = { ...photos[2], local: { csize: 0xffffffff, usize: 0xffffffff, extra: claimOf(claim) } };
    const b = backup({ photos, hostile: {} });
    const item = itemNamed(b, "IMG_0003.jpg");
    item.dataEnd = Number(BigInt(item.dataStart) + claim);
    add("walk-local-header-claims-almost-2pow64", "IMG_0003.jpg's local header claims (ZIP64) a size ending its data 2 bytes below 2^64, in a file cut at 70%: lost as missing; the walk resumes after that header",
      b, (s) => s.subarray(0, Math.floor(s.length * 0.7)));
  }
  {
    // IMG_0002.jpg twice: the first with a wrong CRC-32 (both headers), the second sound. The central
    // directory's duplicate fails step 1 (walk mode); the last chunk is damaged too. The first is lost
    // (entry_corrupt) and, its name never restored, the second is restored.
    const photos = basePhotos();
    photos[1] = { ...photos[1], entry: { crc: 12345 }, outcome: "entry_corrupt", walkOutcome: "entry_corrupt" };
    photos.splice(2, 0, { name: "IMG_0002.jpg", data: photo(96, 1300), time: T0 - 7200, listed: false });
    const b = backup({ photos, hostile: { directoryValid: false } });
    const lastChunk = chunkCountOf(b.zip.length) - 1;
    add("walk-duplicate-after-a-corrupt-entry", "IMG_0002.jpg twice, the first failing its CRC-32, and the last chunk damaged: walk mode; the first lost as entry_corrupt, the second restored (a name is taken only by an entry restored)",
      b, (s) => flip(s, inChunk(lastChunk, 10)));
  }
  {
    // Twelve local headers forged inside IMG_0003.jpg (a photo from someone else), 300 bytes apart, each
    // claiming data up to the same offset near the photo's end with a wrong CRC-32; the chunk of the photo's
    // own header and the last chunk damaged, so the walk resumes inside the photo. Each forged entry is lost
    // and the walk resumes after its header; the bytes it would read again are charged, and once they pass
    // what the file holds the rest are lost unread (zip_limit_exceeded); IMG_0004.jpg on is still restored.
    const photos = basePhotos();
    const size = 9000;
    photos[2] = { ...photos[2], data: photo(1102, size) };
    const target = itemNamed(backup({ photos }), "IMG_0003.jpg");
    const first = (chunkOf(target.start) + 1) * CHUNK - target.dataStart + 40; // inside the next chunk
    const claimEnd = size - 200;
    const forged = [];
    const data = Buffer.from(photos[2].data);
    for (let i = 0; i < 12; i++) {
      const at = first + i * 300;
      const name = `IMG_01${String(i + 10)}.jpg`;
      const length = claimEnd - (at + 30 + name.length);
      const header = Buffer.concat([le(4, 0x04034b50), le(2, 20), le(2, 0), le(2, 0), le(2, 0), le(2, 0x21),
        le(4, 0), le(4, length), le(4, length), le(2, name.length), le(2, 0), Buffer.from(name)]);
      header.copy(data, at);
      forged.push({ at, name, length });
    }
    photos[2] = { ...photos[2], data };
    const b = backup({
      photos,
      hostile: {
        innerItems: forged.map((f) => (zip, built) => {
          const start = built.dataOffsets[3] + f.at; // entry 3: records.csv, IMG_0001, IMG_0002, IMG_0003
          return { name: f.name, start, dataStart: start + 30 + f.name.length, dataEnd: start + 30 + f.name.length + f.length,
            data: Buffer.alloc(0), walk: "entry", walkOutcome: "entry_corrupt" };
        }),
      },
    });
    const lastChunk = chunkCountOf(b.zip.length) - 1;
    add("walk-nested-forged-headers", "twelve headers forged inside IMG_0003.jpg, each claiming data to the same end with a wrong CRC-32, its own header's chunk and the last chunk damaged: walk mode; each forged entry lost (entry_corrupt, then zip_limit_exceeded once the bytes read again pass what the file holds), the photos after it restored",
      b, (s) => flip(s, inChunk(chunkOf(target.start), (target.start % CHUNK) + 5 < CHUNK ? (target.start % CHUNK) + 5 : 0), inChunk(lastChunk, 10)));
  }
  {
    // A photo received from someone else (IMG_0003.jpg) holds, in its bytes, a local header named records.csv
    // with a valid CRC-32 and a formula row. Its own header's chunk and the last chunk are damaged, so the walk
    // resumes inside it: an entry named records.csv found after a resume is never the backup's.
    const photos = basePhotos();
    const size = 6000;
    const forgedData = Buffer.from("date,shrine,note,photo\n=cmd|' /C calc'!A0,Meiji Jingu,forged,IMG_0001.jpg\n", "utf8");
    const forgedTime = T0 - 600;
    const forgedHeader = Buffer.concat([le(4, 0x04034b50), le(2, 20), le(2, 0), le(2, 0), le(2, dos(forgedTime).dosTime), le(2, dos(forgedTime).dosDate),
      le(4, crc32(forgedData)), le(4, forgedData.length), le(4, forgedData.length), le(2, 11), le(2, 0), Buffer.from("records.csv")]);
    const forgedCase = (recordsDamaged) => {
      photos[2] = { ...photos[2], data: photo(1202, size) };
      const target = itemNamed(backup({ photos }), "IMG_0003.jpg");
      const at = (chunkOf(target.start) + 1) * CHUNK - target.dataStart + 40;
      const data = Buffer.from(photos[2].data);
      Buffer.concat([forgedHeader, forgedData]).copy(data, at);
      photos[2] = { ...photos[2], data };
      const b = backup({
        photos,
        hostile: {
          innerItems: [(zip, built) => {
            const start = built.dataOffsets[3] + at; // entry 3: records.csv, IMG_0001, IMG_0002, IMG_0003
            return { name: "records.csv", start, dataStart: start + forgedHeader.length, dataEnd: start + forgedHeader.length + forgedData.length,
              data: forgedData, walk: "entry", walkOutcome: "ok" };
          }],
        },
      });
      const lastChunk = chunkCountOf(b.zip.length) - 1;
      const own = inChunk(chunkOf(target.start), (target.start % CHUNK) + 5 < CHUNK ? (target.start % CHUNK) + 5 : 0);
      return { b, damage: (s) => (recordsDamaged ? flip(s, own, inChunk(lastChunk, 10), inChunk(chunkInside(b, "records.csv"))) : flip(s, own, inChunk(lastChunk, 10))) };
    };
    const kept = forgedCase(false);
    add("walk-forged-records-in-a-photo", "IMG_0003.jpg holds a local header records.csv with a valid CRC-32 and a formula row; its own header's chunk and the last chunk damaged: walk mode; the backup's records.csv restored, the forged one never taken (found after a resume)",
      kept.b, kept.damage);
    const lostToo = forgedCase(true);
    add("walk-forged-records-after-the-real-one-is-lost", "as walk-forged-records-in-a-photo, and records.csv's own data damaged too: the backup's records.csv lost (damaged), the forged one never taken; records.csv is named once",
      lostToo.b, lostToo.damage);
  }
  {
    // records.csv's local header in a damaged chunk 0 (chunks 1-3 intact tell the passphrase) and the last
    // chunk damaged: walk mode never meets records.csv, and names it lost (not_found).
    const lastChunk = chunkCountOf(base.zip.length) - 1;
    add("walk-records-header-damaged", "chunk 0 (records.csv's local header) and the last chunk damaged: walk mode; records.csv is lost as not_found, the photos after it restored",
      base, (s) => flip(s, inChunk(0, 5), inChunk(lastChunk, 10)));
  }
  add("cut-90", "the file cut at 90% of its length (the end of the photos, the central directory and manifest.json lost): walk mode; records.csv restored, and each photo it names that the walk did not find is lost as not_found",
    base, (s) => s.subarray(0, Math.floor((s.length * 90) / 100)));
  return list;
}

// ---- index.json

/** One case's line of index.json, in the README's key order. */
function indexEntry(c) {
  const e = c.expect;
  const entry = { name: c.name, comment: c.comment, strict: e.strict };
  if (e.strictChunkIndex !== undefined) entry.strictChunkIndex = e.strictChunkIndex;
  entry.salvage = e.salvage;
  if (e.salvage === "restored") {
    entry.mode = e.mode;
    entry.restored = e.restored;
    entry.lost = e.lost;
    entry.manifestLost = e.manifestLost;
    entry.lostChunks = e.lostChunks;
  }
  return entry;
}

function indexText(list) {
  const lines = list.map((c) => "  " + JSON.stringify(indexEntry(c)));
  return `{"format": "${FORMAT}", "version": 1, "passphrase": ${JSON.stringify(PASSPHRASE)}, "cases": [\n${lines.join(",\n")}\n]}\n`;
}

function write(directory) {
  mkdirSync(directory, { recursive: true });
  const list = cases();
  const names = new Set(list.map((c) => `${c.name}.goshuin`));
  for (const file of readdirSync(directory)) if (file.endsWith(".goshuin") && !names.has(file)) unlinkSync(join(directory, file));
  for (const c of list) writeFileSync(join(directory, `${c.name}.goshuin`), c.file);
  writeFileSync(join(directory, "index.json"), indexText(list));
  const bytes = list.reduce((sum, c) => sum + c.file.length, 0);
  console.log(`wrote ${list.length} cases (${bytes} bytes) and index.json to ${directory}`);
}

// ---- --check: every case through the page's code


/**
 * What the page gives for a case: the strict verdict, and salvage's result in index.json's shape. `asBlob`:
 * the file read as a Blob, as the page reads a picked file (its salvage's chunks and entries then checked by
 * the pool's tasks, in this thread under Node) rather than from bytes in memory.
 */
export async function pageResults(core, bytes, passphrase, asBlob) {
  const secret = () => new TextEncoder().encode(passphrase);
  const source = () => (asBlob ? core.blobSource(new Blob([bytes])) : core.bytesSource(bytes));
  const out = {};
  try {
    await core.openBackup(source(), secret());
    out.strict = "ok";
  } catch (error) {
    if (!(error instanceof core.GoshuinError)) throw error;
    out.strict = error.code;
    if (error.chunkIndex !== undefined) out.strictChunkIndex = error.chunkIndex;
  }
  let salvaged;
  try {
    salvaged = await core.salvageBackup(source(), secret());
  } catch (error) {
    if (!(error instanceof core.GoshuinError)) throw error;
    return { ...out, salvage: error.code };
  }
  const s = salvaged.salvage;
  // Every restored entry read again as the page shows and saves it: its bytes' SHA-256.
  const restored = [];
  for (const item of s.restored) {
    const data = await salvaged.read(item.name);
    restored.push({ name: item.name, sha256: createHash("sha256").update(data).digest("hex") });
    if (restored[restored.length - 1].sha256 !== item.sha256) throw new Error(`${item.name}: read again, another SHA-256`);
  }
  return {
    ...out,
    salvage: "restored",
    mode: s.mode,
    restored,
    lost: s.lost.map((l) => ({ name: l.name, reason: l.reason })),
    manifestLost: s.manifestLost,
    lostChunks: salvaged.lostChunkList(),
  };
}

/** The entries a strict reader's error names for a damaged backup (openBackup with describeDamage). */
async function damageNamed(core, bytes, passphrase, asBlob) {
  const source = asBlob ? core.blobSource(new Blob([bytes])) : core.bytesSource(bytes);
  try {
    await core.openBackup(source, new TextEncoder().encode(passphrase), { describeDamage: true });
  } catch (error) {
    if (!error.damage || !error.damage.named) return "";
    return [...new Set(error.damage.runs.flatMap((run) => run.entries.map((e) => e.name)))].sort().join(",");
  }
  return "";
}

async function check(directory) {
  const problems = [];
  let passed = 0;
  const indexPath = join(directory, "index.json");
  if (!existsSync(indexPath)) throw new Error(`no ${indexPath}: run --write`);
  const index = JSON.parse(readFileSync(indexPath, "utf8"));
  if (index.format !== FORMAT || index.version !== 1 || !Array.isArray(index.cases)) throw new Error(`${indexPath} is not a ${FORMAT} version 1`);
  const made = cases();
  if (readFileSync(indexPath, "utf8") !== indexText(made)) problems.push("index.json is not what --write makes (run --write)");
  for (const c of made) {
    const path = join(directory, `${c.name}.goshuin`);
    if (existsSync(path) && !readFileSync(path).equals(c.file)) problems.push(`${c.name}.goshuin is not what --write makes (run --write)`);
  }
  const seen = new Set(index.cases.map((c) => c.name));
  for (const file of readdirSync(directory)) if (file.endsWith(".goshuin") && !seen.has(file.slice(0, -8))) problems.push(`${file} is not in index.json`);
  // A file read as a Blob is salvaged by the pool's tasks: in Web Workers imitated here (fake-workers.mjs,
  // imported before the core: messages cloned), and in this thread, as where no worker starts.
  const workers = await import("./fake-workers.mjs");
  const core = await loadPageCore();
  workers.setServe((await import("../src/core/28-worker-tasks.mjs")).serveWorker);
  const ImitatedWorker = globalThis.Worker;
  const bufferedDigest = core.limits.bufferedDigest;
  for (const c of index.cases) {
    const path = join(directory, `${c.name}.goshuin`);
    if (!existsSync(path)) {
      problems.push(`${c.name}.goshuin is missing`);
      continue;
    }
    const bytes = new Uint8Array(readFileSync(path));
    const { name, comment, ...rest } = c;
    const expected = JSON.stringify(rest);
    let wrong = null;
    for (const read of ["", " (read as a Blob, by workers)", " (read as a Blob, in this thread)"]) {
      const asBlob = read !== "";
      globalThis.Worker = read.includes("this thread") ? undefined : ImitatedWorker;
      for (const digest of [bufferedDigest, 0]) {
        core.limits.bufferedDigest = digest;
        const got = JSON.stringify(await pageResults(core, bytes, index.passphrase, asBlob));
        if (got !== expected) wrong = `${c.name}${read}: the page gives\n    ${got}\n  the corpus says\n    ${expected}`;
      }
      // A strict reader's error names the entries the damage touches (§4.2): in directory mode, exactly the
      // entries salvage loses to damaged chunks.
      if (!wrong && c.strict === "chunk_damaged" && c.mode === "directory") {
        workers.workerControl.mostRunning = workers.workerControl.running;
        const named = await damageNamed(core, bytes, index.passphrase, asBlob);
        const lostToDamage = c.lost.filter((l) => l.reason === "damaged").map((l) => l.name).sort().join(",");
        if (named !== lostToDamage) wrong = `${c.name}${read}: the strict error names ${named || "nothing"}, salvage loses ${lostToDamage} to damage`;
        // The opening's workers are stopped before its damage check starts its own: one pool's at a time.
        const poolSize = core.createWorkerPool({ inThread: true }).size; // no worker started
        if (workers.workerControl.mostRunning > poolSize)
          wrong = `${c.name}${read}: ${workers.workerControl.mostRunning} workers ran at once, a pool has ${poolSize}`;
      }
    }
    core.limits.bufferedDigest = bufferedDigest;
    globalThis.Worker = ImitatedWorker;
    if (wrong) problems.push(wrong);
    else passed++;
  }
  for (const problem of problems) console.log(`FAIL ${problem}`);
  const bytes = index.cases.reduce((sum, c) => sum + (existsSync(join(directory, `${c.name}.goshuin`)) ? readFileSync(join(directory, `${c.name}.goshuin`)).length : 0), 0);
  console.log(`${index.cases.length} cases, ${bytes} bytes`);
  console.log(`salvage-corpus: ${passed} passed, ${problems.length} failed`);
  return problems.length === 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [mode, directory] = process.argv.slice(2);
  if (!directory || (mode !== "--write" && mode !== "--check")) {
    console.error("usage: node Web/test/salvage-corpus.mjs --write|--check DIR");
    process.exit(64);
  }
  if (mode === "--write") write(directory);
  else process.exit((await check(directory)) ? 0 : 1);
}
