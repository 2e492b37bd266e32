// The backup ZIPs the tests and the shared corpus (Tests/ArchiveCorpus) are made of: a ZIP builder with
// every field under the caller's control, a small deflate encoder, and the list of cases with the code
// Spec/backup-v1.md §4 and §4.1 demand for a full read (steps 1–6).
//
// Everything here is deterministic: the same bytes on every run and every machine (the deflate encoder is
// this file's own, not zlib's, whose output depends on its version and on the CPU). No dependency outside
// Node's own modules.
import { createHash } from "node:crypto";

// ---- bytes

export function le(size, value) {
  const out = Buffer.alloc(size);
  let v = BigInt(value);
  for (let i = 0; i < size; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
export function crc32(bytes) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}
export const sha256hex = (bytes) => createHash("sha256").update(bytes).digest("hex");
export const bytesOf = (value) => (typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value));
export const FFFF = 0xffffffff;

/** Deterministic pseudo-random bytes (a 32-bit LCG). */
export function pseudoRandom(length, seed) {
  const out = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

// ---- deflate (RFC 1951): one fixed-Huffman block, literals and runs (distance 1), and on request
// matches at any distance of the 32 KiB window (greedy, the last earlier position of the same 3 bytes)

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/**
 * Raw deflate data of `input`. `final: false` leaves the block without BFINAL and ends with an empty
 * stored block, as zlib's Z_SYNC_FLUSH does: data that never ends. `matches: true` also uses earlier
 * copies at any distance up to 32 KiB (for large repetitive data); without it only runs of one byte.
 */
export function deflateRaw(input, { final = true, matches = false } = {}) {
  const data = bytesOf(input);
  const out = [];
  let buffer = 0;
  let count = 0;
  const bits = (value, n) => {
    for (let i = 0; i < n; i++) {
      buffer |= ((value >>> i) & 1) << count;
      if (++count === 8) {
        out.push(buffer);
        buffer = 0;
        count = 0;
      }
    }
  };
  const code = (value, n) => {
    for (let i = n - 1; i >= 0; i--) bits((value >>> i) & 1, 1);
  };
  const symbol = (s) => {
    if (s < 144) code(0x30 + s, 8);
    else if (s < 256) code(0x190 + s - 144, 9);
    else if (s < 280) code(s - 256, 7);
    else code(0xc0 + s - 280, 8);
  };
  const copy = (length, distance) => {
    let k = LENGTH_BASE.length - 1;
    while (LENGTH_BASE[k] > length) k--;
    symbol(257 + k);
    bits(length - LENGTH_BASE[k], LENGTH_EXTRA[k]);
    let d = DISTANCE_BASE.length - 1;
    while (DISTANCE_BASE[d] > distance) d--;
    code(d, 5);
    bits(distance - DISTANCE_BASE[d], DISTANCE_EXTRA[d]);
  };
  const last = new Map(); // 3 bytes -> the last position they started at
  const remember = (from, to) => {
    if (!matches) return;
    for (let p = from; p < to && p + 3 <= data.length; p++) last.set(data[p] | (data[p + 1] << 8) | (data[p + 2] << 16), p);
  };
  bits(final ? 1 : 0, 1);
  bits(1, 2);
  let i = 0;
  while (i < data.length) {
    let run = 0;
    if (i > 0) while (run < 258 && i + run < data.length && data[i + run] === data[i - 1]) run++;
    let length = 0;
    let distance = 0;
    if (matches && i + 3 <= data.length) {
      const at = last.get(data[i] | (data[i + 1] << 8) | (data[i + 2] << 16));
      if (at !== undefined && i - at <= 32768) {
        while (length < 258 && i + length < data.length && data[at + length] === data[i + length]) length++;
        distance = i - at;
      }
    }
    if (length >= 3 && length > run) {
      copy(length, distance);
      remember(i, i + length);
      i += length;
    } else if (run >= 3) {
      copy(run, 1);
      remember(i, i + run);
      i += run;
    } else {
      remember(i, i + 1);
      symbol(data[i]);
      i++;
    }
  }
  symbol(256);
  if (!final) {
    bits(0, 3);
    if (count) bits(0, 8 - count);
    out.push(0, 0, 0xff, 0xff);
  } else if (count) out.push(buffer);
  return Buffer.from(out);
}

// ---- a ZIP builder

/**
 * entries: [{ name, data, method (0|8), compressed (override), crc, usize, csize, flags, madeBy, attrs,
 *   centralExtra, comment, localOffset, startDisk, signature (central), zip64: ["usize","csize","offset"]
 *   (fields moved to the central ZIP64 extra field, and both local sizes to a 16-byte local one),
 *   centralOnly (a central record without a local header of its own: give localOffset), dosTime and
 *   dosDate (default 0 and 0x21: 1980-01-01 00:00),
 *   local: { name, method, flags, crc, usize, csize, extra } }]
 * options: prepend, gaps: {index: bytes after that entry's data}, centralOrder: [entry indices],
 *   centralTail (bytes after the records), zip64End (true or overrides: recordSize, extensible, disk,
 *   cdDisk, entriesOnDisk, entries, cdSize, cdOffset, between (bytes between record and locator),
 *   locatorOffset, locatorDisk, totalDisks), end: { disk, cdDisk, entriesOnDisk, entries, cdSize,
 *   cdOffset, commentLength }, comment, trailing.
 * Returns { zip, localOffsets, dataOffsets, cdOffset }.
 */
export function buildZip(entries, options = {}) {
  const parts = [];
  let offset = 0;
  const push = (b) => {
    parts.push(b);
    offset += b.length;
  };
  if (options.prepend) push(bytesOf(options.prepend));
  const central = [];
  const localOffsets = [];
  const dataOffsets = [];
  entries.forEach((entry, index) => {
    const name = bytesOf(entry.name);
    const data = bytesOf(entry.data ?? "");
    const method = entry.method ?? 0;
    const compressed = entry.compressed ? bytesOf(entry.compressed) : method === 8 ? deflateRaw(data) : data;
    const crc = entry.crc ?? crc32(data);
    const usize = entry.usize ?? data.length;
    const csize = entry.csize ?? compressed.length;
    const zip64 = entry.zip64 || [];
    const localOffset = entry.localOffset ?? offset;
    localOffsets.push(localOffset);
    if (!entry.centralOnly) {
      const local = entry.local || {};
      const localZip64 = zip64.includes("usize") || zip64.includes("csize");
      const localExtra = local.extra ? bytesOf(local.extra) : localZip64 ? Buffer.concat([le(2, 1), le(2, 16), le(8, usize), le(8, csize)]) : Buffer.alloc(0);
      const localName = local.name !== undefined ? bytesOf(local.name) : name;
      push(
        Buffer.concat([
          le(4, 0x04034b50), le(2, 20), le(2, local.flags ?? entry.flags ?? 0), le(2, local.method ?? method), le(2, entry.dosTime ?? 0), le(2, entry.dosDate ?? 0x21),
          le(4, local.crc ?? crc), le(4, local.csize ?? (localZip64 ? FFFF : csize)), le(4, local.usize ?? (localZip64 ? FFFF : usize)),
          le(2, localName.length), le(2, localExtra.length), localName, localExtra,
        ])
      );
      dataOffsets.push(offset);
      push(compressed);
      if (options.gaps && options.gaps[index]) push(bytesOf(options.gaps[index]));
    } else dataOffsets.push(null);
    const values = [];
    if (zip64.includes("usize")) values.push(le(8, usize));
    if (zip64.includes("csize")) values.push(le(8, csize));
    if (zip64.includes("offset")) values.push(le(8, localOffset));
    const centralExtra = entry.centralExtra !== undefined ? bytesOf(entry.centralExtra) : values.length ? Buffer.concat([le(2, 1), le(2, 8 * values.length), ...values]) : Buffer.alloc(0);
    const comment = bytesOf(entry.comment ?? "");
    central.push(
      Buffer.concat([
        le(4, entry.signature ?? 0x02014b50), le(2, entry.madeBy ?? 0x0314), le(2, 20), le(2, entry.flags ?? 0), le(2, method), le(2, entry.dosTime ?? 0), le(2, entry.dosDate ?? 0x21),
        le(4, crc), le(4, zip64.includes("csize") ? FFFF : csize), le(4, zip64.includes("usize") ? FFFF : usize),
        le(2, name.length), le(2, centralExtra.length), le(2, comment.length), le(2, entry.startDisk ?? 0), le(2, 0),
        le(4, entry.attrs ?? 0o100644 * 65536), le(4, zip64.includes("offset") ? FFFF : localOffset), name, centralExtra, comment,
      ])
    );
  });
  const cdOffset = offset;
  (options.centralOrder || central.map((_, i) => i)).forEach((i) => push(central[i]));
  if (options.centralTail) push(bytesOf(options.centralTail));
  const cdSize = offset - cdOffset;
  const end = options.end || {};
  const count = entries.length;
  if (options.zip64End) {
    const z = options.zip64End === true ? {} : options.zip64End;
    const recordOffset = offset;
    push(
      Buffer.concat([
        le(4, 0x06064b50), le(8, z.recordSize ?? 44), le(2, 0x032d), le(2, 45), le(4, z.disk ?? 0), le(4, z.cdDisk ?? 0),
        le(8, z.entriesOnDisk ?? z.entries ?? count), le(8, z.entries ?? count), le(8, z.cdSize ?? cdSize), le(8, z.cdOffset ?? cdOffset),
        z.extensible ? bytesOf(z.extensible) : Buffer.alloc(0),
      ])
    );
    if (z.between) push(bytesOf(z.between));
    push(Buffer.concat([le(4, 0x07064b50), le(4, z.locatorDisk ?? 0), le(8, z.locatorOffset ?? recordOffset), le(4, z.totalDisks ?? 1)]));
  }
  const comment = bytesOf(options.comment ?? "");
  const big = !!options.zip64End;
  push(
    Buffer.concat([
      le(4, 0x06054b50), le(2, end.disk ?? 0), le(2, end.cdDisk ?? 0),
      le(2, end.entriesOnDisk ?? end.entries ?? (big ? 0xffff : count)), le(2, end.entries ?? (big ? 0xffff : count)),
      le(4, end.cdSize ?? (big ? FFFF : cdSize)), le(4, end.cdOffset ?? (big ? FFFF : cdOffset)),
      le(2, end.commentLength ?? comment.length), comment,
    ])
  );
  if (options.trailing) push(bytesOf(options.trailing));
  return { zip: new Uint8Array(Buffer.concat(parts)), localOffsets, dataOffsets, cdOffset };
}
export const makeZip = (entries, options) => buildZip(entries, options).zip;

// ---- backups

export const RECORDS = 'date,shrine,prefecture,note\n2026-01-01,Meiji Jingu,Tokyo,hatsumode\n2026-03-15,Fushimi Inari Taisha,Kyoto,"<b>bold</b>, ""quoted"""\n';
export function png(seed) {
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), createHash("sha256").update(String(seed)).digest()]);
}
export const PHOTOS = [
  { name: "IMG_0001.jpg", data: png(1) },
  { name: "IMG_0002.png", data: png(2) },
];
export function manifestFor(records, photos, overrides = {}) {
  const file = (name, data) => ({ name, size: data.length, sha256: sha256hex(data) });
  const manifest = {
    format: "goshuin-backup",
    version: 1,
    createdAt: "2026-11-29T12:00:00Z",
    records: file("records.csv", bytesOf(records)),
    photos: photos.map((p) => file(p.name, bytesOf(p.data))).sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name))),
    ...overrides,
  };
  return JSON.stringify(manifest);
}
/** The entries of a valid backup, in the tool's order: records.csv (deflated), the photos, manifest.json (deflated). */
export function backupEntries({ records = RECORDS, photos = PHOTOS, manifest } = {}) {
  return [
    { name: "records.csv", data: records, method: 8 },
    ...photos.map((p) => ({ name: p.name, data: p.data, method: 0 })),
    { name: "manifest.json", data: manifest ?? manifestFor(records, photos), method: 8 },
  ];
}
/** backupEntries() with entry `index` changed. */
export function edited(index, change) {
  const entries = backupEntries();
  Object.assign(entries[index], change);
  return entries;
}
const edit = (index, change, options) => makeZip(edited(index, change), options);
/** The valid manifest with some of its top-level values replaced. */
function manifestWith(change) {
  return JSON.stringify({ ...JSON.parse(manifestFor(RECORDS, PHOTOS)), ...change });
}
/** A manifest whose listed SHA-256 of photo `index` is another file's. */
function lyingManifest(index) {
  const lying = JSON.parse(manifestFor(RECORDS, PHOTOS));
  lying.photos[index].sha256 = sha256hex(Buffer.from("something else"));
  return JSON.stringify(lying);
}
const zip64Field = (...values) => Buffer.concat([le(2, 1), le(2, 8 * values.length), ...values.map((v) => le(8, v))]);
const rawField = (id, data) => Buffer.concat([le(2, id), le(2, data.length), bytesOf(data)]);

/**
 * A valid backup whose end record holds the end signature's bytes 50 4B 05 06 in its own fields: 19,280
 * entries (0x4B50, its bytes 10-11) and a central directory of 0x00100605 bytes (bytes 12-15: 05 06 10 00).
 * The signature cannot lie in the directory's size or offset alone without a directory or entries of
 * 0x06054B50 bytes (101 MB); here the count and the size share it. The photos are empty, named so that the
 * central records add up to the size exactly, and the manifest is deflated with matches (2 MB of JSON).
 */
export function signatureInFields() {
  const count = 0x4b50;
  const directorySize = 0x00100605;
  const photoCount = count - 2;
  const fixed = 46 * count + "records.csv".length + "manifest.json".length;
  // Stems of 4 base-36 digits ("0000.jpg", 8 bytes), the first `longer` of them with an "x" more (9 bytes).
  const longer = directorySize - fixed - 8 * photoCount;
  if (longer < 0 || longer > photoCount) throw new Error("signatureInFields: the names cannot fill the directory");
  const photos = [];
  for (let i = 0; i < photoCount; i++) photos.push({ name: i.toString(36).padStart(4, "0") + (i < longer ? "x" : "") + ".jpg", data: "" });
  const entries = backupEntries({ photos });
  const manifest = entries[entries.length - 1];
  manifest.compressed = deflateRaw(manifest.data, { matches: true });
  const built = buildZip(entries);
  const zip = Buffer.from(built.zip);
  if (zip.length - 22 - built.cdOffset !== directorySize || zip.readUInt32LE(zip.length - 22 + 10) !== 0x06054b50)
    throw new Error("signatureInFields: the end record does not hold the signature");
  return built.zip;
}

// ---- the cases

/**
 * Every case: { name, expect, comment, zip } with `expect` "ok" or an error code, as Spec/backup-v1.md §4
 * and §4.1 demand for a full read. The spec decides every one: all of them are in the corpus.
 */
export function archiveCases() {
  const cases = [];
  const add = (name, expect, comment, zip) => {
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) throw new Error(`bad case name ${name}`);
    if (cases.some((c) => c.name === name)) throw new Error(`duplicate case name ${name}`);
    if (typeof expect !== "string") throw new Error(`case ${name} has no code`);
    cases.push({ name, expect, comment, zip });
  };
  const valid = makeZip(backupEntries());
  const validLayout = buildZip(backupEntries());

  // valid backups
  add("valid", "ok", "the tool's layout: records.csv deflated, two stored photos, manifest.json deflated and last", valid);
  add("valid-every-extension", "ok", "one photo of each extension jpg, jpeg, png, heic, heif, webp", makeZip(backupEntries({
    photos: ["a.jpg", "b.jpeg", "c.png", "d.heic", "e.heif", "f.webp"].map((name, i) => ({ name, data: png(10 + i) })),
  })));
  add("valid-no-photos-empty-records", "ok", "no photos; records.csv of 0 bytes, deflated (2 bytes of deflate data)", makeZip(backupEntries({ records: "", photos: [] })));
  add("valid-empty-photo", "ok", "a stored photo of 0 bytes", makeZip(backupEntries({ photos: [{ name: "IMG_0001.jpg", data: "" }] })));
  add("valid-manifest-first", "ok", "manifest.json first in the file, the other entries in another order", (() => {
    const e = backupEntries();
    return makeZip([e[3], e[1], e[0], e[2]]);
  })());
  add("valid-central-order-differs", "ok", "the central directory lists the entries in the reverse of the file order", makeZip(backupEntries(), { centralOrder: [3, 2, 1, 0] }));
  add("valid-deflated-photo-stored-records", "ok", "a deflated photo and a stored records.csv", makeZip(backupEntries().map((e) => ({ ...e, method: e.name === "IMG_0001.jpg" ? 8 : e.name === "records.csv" ? 0 : e.method }))));
  add("valid-dos-entry", "ok", "an entry made by MS-DOS (host 0, archive attribute): no Unix mode to judge", edit(1, { madeBy: 20, attrs: 0x20 }));
  add("valid-extended-timestamp", "ok", "an extended-timestamp extra field (0x5455) in both headers", edit(1, { centralExtra: rawField(0x5455, [1, 0, 0, 0, 0]), local: { extra: rawField(0x5455, [1, 0, 0, 0, 0]) } }));
  add("valid-local-extra-only", "ok", "a local extra field that the central record does not have", edit(1, { local: { extra: rawField(0x5455, [1]) } }));
  add("valid-manifest-whitespace", "ok", "JSON whitespace around the manifest's object", makeZip(backupEntries({ manifest: "\n " + manifestFor(RECORDS, PHOTOS) + "\n" })));
  add("valid-upper-case-extensions", "ok", "photos A.HEIC, B.Jpeg, IMG_0001.JPG in the ZIP and the manifest: §3.2 takes the extension in any case", makeZip(backupEntries({
    photos: [{ name: "A.HEIC", data: png(3) }, { name: "B.Jpeg", data: png(4) }, { name: "IMG_0001.JPG", data: png(5) }],
  })));
  add("valid-mixed-case-extensions", "ok", "one photo of each extension in mixed case: a.JpG, b.jPEG, c.Png, d.hEiC, e.HeIf, f.WebP", makeZip(backupEntries({
    photos: ["a.JpG", "b.jPEG", "c.Png", "d.hEiC", "e.HeIf", "f.WebP"].map((name, i) => ({ name, data: png(20 + i) })),
  })));
  add("valid-photo-name-upper-case-extension", "ok", "a backup of records.csv and one photo IMG_0001.JPG, as a phone names it", makeZip(backupEntries({ photos: [{ name: "IMG_0001.JPG", data: png(1) }] })));
  add("valid-unix-mode-without-type", "ok", "made by Unix, mode 0644 without file-type bits (Python's zipfile writes such): a regular file (§4)", edit(1, { attrs: 0o644 * 65536 }));
  add("valid-photos-byte-order", "ok", "photos sorted by byte order: B.jpg before a.jpg", makeZip(backupEntries({ photos: [{ name: "B.jpg", data: png(3) }, { name: "a.jpg", data: png(4) }] })));

  // §3.1 names, judged on the central directory's bytes
  const withName = (bad) => {
    const entries = backupEntries({ photos: [{ name: "IMG_0001.jpg", data: png(1) }] });
    entries.splice(1, 0, { name: bad, data: "x" });
    return makeZip(entries);
  };
  for (const [name, bad, comment] of [
    ["name-dot-dot-slash", "../evil.jpg", "../ in a name"], ["name-slash", "a/b.jpg", "a slash"], ["name-backslash", "a\\b.jpg", "a backslash"],
    ["name-nul", "a\0.jpg", "a NUL byte"], ["name-space", "a b.jpg", "a space"], ["name-newline", "a.jpg\n", "a trailing newline"],
    ["name-html", '<img src=x onerror="alert(1)">.jpg', "HTML"], ["name-non-ascii", "写真.jpg", "UTF-8 beyond ASCII"], ["name-dot", ".", "the name ."],
    ["name-dot-dot", "..", "the name .."], ["name-empty", "", "an empty name"], ["name-256-bytes", "a".repeat(252) + ".jpg", "256 bytes"],
    ["name-absolute", "/etc/passwd", "an absolute path"],
  ])
    add(name, "unsafe_entry_name", `an extra entry whose name has ${comment}`, withName(bad));
  add("name-255-bytes-unlisted", "manifest_mismatch", "a 255-byte name is safe (§3.1); the manifest does not list it (step 4)", withName("a".repeat(251) + ".jpg"));

  // duplicates
  {
    const e = backupEntries();
    add("dup-exact", "duplicate_entry", "IMG_0001.jpg twice, each with its own local header", makeZip([...e.slice(0, 2), e[1], ...e.slice(2)]));
    add("dup-case-folded", "duplicate_entry", "IMG_0001.jpg and img_0001.JPG", makeZip([...e.slice(0, 2), { ...e[1], name: "img_0001.JPG" }, ...e.slice(2)]));
    const twins = [{ name: "IMG_0001.JPG", data: png(1) }, { name: "IMG_0001.jpg", data: png(2) }];
    add("dup-extension-case", "duplicate_entry", "photos IMG_0001.jpg and IMG_0001.JPG, both valid names, both in the manifest: equal when case-folded (step 2, before the manifest)", makeZip(backupEntries({ photos: twins })));
  }

  // kinds
  add("kind-method-12", "unsupported_entry", "a photo with method 12 (bzip2)", edit(1, { method: 12, compressed: "x".repeat(40) }));
  add("kind-method-99", "unsupported_entry", "a photo with method 99 (AES)", edit(1, { method: 99 }));
  add("kind-encrypted", "unsupported_entry", "the encryption flag (bit 0), in both headers", edit(1, { flags: 1 }));
  add("kind-strong-encryption", "unsupported_entry", "the strong-encryption flag (bit 6), in both headers", edit(1, { flags: 0x40 }));
  add("kind-data-descriptor", "unsupported_entry", "the data-descriptor flag (bit 3), in both headers", edit(1, { flags: 8 }));
  add("kind-directory", "unsupported_entry", "the DOS directory attribute", edit(1, { attrs: 0x10 }));
  add("kind-symlink", "unsupported_entry", "a Unix symbolic link (mode 0120777)", edit(1, { attrs: 0o120777 * 65536 }));
  add("kind-fifo", "unsupported_entry", "a Unix FIFO (mode 0010644)", edit(1, { attrs: 0o010644 * 65536 }));

  // limits and declared sizes
  add("limit-ratio", "zip_limit_exceeded", "records.csv deflated to 3 bytes declaring 100,000 bytes: more than 200 x", edit(0, { usize: 100000, compressed: deflateRaw("a") }));
  add("limit-manifest-size", "zip_limit_exceeded", "manifest.json declaring 16 MiB + 1 bytes", edit(3, { usize: 16 * 1048576 + 1, csize: 1000, compressed: Buffer.alloc(1000), method: 8 }));
  add("limit-entries-classic", "zip_limit_exceeded", "the end record declares 50,001 entries", makeZip(backupEntries(), { end: { entries: 50001 } }));
  add("limit-entries-zip64", "zip_limit_exceeded", "the ZIP64 end record declares 50,001 entries", makeZip(backupEntries(), { zip64End: { entries: 50001 } }));
  add("limit-entries-2p64", "zip_limit_exceeded", "the ZIP64 end record declares 2^64 - 1 entries", makeZip(backupEntries(), { zip64End: { entries: 0xffffffffffffffffn } }));
  add("stored-sizes-differ", "zip_malformed", "a stored photo declaring 303 bytes uncompressed, 40 compressed (both headers)", edit(1, { usize: 303 }));

  // end records
  add("end-comment", "zip_malformed", "a ZIP comment", makeZip(backupEntries(), { comment: "hello" }));
  add("end-trailing-data", "zip_malformed", "two bytes after the end record", makeZip(backupEntries(), { trailing: "xx" }));
  add("end-not-a-zip", "zip_malformed", "512 pseudo-random bytes", new Uint8Array(pseudoRandom(512, 7)));
  add("end-too-short", "zip_malformed", "3 bytes", new Uint8Array([1, 2, 3]));
  add("end-empty", "zip_malformed", "0 bytes", new Uint8Array(0));
  add("end-multi-disk", "zip_malformed", "the end record's disk number is 1", makeZip(backupEntries(), { end: { disk: 1 } }));
  add("end-cd-disk", "zip_malformed", "the end record's central-directory disk is 1", makeZip(backupEntries(), { end: { cdDisk: 1 } }));
  add("end-entries-on-disk-differ", "zip_malformed", "entries on this disk 3, entries 4", makeZip(backupEntries(), { end: { entriesOnDisk: 3 } }));
  add("end-cd-size-small", "zip_malformed", "the central directory's declared size is 100, less than its records", makeZip(backupEntries(), { end: { cdSize: 100 } }));
  add("end-cd-offset-beyond", "zip_malformed", "the central directory's declared offset is past the end record", makeZip(backupEntries(), { end: { cdOffset: valid.length } }));
  add("end-signature-in-fields", "zip_malformed", "a central directory size of 0x06054B50 (its bytes spell the end signature): not where the end record starts", makeZip(backupEntries(), { end: { cdSize: 0x06054b50 } }));
  add("end-bytes-before-end-record", "zip_malformed", "4 bytes between the last central record and the end record, counted in the directory's size", makeZip(backupEntries(), { centralTail: "junk" }));
  add("end-count-small", "zip_malformed", "the end record declares 3 entries; the directory holds 4 records", makeZip(backupEntries(), { end: { entries: 3 } }));
  add("end-count-large", "zip_malformed", "the end record declares 5 entries; the directory holds 4 records (the fifth is cut)", makeZip(backupEntries(), { end: { entries: 5 } }));
  add("end-no-entries", "manifest_mismatch", "an end record alone: no entries, so no manifest.json (step 3)", makeZip([]));

  // the tiling (step 5, 6)
  add("tiling-prepended", "zip_malformed", "7 bytes before the first local header (every offset counts them)", makeZip(backupEntries(), { prepend: "MZ\0\0\0\0\0" }));
  add("tiling-gap", "zip_malformed", "3 bytes between two entries", makeZip(backupEntries(), { gaps: { 1: "gap" } }));
  add("tiling-gap-before-cd", "zip_malformed", "3 bytes between the last entry and the central directory", makeZip(backupEntries(), { gaps: { 3: "gap" } }));
  {
    // The overlapping-entry bomb: b.jpg's local header is the start of a.jpg's data.
    const inner = makeZip([{ name: "b.jpg", data: png(9) }]).subarray(0, 30 + 5 + png(9).length);
    const photos = [{ name: "a.jpg", data: Buffer.from(inner) }, { name: "b.jpg", data: png(9) }];
    const entries = [
      { name: "records.csv", data: RECORDS, method: 8 },
      { name: "a.jpg", data: Buffer.from(inner) },
      { name: "manifest.json", data: manifestFor(RECORDS, photos), method: 8 },
    ];
    const aData = buildZip(entries).dataOffsets[1];
    entries.push({ name: "b.jpg", data: png(9), centralOnly: true, localOffset: aData });
    add("tiling-overlap", "zip_malformed", "b.jpg's local header lies inside a.jpg's data (the overlapping-entry bomb)", makeZip(entries));
  }
  {
    const entries = backupEntries();
    entries.splice(2, 0, { name: "b.jpg", data: png(1), centralOnly: true, localOffset: validLayout.localOffsets[1] });
    const photos = [...PHOTOS, { name: "b.jpg", data: png(1) }];
    entries[entries.length - 1].data = manifestFor(RECORDS, photos);
    add("tiling-two-records-one-header", "zip_malformed", "b.jpg's central record points at IMG_0001.jpg's local header (same data, listed): whichever of the two is read first, the other fails", makeZip(entries));
  }
  add("tiling-wrong-offset", "zip_malformed", "a photo's central record gives offset 3", edit(1, { localOffset: 3 }));

  // local header against central record
  add("local-name-differs", "zip_malformed", "the local header names IMG_0009.jpg", edit(1, { local: { name: "IMG_0009.jpg" } }));
  add("local-name-length-differs", "zip_malformed", "the local header names IMG_001.jpg (one byte shorter)", edit(1, { local: { name: "IMG_001.jpg" } }));
  add("local-method-differs", "zip_malformed", "the local header says deflate, the central record stored", edit(1, { local: { method: 8 } }));
  add("local-crc-differs", "zip_malformed", "the local CRC-32 is 1", edit(1, { local: { crc: 1 } }));
  add("local-sizes-differ", "zip_malformed", "the local sizes are 1", edit(1, { local: { csize: 1, usize: 1 } }));
  add("local-extra-malformed", "zip_malformed", "a local extra field that does not tile (declares 9 bytes, has 1)", edit(1, { local: { extra: Buffer.from([1, 0, 9, 0, 1]) } }));
  add("central-extra-malformed", "zip_malformed", "a central extra field of 2 bytes (no room for its header)", edit(1, { centralExtra: Buffer.from([1, 0]) }));
  add("central-disk-number", "zip_malformed", "a central record's disk number is 1", edit(1, { startDisk: 1 }));
  add("local-header-in-cd", "zip_malformed", "manifest.json's local header offset points into the central directory (step 3)", edit(3, { localOffset: valid.length - 30 }));
  add("local-flag-data-descriptor", "zip_malformed", "the local header has the data-descriptor flag (bit 3), the central record not: the local header disagrees (§4)", edit(1, { local: { flags: 8 } }));
  add("local-flag-encrypted", "zip_malformed", "the local header has the encryption flag (bit 0), the central record not: the local header disagrees (§4)", edit(1, { local: { flags: 1 } }));
  add("local-flag-strong-encryption", "zip_malformed", "the local header has the strong-encryption flag (bit 6), the central record not", edit(1, { local: { flags: 0x40 } }));

  // data (step 5, and step 3 for manifest.json)
  const records = deflateRaw(RECORDS);
  add("data-crc-stored", "entry_corrupt", "a stored photo whose CRC-32 (both headers) is wrong", edit(1, { crc: 12345 }));
  add("data-crc-deflate", "entry_corrupt", "records.csv's CRC-32 (both headers) is wrong", edit(0, { crc: 12345 }));
  add("data-deflate-junk", "entry_corrupt", "4 bytes after the end of records.csv's deflate data, inside its compressed size", edit(0, { compressed: Buffer.concat([records, Buffer.from("junk")]) }));
  add("data-deflate-one-junk-byte", "entry_corrupt", "1 byte after the end of the deflate data, inside the compressed size", edit(0, { compressed: Buffer.concat([records, Buffer.from([0])]) }));
  add("data-deflate-truncated", "entry_corrupt", "records.csv's deflate data cut to 20 bytes", edit(0, { compressed: records.subarray(0, 20) }));
  add("data-deflate-no-final-block", "entry_corrupt", "deflate data without a final block (a sync flush)", edit(0, { compressed: deflateRaw(RECORDS, { final: false }) }));
  add("data-not-deflate", "entry_corrupt", "6 bytes of 0xFF (block type 3, reserved)", edit(0, { compressed: Buffer.alloc(6, 0xff) }));
  {
    const entries = backupEntries({ records: "" });
    entries[0].compressed = Buffer.alloc(0);
    add("data-deflate-empty", "entry_corrupt", "deflate data of 0 bytes for a 0-byte records.csv: no final block", makeZip(entries));
  }
  {
    const short = "a,b\n1,2\n";
    const more = backupEntries({ records: short });
    more[0].compressed = deflateRaw(short + "x".repeat(5000));
    add("data-inflates-more", "entry_corrupt", "records.csv declares 8 bytes; its deflate data gives 5,008", makeZip(more));
    const less = backupEntries({ records: short });
    less[0].compressed = deflateRaw("a,b");
    add("data-inflates-less", "entry_corrupt", "records.csv declares 8 bytes; its deflate data gives 3", makeZip(less));
    const bomb = backupEntries({ records: "a".repeat(65536) });
    bomb[0].compressed = deflateRaw(Buffer.alloc(1048576, 0x61));
    add("data-deflate-bomb", "entry_corrupt", "records.csv declares 64 KiB; its deflate data (within the ratio) gives 1 MiB", makeZip(bomb));
  }

  // manifest.json (step 3)
  const manifestCase = (name, comment, text, expect = "manifest_invalid") => add(`manifest-${name}`, expect, comment, makeZip(backupEntries({ manifest: text })));
  const good = JSON.parse(manifestFor(RECORDS, PHOTOS));
  const text = manifestFor(RECORDS, PHOTOS);
  add("manifest-missing", "manifest_mismatch", "no manifest.json: the ZIP's entries are not manifest.json, records.csv and the listed photos (§2 Binding)", makeZip(backupEntries().slice(0, 3)));
  manifestCase("unknown-key", "an unknown top-level key, purchases", manifestWith({ purchases: [] }));
  manifestCase("missing-key", "createdAt missing", manifestWith({ createdAt: undefined }));
  manifestCase("duplicate-key", "version twice", text.replace('"version":1', '"version":1,"version":1'));
  manifestCase("duplicate-key-in-photo", "a photo's name twice", text.replace('"name":"IMG_0001.jpg"', '"name":"IMG_0001.jpg","name":"IMG_0001.jpg"'));
  manifestCase("unknown-key-in-records", "records has a key mode", manifestWith({ records: { ...good.records, mode: 1 } }));
  manifestCase("format", "format goshuin", manifestWith({ format: "goshuin" }));
  manifestCase("version-2", "version 2", manifestWith({ version: 2 }));
  manifestCase("version-string", 'version "1"', manifestWith({ version: "1" }));
  manifestCase("created-at-feb-30", "createdAt 2026-02-30", manifestWith({ createdAt: "2026-02-30T12:00:00Z" }));
  manifestCase("created-at-1969", "createdAt before 1970", manifestWith({ createdAt: "1969-12-31T23:59:59Z" }));
  manifestCase("created-at-offset", "createdAt with +09:00", manifestWith({ createdAt: "2026-11-29T12:00:00+09:00" }));
  manifestCase("created-at-24h", "createdAt 24:00:00", manifestWith({ createdAt: "2026-11-29T24:00:00Z" }));
  manifestCase("created-at-leap-second", "createdAt 23:59:60, a real leap second (Spec/decisions/0041)", manifestWith({ createdAt: "2016-12-31T23:59:60Z" }));
  manifestCase("records-name", "records.name records.txt", manifestWith({ records: { ...good.records, name: "records.txt" } }));
  manifestCase("size-fraction", "a size written 40.0", text.replace(`"size":${PHOTOS[0].data.length}`, `"size":${PHOTOS[0].data.length}.0`));
  manifestCase("size-negative", "a size of -1", manifestWith({ records: { ...good.records, size: -1 } }));
  manifestCase("size-2p53", "a size of 2^53", manifestWith({ records: { ...good.records, size: 2 ** 53 } }));
  manifestCase("sha256-upper-case", "an upper-case SHA-256", manifestWith({ records: { ...good.records, sha256: good.records.sha256.toUpperCase() } }));
  manifestCase("sha256-short", "a SHA-256 of 62 digits", manifestWith({ records: { ...good.records, sha256: good.records.sha256.slice(2) } }));
  manifestCase("photos-unsorted", "photos in reverse order", manifestWith({ photos: [good.photos[1], good.photos[0]] }));
  manifestCase("photos-not-byte-order", "photos a.jpg before B.jpg (sorted ignoring case, not by bytes)", manifestFor(RECORDS, []).replace('"photos":[]', `"photos":[{"name":"a.jpg","size":1,"sha256":"${"0".repeat(64)}"},{"name":"B.jpg","size":1,"sha256":"${"0".repeat(64)}"}]`));
  manifestCase("photos-not-array", "photos is an object", manifestWith({ photos: {} }));
  for (const [slug, bad] of [
    ["con", "CON.jpg"], ["lpt1", "lpt1.png"], ["nul-upper-case-extension", "Nul.JPG"], ["two-dots", "a.b.jpg"], ["underscore-first", "_a.jpg"],
    ["hyphen-first", "-a.jpg"], ["gif", "a.gif"], ["no-extension", "a"], ["empty-extension", "a."], ["empty-stem", ".jpg"], ["stem-101", "a".repeat(101) + ".jpg"],
    ["gif-upper-case", "a.GIF"], ["con-mixed-case-extension", "cOn.JpEg"],
  ])
    manifestCase(`photo-name-${slug}`, `a listed photo named ${bad.length > 20 ? bad.slice(0, 12) + "…" : bad}`, manifestWith({ photos: [{ ...good.photos[0], name: bad }] }));
  manifestCase("photo-names-case-folded", "photos A.jpg and a.jpg (equal when case-folded)", manifestWith({ photos: [{ ...good.photos[0], name: "A.jpg" }, { ...good.photos[1], name: "a.jpg" }] }));
  manifestCase("photo-names-extension-case", "photos a.JPG and a.jpg in the manifest (equal when case-folded); the ZIP holds IMG_0001.jpg and IMG_0002.png", manifestWith({ photos: [{ ...good.photos[0], name: "a.JPG" }, { ...good.photos[1], name: "a.jpg" }] }));
  manifestCase("invalid-utf8", "a 0xFF byte in a string", Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from(',"x":"\xff"}', "latin1")]));
  manifestCase("lone-surrogate", "createdAt \\ud800", manifestWith({ createdAt: "X" }).replace('"X"', '"\\ud800"'));
  manifestCase("content-after-value", "{} after the object", text + "{}");
  manifestCase("not-json", "the text not json", "not json");
  manifestCase("nested-40-deep", "createdAt is 40 nested arrays", manifestWith({ createdAt: "X" }).replace('"X"', "[".repeat(40) + "]".repeat(40)));
  manifestCase("version-1.0", "version written 1.0 (§2: written 1)", text.replace('"version":1', '"version":1.0'));
  manifestCase("version-1e0", "version written 1e0 (§2: written 1)", text.replace('"version":1', '"version":1e0'));
  manifestCase("size-minus-zero", "records.size written -0 for an empty records.csv (§2: no sign, not even -0)", manifestFor("", PHOTOS).replace('"size":0', '"size":-0'));
  add("manifest-size-minus-zero-matching", "manifest_invalid", "records.size written -0 and records.csv of 0 bytes: the binding would hold, the manifest does not (§2)",
    makeZip(backupEntries({ records: "", manifest: manifestFor("", PHOTOS).replace('"size":0', '"size":-0') })));
  manifestCase("size-exponent", "a size written 4e1", text.replace(`"size":${PHOTOS[0].data.length}`, `"size":${PHOTOS[0].data.length / 10}e1`));
  manifestCase("size-plus", "a size written +40 (not JSON)", text.replace(`"size":${PHOTOS[0].data.length}`, `"size":+${PHOTOS[0].data.length}`));
  manifestCase("bom", "manifest.json starts with a UTF-8 byte-order mark (§2: without a byte-order mark)", "\ufeff" + text);

  // the binding (step 4), and the SHA-256 (step 5)
  {
    const extra = backupEntries();
    extra.splice(1, 0, { name: "extra.jpg", data: "x" });
    add("binding-unlisted-entry", "manifest_mismatch", "an entry extra.jpg the manifest does not list", makeZip(extra));
    add("binding-listed-missing", "manifest_mismatch", "the manifest lists IMG_0003.jpg, not in the ZIP", makeZip(backupEntries({ manifest: manifestFor(RECORDS, [...PHOTOS, { name: "IMG_0003.jpg", data: "x" }]) })));
    add("binding-records-missing", "manifest_mismatch", "no records.csv in the ZIP", makeZip(backupEntries().slice(1)));
    add("binding-photo-sha256", "manifest_mismatch", "the manifest lists another SHA-256 for IMG_0002.png (step 5)", makeZip(backupEntries({ manifest: lyingManifest(1) })));
    const size = JSON.parse(text);
    size.photos[0].size += 1;
    add("binding-photo-size", "manifest_mismatch", "the manifest lists IMG_0001.jpg one byte larger", makeZip(backupEntries({ manifest: JSON.stringify(size) })));
    const recordsSha = JSON.parse(text);
    recordsSha.records.sha256 = "0".repeat(64);
    add("binding-records-sha256", "manifest_mismatch", "the manifest lists another SHA-256 for records.csv (step 5)", makeZip(backupEntries({ manifest: JSON.stringify(recordsSha) })));
    add("binding-name-case", "manifest_mismatch", "the manifest lists img_0001.jpg, the ZIP holds IMG_0001.jpg", makeZip([
      { name: "records.csv", data: RECORDS, method: 8 },
      { name: "IMG_0001.jpg", data: png(1) },
      { name: "manifest.json", data: manifestFor(RECORDS, [{ name: "img_0001.jpg", data: png(1) }]), method: 8 },
    ]));
  }

  // ZIP64 end records
  {
    const e = () => backupEntries();
    const everywhere = e().map((entry) => ({ ...entry, zip64: ["usize", "csize", "offset"] }));
    add("zip64-everywhere", "ok", "every size and offset in ZIP64 fields (16-byte local ones), ZIP64 end records, every end-record field at its limit but the disk numbers", makeZip(everywhere, { zip64End: true }));
    const some = e().map((entry, index) => ({ ...entry, zip64: index === 2 ? ["usize", "csize", "offset"] : index === 1 ? ["offset"] : [] }));
    add("zip64-end-and-extra", "ok", "ZIP64 end records; one entry with all three values in ZIP64, one with its offset", makeZip(some, { zip64End: true }));
    add("zip64-extra-without-end", "ok", "ZIP64 extra fields with a classic end record only", makeZip(some));
    add("zip64-end-alone", "ok", "ZIP64 end records, no ZIP64 extra field", makeZip(e(), { zip64End: true }));
    add("zip64-end-count-only", "ok", "only the two counts of the end record at their limit; its size and offset equal the ZIP64 record's", makeZip(e(), { zip64End: true, end: { cdSize: validLayout.zip.length - 22 - validLayout.cdOffset, cdOffset: validLayout.cdOffset } }));
    add("zip64-end-offset-only", "ok", "only the directory offset at its limit", makeZip(e(), { zip64End: true, end: { entries: 4, cdSize: validLayout.zip.length - 22 - validLayout.cdOffset } }));
    add("zip64-end-size-only", "ok", "only the directory size at its limit", makeZip(e(), { zip64End: true, end: { entries: 4, cdOffset: validLayout.cdOffset } }));
    add("zip64-end-disk-fields-at-limit", "ok", "every end-record field at its limit, the two disk numbers (0xFFFF) too; the ZIP64 record's are 0", makeZip(e(), { zip64End: true, end: { disk: 0xffff, cdDisk: 0xffff } }));
    add("zip64-end-entries-on-disk-not-at-limit", "ok", "entries on this disk 4 (not at its limit, equal to the ZIP64 record's), entries 0xFFFF", makeZip(e(), { zip64End: true, end: { entriesOnDisk: 4, entries: 0xffff } }));
    add("zip64-end-no-sentinel", "zip_malformed", "ZIP64 end records before an end record with no field at its limit (whose size and offset are the directory's): not read, so 76 bytes lie between the directory and the end record", (() => {
      const plain = buildZip(e());
      const cdSize = plain.zip.length - 22 - plain.cdOffset;
      return makeZip(e(), { zip64End: true, end: { entries: 4, cdSize, cdOffset: plain.cdOffset } });
    })());
    add("zip64-end-no-sentinel-in-size", "zip_malformed", "as zip64-end-no-sentinel, the end record's directory size counting the 76 bytes: they follow the last record", (() => {
      const plain = buildZip(e());
      const cdSize = plain.zip.length - 22 - plain.cdOffset + 76;
      return makeZip(e(), { zip64End: true, end: { entries: 4, cdSize, cdOffset: plain.cdOffset } });
    })());
    add("zip64-end-classic-disagrees", "zip_malformed", "count at its limit; the end record's directory offset (not at its limit) is one more than the ZIP64 record's", makeZip(e(), { zip64End: true, end: { cdOffset: validLayout.cdOffset + 1 } }));
    add("zip64-end-counts-disagree", "zip_malformed", "the end record's count 3 (not at its limit), the ZIP64 record's 4", makeZip(e(), { zip64End: true, end: { entries: 3, cdSize: FFFF } }));
    add("zip64-end-missing", "zip_malformed", "the end record's count is 0xFFFF, no ZIP64 records", makeZip(e(), { end: { entries: 0xffff } }));
    add("zip64-locator-elsewhere", "zip_malformed", "the locator points at offset 0", makeZip(e(), { zip64End: { locatorOffset: 0 } }));
    add("zip64-locator-two-disks", "zip_malformed", "the locator says 2 disks", makeZip(e(), { zip64End: { totalDisks: 2 } }));
    add("zip64-locator-disk", "zip_malformed", "the locator puts the ZIP64 record on disk 1", makeZip(e(), { zip64End: { locatorDisk: 1 } }));
    add("zip64-end-extensible-data", "zip_malformed", "a ZIP64 end record of 60 bytes (4 bytes of extensible data)", makeZip(e(), { zip64End: { recordSize: 48, extensible: "abcd" } }));
    add("zip64-end-gap-before-locator", "zip_malformed", "4 bytes between the ZIP64 end record and its locator (which points at the record)", makeZip(e(), { zip64End: { between: "gap!" } }));
    add("zip64-end-wrong-cd-offset", "zip_malformed", "the ZIP64 record's directory offset is 1", makeZip(e(), { zip64End: { cdOffset: 1 } }));
    add("zip64-end-cd-offset-2p63", "zip_malformed", "the ZIP64 record's directory offset is 2^63", makeZip(e(), { zip64End: { cdOffset: 2n ** 63n } }));
    add("zip64-end-entries-on-disk-differ", "zip_malformed", "the ZIP64 record's entries on this disk 3, entries 4", makeZip(e(), { zip64End: { entriesOnDisk: 3, entries: 4 } }));
    add("zip64-end-disk", "zip_malformed", "the ZIP64 record's disk number is 1 (the end record's at its limit)", makeZip(e(), { zip64End: { disk: 1 }, end: { disk: 0xffff } }));
  }

  // the central ZIP64 extra field
  {
    const one = (change) => edited(1, change);
    add("zip64-central-usize-only", "ok", "only the uncompressed size in the central ZIP64 field (local: both sizes, 16 bytes)", makeZip(one({ zip64: ["usize"] })));
    add("zip64-central-extra-value", "zip_malformed", "offset at its limit, the ZIP64 field holds 16 bytes", makeZip(one({ zip64: ["offset"], centralExtra: zip64Field(0, 0) })));
    add("zip64-central-disk-value", "zip_malformed", "offset at its limit, the ZIP64 field holds the offset and a 4-byte disk number", makeZip(one({ zip64: ["offset"], centralExtra: Buffer.concat([le(2, 1), le(2, 12), le(8, validLayout.localOffsets[1]), le(4, 0)]) })));
    add("zip64-central-missing-value", "zip_malformed", "both sizes at their limit, the ZIP64 field holds 8 bytes", makeZip(one({ zip64: ["usize", "csize"], centralExtra: zip64Field(png(1).length) })));
    add("zip64-central-missing-field", "zip_malformed", "offset at its limit without a ZIP64 field", makeZip(one({ zip64: ["offset"], centralExtra: Buffer.alloc(0) })));
    add("zip64-central-two-fields", "zip_malformed", "two ZIP64 fields of 8 bytes, offset at its limit", makeZip(one({ zip64: ["offset"], centralExtra: Buffer.concat([zip64Field(validLayout.localOffsets[1]), zip64Field(validLayout.localOffsets[1])]) })));
    add("zip64-central-unused", "zip_malformed", "no field at its limit and a ZIP64 field of 8 bytes", makeZip(one({ centralExtra: zip64Field(png(1).length) })));
    add("zip64-central-unused-empty", "ok", "no field at its limit and a ZIP64 field of 0 bytes: it holds exactly the (no) values", makeZip(one({ centralExtra: zip64Field() })));
    const swapped = edited(0, { zip64: ["usize", "csize"] });
    const compressed = deflateRaw(RECORDS);
    swapped[0].centralExtra = zip64Field(compressed.length, RECORDS.length);
    swapped[0].local = { extra: zip64Field(RECORDS.length, compressed.length) };
    add("zip64-central-values-swapped", "manifest_mismatch", "records.csv's central ZIP64 values in the order compressed, uncompressed: it declares its compressed size as its size (step 4)", makeZip(swapped));
    add("zip64-sizes-2p62", "manifest_mismatch", "a stored photo declaring 2^62 bytes through ZIP64 (step 4)", makeZip(one({ zip64: ["usize", "csize"], usize: 2n ** 62n, csize: 2n ** 62n })));
    add("zip64-manifest-offset-2p60", "zip_malformed", "manifest.json's local header at 2^60 (step 3)", makeZip(edited(3, { zip64: ["offset"], localOffset: 2n ** 60n })));
    add("zip64-ratio-2p64", "zip_limit_exceeded", "records.csv deflated, declaring 2^64 - 1 bytes through ZIP64", makeZip(edited(0, { zip64: ["usize"], usize: 2n ** 64n - 1n })));
  }

  // the local ZIP64 extra field
  {
    const size = png(1).length;
    const one = (change) => makeZip(edited(1, change));
    add("zip64-local-sizes-disagree", "zip_malformed", "local ZIP64 sizes 1 and 1, central 40 and 40", one({ zip64: ["usize", "csize"], local: { extra: zip64Field(1, 1) } }));
    add("zip64-local-8-bytes-usize", "zip_malformed", "local uncompressed size at its limit, an 8-byte local ZIP64 field holding it alone", one({ zip64: ["usize"], local: { usize: FFFF, csize: size, extra: zip64Field(size) } }));
    add("zip64-local-8-bytes-csize", "zip_malformed", "local compressed size at its limit, an 8-byte local ZIP64 field holding it alone", one({ zip64: ["csize"], local: { usize: size, csize: FFFF, extra: zip64Field(size) } }));
    add("zip64-local-16-bytes-one-at-limit", "ok", "local uncompressed size at its limit (the compressed one not), a 16-byte local ZIP64 field", one({ zip64: ["usize"], local: { usize: FFFF, csize: size, extra: zip64Field(size, size) } }));
    add("zip64-local-24-bytes", "zip_malformed", "both local sizes at their limit, a 24-byte local ZIP64 field (with the offset)", one({ zip64: ["usize", "csize"], local: { extra: zip64Field(size, size, validLayout.localOffsets[1]) } }));
    add("zip64-local-missing", "zip_malformed", "both local sizes at their limit, no local ZIP64 field", one({ zip64: ["usize", "csize"], local: { extra: Buffer.alloc(0) } }));
    add("zip64-local-central-classic", "ok", "both local sizes at their limit with a 16-byte local ZIP64 field; the central record has 32-bit sizes", one({ local: { usize: FFFF, csize: FFFF, extra: zip64Field(size, size) } }));
    add("zip64-local-other-size-disagrees", "zip_malformed", "local uncompressed size at its limit (16-byte field right), the local compressed size (not at its limit) one more than the central", one({ zip64: ["usize"], local: { usize: FFFF, csize: size + 1, extra: zip64Field(size, size) } }));
    add("zip64-local-unused", "ok", "no local size at its limit, a 16-byte local ZIP64 field of wrong values: not read", one({ local: { extra: zip64Field(1, 2) } }));
    add("zip64-local-unused-odd-length", "ok", "no local size at its limit, a 3-byte local ZIP64 field: not read", one({ local: { extra: rawField(1, [1, 2, 3]) } }));
    add("zip64-local-unused-two-fields", "zip_malformed", "no local size at its limit, two local ZIP64 fields: a header has at most one (§4)", one({ local: { extra: Buffer.concat([zip64Field(size, size), zip64Field(size, size)]) } }));
    const swapped = edited(0, { zip64: ["usize", "csize"] });
    swapped[0].local = { extra: zip64Field(deflateRaw(RECORDS).length, RECORDS.length) };
    add("zip64-local-values-swapped", "zip_malformed", "records.csv's local ZIP64 field holds compressed then uncompressed size", makeZip(swapped));
  }

  // several faults in one file: the order of §4.1 decides
  {
    const e = () => backupEntries();
    add("order-end-before-count", "zip_malformed", "disk number 1 (step 1) and 50,001 entries declared", makeZip(e(), { end: { disk: 1, entries: 50001 } }));
    add("order-zip64-end-before-count", "zip_malformed", "a ZIP64 locator pointing at 0 (step 1) and 50,001 entries in the ZIP64 record", makeZip(e(), { zip64End: { entries: 50001, locatorOffset: 0 } }));
    add("order-count-before-records", "zip_limit_exceeded", "50,001 entries declared (step 1) and an unsafe name in record 1", (() => {
      const entries = backupEntries({ photos: [{ name: "IMG_0001.jpg", data: png(1) }] });
      entries.splice(1, 0, { name: "a b.jpg", data: "x" });
      return makeZip(entries, { end: { entries: 50001 } });
    })());
    add("order-record-name-before-kind", "unsafe_entry_name", "one record with an unsafe name and the encryption flag", (() => {
      const entries = backupEntries();
      entries.splice(1, 0, { name: "a b.jpg", data: "x", flags: 1 });
      return makeZip(entries);
    })());
    add("order-record-kind-before-zip64", "unsupported_entry", "one record with the data-descriptor flag and its offset at its limit without a ZIP64 field", edit(1, { flags: 8, zip64: ["offset"], centralExtra: Buffer.alloc(0) }));
    add("order-record-zip64-before-sizes", "zip_malformed", "records.csv: a 16-byte ZIP64 field for its offset alone, and a ratio over 200", edit(0, { usize: 100000, zip64: ["offset"], centralExtra: zip64Field(0, 0) }));
    add("order-record-extra-before-sizes", "zip_malformed", "manifest.json: a central extra field that does not tile, and declaring over 16 MiB", edit(3, { usize: 16 * 1048576 + 1, csize: 1000, compressed: Buffer.alloc(1000), centralExtra: Buffer.from([1, 0]) }));
    add("order-record-disk-before-sizes", "zip_malformed", "manifest.json: disk number 1, and declaring over 16 MiB", edit(3, { usize: 16 * 1048576 + 1, csize: 1000, compressed: Buffer.alloc(1000), startDisk: 1 }));
    add("order-record-manifest-size-before-stored-sizes", "zip_limit_exceeded", "manifest.json stored, declaring 16 MiB + 1 uncompressed and its real compressed size", edit(3, { method: 0, usize: 16 * 1048576 + 1 }));
    {
      const dup = (change) => {
        const entries = backupEntries();
        entries.splice(2, 0, { ...entries[1], ...change });
        return makeZip(entries);
      };
      add("order-record-stored-sizes-before-duplicate", "zip_malformed", "a second IMG_0001.jpg whose stored sizes differ", dup({ usize: 41 }));
      add("order-record-kind-before-duplicate", "unsupported_entry", "a second IMG_0001.jpg with method 12", dup({ method: 12 }));
      const records = backupEntries();
      records.splice(1, 0, { ...records[0], usize: 100000 });
      add("order-record-ratio-before-duplicate", "zip_limit_exceeded", "a second records.csv declaring a ratio over 200", makeZip(records));
    }
    const several = (list, options) => {
      const entries = backupEntries();
      entries.splice(1, 0, ...list);
      return makeZip(entries, options);
    };
    add("order-records-duplicate-before-unsafe", "duplicate_entry", "record 2 duplicates record 1 case-folded; record 3 has an unsafe name", several([{ name: "a.jpg", data: "x" }, { name: "A.jpg", data: "y" }, { name: "a b.jpg", data: "z" }]));
    add("order-records-unsafe-before-kind", "unsafe_entry_name", "record 1 has an unsafe name; record 2 is a symbolic link", several([{ name: "a b.jpg", data: "x" }, { name: "c.jpg", data: "y", attrs: 0o120777 * 65536 }]));
    add("order-records-central-order", "unsupported_entry", "in the file an unsafe name comes before a symbolic link; in the central directory the link comes first", several([{ name: "a b.jpg", data: "x" }, { name: "c.jpg", data: "y", attrs: 0o120777 * 65536 }], { centralOrder: [0, 2, 1, 3, 4, 5] }));
    add("order-records-limit-before-unsafe", "zip_limit_exceeded", "manifest.json first in the central directory declaring over 16 MiB; a later record has an unsafe name", (() => {
      const entries = backupEntries();
      entries.splice(1, 0, { name: "a b.jpg", data: "x" });
      Object.assign(entries[4], { usize: 16 * 1048576 + 1, csize: 1000, compressed: Buffer.alloc(1000) });
      return makeZip(entries, { centralOrder: [4, 0, 1, 2, 3] });
    })());
    add("order-records-unsafe-before-bad-signature", "unsafe_entry_name", "record 1 has an unsafe name; the last record's signature is wrong", (() => {
      const entries = backupEntries();
      entries.splice(1, 0, { name: "a b.jpg", data: "x" });
      entries[4].signature = 0x02014b51;
      return makeZip(entries);
    })());
    add("order-records-bad-signature-before-unsafe", "zip_malformed", "record 1's signature is wrong; record 2 has an unsafe name", (() => {
      const entries = backupEntries();
      entries.splice(1, 0, { name: "a.jpg", data: "x", signature: 0x02014b51 }, { name: "a b.jpg", data: "x" });
      return makeZip(entries);
    })());
    add("order-records-unsafe-before-cut", "unsafe_entry_name", "the end record declares one record more than there are (the last one is cut); record 1 has an unsafe name", (() => {
      const entries = backupEntries();
      entries.splice(1, 0, { name: "a b.jpg", data: "x" });
      return makeZip(entries, { end: { entries: 6 } });
    })());
    add("order-records-before-cd-end", "unsafe_entry_name", "the last record has an unsafe name; 4 bytes follow it before the end record", (() => {
      const entries = backupEntries();
      entries.push({ name: "a b.jpg", data: "x" });
      return makeZip(entries, { centralTail: "junk" });
    })());
    add("order-cd-end-before-manifest", "zip_malformed", "4 bytes after the last record (step 2) and no manifest.json", makeZip(e().slice(0, 3), { centralTail: "junk" }));
    add("order-manifest-missing-before-tiling", "manifest_mismatch", "no manifest.json (step 3) and a gap between entries", makeZip(e().slice(0, 3), { gaps: { 0: "gap" } }));
    add("order-manifest-local-before-json", "zip_malformed", "manifest.json's local CRC-32 differs (step 3, its local header) and it is not JSON", (() => {
      const entries = backupEntries({ manifest: "not json" });
      entries[3].local = { crc: 1 };
      return makeZip(entries);
    })());
    add("order-manifest-crc-before-json", "entry_corrupt", "manifest.json's CRC-32 is wrong in both headers (step 3, its data) and it is not JSON", makeZip(backupEntries({ manifest: "not json" }).map((entry, i) => (i === 3 ? { ...entry, crc: 12345 } : entry))));
    add("order-manifest-json-before-binding", "manifest_invalid", "the manifest has an unknown key (step 3) and the ZIP an unlisted entry", (() => {
      const entries = backupEntries({ manifest: manifestWith({ purchases: [] }) });
      entries.splice(1, 0, { name: "extra.jpg", data: "x" });
      return makeZip(entries);
    })());
    add("order-manifest-json-before-tiling", "manifest_invalid", "the manifest has an unknown key (step 3) and there is a gap between entries", makeZip(backupEntries({ manifest: manifestWith({ purchases: [] }) }), { gaps: { 0: "gap" } }));
    add("order-manifest-json-before-data", "manifest_invalid", "the manifest has an unknown key (step 3) and records.csv's CRC-32 is wrong", makeZip(backupEntries({ manifest: manifestWith({ purchases: [] }) }).map((entry, i) => (i === 0 ? { ...entry, crc: 12345 } : entry))));
    add("order-manifest-local-before-earlier-data", "zip_malformed", "manifest.json's local header names another file (step 3); records.csv, first in the file, has a wrong CRC-32", makeZip(e().map((entry, i) => (i === 0 ? { ...entry, crc: 12345 } : i === 3 ? { ...entry, local: { name: "manifest.jsom" } } : entry))));
    add("order-manifest-crc-before-earlier-local", "entry_corrupt", "manifest.json's CRC-32 is wrong (step 3); records.csv, first in the file, has a local method that differs", makeZip(e().map((entry, i) => (i === 0 ? { ...entry, local: { method: 0 } } : i === 3 ? { ...entry, crc: 12345 } : entry))));
    add("order-binding-before-tiling", "manifest_mismatch", "an unlisted entry (step 4) and 7 bytes before the first local header", (() => {
      const entries = backupEntries();
      entries.splice(1, 0, { name: "extra.jpg", data: "x" });
      return makeZip(entries, { prepend: "MZ\0\0\0\0\0" });
    })());
    add("order-binding-before-data", "manifest_mismatch", "a listed photo missing (step 4) and records.csv's CRC-32 wrong", makeZip(backupEntries({ manifest: manifestFor(RECORDS, [...PHOTOS, { name: "IMG_0003.jpg", data: "x" }]) }).map((entry, i) => (i === 0 ? { ...entry, crc: 12345 } : entry))));
    add("order-binding-before-local", "manifest_mismatch", "the manifest lists IMG_0001.jpg one byte larger (step 4); IMG_0002.png's local method differs", (() => {
      const size = JSON.parse(text);
      size.photos[0].size += 1;
      const entries = backupEntries({ manifest: JSON.stringify(size) });
      entries[2].local = { method: 8 };
      return makeZip(entries);
    })());
    add("order-file-data-before-later-local", "entry_corrupt", "records.csv's CRC-32 is wrong; IMG_0002.png, later in the file, has a local name that differs", makeZip(e().map((entry, i) => (i === 0 ? { ...entry, crc: 12345 } : i === 2 ? { ...entry, local: { name: "IMG_0009.png" } } : entry))));
    add("order-file-local-before-later-data", "zip_malformed", "IMG_0001.jpg's local method differs; IMG_0002.png, later in the file, has a wrong CRC-32", makeZip(e().map((entry, i) => (i === 1 ? { ...entry, local: { method: 8 } } : i === 2 ? { ...entry, crc: 12345 } : entry))));
    add("order-file-sha256-before-later-gap", "manifest_mismatch", "IMG_0001.jpg's SHA-256 is not the manifest's; a gap follows its data", makeZip(backupEntries({ manifest: lyingManifest(0) }), { gaps: { 1: "gap" } }));
    add("order-file-gap-before-later-sha256", "zip_malformed", "a gap after records.csv; IMG_0002.png's SHA-256 is not the manifest's", makeZip(backupEntries({ manifest: lyingManifest(1) }), { gaps: { 0: "gap" } }));
    add("order-file-order-local", "zip_malformed", "central order IMG_0002.png (wrong CRC-32), records.csv, IMG_0001.jpg (local method differs): IMG_0001.jpg comes first in the file", makeZip(e().map((entry, i) => (i === 1 ? { ...entry, local: { method: 8 } } : i === 2 ? { ...entry, crc: 12345 } : entry)), { centralOrder: [2, 0, 1, 3] }));
    add("order-file-order-data", "entry_corrupt", "central order IMG_0002.png (local method differs), records.csv, IMG_0001.jpg (wrong CRC-32): IMG_0001.jpg comes first in the file", makeZip(e().map((entry, i) => (i === 1 ? { ...entry, crc: 12345 } : i === 2 ? { ...entry, local: { method: 8 } } : entry)), { centralOrder: [2, 0, 1, 3] }));
    add("order-entry-crc-before-sha256", "entry_corrupt", "IMG_0001.jpg's CRC-32 is wrong and its SHA-256 is not the manifest's", makeZip(backupEntries({ manifest: lyingManifest(0) }).map((entry, i) => (i === 1 ? { ...entry, crc: 12345 } : entry))));
    const lastPhoto = (change, manifest) => {
      const entries = backupEntries({ manifest });
      const photo = { ...entries[2], ...change };
      return makeZip([entries[0], entries[1], entries[3], photo], { gaps: { 3: "gap" } });
    };
    add("order-last-data-before-tail-gap", "entry_corrupt", "the last entry in the file, IMG_0002.png, has a wrong CRC-32; a gap follows it before the central directory (step 6)", lastPhoto({ crc: 12345 }));
    add("order-last-sha256-before-tail-gap", "manifest_mismatch", "the last entry in the file, IMG_0002.png, has another SHA-256 than the manifest's; a gap follows it (step 6)", lastPhoto({}, lyingManifest(1)));
  }

  // several faults, decided by the order of §4.1 (formerly left open)
  {
    add("order-end-cd-size-before-count", "zip_malformed", "the end record's directory size is 100 (wrong) and it declares 50,001 entries: the directory's end is checked in step 1, before the count",
      makeZip(backupEntries(), { end: { cdSize: 100, entries: 50001 } }));
    add("order-end-cd-size-before-records", "zip_malformed", "the end record's directory size is 4 more than its records (offset + size passes the end record) and record 1 has an unsafe name: step 1 before step 2",
      (() => {
        const entries = backupEntries();
        entries.splice(1, 0, { name: "a b.jpg", data: "x" });
        const layout = buildZip(entries);
        return makeZip(entries, { end: { cdSize: layout.zip.length - 22 - layout.cdOffset + 4 } });
      })());
    add("order-record-name-before-extra", "unsafe_entry_name", "one record with an unsafe name and a central extra field that does not tile: the name before the extra fields (step 2)",
      (() => {
        const entries = backupEntries();
        entries.splice(1, 0, { name: "a b.jpg", data: "x", centralExtra: Buffer.from([1, 0]) });
        return makeZip(entries);
      })());
    add("order-record-kind-before-extra", "unsupported_entry", "one record with the encryption flag and a central extra field that does not tile: the kind before the extra fields (step 2)",
      edit(1, { flags: 1, centralExtra: Buffer.from([1, 0]) }));
    const tie = (centralOrder) => {
      const entries = backupEntries();
      entries[1].crc = 12345;
      entries.splice(2, 0, { name: "b.jpg", data: png(1), centralOnly: true, localOffset: validLayout.localOffsets[1] });
      entries[4].data = manifestFor(RECORDS, [...PHOTOS, { name: "b.jpg", data: png(1) }]);
      return makeZip(entries, { centralOrder });
    };
    add("order-file-tie-first", "entry_corrupt", "IMG_0001.jpg (wrong CRC-32) and b.jpg claim one local header; IMG_0001.jpg first in the central directory, so read first (step 5: ties in central-directory order)",
      tie([0, 1, 2, 3, 4]));
    add("order-file-tie-second", "zip_malformed", "as order-file-tie-first, b.jpg first in the central directory: it is read first (its CRC-32 is right), then IMG_0001.jpg does not start where b.jpg ends",
      tie([0, 2, 1, 3, 4]));
  }

  // a valid backup whose end record's fields hold the bytes of the end signature 50 4B 05 06
  add("valid-end-signature-in-fields", "ok", "19,280 entries (0x4B50) and a central directory of 0x00100605 bytes: the end record's bytes 10-13 are 50 4B 05 06; the end record is the file's last 22 bytes, nothing else is searched", signatureInFields());
  return cases;
}
