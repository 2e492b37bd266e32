// What the Node tests of the page share (vectors.mjs, recovery.mjs, archive-corpus.mjs, salvage-corpus.mjs):
// the page's core, its ES modules imported from Web/src/core (the page's script is their bundle: Web/build.mjs
// and its --check keep the two the same), and a minimal test runner whose last line is "LABEL: N passed, N failed".

/** The page's core: its modules (src/core/index.mjs, what the page's script has as GoshuinCore). */
export async function loadPageCore() {
  const core = await import("../src/core/index.mjs");
  // GOSHUIN_KERNELS=javascript: the tests run on the kernels' JavaScript fallback instead of WebAssembly.
  if (process.env.GOSHUIN_KERNELS === "javascript") core.useKernels({ javascript: true });
  console.log(`kernels: ${core.kernels().implementation}`);
  return core;
}

/**
 * A runner: `await runner.test(name, body)` runs one test (its name after `runner.prefix`), a failure
 * printed with its stack; with `verbose`, each pass with its time. `runner.finish(label)` prints the
 * failures' names and the count, and ends the process (status 1 when a test failed). A test still running
 * after `limitSeconds` is a hang: the process says what it waits for and ends with status 1 (a stuck test
 * would otherwise hold CI until its own limit, and say nothing).
 */
export function testRunner({ verbose = false, limitSeconds = 600 } = {}) {
  const runner = {
    passed: 0,
    failed: 0,
    failures: [],
    prefix: "",
    async test(name, body) {
      name = runner.prefix + name;
      const began = Date.now();
      // Unreferenced: it never keeps the process alive, and it fires only while something else does.
      const watchdog = setTimeout(() => runner.hung(name, limitSeconds), limitSeconds * 1000);
      watchdog.unref();
      try {
        await body();
        runner.passed++;
        if (verbose) console.log(`ok   ${name} (${((Date.now() - began) / 1000).toFixed(1)} s)`);
      } catch (error) {
        runner.failed++;
        runner.failures.push(name);
        console.log(`FAIL ${name}: ${error && error.stack ? error.stack : error}`);
      } finally {
        clearTimeout(watchdog);
      }
    },
    hung(name, seconds) {
      // Work on Node's thread pool (WebCrypto, zlib) is not listed: "nothing listed" means that, or a stall.
      const waiting = process.getActiveResourcesInfo().join(", ") || "nothing listed (its thread pool's work, if any)";
      console.log(`FAIL ${name}: still running after ${seconds} s (a hang), the process waiting for: ${waiting}`);
      process.exit(1);
    },
    finish(label) {
      if (runner.failures.length) console.log(`failed: ${runner.failures.join("; ")}`);
      console.log(`${label}: ${runner.passed} passed, ${runner.failed} failed`);
      process.exit(runner.failed ? 1 : 0);
    },
  };
  return runner;
}

export function assert(condition, message) {
  if (!condition) throw new Error(message || "assertion failed");
}

export function equal(actual, expected, message) {
  if (actual !== expected) throw new Error(`${message || "values differ"}: got ${String(actual)}, expected ${String(expected)}`);
}

export const hex = (bytes) => Buffer.from(bytes).toString("hex");
