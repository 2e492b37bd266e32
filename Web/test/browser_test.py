#!/usr/bin/env python3
"""End to end: Web/goshuin-open.html opened from file:// in Debian's Chromium, driven by Playwright.

    python3 Web/test/browser_test.py --tool .build/debug/goshuin-tool [--screenshot Web/screenshot.png]
                                      [--big-mib 1024] [--chromium /usr/bin/chromium] [--keep]
                                      [--only SUBSTRING]... [--repeat N]

Backups are sealed by goshuin-tool (a folder, or a ZIP built here as a single-file payload); the page is
used as a person uses it: pick the file, type the passphrase, press Enter or click Open. Every case
asserts that no request other than file:, blob: or data: was made. Needs only `playwright` (PyPI) and
Chromium; no browser download. Prints 'web-browser: N passed, N failed' last.
"""

import argparse
import base64
import hashlib
import io
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zipfile
import zlib

from playwright.sync_api import sync_playwright

HERE = pathlib.Path(__file__).resolve().parent
WEB = HERE.parent
REPOSITORY = WEB.parent
PAGE_URI = (WEB / "goshuin-open.html").as_uri()
PASSPHRASE = "  sakura 桜 – correct horse  "  # spaces kept, non-ASCII: the page must not trim or normalize
ALLOWED_SCHEMES = ("file:", "blob:", "data:")

# ---------------------------------------------------------------------------------------------------------
# Images: real PNGs written here with zlib; JPEG and WebP made by the browser's own encoder (canvas).


def png(width, height, pixel):
    """A truecolor PNG; pixel(x, y) -> (r, g, b)."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows.extend(pixel(x, y))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")


def seal_stamp(variant):
    """A goshuin-like page: warm paper, a vermilion seal, ink strokes."""
    size = 240
    paper = [(247, 240, 224), (244, 236, 216), (250, 245, 232)][variant % 3]
    seal_color = [(200, 40, 32), (178, 34, 52), (214, 76, 40)][variant % 3]
    cx, cy, r = 120 + (variant * 13) % 30 - 15, 135, 58 + variant * 4

    def pixel(x, y):
        dx, dy = x - cx, y - cy
        d2 = dx * dx + dy * dy
        in_ring = (r - 9) ** 2 <= d2 <= r * r
        in_square = abs(dx) < r * 0.45 and abs(dy) < r * 0.45 and ((x // 6 + y // 6 + variant) % 3 != 0)
        stroke = (abs(x - 60) < 4 and 30 < y < 210) or (abs(x - 190) < 3 and 20 < y < 200 - variant * 10)
        stroke = stroke or (abs(y - 40 - variant * 5) < 3 and 150 < x < 225)
        if in_ring or in_square:
            return seal_color
        if stroke:
            return (34, 30, 28)
        shade = ((x * 7 + y * 3) % 11) - 5
        return tuple(max(0, min(255, c + shade)) for c in paper)

    return png(size, size, pixel)


CANVAS_IMAGE = """async ([type, hue]) => {
  const canvas = document.createElement('canvas');
  canvas.width = 240; canvas.height = 240;
  const g = canvas.getContext('2d');
  const sky = g.createLinearGradient(0, 0, 0, 240);
  sky.addColorStop(0, `hsl(${hue}, 70%, 78%)`); sky.addColorStop(1, `hsl(${hue + 40}, 60%, 92%)`);
  g.fillStyle = sky; g.fillRect(0, 0, 240, 240);
  g.fillStyle = '#c8321f';
  g.fillRect(40, 70, 160, 16); g.fillRect(52, 100, 136, 10);
  g.fillRect(70, 86, 14, 130); g.fillRect(156, 86, 14, 130);
  g.fillStyle = '#2b2b2b'; g.fillRect(30, 62, 180, 8);
  g.fillStyle = `hsl(${hue + 90}, 35%, 45%)`; g.fillRect(0, 212, 240, 28);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, type, 0.9));
  return Array.from(new Uint8Array(await blob.arrayBuffer()));
}"""

# Stand-ins for window.showDirectoryPicker() and window.showSaveFilePicker(): handles of a folder and a file
# kept in memory, with the parts of the File System Access API the page uses; window.pickedFolder(name)
# gives a subfolder's files as hex, window.savedFile() the saved file.
FOLDER_STAND_IN = """() => {
  const root = { folders: new Map(), files: new Map() };
  const problem = (name) => { const e = new Error(name); e.name = name; return e; };
  function folderHandle(node) {
    return {
      kind: 'directory',
      async getDirectoryHandle(name, options) {
        if (node.files.has(name)) throw problem('TypeMismatchError');
        if (!node.folders.has(name)) {
          if (!(options && options.create)) throw problem('NotFoundError');
          node.folders.set(name, { folders: new Map(), files: new Map() });
        }
        return folderHandle(node.folders.get(name));
      },
      async getFileHandle(name, options) {
        if (!node.files.has(name) && !(options && options.create)) throw problem('NotFoundError');
        return {
          kind: 'file',
          async createWritable() {
            const parts = [];
            return {
              async write(data) { parts.push(new Uint8Array(data)); },
              async close() { node.files.set(name, parts); },
              async abort() {},
            };
          },
        };
      },
    };
  }
  window.showDirectoryPicker = async () => folderHandle(root);
  const saved = { folders: new Map(), files: new Map() };
  window.showSaveFilePicker = async (options) => {
    window.savedFileName = options.suggestedName;
    return { name: options.suggestedName, ...(await folderHandle(saved).getFileHandle(options.suggestedName, { create: true })) };
  };
  window.savedFile = () => saved.files.get(window.savedFileName).map((p) => Array.from(p, (b) => b.toString(16).padStart(2, '0')).join('')).join('');
  window.pickedFolder = (name) => {
    const out = {};
    for (const [file, parts] of root.folders.get(name).files)
      out[file] = parts.map((p) => Array.from(p, (b) => b.toString(16).padStart(2, '0')).join('')).join('');
    return out;
  };
}"""

# ---------------------------------------------------------------------------------------------------------
# ZIPs built here, for what goshuin-tool would refuse to pack.


def make_zip(entries):
    """entries: [(name bytes, data bytes, deflate)] -> a ZIP as backup-v1.md §5 describes (no extras)."""
    out = bytearray()
    central = bytearray()
    for name, data, deflate in entries:
        if deflate:
            packer = zlib.compressobj(6, zlib.DEFLATED, -15)
            stored = packer.compress(data) + packer.flush()
        else:
            stored = data
        method = 8 if deflate else 0
        crc = zlib.crc32(data)
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(stored), len(data), len(name), 0)
        out += name + stored
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, 0, method, 0, 0x21, crc, len(stored), len(data), len(name),
            0, 0, 0, 0, 0o100644 << 16, offset,
        )
        central += name
    directory_offset = len(out)
    out += central
    count = len(entries)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(central), directory_offset, 0)
    return bytes(out)


def manifest(records, photos, created="2026-11-29T12:00:00Z"):
    def entry(name, data):
        return {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}

    return json.dumps(
        {
            "format": "goshuin-backup",
            "version": 1,
            "createdAt": created,
            "records": entry("records.csv", records),
            "photos": [entry(n, d) for n, d in sorted(photos, key=lambda p: p[0].encode())],
        },
        separators=(",", ":"),
    ).encode()


def backup_zip(records, photos, manifest_bytes=None, extra=()):
    entries = [(b"records.csv", records, True)]
    entries += [(n.encode() if isinstance(n, str) else n, d, False) for n, d in photos]
    entries += list(extra)
    entries.append((b"manifest.json", manifest_bytes or manifest(records, [(n, d) for n, d in photos]), True))
    return make_zip(entries)


# ---------------------------------------------------------------------------------------------------------


class Fixtures:
    def __init__(self, tool, scratch, browser, big_mib):
        self.tool = tool
        self.scratch = scratch
        self.passphrase_file = scratch / "passphrase.txt"
        self.passphrase_file.write_text(PASSPHRASE + "\n", encoding="utf-8")
        self.browser = browser
        self.big_mib = big_mib

    def seal(self, source, name, *options):
        output = self.scratch / name
        subprocess.run(
            [self.tool, "seal", str(source), "-o", str(output), "--passphrase-file", str(self.passphrase_file), "-q", *options],
            check=True,
        )
        return output

    def canvas_images(self):
        page = self.browser.new_page()
        page.goto("about:blank")
        jpeg1 = bytes(page.evaluate(CANVAS_IMAGE, ["image/jpeg", 200]))
        jpeg2 = bytes(page.evaluate(CANVAS_IMAGE, ["image/jpeg", 20]))
        webp = bytes(page.evaluate(CANVAS_IMAGE, ["image/webp", 140]))
        page.close()
        assert jpeg1[:3] == b"\xff\xd8\xff" and webp[8:12] == b"WEBP", "the browser did not encode JPEG/WebP"
        return jpeg1, jpeg2, webp

    def make_small(self):
        folder = self.scratch / "small"
        folder.mkdir()
        records = (
            "date,shrine,prefecture,note\n"
            "2026-01-01,Meiji Jingu,Tokyo,hatsumode; long queue\n"
            "2026-02-11,Ōmiwa Jinja,Nara,\n"
            "2026-03-15,Fushimi Inari Taisha,Kyoto,\"1,000 torii, \"\"senbon\"\"\"\n"
            "2026-05-05,Itsukushima Jinja,Hiroshima,Torii <in the sea> & high tide\n"
            "2026-08-20,Izumo Taisha,Shimane,\"two lines:\nthe big shimenawa\"\n"
        ).encode()
        jpeg1, jpeg2, webp = self.canvas_images()
        self.jpegs = (jpeg1, jpeg2)
        photos = {
            "IMG_0001.jpg": jpeg1,
            "IMG_0002.png": seal_stamp(0),
            "IMG_0003.png": seal_stamp(1),
            "IMG_0004.jpg": jpeg2,
            "IMG_0005.webp": webp,
            "IMG_0006.png": seal_stamp(2),
        }
        (folder / "records.csv").write_bytes(records)
        for name, data in photos.items():
            (folder / name).write_bytes(data)
        # createdAt is the newest modification time: fixed, so the screenshot is the same on every run.
        for path in folder.iterdir():
            os.utime(path, (1787250600, 1787250600))  # 2026-08-20 18:30:00 UTC
        self.small_records = records
        self.small_photos = photos
        self.small = self.seal(folder, "small.goshuin")  # the default 600,000 iterations, 4 MiB chunks
        extracted = self.scratch / "small-extracted"
        subprocess.run(
            [self.tool, "open", str(self.small), "--extract", str(extracted), "--passphrase-file", str(self.passphrase_file), "-q"],
            check=True,
        )
        self.small_files = {p.name: p.read_bytes() for p in extracted.iterdir()}

    def make_damaged(self):
        # The small backup's folder in 1 KiB chunks; one ciphertext bit of chunk 5 flipped.
        sealed = self.seal(self.scratch / "small", "damaged-source.goshuin", "--iterations", "1000", "--chunk-size", "1KiB")
        data = bytearray(sealed.read_bytes())
        data[45 + 5 * (1024 + 20) + 4 + 100] ^= 0x01
        self.damaged = self.scratch / "damaged.goshuin"
        self.damaged.write_bytes(data)
        self.truncated = self.scratch / "truncated.goshuin"
        self.truncated.write_bytes(data[:-1])

    def make_hostile(self):
        records = b"date,shrine\n2026-01-01,Meiji Jingu\n"
        photo = seal_stamp(3)
        hostile_name = b'<img src=x onerror="document.title=1">.jpg'
        self.unsafe_zip = self.scratch / "unsafe.zip"
        self.unsafe_zip.write_bytes(
            make_zip([(b"records.csv", records, True), (hostile_name, photo, False), (b"manifest.json", manifest(records, []), True)])
        )
        self.unsafe = self.seal(self.unsafe_zip, "unsafe.goshuin", "--iterations", "1000")
        lying = json.loads(manifest(records, [("IMG_0001.png", photo)]))
        lying["photos"][0]["sha256"] = hashlib.sha256(b"another photo").hexdigest()
        lying_zip = self.scratch / "lying.zip"
        lying_zip.write_bytes(backup_zip(records, [("IMG_0001.png", photo)], json.dumps(lying).encode()))
        self.lying = self.seal(lying_zip, "lying.goshuin", "--iterations", "1000")
        # HTML in CSV cells; and photo extensions in upper and mixed case, which Spec/backup-v1.md §3.2 takes
        # (what phones export). The ZIP is built here and sealed as a single file, so that the test does not
        # depend on the tool's folder rules.
        html_records = b'date,note\n2026-01-01,<img src=x onerror="document.title=2"> <b>not bold</b>\n'
        html_zip = self.scratch / "html.zip"
        html_zip.write_bytes(backup_zip(html_records, [("IMG_0001.jpg", seal_stamp(4)), ("IMG_0002.png", seal_stamp(5))]))
        self.html = self.seal(html_zip, "html.goshuin", "--iterations", "1000")
        upper_zip = self.scratch / "upper.zip"
        upper_zip.write_bytes(backup_zip(html_records, [("IMG_0001.JPG", seal_stamp(4)), ("IMG_0002.Png", seal_stamp(5)), ("IMG_0003.hEiC", seal_stamp(6))]))
        self.upper = self.seal(upper_zip, "upper.goshuin", "--iterations", "1000")

    def make_invalid_manifest(self):
        # Spec/backup-v1.md §4.1 step 0: manifest.json (in the last chunks) has a key a backup may not hold,
        # in 1 KiB chunks; once as it is (manifest_invalid), once with a ciphertext bit of chunk 1 (in the
        # photo's data, which the page does not read before it finds the manifest invalid) flipped.
        records = b"date,shrine\n2026-01-01,Meiji Jingu\n"
        photos = [("IMG_0001.jpg", os.urandom(6000))]
        invalid = json.loads(manifest(records, photos))
        invalid["purchases"] = []
        zip_path = self.scratch / "invalid-manifest.zip"
        zip_path.write_bytes(backup_zip(records, photos, json.dumps(invalid).encode()))
        self.invalid_manifest = self.seal(zip_path, "invalid-manifest.goshuin", "--iterations", "1000", "--chunk-size", "1KiB")
        data = bytearray(self.invalid_manifest.read_bytes())
        assert len(data) > 45 + 6 * 1044, "too few chunks"
        data[45 + 1 * (1024 + 20) + 4 + 100] ^= 0x01
        self.invalid_manifest_damaged = self.scratch / "invalid-manifest-damaged.goshuin"
        self.invalid_manifest_damaged.write_bytes(data)

    def make_big(self):
        # About big_mib MiB: photos of 4 MiB each (a real JPEG, then random bytes after its end marker, which
        # decoders ignore), sealed in the default 4 MiB chunks.
        folder = self.scratch / "big"
        folder.mkdir()
        jpeg1, jpeg2 = self.jpegs
        count = max(1, self.big_mib // 4)
        lines = ["date,shrine,photo"]
        for i in range(count):
            head = jpeg1 if i % 2 == 0 else jpeg2
            name = "IMG_%04d.jpg" % (i + 1)
            with open(folder / name, "wb") as out:
                out.write(head)
                out.write(os.urandom(4 * 1048576 - len(head)))
            lines.append("2026-%02d-%02d,Shrine %d,%s" % (i % 12 + 1, i % 28 + 1, i + 1, name))
        (folder / "records.csv").write_text("\n".join(lines) + "\n")
        self.big_count = count
        self.big = self.seal(folder, "big.goshuin", "--iterations", "1000")
        shutil.rmtree(folder)


# ---------------------------------------------------------------------------------------------------------


class Run:
    def __init__(self, only=(), repeat=1):
        self.passed = 0
        self.failed = 0
        self.failures = []
        self.only = only
        self.repeat = repeat

    def selected(self, name):
        """Whether the case `name` runs: every case, or those whose name contains one of the --only strings."""
        return not self.only or any(part in name for part in self.only)

    def case(self, name, body):
        if not self.selected(name):
            return
        for _ in range(self.repeat):
            started = time.time()
            try:
                body()
                self.passed += 1
                print("ok   %-62s %5.1f s" % (name, time.time() - started), flush=True)
            except Exception:
                self.failed += 1
                self.failures.append(name)
                print("FAIL %s\n%s" % (name, traceback.format_exc()), flush=True)


def browser_processes(root_pid):
    """The Chromium processes below root_pid (this Python process), from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
            parent = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(parent, []).append(int(entry))
        except (OSError, ValueError):
            continue
    found, stack = [], [root_pid]
    while stack:
        pid = stack.pop()
        for child in children.get(pid, []):
            stack.append(child)
            try:
                exe = os.readlink("/proc/%d/exe" % child)
            except OSError:
                continue
            if "chromium" in os.path.basename(exe) or "/chromium/" in exe:
                found.append(child)
    return found


def memory(pids):
    """(RSS, PSS) summed over pids, in bytes. RSS counts pages shared between the processes (the Chromium
    binary, fonts) once per process; PSS shares them out, so its sum is what the browser really uses."""
    rss = pss = 0
    for pid in pids:
        try:
            with open("/proc/%d/status" % pid) as f:
                rss += sum(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))
            with open("/proc/%d/smaps_rollup" % pid) as f:
                pss += sum(int(line.split()[1]) * 1024 for line in f if line.startswith("Pss:"))
        except OSError:
            pass
    return rss, pss


class MemorySampler(threading.Thread):
    """The peak of the browser processes' summed RSS and PSS, sampled every 250 ms."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak_rss = self.peak_pss = 0
        self.samples = 0
        self.running = True

    def run(self):
        while self.running:
            rss, pss = memory(browser_processes(os.getpid()))
            self.peak_rss = max(self.peak_rss, rss)
            self.peak_pss = max(self.peak_pss, pss)
            self.samples += 1
            time.sleep(0.25)

    def stop(self):
        self.running = False
        self.join()


class PageSession:
    """A fresh context and page with the page loaded from file://, every request recorded."""

    def __init__(self, browser, downloads):
        self.context = browser.new_context(accept_downloads=True, viewport={"width": 1100, "height": 900})
        self.page = self.context.new_page()
        self.requests = []
        self.errors = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.downloads = downloads
        self.page.goto(PAGE_URI)

    def open(self, path, passphrase=PASSPHRASE, keyboard=False, timeout=180000):
        page = self.page
        page.set_input_files("#backup-file", str(path))
        if keyboard:
            page.focus("#backup-file")
            page.keyboard.press("Tab")
            assert page.evaluate("() => document.activeElement.id") == "passphrase", "Tab from the file input reaches the passphrase"
            page.keyboard.type(passphrase)
            page.keyboard.press("Enter")
        else:
            page.fill("#passphrase", passphrase)
            page.click("#open")
        page.wait_for_selector("body[data-state=opened], body[data-state=failed]", timeout=timeout)
        return page.get_attribute("body", "data-state")

    def expect_failure(self, path, code, passphrase=PASSPHRASE):
        state = self.open(path, passphrase)
        alert = self.page.locator("[role=alert]")
        text = alert.inner_text()
        assert state == "failed", "state %s, alert %r" % (state, text)
        assert code in text, "expected %s in the alert, got %r" % (code, text)
        self.expect_nothing_shown()
        return text

    def expect_nothing_shown(self):
        page = self.page
        assert page.locator("#result").is_hidden(), "the result is visible"
        assert page.locator("#result *").count() == 0, "something from the backup is in the page"
        assert page.locator("table#records").count() == 0 and page.locator("#photos img").count() == 0

    def download(self, selector):
        with self.page.expect_download() as info:
            self.page.click(selector)
        download = info.value
        target = self.downloads / ("%d-%s" % (time.time_ns(), download.suggested_filename))
        download.save_as(target)
        return download.suggested_filename, target.read_bytes()

    def check_requests(self):
        assert self.requests, "no request was recorded at all (the page itself should be one)"
        others = [url for url in self.requests if not url.startswith(ALLOWED_SCHEMES)]
        assert not others, "requests other than file:, blob:, data: %r" % others
        assert not self.errors, "errors in the page: %r" % self.errors

    def close(self):
        self.context.close()


def unzip(data):
    """The files of a ZIP the page saved, checked by Python's zipfile (CRCs included)."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None
    return {info.filename: archive.read(info) for info in archive.infolist()}


def table_rows(page):
    return page.evaluate(
        """() => ({
      head: [...document.querySelectorAll('table#records thead tr')].map(r => [...r.cells].map(c => c.textContent)),
      body: [...document.querySelectorAll('table#records tbody tr')].map(r => [...r.cells].map(c => c.textContent)),
      elementsInCells: document.querySelectorAll('table#records td *, table#records th *').length,
    })"""
    )


# Records every state of the status line and the progress bar as the page paints it (a MutationObserver's
# callback runs before the next paint): window.statusLog = [{text, shown}].
STATUS_RECORDER = """() => {
  window.statusLog = [];
  const text = document.getElementById('status-text');
  const bar = document.getElementById('progress');
  const note = () => window.statusLog.push({ text: text.textContent, shown: !bar.hidden });
  const observer = new MutationObserver(note);
  observer.observe(text, { childList: true, characterData: true, subtree: true });
  observer.observe(bar, { attributes: true, attributeFilter: ['hidden'] });
}"""


def zip_groups(files, limit):
    """The names in each ZIP of a save in parts, as the page splits them (GoshuinCore.splitForZips over the
    backup's files in their order: manifest.json, records.csv, the photos by name): a file starts a new part
    when the part's data would pass `limit` bytes."""
    order = ["manifest.json", "records.csv"] + sorted((n for n in files if n not in ("manifest.json", "records.csv")), key=str.encode)
    groups, current, size = [], [], 0
    for name in order:
        if current and size + len(files[name]) > limit:
            groups.append(current)
            current, size = [], 0
        current.append(name)
        size += len(files[name])
    if current:
        groups.append(current)
    return groups


def wait_images_decoded(page, count, timeout=30000):
    page.wait_for_function(
        """(count) => { const imgs = [...document.querySelectorAll('#photos img')];
          return imgs.length === count && imgs.every(i => i.src && i.complete && i.naturalWidth > 0); }""",
        arg=count,
        timeout=timeout,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", default=os.environ.get("GOSHUIN_TOOL", str(REPOSITORY / ".build/debug/goshuin-tool")))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshot", default=None, help="where to save the screenshot of the opened page")
    parser.add_argument("--big-mib", type=int, default=1024, help="size of the large backup (0: skip that case)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--vectors", type=pathlib.Path, default=REPOSITORY / "KnownAnswer", help="the known-answer vectors")
    parser.add_argument("--only", action="append", default=[], metavar="SUBSTRING",
                        help="run only the cases whose name contains SUBSTRING (may be given more than once)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N", help="run every selected case N times (to hunt flaky cases)")
    args = parser.parse_args()
    tool = str(pathlib.Path(args.tool).resolve())
    if not os.access(tool, os.X_OK):
        sys.exit("goshuin-tool not found at %s (give --tool or GOSHUIN_TOOL)" % tool)

    scratch = pathlib.Path(tempfile.mkdtemp(prefix="goshuin-web-"))
    downloads = scratch / "downloads"
    downloads.mkdir()
    run = Run(args.only, max(1, args.repeat))
    try:
        with sync_playwright() as playwright:
            launch = dict(executable_path=args.chromium, headless=True)
            browser = playwright.chromium.launch(**launch)
            print("Chromium %s, Playwright, page %s" % (browser.version, PAGE_URI), flush=True)
            fixtures = Fixtures(tool, scratch, browser, args.big_mib)
            fixtures.make_small()
            fixtures.make_damaged()
            fixtures.make_hostile()
            fixtures.make_invalid_manifest()

            def opened_default():
                s = PageSession(browser, downloads)
                page = s.page
                page.set_input_files("#backup-file", str(fixtures.small))
                page.fill("#passphrase", PASSPHRASE)
                # Progress during the key derivation (600,000 iterations): every state of the status line and
                # the bar is recorded as the page paints it, so the check does not depend on when this
                # process looks (before the header is read, or after the derivation on a fast machine).
                page.evaluate(STATUS_RECORDER)
                page.click("#open")
                page.wait_for_function(
                    "() => window.statusLog.some((s) => s.shown && s.text.includes('600,000 rounds'))", timeout=30000
                )
                page.wait_for_selector("body[data-state=opened], body[data-state=failed]", timeout=180000)
                assert page.get_attribute("body", "data-state") == "opened", page.inner_text("[role=alert]")
                assert page.inner_text("[role=alert]") == ""
                rows = table_rows(page)
                assert rows["head"] == [["date", "shrine", "prefecture", "note"]], rows["head"]
                assert len(rows["body"]) == 5, rows["body"]
                assert rows["body"][1][1] == "Ōmiwa Jinja"
                assert rows["body"][2][3] == '1,000 torii, "senbon"', rows["body"][2]
                assert rows["body"][3][3] == "Torii <in the sea> & high tide", rows["body"][3]
                assert rows["body"][4][3] == "two lines:\nthe big shimenawa", rows["body"][4]
                assert rows["elementsInCells"] == 0
                alts = page.eval_on_selector_all("#photos img", "imgs => imgs.map(i => i.alt)")
                assert alts == sorted(fixtures.small_photos), alts
                wait_images_decoded(page, len(fixtures.small_photos))
                assert page.evaluate("() => document.activeElement.id") == "result-heading"
                assert page.input_value("#passphrase") == "", "the passphrase field is cleared after opening"
                if args.screenshot:
                    page.evaluate("() => document.activeElement.blur()")
                    page.screenshot(path=args.screenshot, full_page=True)
                # Saving: records.csv, one photo, everything as a ZIP (with progress).
                name, data = s.download("#save-records")
                assert name == "records.csv" and data == fixtures.small_records
                name, data = s.download('button[aria-label="Save IMG_0002.png"]')
                assert name == "IMG_0002.png" and data == fixtures.small_photos["IMG_0002.png"]
                # Everything as a ZIP where the File System Access API is missing (Firefox, Safari): a
                # download built in memory, in parts of at most GoshuinCore.limits.zipPart bytes.
                page.evaluate("() => { delete Window.prototype.showSaveFilePicker; delete window.showSaveFilePicker; }")
                name, data = s.download("#save-zip")
                assert name == "goshuin-backup-20260820-183000.zip", name
                assert unzip(data) == fixtures.small_files
                assert "Saved 8 files as a ZIP" in page.inner_text("#status-text"), page.inner_text("#status-text")
                part_limit = 8000
                page.evaluate("(limit) => { GoshuinCore.limits.zipPart = limit; }", part_limit)
                groups = zip_groups(fixtures.small_files, part_limit)
                assert len(groups) >= 3, "the fixture's files make only %d parts of %d bytes" % (len(groups), part_limit)
                parts = []
                on_download = lambda download: parts.append(download)
                page.on("download", on_download)
                page.click("#save-zip")
                page.wait_for_function("() => document.getElementById('status-text').textContent.includes('ZIPs')", timeout=30000)
                status = page.inner_text("#status-text")
                assert "Saved 8 files as %d ZIPs" % len(groups) in status, status
                # The page has started every download when it says so; the browser reports them one by one,
                # each some time later (seconds on a loaded machine). Wait for all of them, not for some.
                deadline = time.time() + 60
                while len(parts) < len(groups) and time.time() < deadline:
                    page.wait_for_timeout(100)
                expected = ["goshuin-backup-20260820-183000-part%d-of-%d.zip" % (k + 1, len(groups)) for k in range(len(groups))]
                got = {}
                for download in parts:
                    assert download.suggested_filename not in got, "%s downloaded twice" % download.suggested_filename
                    got[download.suggested_filename] = unzip(pathlib.Path(download.path()).read_bytes())
                page.remove_listener("download", on_download)
                assert sorted(got) == expected, sorted(got)
                for k, group in enumerate(groups):
                    assert got[expected[k]] == {name: fixtures.small_files[name] for name in group}, (expected[k], sorted(got[expected[k]]))
                # Chrome and Edge: the ZIP streams into a file, and everything goes into a folder. No
                # automation can answer the browser's file and folder pickers, so recording stand-ins for the
                # handles they return take their place; what the page writes is real.
                page.evaluate(FOLDER_STAND_IN)
                page.click("#save-zip")
                page.wait_for_function("() => document.getElementById('status-text').textContent.includes('Saved 8 files as goshuin-backup')", timeout=30000)
                assert unzip(bytes.fromhex(page.evaluate("() => window.savedFile()"))) == fixtures.small_files
                for folder in ("goshuin-backup-20260820-183000", "goshuin-backup-20260820-183000-2"):
                    page.click("#save-folder")
                    page.wait_for_function(
                        "(name) => document.getElementById('status-text').textContent.includes('into the folder ' + name + '.')",
                        arg=folder,
                        timeout=30000,
                    )
                    written = page.evaluate("(name) => window.pickedFolder(name)", folder)
                    assert {k: bytes.fromhex(v) for k, v in written.items()} == fixtures.small_files, sorted(written)
                s.check_requests()
                s.close()

            run.case("a backup sealed by goshuin-tool at 600,000 iterations opens", opened_default)

            def keyboard_only():
                s = PageSession(browser, downloads)
                page = s.page
                assert page.get_attribute("#backup-file", "type") == "file"
                assert page.get_attribute("#passphrase", "type") == "password"
                for control in ("backup-file", "passphrase"):
                    assert page.locator('label[for="%s"]' % control).count() == 1, control
                assert page.locator("button#open").inner_text() == "Open"
                state = s.open(fixtures.small, keyboard=True)
                assert state == "opened", page.inner_text("[role=alert]")
                # From the focused heading, Tab reaches the save buttons; Enter on "Save records.csv" saves.
                for _ in range(6):
                    page.keyboard.press("Tab")
                    if page.evaluate("() => document.activeElement.id") == "save-records":
                        break
                assert page.evaluate("() => document.activeElement.id") == "save-records"
                with page.expect_download() as info:
                    page.keyboard.press("Enter")
                assert info.value.suggested_filename == "records.csv"
                s.check_requests()
                s.close()

            run.case("keyboard alone: Tab, type, Enter; labels on the inputs", keyboard_only)

            def failing(path, code, passphrase=PASSPHRASE, check=None):
                def body():
                    s = PageSession(browser, downloads)
                    text = s.expect_failure(path, code, passphrase)
                    if check:
                        check(s, text)
                    s.check_requests()
                    s.close()

                return body

            def wrong_passphrase_check(s, text):
                assert s.page.evaluate("() => document.activeElement.id") == "passphrase", "focus returns to the passphrase"
                assert "passphrase is wrong" in text

            run.case("a wrong passphrase: auth_failed", failing(fixtures.small, "auth_failed", PASSPHRASE.strip(), wrong_passphrase_check))
            def damaged_check(s, text):
                assert "(chunk 5)" in text, text

            run.case("a damaged chunk: chunk_damaged (chunk 5)", failing(fixtures.damaged, "chunk_damaged", check=damaged_check))

            def unsafe_check(s, text):
                assert "<img src=x onerror=" in text, text
                assert s.page.locator("[role=alert] img").count() == 0, "the name became HTML"
                assert s.page.title() == "Open a goshuin backup"

            run.case("an unsafe entry name (HTML in it): unsafe_entry_name, shown as text", failing(fixtures.unsafe, "unsafe_entry_name", check=unsafe_check))
            run.case("a lying manifest: manifest_mismatch", failing(fixtures.lying, "manifest_mismatch"))
            run.case("a truncated file: truncated", failing(fixtures.truncated, "truncated"))
            run.case("an invalid manifest.json: manifest_invalid", failing(fixtures.invalid_manifest, "manifest_invalid"))

            def first_damaged_chunk(s, text):
                assert "(chunk 1)" in text, text
                assert "manifest_invalid" not in text, text

            run.case(
                "an invalid manifest.json and a damaged chunk 1: chunk_damaged (chunk 1), §4.1 step 0",
                failing(fixtures.invalid_manifest_damaged, "chunk_damaged", check=first_damaged_chunk),
            )

            def not_a_backup():
                s = PageSession(browser, downloads)
                s.expect_failure(WEB / "goshuin-open.html", "bad_magic")
                s.check_requests()
                s.close()

            run.case("a file that is not a backup: bad_magic", not_a_backup)

            def html_in_records():
                s = PageSession(browser, downloads)
                page = s.page
                assert s.open(fixtures.html) == "opened", page.inner_text("[role=alert]")
                rows = table_rows(page)
                assert rows["body"][0][1] == '<img src=x onerror="document.title=2"> <b>not bold</b>', rows
                assert rows["elementsInCells"] == 0 and page.title() == "Open a goshuin backup"
                assert page.eval_on_selector_all("#photos img", "imgs => imgs.map(i => i.alt)") == ["IMG_0001.jpg", "IMG_0002.png"]
                wait_images_decoded(page, 2)
                s.check_requests()
                s.close()

            run.case("HTML in records is text", html_in_records)
            def upper_case_extensions():
                s = PageSession(browser, downloads)
                page = s.page
                assert s.open(fixtures.upper) == "opened", page.inner_text("[role=alert]")
                names = page.eval_on_selector_all("#photos img", "imgs => imgs.map(i => i.alt)")
                assert names == ["IMG_0001.JPG", "IMG_0002.Png", "IMG_0003.hEiC"], names
                wait_images_decoded(page, 3)  # PNG bytes under every name: Chromium decodes them by content
                s.check_requests()
                s.close()

            run.case("photo extensions in upper and mixed case (IMG_0001.JPG): opened, shown", upper_case_extensions)

            def hostile_suite():
                # The ZIPs of Web/test/archive-cases.mjs (the shared corpus Tests/ArchiveCorpus and the cases
                # the spec leaves open), sealed by vectors.mjs, opened here by the page's code in Chromium
                # (whose DecompressionStream refuses bytes after the deflate data itself).
                cases_dir = scratch / "cases"
                subprocess.run(["node", str(HERE / "vectors.mjs"), "--write-cases", str(cases_dir)], check=True, stdout=subprocess.DEVNULL)
                index = json.loads((cases_dir / "cases.json").read_text())
                s = PageSession(browser, downloads)
                assert s.page.evaluate("() => GoshuinCore.inflateRefusesTrailingBytes()") is True
                wrong = []
                for case in index["cases"]:
                    got = s.page.evaluate(
                        """async ([base64, passphrase]) => {
                          const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
                          try {
                            await GoshuinCore.openBackup(GoshuinCore.bytesSource(bytes), new TextEncoder().encode(passphrase));
                            return 'success';
                          } catch (error) { return error.code || String(error); }
                        }""",
                        [base64.b64encode((cases_dir / case["file"]).read_bytes()).decode("ascii"), index["passphrase"]],
                    )
                    if got != case["code"]:
                        wrong.append("%s: got %s, expected %s" % (case["name"], got, case["code"]))
                assert len(index["cases"]) > 100, "too few cases"
                assert not wrong, "\n".join(wrong)
                print("     %d hostile-ZIP cases in Chromium" % len(index["cases"]), flush=True)
                s.check_requests()
                s.close()

            run.case("the hostile-ZIP suite of vectors.mjs, in Chromium", hostile_suite)

            def known_answer():
                # Every committed vector read through File.slice, as the page reads a picked file.
                s = PageSession(browser, downloads)
                wrong = []
                vectors = sorted(args.vectors.glob("*.json"))
                for path in vectors:
                    vector = json.loads(path.read_text())
                    s.page.set_input_files("#backup-file", str(path.parent / vector["file"]))
                    passphrase = vector.get("passphraseHex") or vector["passphrase"].encode().hex()
                    got = s.page.evaluate(
                        """async (passphraseHex) => {
                          const secret = new Uint8Array(passphraseHex.match(/../g).map((h) => parseInt(h, 16)));
                          const file = document.getElementById('backup-file').files[0];
                          const hash = new GoshuinCore.Sha256();
                          try {
                            const reader = await GoshuinCore.openContainer(GoshuinCore.blobSource(file), secret);
                            for (let i = 0; i < reader.header.chunkCount; i++) hash.update(await reader.chunk(i));
                            return { code: 'success', sha256: GoshuinCore.toHex(hash.digest()) };
                          } catch (error) {
                            return { code: error.code || String(error), chunkIndex: error.chunkIndex === undefined ? null : error.chunkIndex,
                                     released: GoshuinCore.toHex(hash.digest()) };
                          }
                        }""",
                        passphrase,
                    )
                    want = {"code": vector["expect"]}
                    if vector["expect"] == "success":
                        want["sha256"] = vector["plaintextSha256"]
                    else:
                        want["chunkIndex"] = vector.get("chunkIndex")
                        want["released"] = vector["releasedSha256"]
                    if got != want:
                        wrong.append("%s: got %r, expected %r" % (vector["name"], got, want))
                assert len(vectors) > 50, "too few vectors in %s" % args.vectors
                assert not wrong, "\n".join(wrong)
                print("     %d known-answer vectors in Chromium" % len(vectors), flush=True)
                s.check_requests()
                s.close()

            run.case("the known-answer vectors, in Chromium", known_answer)

            def reopen_clears():
                s = PageSession(browser, downloads)
                assert s.open(fixtures.html) == "opened"
                s.expect_failure(fixtures.lying, "manifest_mismatch")
                s.check_requests()
                s.close()

            run.case("opening a bad backup after a good one leaves nothing of the first", reopen_clears)
            browser.close()

            big_name = "a %d MiB backup: Stop while checking; then it opens with the browser's memory flat" % args.big_mib
            if args.big_mib > 0 and run.selected(big_name):
                fixtures.make_big()

                def big():
                    size = fixtures.big.stat().st_size
                    browser = playwright.chromium.launch(**launch)
                    s = PageSession(browser, downloads)
                    page = s.page
                    # Stop, while every file is being checked: nothing is shown.
                    page.set_input_files("#backup-file", str(fixtures.big))
                    page.fill("#passphrase", PASSPHRASE)
                    page.click("#open")
                    page.wait_for_function("() => document.getElementById('status-text').textContent.includes('Checking every file')", timeout=60000)
                    page.click("#cancel")
                    page.wait_for_selector("body[data-state=failed]", timeout=30000)
                    assert "interrupted" in page.inner_text("[role=alert]")
                    s.expect_nothing_shown()
                    page.reload()
                    time.sleep(0.5)
                    base_rss, base_pss = memory(browser_processes(os.getpid()))
                    sampler = MemorySampler()
                    sampler.start()
                    started = time.time()
                    state = s.open(fixtures.big, timeout=600000)
                    opened_in = time.time() - started
                    assert state == "opened", page.inner_text("[role=alert]")
                    assert len(table_rows(page)["body"]) == fixtures.big_count
                    assert page.locator("#photos img").count() == fixtures.big_count
                    # Scroll through the whole grid: photos near the screen are decrypted, checked and shown,
                    # the ones far behind are released.
                    height = page.evaluate("() => document.body.scrollHeight")
                    for y in range(0, height, 700):
                        page.evaluate("(y) => window.scrollTo(0, y)", y)
                        time.sleep(0.12)
                    page.wait_for_function(
                        """() => { const last = [...document.querySelectorAll('#photos img')].pop();
                          return last.src !== '' && last.complete && last.naturalWidth > 0; }""",
                        timeout=60000,
                    )
                    held = page.evaluate("() => [...document.querySelectorAll('#photos img')].filter(i => i.src).length")
                    time.sleep(1)
                    sampler.stop()
                    mib = lambda n: n / 1048576
                    print(
                        "     backup %.0f MiB opened in %.1f s; browser processes, before opening -> peak: RSS %.0f -> %.0f MiB, PSS %.0f -> %.0f MiB; %d of %d photos held after scrolling"
                        % (mib(size), opened_in, mib(base_rss), mib(sampler.peak_rss), mib(base_pss), mib(sampler.peak_pss), held, fixtures.big_count),
                        flush=True,
                    )
                    assert sampler.samples > 10, "too few memory samples"
                    # Holding the backup would take more than its size; flat memory stays well under half of it.
                    assert sampler.peak_rss - base_rss < size / 2, "the browser's RSS grew by %.0f MiB" % mib(sampler.peak_rss - base_rss)
                    assert sampler.peak_pss - base_pss < size / 2, "the browser's PSS grew by %.0f MiB" % mib(sampler.peak_pss - base_pss)
                    assert held < fixtures.big_count, "every photo is still held"
                    s.check_requests()
                    s.close()
                    browser.close()

                run.case(big_name, big)
    finally:
        if args.keep:
            print("scratch kept in %s" % scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    if run.failures:
        print("failed: %s" % "; ".join(run.failures))
    print("web-browser: %d passed, %d failed" % (run.passed, run.failed))
    sys.exit(1 if run.failed else 0)


if __name__ == "__main__":
    main()
