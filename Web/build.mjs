#!/usr/bin/env node
// Builds Web/goshuin-open.html from Web/src/: the template page.html with style.css and the scripts inlined,
// and a Content-Security-Policy that allows exactly that script and that style by their SHA-256.
//
//   node Web/build.mjs           write Web/goshuin-open.html
//   node Web/build.mjs --check   exit 1 when the committed page differs from what the build makes
//
// The script is one classic script (module scripts do not load from file://), bundled from the ES modules
// of src/ by bundle.mjs: src/core/index.mjs and what it imports (with the classic part of Web/wasm/kernels.mjs,
// `GoshuinKernels`) inside one function whose result, the namespace of index.mjs, is the global
// GoshuinCore; then the modules of src/ui/ inside another function, which declares no global and does
// nothing without a document; then the start of a Web Worker: the page's workers run this same script,
// from a Blob URL of its text (src/core/27-worker-pool.mjs), and serve the core's tasks. The Node tests
// import src/core/index.mjs itself.
// No dependency outside Node's own modules.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle, namespaceObject } from "./bundle.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "src");
const output = join(here, "goshuin-open.html");
const kernelsModule = join(here, "wasm", "kernels.mjs");

function read(...parts) {
  return readFileSync(join(src, ...parts), "utf8").replace(/\r\n/g, "\n");
}

/** The classic script of Web/wasm/kernels.mjs (everything above its `export` lines): `GoshuinKernels`. */
function kernelsScript() {
  const module = readFileSync(kernelsModule, "utf8").replace(/\r\n/g, "\n");
  const at = module.indexOf("\nexport ");
  if (at < 0) throw new Error("Web/wasm/kernels.mjs has no export lines");
  return `// ---- wasm/kernels.mjs (its classic part)\n${module.slice(0, at).trimEnd()}\n`;
}

/** The page's script: the core's bundle, the interface's, the start of a worker. */
function pageScript() {
  const coreIndex = join(src, "core", "index.mjs");
  const core = bundle([coreIndex], here, { [kernelsModule]: { classic: kernelsScript(), name: "GoshuinKernels" } });
  const interfaceModules = readdirSync(join(src, "ui"))
    .filter((name) => name.endsWith(".mjs"))
    .sort()
    .map((name) => join(src, "ui", name));
  const ui = bundle(interfaceModules, here, { [coreIndex]: { namespace: "core", global: "GoshuinCore" } });
  return (
    '\n"use strict";\n' +
    "var GoshuinCore = (function () {\n" +
    '"use strict";\n' +
    core.text +
    "\nreturn " +
    namespaceObject(core.exported) +
    ";\n})();\n\n" +
    "(function () {\n" +
    '"use strict";\n' +
    'if (typeof document === "undefined") return;\n' +
    ui.text +
    "})();\n\n" +
    "// In a Web Worker of the page: serve the core's tasks.\n" +
    'if (typeof document === "undefined" && typeof WorkerGlobalScope === "function" && self instanceof WorkerGlobalScope)\n' +
    "  GoshuinCore.serveWorker(self);\n"
  );
}

export function build() {
  const script = pageScript();
  const style = "\n" + read("style.css").trimEnd() + "\n";
  for (const [text, tag] of [[script, "script"], [style, "style"]]) {
    if (new RegExp(`</${tag}`, "i").test(text)) throw new Error(`the ${tag} contains </${tag}`);
  }
  const hash = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
  const csp = [
    "default-src 'none'",
    // 'wasm-unsafe-eval' compiles the kernels' WebAssembly (no eval of JavaScript); the workers run the
    // page's own script from a blob: URL (src/core/27-worker-pool.mjs), and nothing else.
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
