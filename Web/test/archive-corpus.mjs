#!/usr/bin/env node
// The shared archive corpus: raw (unencrypted) backup ZIPs with the code Spec/backup-v1.md §4 and §4.1
// demand for a full read, so that the page, the Swift reader and any other reader are checked against the
// same files.
//
//   node Web/test/archive-corpus.mjs --write Tests/ArchiveCorpus   write NAME.zip and index.json
//   node Web/test/archive-corpus.mjs --check Tests/ArchiveCorpus   read every committed case with the page's
//                                                                  own code; exit 1 on any mismatch
//
// index.json: {"format":"goshuin-archive-corpus","version":1,"cases":[{"name","expect","comment"}]}, where
// `expect` is "ok" (a valid backup) or the error code, and NAME.zip holds the case's bytes. The cases are
// made by Web/test/archive-cases.mjs (deterministic: writing twice gives the same files), every one of
// them decided by the spec. --check also fails when the committed files are not what --write makes. The code under test is the script inside the committed Web/goshuin-open.html.
import { existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPageCore } from "./page-harness.mjs";
import { archiveCases } from "./archive-cases.mjs";

const FORMAT = "goshuin-archive-corpus";
const CODES = new Set([
  "zip_malformed", "unsafe_entry_name", "duplicate_entry", "unsupported_entry", "zip_limit_exceeded",
  "entry_corrupt", "manifest_invalid", "manifest_mismatch",
]);
const NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** The corpus as --write makes it: [{ name, expect, comment, zip }]. */
export function corpusCases() {
  return archiveCases();
}

/** index.json's text: one case a line. */
export function indexText(cases) {
  const lines = cases.map((c) => "  " + JSON.stringify({ name: c.name, expect: c.expect, comment: c.comment }));
  return `{"format":"${FORMAT}","version":1,"cases":[\n${lines.join(",\n")}\n]}\n`;
}

function write(directory) {
  mkdirSync(directory, { recursive: true });
  const cases = corpusCases();
  const names = new Set(cases.map((c) => `${c.name}.zip`));
  for (const file of readdirSync(directory)) if (file.endsWith(".zip") && !names.has(file)) unlinkSync(join(directory, file));
  for (const c of cases) writeFileSync(join(directory, `${c.name}.zip`), c.zip);
  writeFileSync(join(directory, "index.json"), indexText(cases));
  const bytes = cases.reduce((sum, c) => sum + c.zip.length, 0);
  console.log(`wrote ${cases.length} cases (${bytes} bytes of ZIPs) and index.json to ${directory}`);
}


/** The code the page's reading (steps 1–6 of §4.1) gives for `zip`: "ok" or an error code. */
export async function pageCode(core, zip, pieceSize) {
  try {
    await core.readBackup(core.payloadSource(zip, pieceSize));
    return "ok";
  } catch (error) {
    if (!(error instanceof core.GoshuinError)) throw error;
    return error.code;
  }
}

async function check(directory) {
  const problems = [];
  let passed = 0;
  const indexPath = join(directory, "index.json");
  if (!existsSync(indexPath)) throw new Error(`no ${indexPath}: run --write`);
  const index = JSON.parse(readFileSync(indexPath, "utf8"));
  if (index.format !== FORMAT || index.version !== 1 || !Array.isArray(index.cases)) throw new Error(`${indexPath} is not a ${FORMAT} version 1`);
  const seen = new Set();
  for (const c of index.cases) {
    if (typeof c.name !== "string" || !NAME.test(c.name) || seen.has(c.name)) problems.push(`index: bad or repeated name ${JSON.stringify(c.name)}`);
    if (!(c.expect === "ok" || CODES.has(c.expect))) problems.push(`index: ${c.name}: unknown expect ${JSON.stringify(c.expect)}`);
    if (typeof c.comment !== "string") problems.push(`index: ${c.name}: no comment`);
    seen.add(c.name);
  }
  for (const file of readdirSync(directory))
    if (file.endsWith(".zip") && !seen.has(file.slice(0, -4))) problems.push(`${file} is not in index.json`);

  // The committed corpus is what --write makes.
  const made = corpusCases();
  if (readFileSync(indexPath, "utf8") !== indexText(made)) problems.push("index.json is not what --write makes (run --write)");
  for (const c of made) {
    const path = join(directory, `${c.name}.zip`);
    if (existsSync(path) && !readFileSync(path).equals(Buffer.from(c.zip))) problems.push(`${c.name}.zip is not what --write makes (run --write)`);
  }

  // Every committed case through the page's code: buffered and incremental SHA-256, two piece sizes.
  const core = await loadPageCore();
  const bufferedDigest = core.limits.bufferedDigest;
  for (const c of index.cases) {
    const path = join(directory, `${c.name}.zip`);
    if (!existsSync(path)) {
      problems.push(`${c.name}.zip is missing`);
      continue;
    }
    const zip = new Uint8Array(readFileSync(path));
    const codes = [];
    for (const [digest, piece] of [[bufferedDigest, 4096], [0, 1000]]) {
      core.limits.bufferedDigest = digest;
      codes.push(await pageCode(core, zip, piece));
    }
    core.limits.bufferedDigest = bufferedDigest;
    if (codes.every((code) => code === c.expect)) passed++;
    else problems.push(`${c.name}: the page gives ${[...new Set(codes)].join(" / ")}, the spec ${c.expect} (${c.comment})`);
  }
  for (const problem of problems) console.log(`FAIL ${problem}`);
  const bytes = index.cases.reduce((sum, c) => sum + (existsSync(join(directory, `${c.name}.zip`)) ? readFileSync(join(directory, `${c.name}.zip`)).length : 0), 0);
  console.log(`${index.cases.length} cases, ${bytes} bytes of ZIPs, DecompressionStream refuses trailing bytes: ${await core.inflateRefusesTrailingBytes()}`);
  console.log(`archive-corpus: ${passed} passed, ${problems.length} failed`);
  return problems.length === 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [mode, directory] = process.argv.slice(2);
  if (!directory || (mode !== "--write" && mode !== "--check")) {
    console.error("usage: node Web/test/archive-corpus.mjs --write|--check DIR");
    process.exit(64);
  }
  if (mode === "--write") write(directory);
  else process.exit((await check(directory)) ? 0 : 1);
}
