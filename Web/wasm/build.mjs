#!/usr/bin/env node
// Builds the page's WebAssembly kernels:
//
//   src/*.c   --clang, wasm32 + SIMD128, freestanding-->   kernels.wasm
//   js/*.js + kernels.wasm (as base64)                -->   kernels.mjs
//
//   node Web/wasm/build.mjs            writes both
//   node Web/wasm/build.mjs --check    builds into a temporary folder and fails (exit 1) when either differs
//                                      from the committed file: CI's proof that they are what the sources make
//
// The compiler is the Swift toolchain's clang (it targets wasm32 and ships wasm-ld): /opt/swift/usr/bin/clang,
// or $CLANG. The output depends on the compiler's version (kernels.wasm's "producers" section names it), so
// --check needs the same toolchain as the commit.

import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const clang = process.env.CLANG || "/opt/swift/usr/bin/clang";

const COMPILE_FLAGS = [
  "--target=wasm32",
  // Exactly the features every engine with SIMD128 has (Chrome 91, Firefox 89, Safari 16.4), not clang's
  // newer defaults (reference types, multivalue, …, which Chrome 91-95 lacked).
  "-mcpu=mvp",
  "-msimd128",
  "-mbulk-memory", // memory.copy and memory.fill for memcpy and memset
  "-mnontrapping-fptoint",
  "-msign-ext",
  "-O3",
  "-ffreestanding",
  "-nostdlib", // no libc: the kernels need none (bulk memory gives memcpy and memset)
  "-std=c11",
  "-Wall",
  "-Wextra",
  "-Werror",
];
const LINK_FLAGS = [
  "-Wl,--no-entry", // a library: exports only
  "-Wl,--stack-first", // a stack overflow runs below address 0 and traps instead of overwriting data
  "-Wl,-z,stack-size=65536",
  "-Wl,--export=__heap_base", // where the JavaScript's control block and buffers begin
];

// What kernels.mjs exports, from the scope of js/*.js.
const EXPORTS = ["createKernels", "createJsKernels", "createWasmKernels", "wasmKernelsModule", "MD5_LANES"];

function sourcesIn(folder, extension) {
  return readdirSync(join(here, folder))
    .filter((name) => name.endsWith(extension))
    .sort()
    .map((name) => join(here, folder, name));
}

function buildWasm(output) {
  execFileSync(clang, [...COMPILE_FLAGS, ...LINK_FLAGS, ...sourcesIn("src", ".c"), "-o", output], { stdio: "inherit" });
  chmodSync(output, 0o644); // the linker makes it executable; it is data
  return readFileSync(output);
}

function moduleText(wasm) {
  const base64 = wasm.toString("base64").replace(/.{1,100}/g, "$&\n"); // atob skips the line breaks
  const scripts = sourcesIn("js", ".js").map((path) => `// ---- js/${path.split("/").pop()}\n\n${readFileSync(path, "utf8")}`);
  return `// kernels.mjs: made by \`node Web/wasm/build.mjs\` from Web/wasm/js/*.js and kernels.wasm (Web/wasm/src/*.c).
// Do not edit; README.md in this folder describes the API. Everything above the \`export\` lines at the end
// is a classic script too: the page inlines it into its one script and uses \`GoshuinKernels\`.

const GoshuinKernels = (function () {
"use strict";

var KERNELS_WASM_BASE64 = \`
${base64}\`;

${scripts.join("\n")}
return { ${EXPORTS.join(", ")} };
})();

export const { ${EXPORTS.join(", ")} } = GoshuinKernels;
export default GoshuinKernels;
`;
}

function build(folder) {
  const wasm = buildWasm(join(folder, "kernels.wasm"));
  writeFileSync(join(folder, "kernels.mjs"), moduleText(wasm));
}

if (process.argv.includes("--check")) {
  const scratch = mkdtempSync(join(tmpdir(), "goshuin-wasm-"));
  try {
    build(scratch);
    const stale = ["kernels.wasm", "kernels.mjs"].filter((name) => {
      let committed;
      try {
        committed = readFileSync(join(here, name));
      } catch {
        return true;
      }
      return !committed.equals(readFileSync(join(scratch, name)));
    });
    if (stale.length > 0) {
      console.error(`Web/wasm: ${stale.join(" and ")} differ from what the sources make; run node Web/wasm/build.mjs`);
      process.exit(1);
    }
    console.log("Web/wasm: kernels.wasm and kernels.mjs are what the sources make");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
} else {
  build(here);
  console.log(`Web/wasm: wrote kernels.wasm (${readFileSync(join(here, "kernels.wasm")).length} bytes) and kernels.mjs`);
}
