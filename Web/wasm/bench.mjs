#!/usr/bin/env node
// Throughput of each kernel: the wasm, its plain-JavaScript fallback, the page's current JavaScript
// (before the kernels: Web/src/core/02-sha256.js, 03-crc32.js, 04-md5.js, 05-gf16.js as commit aa5ccb8 has
// them, read with git, so that the ratio stays to what the page ran before) and, where the
// engine has one, its native implementation (Node: zlib.crc32, crypto's MD5 and SHA-256; everywhere:
// WebCrypto's SHA-256 digest of a whole buffer). Every variant takes its input in pieces of 1 MiB, as the
// page streams a file (WebCrypto's digest, which has no incremental form, takes the whole buffer at once;
// the page uses it for entries up to 64 MiB). Each round runs every variant of a kernel once, in turn,
// so that a change in the machine's load falls on all of them alike; the table gives the median of the
// rounds, their range, and the ratio to the page's current JavaScript in the same run. MB is 10^6 bytes.
//
//   node Web/wasm/bench.mjs [--mib 64] [--rounds 5] [--only crc32,md5,md5x4,sha256,gf16,gf16x8]
//   node Web/wasm/bench.mjs --html OUT.html     the same suite as a page for a browser (bench_browsers.py)

import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import zlib from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
// The page's plain JavaScript before the kernels, from the last commit that had it (Web/src is ES modules since).
const PAGE_BEFORE = "aa5ccb8";
const PAGE_SOURCES = ["02-block-hash.js", "02-sha256.js", "03-crc32.js", "04-md5.js", "05-gf16.js"].map(
  (name) => `${PAGE_BEFORE}:Web/src/core/${name}`
);
const PAGE_NAMES = "{ Sha256: Sha256, Md5: Md5, crc32Update: crc32Update, gf16MultiplyAdd: gf16MultiplyAdd }";

/**
 * The suite, self-contained (bench --html puts its text into a page): runGroup(group, env) measures one
 * kernel's variants and returns { group, unit, rows: [{ variant, median, low, high, ratio }] } in MB/s.
 * env: { kernels: { wasm, javascript }, page: the page's current functions, natives (by group), mib,
 * rounds }.
 */
function benchmarkSuite() {
  const MIB = 1 << 20;
  const PIECE = MIB;

  /** each(piece, at) over `bytes` in pieces of PIECE bytes. */
  function inPieces(bytes, each) {
    for (let at = 0; at < bytes.length; at += PIECE) each(bytes.subarray(at, at + PIECE), at);
  }

  /** A hash of `bytes` fed in pieces: `hash` has update(piece) and digest(). */
  function digestInPieces(hash, bytes) {
    inPieces(bytes, (piece) => hash.update(piece));
    return hash.digest();
  }

  function randomBytes(length) {
    const words = new Uint32Array(Math.ceil(length / 4));
    let x = 0x9e3779b9;
    for (let i = 0; i < words.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      words[i] = x;
    }
    return new Uint8Array(words.buffer, 0, length);
  }

  function median(values) {
    const sorted = values.slice().sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  /** bytes in a kernels' own memory (the wasm's: allocate), and the buffer to free. */
  function inMemory(kernels, bytes) {
    const buffer = kernels.allocate(bytes.length);
    buffer.bytes.set(bytes);
    return buffer;
  }

  /** The variants of a group: [{ name, bytes (processed a run), run() (may return a promise), free() }]. */
  function variantsOf(group, env, data) {
    const { wasm, javascript } = env.kernels;
    const page = env.page;
    const natives = env.natives;
    const variants = [];
    const add = (name, bytes, run, free) => variants.push({ name, bytes, run, free: free || (() => {}) });
    if (group === "crc32") {
      const crcInPieces = (update, bytes) => {
        let crc = 0;
        inPieces(bytes, (piece) => (crc = update(crc, piece)));
        return crc;
      };
      const held = inMemory(wasm, data);
      add("wasm (bytes in its memory)", data.length, () => crcInPieces(wasm.crc32Update, held.bytes), () => held.free());
      add("wasm (bytes copied in)", data.length, () => crcInPieces(wasm.crc32Update, data));
      add("JS fallback", data.length, () => crcInPieces(javascript.crc32Update, data));
      add("page JS", data.length, () => crcInPieces(page.crc32Update, data));
      if (natives.crc32) add("native: " + natives.crc32.name, data.length, () => crcInPieces(natives.crc32.update, data));
    } else if (group === "md5" || group === "sha256") {
      const Hash = group === "md5" ? "Md5" : "Sha256";
      const held = inMemory(wasm, data);
      add("wasm (bytes in its memory)", data.length, () => digestInPieces(new wasm[Hash](), held.bytes), () => held.free());
      add("wasm (bytes copied in)", data.length, () => digestInPieces(new wasm[Hash](), data));
      add("JS fallback", data.length, () => digestInPieces(new javascript[Hash](), data));
      add("page JS", data.length, () => digestInPieces(new page[Hash](), data));
      for (const native of natives[group] || [])
        add("native: " + native.name, data.length, () => (native.whole ? native.whole(data) : digestInPieces(native.create(), data)));
    } else if (group === "md5x4") {
      // Four streams of a quarter each, as the page would hash four slices of a recovery set.
      const quarter = data.length / 4;
      const quarters = (bytes) => [0, 1, 2, 3].map((i) => bytes.subarray(i * quarter, (i + 1) * quarter));
      const lanesInPieces = (lanes, streams) => {
        inPieces(streams[0], (piece, at) => lanes.update(streams.map((bytes) => bytes.subarray(at, at + piece.length))));
        return lanes.digest();
      };
      const held = inMemory(wasm, data);
      add("wasm Md5Lanes (bytes in its memory)", data.length, () => lanesInPieces(new wasm.Md5Lanes(), quarters(held.bytes)), () => held.free());
      add("wasm Md5Lanes (bytes copied in)", data.length, () => lanesInPieces(new wasm.Md5Lanes(), quarters(data)));
      add("wasm Md5 x 4, one after another", data.length, () => quarters(held.bytes).map((bytes) => digestInPieces(new wasm.Md5(), bytes)));
      add("JS fallback Md5Lanes", data.length, () => lanesInPieces(new javascript.Md5Lanes(), quarters(data)));
      add("page JS Md5 x 4", data.length, () => quarters(data).map((bytes) => digestInPieces(new page.Md5(), bytes)));
      for (const native of natives.md5 || []) add("native: " + native.name + " x 4", data.length, () => quarters(data).map((bytes) => digestInPieces(native.create(), bytes)));
    } else if (group === "gf16" || group === "gf16x8") {
      // One source into `count` targets; the rate counts every target's bytes (each output region).
      const count = group === "gf16" ? 1 : 8;
      const source = data.subarray(0, data.length / count);
      const coefficients = [0x3a5c, 0x1234, 0x8001, 0x00ff, 0x7777, 0xfffe, 0x0102, 0x4321].slice(0, count);
      const mulAddInPieces = (mulAdd, source, targets) =>
        inPieces(source, (piece, at) => mulAdd(coefficients, piece, targets.map((target) => target.subarray(at, at + piece.length))));
      const heldSource = inMemory(wasm, source);
      const heldTargets = coefficients.map(() => inMemory(wasm, new Uint8Array(source.length))); // touched: no page faults in round 1
      const targets = coefficients.map(() => new Uint8Array(source.length));
      const pageMulAdd = (cs, piece, pieces) => cs.forEach((c, i) => page.gf16MultiplyAdd(c, piece, pieces[i]));
      add("wasm (regions in its memory)", data.length, () => mulAddInPieces(wasm.gf16MulAdd, heldSource.bytes, heldTargets.map((t) => t.bytes)), () => {
        heldSource.free();
        heldTargets.forEach((t) => t.free());
      });
      add("wasm (regions copied in and out)", data.length, () => mulAddInPieces(wasm.gf16MulAdd, source, targets));
      add("JS fallback", data.length, () => mulAddInPieces(javascript.gf16MulAdd, source, targets));
      add("page JS", data.length, () => mulAddInPieces(pageMulAdd, source, targets));
    } else {
      throw new Error("no benchmark group " + group);
    }
    return variants;
  }

  async function runGroup(group, env) {
    const data = randomBytes(env.mib * MIB);
    const variants = variantsOf(group, env, data);
    // Warm-up: every engine optimizes a function only after it has run for a while, JavaScriptCore's wasm
    // only after some 200 MiB (MD5 lanes in WebKitGTK 2.50). Three runs on 4 MiB, then a first round over
    // the whole input that is not counted.
    const warm = variantsOf(group, env, data.subarray(0, 4 * MIB));
    for (let i = 0; i < 3; i++) for (const variant of warm) await variant.run();
    warm.forEach((variant) => variant.free());
    const rates = variants.map(() => []);
    for (let round = -1; round < env.rounds; round++) {
      for (let v = 0; v < variants.length; v++) {
        const start = performance.now();
        await variants[v].run();
        const seconds = (performance.now() - start) / 1000;
        if (round >= 0) rates[v].push(variants[v].bytes / seconds / 1e6);
      }
    }
    variants.forEach((variant) => variant.free());
    const pageIndex = variants.findIndex((variant) => variant.name.startsWith("page JS"));
    const pageMedian = median(rates[pageIndex]);
    return {
      group,
      rows: variants.map((variant, v) => ({
        variant: variant.name,
        median: median(rates[v]),
        low: Math.min(...rates[v]),
        high: Math.max(...rates[v]),
        ratio: median(rates[v]) / pageMedian,
      })),
    };
  }

  /** The natives every engine has: WebCrypto's SHA-256 of a whole buffer. */
  function webCryptoNatives() {
    return { sha256: [{ name: "WebCrypto digest (whole buffer)", whole: (bytes) => crypto.subtle.digest("SHA-256", bytes) }] };
  }

  function formatTable(results, title) {
    const lines = [title, "", "| kernel | variant | MB/s, median | range | × page JS |", "|---|---|---:|---:|---:|"];
    for (const result of results)
      for (const row of result.rows)
        lines.push(`| ${result.group} | ${row.variant} | ${row.median.toFixed(0)} | ${row.low.toFixed(0)}–${row.high.toFixed(0)} | ${row.ratio.toFixed(2)} |`);
    return lines.join("\n");
  }

  return { runGroup, webCryptoNatives, formatTable };
}

const GROUPS = ["crc32", "md5", "md5x4", "sha256", "gf16", "gf16x8"];

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
}

/** The page's current kernels, as the page has them (one function scope over its files). */
function pageKernelsSource() {
  const sources = PAGE_SOURCES.map((source) => execFileSync("git", ["show", source], { cwd: here, encoding: "utf8" })).join("\n");
  return `(function () {\n${sources}\nreturn ${PAGE_NAMES};\n})()`;
}

/** kernels.mjs as a classic script: everything above its `export` lines (it defines GoshuinKernels). */
function kernelsClassicScript() {
  const text = readFileSync(join(here, "kernels.mjs"), "utf8");
  return text.slice(0, text.indexOf("\nexport ") + 1);
}

function writeBrowserPage(path) {
  const script = `${kernelsClassicScript()}
var pageKernels = ${pageKernelsSource()};
var benchmark = (${benchmarkSuite.toString()})();
var BENCHMARK_GROUPS = ${JSON.stringify(GROUPS)};
/** bench_browsers.py calls this once a group: { group, mib, rounds } */
window.runBenchmarkGroup = function (options) {
  var env = {
    kernels: { wasm: GoshuinKernels.createWasmKernels(), javascript: GoshuinKernels.createJsKernels() },
    page: pageKernels,
    natives: benchmark.webCryptoNatives(),
    mib: options.mib,
    rounds: options.rounds,
  };
  return benchmark.runGroup(options.group, env);
};
`.replace(/<\/script/gi, "<\\/script");
  // The page's kind of policy: nothing from anywhere, its inline script, and WebAssembly compiled from bytes.
  const policy = "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'";
  writeFileSync(
    path,
    `<!doctype html>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="${policy}">\n` +
      `<title>goshuin wasm kernels: benchmark</title>\n<script>\n${script}</script>\n<p>Run by Web/wasm/bench_browsers.py.</p>\n`,
  );
}

async function main() {
  if (process.argv.includes("--html")) {
    writeBrowserPage(option("--html"));
    return;
  }
  const { createWasmKernels, createJsKernels } = await import("./kernels.mjs");
  const benchmark = benchmarkSuite();
  const node = (algorithm) => ({ name: "node:crypto " + algorithm, create: () => crypto.createHash(algorithm) });
  const natives = {
    crc32: typeof zlib.crc32 === "function" ? { name: "zlib.crc32", update: (crc, bytes) => zlib.crc32(bytes, crc) } : null,
    md5: [node("md5")],
    sha256: [node("sha256"), ...benchmark.webCryptoNatives().sha256],
  };
  const env = {
    kernels: { wasm: createWasmKernels(), javascript: createJsKernels() },
    page: vm.runInThisContext(pageKernelsSource(), { filename: "Web/src/core (02-sha256, 03-crc32, 04-md5, 05-gf16)" }),
    natives,
    mib: Number(option("--mib", 64)),
    rounds: Number(option("--rounds", 5)),
  };
  const groups = option("--only", GROUPS.join(",")).split(",");
  const loadBefore = os.loadavg(); // the machine is shared: the table says how busy it was
  const results = [];
  for (const group of groups) {
    const result = await benchmark.runGroup(group, env);
    results.push(result);
    console.error(`${group}: done`);
  }
  const load = (averages) => averages.map((x) => x.toFixed(1)).join(" ");
  console.log(
    benchmark.formatTable(
      results,
      `Node ${process.versions.node} (V8 ${process.versions.v8}), ${env.mib} MiB, median of ${env.rounds} interleaved rounds; ` +
        `load average ${load(loadBefore)} before, ${load(os.loadavg())} after (${os.cpus().length} cores)`,
    ),
  );
}

await main();
