#!/usr/bin/env node
// Builds Web/goshuin-open.html from Web/src/: the template page.html with style.css and the scripts inlined,
// and a Content-Security-Policy that allows exactly that script and that style by their SHA-256.
//
//   node Web/build.mjs           write Web/goshuin-open.html
//   node Web/build.mjs --check   exit 1 when the committed page differs from what the build makes
//
// The script is one classic script (module scripts do not load from file://): the kernels of Web/wasm
// (the classic part of kernels.mjs, `GoshuinKernels`) and the files of src/core/, in name order, inside one
// function whose result is the global GoshuinCore, then the files of src/ui/, in name order, inside another
// function, which declares no global and does nothing without a document (the tests run the script under
// Node for GoshuinCore alone), then the start of a Web Worker: the page's workers run this same script,
// from a Blob URL of its text (src/core/28-worker-pool.js), and serve the core's tasks.
// No dependency outside Node's own modules.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "src");
const output = join(here, "goshuin-open.html");

function read(...parts) {
  return readFileSync(join(src, ...parts), "utf8").replace(/\r\n/g, "\n");
}

function scripts(folder) {
  return readdirSync(join(src, folder))
    .filter((name) => name.endsWith(".js"))
    .sort()
    .map((name) => `// ---- src/${folder}/${name}\n${read(folder, name).trimEnd()}\n`);
}

/** The classic script of Web/wasm/kernels.mjs (everything above its `export` lines): `GoshuinKernels`. */
function kernelsScript() {
  const module = readFileSync(join(here, "wasm", "kernels.mjs"), "utf8").replace(/\r\n/g, "\n");
  const at = module.indexOf("\nexport ");
  if (at < 0) throw new Error("Web/wasm/kernels.mjs has no export lines");
  return `// ---- wasm/kernels.mjs (its classic part)\n${module.slice(0, at).trimEnd()}\n`;
}

export function build() {
  const script =
    '\n"use strict";\n' +
    "var GoshuinCore = (function () {\n" +
    '"use strict";\n' +
    kernelsScript() +
    "\n" +
    scripts("core").join("\n") +
    "})();\n\n" +
    "(function () {\n" +
    '"use strict";\n' +
    'if (typeof document === "undefined") return;\n' +
    scripts("ui").join("\n") +
    "})();\n\n" +
    "// In a Web Worker of the page: serve the core's tasks.\n" +
    'if (typeof document === "undefined" && typeof WorkerGlobalScope === "function" && self instanceof WorkerGlobalScope)\n' +
    "  GoshuinCore.serveWorker(self);\n";
  const style = "\n" + read("style.css").trimEnd() + "\n";
  for (const [text, tag] of [[script, "script"], [style, "style"]]) {
    if (new RegExp(`</${tag}`, "i").test(text)) throw new Error(`the ${tag} contains </${tag}`);
  }
  const hash = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
  const csp = [
    "default-src 'none'",
    // 'wasm-unsafe-eval' compiles the kernels' WebAssembly (no eval of JavaScript); the workers run the
    // page's own script from a blob: URL (src/core/28-worker-pool.js), and nothing else.
    `script-src ${hash(script)} 'wasm-unsafe-eval'`,
    "worker-src blob:",
    `style-src ${hash(style)}`,
    "img-src blob: data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const values = { CSP: csp, STYLE: style, SCRIPT: script };
  return read("page.html").replace(/\{\{([A-Z]+)\}\}/g, (match, key) => {
    if (!(key in values)) throw new Error(`unknown placeholder ${match}`);
    return values[key];
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const page = build();
  if (process.argv.includes("--check")) {
    let committed = "";
    try {
      committed = readFileSync(output, "utf8");
    } catch {}
    if (committed !== page) {
      console.error("Web/goshuin-open.html is not what `node Web/build.mjs` makes from Web/src/: run it and commit the page.");
      process.exit(1);
    }
    console.log("Web/goshuin-open.html is up to date");
  } else {
    writeFileSync(output, page);
    console.log(`wrote ${output} (${page.length} characters)`);
  }
}
