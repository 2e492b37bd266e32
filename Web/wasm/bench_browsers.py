#!/usr/bin/env python3
"""bench.mjs's suite in browsers: Chromium (Debian's chromium through Playwright for Python) and Firefox ESR
(its WebDriver BiDi server), and WebKitGTK under xvfb-run, through the drivers of Web/test/engines.py.

    python3 Web/wasm/bench_browsers.py [--engines chromium,firefox] [--mib 64] [--rounds 5] [--only crc32,md5]
    xvfb-run -a python3 Web/wasm/bench_browsers.py --engines webkit

The page is made by `node Web/wasm/bench.mjs --html` and opened from file:// with the page's kind of
Content-Security-Policy (default-src 'none', its inline script, 'wasm-unsafe-eval'); each kernel's variants
run in one call, interleaved round by round, as under Node. Before the numbers, a probe: the same page
without 'wasm-unsafe-eval' must fall back to the JavaScript kernels, and with it must run the wasm.
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "test"))
import engines as engine_drivers  # noqa: E402

GROUPS = ["crc32", "md5", "md5x4", "sha256", "gf16", "gf16x8"]
EXECUTABLES = {"chromium": "/usr/bin/chromium", "firefox": "firefox-esr", "webkit": "WebKitWebDriver"}
WASM_POLICY = "'wasm-unsafe-eval'"
IMPLEMENTATION = "() => GoshuinKernels.createKernels().implementation"


def table(results, title):
    lines = [title, "", "| kernel | variant | MB/s, median | range | × page JS |", "|---|---|---:|---:|---:|"]
    for result in results:
        for row in result["rows"]:
            lines.append("| %s | %s | %.0f | %.0f–%.0f | %.2f |" % (result["group"], row["variant"], row["median"], row["low"], row["high"], row["ratio"]))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engines", default="chromium,firefox")
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default=",".join(GROUPS))
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="goshuin-wasm-bench-")
    page = pathlib.Path(scratch) / "bench.html"
    subprocess.run(["node", str(HERE / "bench.mjs"), "--html", str(page)], check=True)
    without_wasm = pathlib.Path(scratch) / "bench-without-wasm.html"
    html = page.read_text()
    assert WASM_POLICY in html
    without_wasm.write_text(html.replace(" " + WASM_POLICY, ""))

    failures = 0
    for name in [e.strip() for e in args.engines.split(",") if e.strip()]:
        try:
            engine = engine_drivers.ENGINES[name](EXECUTABLES[name], scratch)
        except engine_drivers.EngineUnavailable as problem:
            print("%s: unavailable: %s" % (name, problem))
            continue
        try:
            probe = engine.page(uri=without_wasm.as_uri())
            blocked = probe.evaluate(IMPLEMENTATION)
            probe.close()
            bench = engine.page(uri=page.as_uri())
            allowed = bench.evaluate(IMPLEMENTATION)
            print("%s %s: kernels %s under the page's policy, %s without 'wasm-unsafe-eval'" % (engine.label, engine.version, allowed, blocked), flush=True)
            if allowed != "wasm-simd128" or blocked != "javascript":
                failures += 1
            results = []
            for group in args.only.split(","):
                results.append(bench.evaluate("(options) => window.runBenchmarkGroup(options)", {"group": group, "mib": args.mib, "rounds": args.rounds}))
                print("  %s: done" % group, file=sys.stderr, flush=True)
            problems = bench.problems()
            if problems:
                failures += 1
                print("  the page reported: %s" % problems)
            bench.close()
            print()
            load = " ".join("%.1f" % x for x in os.getloadavg())
            print(table(results, "%s %s, %d MiB, median of %d interleaved rounds; load average %s after (%d cores)" % (engine.label, engine.version, args.mib, args.rounds, load, os.cpu_count())))
            print(flush=True)
        finally:
            engine.close()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
